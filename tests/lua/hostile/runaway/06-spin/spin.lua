local n = 0
while true do n = n + 1 end
return { id = "spin", source = "spin.cu", hints = { "a", "b" }, run = function(t) end }
