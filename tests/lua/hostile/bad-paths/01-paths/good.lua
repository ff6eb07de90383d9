return {
  id = "good",
  title = "The one sound exercise",
  source = "good.cu",
  hints = { "one", "two" },
  run = function(t) end,
}
