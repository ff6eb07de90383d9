return {
  id = "up-source",
  title = "Reads above the chapter",
  source = "../../x",
  hints = { "one", "two" },
  run = function(t) end,
}
