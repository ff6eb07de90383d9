-- requires a module that is a symlink to /etc/passwd
local secrets = require("passwd")
return { id = "require-link", source = "good.cu", hints = { "a", "b" }, run = function(t) end }
