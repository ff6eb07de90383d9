-- check-every-call: a cudaCheck macro. The program keeps its bug (d_x is
-- never allocated, so the first cudaMemcpy fails with
-- cudaErrorInvalidValue); the learner's checks must make it stop there.
-- Checks, from the call records, stderr and the exit status: a call failed
-- (the bug is still there), no CUDA work ran after it, the exit status is
-- not 0, and stderr names the failing call's line (found in the learner's
-- own source: the k-th call of that function in main), the call and the
-- error (cudaGetErrorString or cudaGetErrorName).

local QUERIES = { cudaGetErrorString = true, cudaGetErrorName = true, cudaGetLastError = true,
                  cudaPeekAtLastError = true, cudaDeviceReset = true }

-- the line of the k-th `fn(` in main() of the source, or nil
local function line_of_call(src, fn, k)
  local n, in_main, seen = 0, false, 0
  for line in (src .. "\n"):gmatch("([^\n]*)\n") do
    n = n + 1
    if line:find("int%s+main%s*%(") then in_main = true end
    local code = line:gsub("//.*$", "")
    if in_main and code:find(fn .. "%s*%(") then
      seen = seen + 1
      if seen == k then return n end
    end
  end
end

return {
  id = "check-every-call",
  kind = "program",
  timed = false,   -- no check reads a time: when grading on a GPU it runs beside other untimed work
  title = "Check every call: make a silent failure loud",
  title_zh = "检查每一次调用：让无声的失败发出声音",
  source = "check-every-call.cu",
  solution = "solutions/check-every-call.cu",
  wrong = {
    "solutions/wrong/check-every-call-some-calls.cu",
    "solutions/wrong/check-every-call-no-place.cu",
    "solutions/wrong/check-every-call-no-exit.cu",
  },
  timeout = 60,
  hints = {
    "Every runtime call returns a cudaError_t. A macro sees what a function cannot: __FILE__ and "
      .. "__LINE__ of the place it is used, and #call, the call's own text.",
    "#define cudaCheck(call) cuda_check((call), #call, __FILE__, __LINE__) with a cuda_check that, "
      .. "unless err == cudaSuccess, prints file:line, the text and cudaGetErrorString(err) to stderr "
      .. "and calls exit(EXIT_FAILURE). Then cudaCheck(cudaMalloc(...)), cudaCheck(cudaMemcpy(...)), "
      .. "and cudaCheck(cudaGetLastError()) after the launch.",
  },
  hints_zh = {
    "每个运行时调用都返回一个 cudaError_t。宏能看到函数看不到的东西：使用它的位置的 __FILE__ 和 "
      .. "__LINE__，以及 #call —— 调用本身的文本。",
    "#define cudaCheck(call) cuda_check((call), #call, __FILE__, __LINE__)，cuda_check 在 "
      .. "err != cudaSuccess 时把 文件:行号、调用文本和 cudaGetErrorString(err) 打印到 stderr，"
      .. "然后 exit(EXIT_FAILURE)。接着 cudaCheck(cudaMalloc(...))、cudaCheck(cudaMemcpy(...))，"
      .. "核函数启动之后 cudaCheck(cudaGetLastError())。",
  },
  -- verify --mutants: mutants of the solution that are still correct
  mutants_equivalent = {
    { mutation = "weaken guard < to <=", line = "if (i < n) y[i] = 2.0f * x[i];",
      why = "the program fixes its own size, N = 4096, a whole number of 256-thread blocks: no thread is past the end, so this guard is never false (the kernel exercises are where tails are checked)" },
    { mutation = "drop guard", line = "if (i < n) y[i] = 2.0f * x[i];",
      why = "the program fixes its own size, N = 4096, a whole number of 256-thread blocks: no thread is past the end, so this guard is never false (the kernel exercises are where tails are checked)" },
  },
  run = function(t)
    local r = t:program{ expect_errors = true }
    local calls = hostcheck.calls(r)
    local bad, kth = nil, 0
    for i, c in ipairs(calls) do
      if c.rc ~= 0 and not QUERIES[c.fn] then bad = i break end
    end
    if not bad then
      t:fail("no CUDA call failed: the bug (d_x is never allocated) is meant to stay in this program, "
        .. "so that your checks can catch it. Put it back and make the program report it")
      return
    end
    local c = calls[bad]
    for i = 1, bad do if calls[i].fn == c.fn then kth = kth + 1 end end
    local src = t:source()
    local line = line_of_call(src, c.fn, kth)
    for i = bad + 1, #calls do
      if not QUERIES[calls[i].fn] then
        t:fail(string.format("%s (line %s) failed with %s, but the program went on and called %s: "
          .. "an unchecked failure lets the program run on with broken state. cudaCheck must "
          .. "exit(EXIT_FAILURE) at the first error", c.fn, line or "?", c.error or c.rc, calls[i].fn))
        return
      end
    end
    if r.exit_code == 0 then
      t:fail(string.format("%s failed with %s, yet the program exited with status 0: a failing "
        .. "program must exit non-zero so that scripts and schedulers notice", c.fn, c.error or c.rc))
      return
    end
    local err = r.stderr
    local named = line and (err:find("%.cu[:%(]" .. line .. "%D") or err:find("%.cu[:%(]" .. line .. "$")
      or err:find("line " .. line .. "%D"))
    if not named then
      t:fail(string.format("the failing call is %s at line %s, but stderr does not name that line "
        .. "(print __FILE__:__LINE__ from the macro). stderr was: %s", c.fn, line or "?", err:sub(1, 300)))
      return
    end
    t:expect(err:find(c.fn, 1, true) ~= nil, string.format("stderr names the call that failed "
      .. "(print #call, its text): %s", c.fn))
    t:expect(err:find("invalid argument", 1, true) or err:find("cudaErrorInvalidValue", 1, true),
      "stderr says what went wrong: cudaGetErrorString(err) (\"invalid argument\") or cudaGetErrorName(err)")
    t:log(string.format("stopped at %s, line %d, with %s", c.fn, line, c.error or tostring(c.rc)))
  end,
}
