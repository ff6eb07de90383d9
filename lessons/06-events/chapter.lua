-- Chapter 6: CUDA events. Timing a kernel correctly (warm-up, events
-- queued around the launch, waiting before reading the time), why host
-- timers lie about asynchronous work, and keeping the CPU busy while the
-- GPU works (cuda-samples' asyncAPI). Each exercise is a whole CUDA
-- program (kind = "program"): its calls, timeline and output are checked
-- with the built-in `hostcheck` (lua/prelude/hostcheck.lua).
return {
  id = "events",
  title = "Events: timing the GPU, and not waiting for it",
  title_zh = "事件：为 GPU 计时，以及不必干等 GPU",
  order = 6,
  exercises = { "time-kernel", "host-timer", "async-overlap", "stream-events" },
}
