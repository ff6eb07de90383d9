return {
  id = "bashrc",
  title = "Lands in $HOME",
  source = "bashrc.cu",
  hints = { "one", "two" },
  run = function(t) end,
}
