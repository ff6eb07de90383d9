-- Chapter 18: SGEMM from the naive kernel to near-cuBLAS, one exercise per
-- step: coalescing, shared-memory tiles, 1D and 2D register tiling, float4
-- loads, warp tiles, double buffering. Each starter is the previous step's
-- solution with a TODO. The emulator checks each step's proxy (sectors per
-- request, shared requests per multiply-add, bank conflicts, barriers); a GPU
-- times 4096^3 against TFLOP/s targets set on an H200, where cublasSgemm
-- (FP32) ran at 51.4 TFLOP/s (2026-12-01). The targets are in the STEP table
-- at the top of each exercise file (an exercise cannot read this file), with
-- the measurements they come from; bench/anchors.cu runs every step beside
-- cublasSgemm in one process. What every step checks and times the same
-- way (the sizes, the CPU check, the timing, cuBLAS's rate, the launches
-- steps share) is written once in lib/matmul_common.lua, which each
-- exercise requires.
return {
  id = "matmul",
  title = "Matrix multiply: from naive to near-cuBLAS",
  title_zh = "矩阵乘法：从朴素实现到接近 cuBLAS",
  order = 18,
  exercises = {
    "matmul-naive", "matmul-coalesced", "matmul-smem", "matmul-regs-1d",
    "matmul-regs-2d", "matmul-float4", "matmul-warptile", "matmul-double-buffer",
  },
}
