-- requires a module named with a path out of the chapter
local secrets = require("../../../../etc/passwd")
return { id = "require-up", source = "good.cu", hints = { "a", "b" }, run = function(t) end }
