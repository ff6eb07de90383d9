-- The chapter fuzz_worker's well-formed requests run (tests/fuzz/fuzz_worker.c).
return { id = "fuzz", title = "Fuzz", order = 1, exercises = { "fuzz-add" } }
