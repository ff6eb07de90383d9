-- Chapter 10: below the block. Atomics (a histogram, then privatised in shared
-- memory), warp shuffles (reduction), votes (stream compaction with
-- __ballot_sync/__popc), scans from warp scans to a whole array, and the same
-- again written with cooperative groups.
return {
  id = "warp-level",
  title = "Atomics and warp-level programming",
  title_zh = "原子操作与 warp 级编程",
  order = 10,
  exercises = { "histogram", "warp-reduce", "compact-ballot", "block-scan", "scan-array", "cg-scan" },
}
