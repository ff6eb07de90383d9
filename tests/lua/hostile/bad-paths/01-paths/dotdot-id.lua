return {
  id = "..",
  title = "An id that is a parent folder",
  source = "good.cu",
  hints = { "one", "two" },
  run = function(t) end,
}
