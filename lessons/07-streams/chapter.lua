-- Chapter 7: streams. Pinned vs pageable host memory, chunked copy/compute
-- overlap across streams, and the legacy default stream that serialises
-- everything; the timeline is the feedback. Each exercise is a whole CUDA
-- program (kind = "program"), checked by hostcheck.pipeline
-- (lua/prelude/hostcheck.lua).
return {
  id = "streams",
  title = "Streams: copies and kernels side by side",
  title_zh = "流：让拷贝和核函数并排运行",
  order = 7,
  exercises = { "pinned-memory", "chunked-overlap", "default-stream", "nonblocking-streams" },
}
