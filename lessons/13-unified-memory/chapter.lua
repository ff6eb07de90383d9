-- Chapter 13: unified memory. cudaMallocManaged and the page faults it
-- hides, cudaMemPrefetchAsync, cudaMemAdvise (read-mostly) and mapped
-- pinned memory (zero copy). Each exercise is a whole CUDA program (kind =
-- "program"); the checks read r.um, the page faults and migrations the
-- program caused (the emulator runtime's page model, CUPTI's unified-memory
-- counters on a GPU: lua/API.md), its call trace and its printed sums.
return {
  id = "unified-memory",
  title = "Unified memory: page faults, prefetch, advice, zero copy",
  title_zh = "统一内存：缺页、预取、内存建议与零拷贝",
  order = 13,
  exercises = { "managed-basics", "prefetch", "read-mostly", "zero-copy", "um-perf" },
}
