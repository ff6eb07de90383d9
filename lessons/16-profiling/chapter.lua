-- Chapter 16: profiling. Read a timeline, find the occupancy limiter, tell
-- achieved from theoretical occupancy, hunt a hot spot. The learner
-- predicts first (a #define PREDICT... in the program, printed as
-- "PREDICT: ..."), and the check compares the prediction with the
-- measurement: the timeline (modeled on the emulator, CUPTI's on a GPU),
-- the kernels' resources (r.kernels) and the emulator's memory counters.
return {
  id = "profiling",
  title = "Profiling: measure, then fix",
  title_zh = "性能分析：先测量，再修改",
  order = 16,
  exercises = { "dominant-kernel", "occupancy-limiter", "few-blocks", "hot-spot" },
}
