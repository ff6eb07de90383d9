-- Chapter 3: where data lives. Device allocations and copies, pinned and
-- managed host memory (in the text), coalesced global access, vector loads,
-- __constant__ memory, and registers versus local memory.
return {
  id = "memory",
  title = "The memory hierarchy",
  title_zh = "内存层次结构",
  order = 3,
  exercises = { "coalescing", "aos-to-soa", "constant-poly", "median-5" },
}
