-- A pcall loop hung every command (>= 60 s) before the budget was uncatchable.
while true do
  pcall(function() while true do end end)
end
return { id = "pcall-loop", order = 1, exercises = {} }
