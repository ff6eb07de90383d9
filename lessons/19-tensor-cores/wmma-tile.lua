-- wmma-tile: one 16 x 16 x 16 tile on the tensor cores with nvcuda::wmma.
-- Inputs are multiples of 1/4 in [-4, 4), exact in half precision, so every
-- sum is exact and C must equal the CPU's product bit for bit.
local wmma = require("wmma_common")   -- inputs exact in half precision

return {
  id = "wmma-tile",
  title = "One tile on the tensor cores",
  title_zh = "张量核心上的一个分块",
  source = "wmma-tile.cu",
  solution = "solutions/wmma-tile.cu",
  wrong = {
    "solutions/wrong/wmma-tile-col-major-b.cu",
    "solutions/wrong/wmma-tile-store-ld8.cu",
  },
  hints = {
    "Three fragments: matrix_a and matrix_b with the shape 16, 16, 16, the element type __half "
      .. "and the layout of the data in memory (row_major here), and an accumulator of float.",
    "wmma::fill_fragment(acc, 0.0f); wmma::load_matrix_sync(fa, a, 16); "
      .. "wmma::load_matrix_sync(fb, b, 16); wmma::mma_sync(acc, fa, fb, acc); "
      .. "wmma::store_matrix_sync(C, acc, 16, wmma::mem_row_major);",
  },
  hints_zh = {
    "需要三个 fragment：matrix_a 和 matrix_b，形状 16, 16, 16，元素类型 __half，"
      .. "布局写数据在内存里的排列（这里是 row_major）；再加一个 float 的 accumulator。",
    "wmma::fill_fragment(acc, 0.0f); wmma::load_matrix_sync(fa, a, 16); "
      .. "wmma::load_matrix_sync(fb, b, 16); wmma::mma_sync(acc, fa, fb, acc); "
      .. "wmma::store_matrix_sync(C, acc, 16, wmma::mem_row_major);",
  },
  hint_for = { ["wrong-result"] = 2 },
  -- verify --mutants: wrong mutants the emulator cannot catch (its blind spots)
  mutants_undetected = {
    { mutation = "drop __syncwarp()", line = "__syncwarp();",
      why = "needed: wmma.load's .sync only waits for the warp's lanes to arrive (PTX ISA); unlike "
        .. "bar.warp.sync it orders no memory, so without __syncwarp a lane's load need not see the "
        .. "halves other lanes stored to a and b. The emulator runs a warp's lanes in lockstep, so the "
        .. "values are right anyway; it reports the hazard (race-warp at the two load_matrix_sync "
        .. "lines), but as a warning, which does not fail a run, and a kernel exercise's checks cannot "
        .. "see the findings" },
  },
  run = function(t)
    local A = gpu.array("f32", { 16, 16 }, "A"):random{ lo = -4, hi = 4, step = 0.25, seed = t:seed(191) }
    local B = gpu.array("f32", { 16, 16 }, "B"):random{ lo = -4, hi = 4, step = 0.25, seed = t:seed(192) }
    local C = gpu.array("f32", { 16, 16 }, "C")
    t:kernel("wmma_tile"):launch{ grid = 1, block = 32, args = { A, B, C } }
    t:expect_equal(C, ref.matmul(A, B), { name = "C = A * B (16 x 16)" })
  end,
}
