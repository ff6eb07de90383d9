-- Every exercise here names a file outside the chapter folder.
return {
  id = "paths",
  title = "Paths out of the pack",
  order = 1,
  exercises = { "abs-solution", "up-source", "link-out", "dotdot-id", "../../escape", "link-lua", "require-up", "require-link", "good" },
}
