-- Chapter 19: tensor cores. nvcuda::wmma on one 16x16 tile, a whole GEMM,
-- what half-precision inputs cost in accuracy (measured against FP32), and
-- how much faster than the SIMT SGEMM of chapter 11 it runs. Needs sm_70+
-- (the course compiles for compute_80, which the emulator runs too).
return {
  id = "tensor-cores",
  title = "Tensor cores: matrix multiply in hardware",
  title_zh = "张量核心：硬件里的矩阵乘法",
  order = 19,
  exercises = { "wmma-tile", "wmma-gemm", "mixed-precision-error", "tensor-vs-simt" },
}
