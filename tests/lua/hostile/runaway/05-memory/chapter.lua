-- Grows the Lua heap without end.
local t = {}
for i = 1, 1e9 do t[i] = string.rep("x", 1000) .. i end
return { id = "memory", order = 5, exercises = {} }
