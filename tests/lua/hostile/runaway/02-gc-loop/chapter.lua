-- Lua runs __gc with hooks off: a looping finalizer escaped every limit.
setmetatable({}, { __gc = function() while true do end end })
return { id = "gc-loop", order = 2, exercises = {} }
