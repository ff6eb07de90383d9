-- inline-polar: a helper with two results through pointers. Marked
-- __noinline__ its outputs live on the stack (local memory); inlined they do
-- not. Correctness on 20011 points in all four quadrants, then the target:
-- 0 bytes of local memory (ptxas's figure, or the emulator's local requests).
return {
  id = "inline-polar",
  title = "__forceinline__ vs __noinline__",
  title_zh = "__forceinline__ 与 __noinline__",
  source = "inline-polar.cu",
  solution = "solutions/inline-polar.cu",
  wrong = {
    "solutions/wrong/inline-polar-atan2-order.cu",
  },
  hints = {
    "A function that is really called (not inlined) receives &rr and &tt as addresses, "
      .. "and a register has no address: the compiler must put rr and tt in memory, on "
      .. "the thread's stack.",
    "Replace __noinline__ with __forceinline__. Inlined, *r = ... is just rr = ..., and "
      .. "the stack frame goes away.",
  },
  hints_zh = {
    "真正被调用（没有内联）的函数收到的是 &rr 和 &tt 这两个地址，而寄存器没有地址：编译器只好把 rr 和 tt 放进内存，也就是线程的栈上。",
    "把 __noinline__ 换成 __forceinline__。内联之后，*r = ... 就只是 rr = ...，栈帧随之消失。",
  },
  run = function(t)
    local n = t:param("n", 20011)
    local x = gpu.array("f32", n, "x"):random{ lo = -10, hi = 10, seed = 91 }
    local y = gpu.array("f32", n, "y"):random{ lo = -10, hi = 10, seed = 92 }
    local r = gpu.array("f32", n, "r")
    local theta = gpu.array("f32", n, "theta")
    local k = t:kernel("to_polar")
    k:launch{ grid = (n + 255) // 256, block = 256, args = { x, y, r, theta, gpu.i32(n) } }

    local want_r = ref.map(x, function(v, i) return math.sqrt(v * v + y[i] * y[i]) end, "f32")
    local want_t = ref.map(x, function(v, i) return math.atan(y[i], v) end, "f32")
    local ok = t:expect_close(r, want_r, { rel = 1e-5, abs = 1e-5, name = "r" })
    ok = t:expect_close(theta, want_t, { rel = 1e-5, abs = 1e-5, name = "theta" }) and ok
    if not ok then return end

    local local_bytes = k.local_bytes
    if local_bytes then
      t:log("local memory per thread: %d bytes (target: 0); registers: %s",
            local_bytes, tostring(k.registers))
      t:expect(local_bytes == 0, string.format("the kernel uses %d bytes of local memory per "
        .. "thread: the outputs of a called (not inlined) helper live on the stack", local_bytes))
    else
      local m = t:emu_metrics()
      if m and m.local_requests then
        t:log("local-memory requests: %d (target: 0)", m.local_requests)
        t:expect(m.local_requests == 0, string.format("%d local-memory requests: the outputs "
          .. "of a called (not inlined) helper live on the stack", m.local_requests))
      end
    end
  end,
}
