-- Grows the Lua heap without end.
local t = {}
for i = 1, 1e9 do t[i] = string.rep("x", 1000000) .. i end   -- 1 MB a step: past 64 MiB in well under its 2 s, even under load
return { id = "memory", order = 5, exercises = {} }
