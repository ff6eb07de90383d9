-- The pattern matcher is C (no hook runs in it): 10^12 steps of backtracking.
local s = string.rep("a", 1000000)
local found = s:find(".-b")
return { id = "slow-pattern", order = 3, exercises = {} }
