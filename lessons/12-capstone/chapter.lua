-- Chapter 12, the capstone: Monte Carlo pricing of a European and an Asian
-- option under geometric Brownian motion. A counter-based random number
-- generator (Philox-4x32-10) in the kernel, normal variates, one path per
-- thread, block reductions of the payoffs, checks against a CPU reference and
-- the Black-Scholes formula, and the speed-up over the CPU.
return {
  id = "capstone",
  title = "Capstone: Monte Carlo option pricing",
  title_zh = "综合项目：蒙特卡洛期权定价",
  order = 12,
  exercises = { "philox", "normals", "european", "asian" },
}
