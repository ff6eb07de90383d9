-- print kept everything: 4 GB in 9 s.
local s = string.rep("x", 1 << 20)
while true do print(s) end
return { id = "print-flood", order = 4, exercises = {} }
