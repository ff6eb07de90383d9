-- zero-copy: the learner replaces a copy of a read-once input with mapped
-- pinned memory (cudaHostAlloc(..., cudaHostAllocMapped) and
-- cudaHostGetDevicePointer). Checks: the program allocates mapped host
-- memory and asks for its device pointer, nothing is copied to the device
-- (the timeline has no h2d entry), the values; the kernel's time, which now
-- includes reading x over the bus, is logged (modeled on the emulator:
-- kernels/emurt/README.md).

return {
  id = "zero-copy",
  kind = "program",
  timed = false,   -- no check reads a time: when grading on a GPU it runs beside other untimed work
  title = "Zero copy: the kernel reads host memory",
  title_zh = "零拷贝：核函数直接读主机内存",
  source = "zero-copy.cu",
  solution = "solutions/zero-copy.cu",
  wrong = {
    "solutions/wrong/zero-copy-malloc.cu",
    "solutions/wrong/zero-copy-pinned-copy.cu",
  },
  timeout = 60,
  hints = {
    "Only page-locked memory that is mapped into the GPU's address space can be read by a kernel: "
      .. "cudaHostAlloc(&h_x, bytes, cudaHostAllocMapped). malloc memory cannot.",
    "float *d_x_view; cudaCheck(cudaHostGetDevicePointer((void **)&d_x_view, h_x, 0)); launch "
      .. "scale(d_x_view, d_y, N), remove d_x and its cudaMemcpy, and free h_x with cudaFreeHost.",
  },
  hints_zh = {
    "只有映射进 GPU 地址空间的锁页内存才能被核函数读取：cudaHostAlloc(&h_x, bytes, cudaHostAllocMapped)。"
      .. "malloc 得到的内存不行。",
    "float *d_x_view; cudaCheck(cudaHostGetDevicePointer((void **)&d_x_view, h_x, 0)); 用 "
      .. "scale(d_x_view, d_y, N) 启动，删掉 d_x 和它的 cudaMemcpy，并用 cudaFreeHost 释放 h_x。",
  },
  -- verify --mutants: mutants of the solution that are still correct
  mutants_equivalent = {
    { mutation = "weaken guard < to <=", line = "if (i < n) y[i] = 2.0f * x[i];",
      why = "the program fixes its own size, N = 1048576, a whole number of 256-thread blocks: no thread is past the end, so this guard is never false (the kernel exercises are where tails are checked)" },
    { mutation = "drop guard", line = "if (i < n) y[i] = 2.0f * x[i];",
      why = "the program fixes its own size, N = 1048576, a whole number of 256-thread blocks: no thread is past the end, so this guard is never false (the kernel exercises are where tails are checked)" },
  },
  run = function(t)
    local on_gpu = t:device().backend == "cuda"
    local n = t:param("n", on_gpu and (1 << 24) or (1 << 20))
    local r = t:program{ defines = { N = n } }
    if r.exit_code ~= 0 then return hostcheck.expect_values(t, r, { hostcheck.ramp_sum(n) }) end
    local unit = on_gpu and "" or " (modeled)"
    if hostcheck.count(r, "cudaHostAlloc") == 0 then
      t:fail("the program makes no cudaHostAlloc: x must live in page-locked host memory mapped for the "
        .. "GPU (cudaHostAlloc(&h_x, bytes, cudaHostAllocMapped)) for the kernel to read it in place")
      return
    end
    if hostcheck.count(r, "cudaHostGetDevicePointer") == 0 then
      t:fail("the program never asks for the device's view of x (cudaHostGetDevicePointer): give the "
        .. "kernel the pointer it returns")
      return
    end
    local tl = t:timeline()
    local ins = hostcheck.entries(tl, "h2d")
    if #ins > 0 then
      t:fail(string.format("the program still copies %.1f MB to the device (%d copy in): with x mapped, "
        .. "the kernel reads it over the bus by itself. Remove d_x and its cudaMemcpy", ins[1].bytes / 1e6, #ins))
      return
    end
    local ks = hostcheck.entries(tl, "kernel")
    if #ks > 0 then
      t:log("the kernel, reading x over the bus, took %.1f us%s", ks[#ks].dur_us, unit)
    end
    hostcheck.expect_values(t, r, { hostcheck.ramp_sum(n) })
  end,
}
