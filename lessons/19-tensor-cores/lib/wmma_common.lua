-- lessons/19-tensor-cores/lib/wmma_common.lua: the inputs every exercise of
-- chapter 19 makes the same way, shared through
-- `local wmma = require("wmma_common")`: the half-precision copies of the
-- inputs, made by the given to_half kernel. The inputs themselves are
-- quarters (`random{ ..., step = 0.25 }`), exact in half precision, so
-- tensor-core sums are exact and C can be checked bit for bit.
local wmma = {}

-- Threads per block of the element-wise kernels (to_half, round_to_half):
-- 7 warps. The chapter's sizes make M * K and K * N multiples of 256, so
-- blocks of 256 would never meet the kernels' guard `i < n`; 224 leaves a
-- partial last block whose threads past n must not touch x or y.
wmma.BLOCK = 224

-- Half-precision copies of A and B ("A_half", "B_half", u16 bits) made by
-- the source's to_half kernel, in blocks of wmma.BLOCK.
function wmma.halves(t, A, B)
  local Ah, Bh = gpu.array("u16", #A, "A_half"), gpu.array("u16", #B, "B_half")
  local conv = t:kernel("to_half")
  conv:launch{ grid = (#A + wmma.BLOCK - 1) // wmma.BLOCK, block = wmma.BLOCK, args = { A, Ah, gpu.i32(#A) } }
  conv:launch{ grid = (#B + wmma.BLOCK - 1) // wmma.BLOCK, block = wmma.BLOCK, args = { B, Bh, gpu.i32(#B) } }
  return Ah, Bh
end

return wmma
