-- A sound chapter whose one exercise file spins while loading.
return { id = "spin", order = 6, exercises = { "spin" } }
