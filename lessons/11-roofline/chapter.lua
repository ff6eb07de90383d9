-- Chapter 11: how far from the hardware's limit is a kernel? Arithmetic
-- intensity and the roofline, memory-bound (a polynomial of low degree) vs
-- compute-bound (register-tiled SGEMM), the measured peaks, and a reduction
-- optimised step by step up to the copy bandwidth.
return {
  id = "roofline",
  title = "The roofline: how fast can it be?",
  title_zh = "Roofline 模型：最快能有多快？",
  order = 11,
  exercises = { "intensity", "sgemm-tiled", "reduce-steps", "reduce-peak" },
}
