-- Chapter 2: threads, blocks and grids in one, two and three dimensions;
-- the tail past the end of the data; grid-stride loops and the block size.
return {
  id = "threads",
  title = "Threads, blocks and grids",
  title_zh = "线程、线程块与网格",
  order = 2,
  exercises = { "past-the-end", "rgb-to-gray", "box-blur", "volume-3d", "block-size" },
}
