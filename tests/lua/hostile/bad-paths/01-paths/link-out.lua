return {
  id = "link-out",
  title = "A starter that is a symlink to /etc/passwd",
  source = "link-out.cu",
  solution = "good.cu",
  hints = { "one", "two" },
  run = function(t) end,
}
