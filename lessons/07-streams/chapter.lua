-- Chapter 7: streams. Pinned vs pageable host memory, chunked copy/compute
-- overlap across streams, and the legacy default stream that serialises
-- everything; the timeline is the feedback. The host side is written in
-- host_main() with CUDA's own calls and replayed by the exercise (the same
-- replay block as chapter 6).
return {
  id = "streams",
  title = "Streams: copies and kernels side by side",
  title_zh = "流：让拷贝和核函数并排运行",
  order = 7,
  exercises = { "pinned-memory", "chunked-overlap", "default-stream", "nonblocking-streams" },
}
