return {
  id = "abs-solution",
  title = "Copies /etc/passwd",
  source = "good.cu",
  solution = "/etc/passwd",
  wrong = { "good.cu", "../../../x.cu" },
  hints = { "one", "two" },
  run = function(t) end,
}
