-- bug-copy-direction (bug hunt): the result is copied back with
-- cudaMemcpyHostToDevice into a pageable host buffer. The runtime treats
-- the destination as device memory, and a malloc'ed pointer is none:
-- cudaErrorInvalidValue, nothing is copied (the emulator runtime does what
-- NVIDIA's does here; a kind that contradicts the pointers is undefined
-- behaviour in the documentation, and with pinned memory the driver may
-- even accept it, so cudaMemcpyDefault is the safer habit). The program
-- does not check, so only its answer is wrong. Checks: every cudaMemcpy
-- returned cudaSuccess (named with its arguments when not), and the sum of
-- y against the CPU's.
return {
  id = "bug-copy-direction",
  kind = "program",
  timed = false,   -- no check reads a time: when grading on a GPU it runs beside other untimed work
  bug_hunt = true,
  bug = "wrong-result",                 -- what the starter shows on the emulator (verify checks it)
  title = "Bug hunt: the wrong copy direction",
  title_zh = "找虫：拷贝方向错了",
  source = "bug-copy-direction.cu",
  solution = "solutions/bug-copy-direction.cu",
  wrong = {
    "solutions/wrong/bug-copy-direction-swapped.cu",
    "solutions/wrong/bug-copy-direction-device-to-device.cu",
  },
  timeout = 60,
  hints = {
    "Look at the call list: one cudaMemcpy did not return cudaSuccess. Read its arguments as dst, src, bytes, kind.",
    "The result goes from the device (d_y) to the host (h_y): cudaMemcpy(h_y, d_y, bytes, cudaMemcpyDeviceToHost). Destination first, as in memcpy.",
  },
  hints_zh = {
    "看看调用列表：有一个 cudaMemcpy 没有返回 cudaSuccess。按 dst、src、字节数、方向 来读它的参数。",
    "结果从设备（d_y）到主机（h_y）：cudaMemcpy(h_y, d_y, bytes, cudaMemcpyDeviceToHost)。和 memcpy 一样，目标在前。",
  },
  run = function(t)
    local n = 1000
    local r = t:program{ defines = { N = n } }
    for _, c in ipairs(hostcheck.calls_of(r, "cudaMemcpy")) do
      if c.rc ~= 0 then
        t:fail(string.format("cudaMemcpy(%s) returned %s: the kind must match the pointers (the "
          .. "destination comes first, and the kind names the copy from the source's side to the "
          .. "destination's). Nothing was copied, and the program did not check", c.args or "",
          c.error or tostring(c.rc)))
        return
      end
    end
    hostcheck.expect_values(t, r, { hostcheck.ramp_sum(n) })
  end,
}
