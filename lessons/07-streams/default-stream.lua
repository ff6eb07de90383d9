-- default-stream: the chunked pipeline with a cudaMemset (no stream: the
-- legacy default stream) and a cudaMemcpyAsync whose stream was left out
-- (0). Both serialise the streams. The learner moves them onto the chunk's
-- stream. Checks: values (outputs start as NaN, so a missing clear shows),
-- order per chunk, overlap, t:expect_no_default_stream_work.

-- The host replay of chapters 06 and 07 is built into cudojo
-- (lua/prelude/host_replay.lua; see lua/API.md, `host`).
local replay, chunk_spec, check_pipeline = host.replay, host.chunk_spec, host.check_pipeline

return {
  id = "default-stream",
  title = "The default stream serialises everything",
  title_zh = "默认流会把一切串行化",
  source = "default-stream.cu",
  solution = "solutions/default-stream.cu",
  wrong = {
    "solutions/wrong/default-stream-memset.cu",
    "solutions/wrong/default-stream-copy-out.cu",
    "solutions/wrong/default-stream-no-clear.cu",
  },
  timeout = 30,
  hints = {
    "Find the calls that end up on stream 0: one has no stream parameter at all, the other "
      .. "has one but was not given it. The timeline's default-stream row shows them.",
    "cudaMemsetAsync(d_out[c], 0, CHUNK_BYTES, s); and "
      .. "cudaMemcpyAsync(h_out[c], d_out[c], CHUNK_BYTES, cudaMemcpyDeviceToHost, s);",
  },
  hints_zh = {
    "找出最后落到 0 号流上的那两个调用：一个根本没有流参数，另一个有，但调用时没给。"
      .. "时间线上默认流那一行会显示它们。",
    "cudaMemsetAsync(d_out[c], 0, CHUNK_BYTES, s); 以及 "
      .. "cudaMemcpyAsync(h_out[c], d_out[c], CHUNK_BYTES, cudaMemcpyDeviceToHost, s);",
  },
  run = function(t)
    local spec = chunk_spec(t)
    spec.kernels[21] = { name = "busy_add", block = 256, args = spec.kernels[20].args }
    local H, why = replay(t, spec)
    if not H then t:fail(why) return end
    if not check_pipeline(t, H, function(x) return ref.scale(x, 2) end) and not H.memsets then
      t:log("busy_add adds to d_out, and cudaMalloc does not clear memory (cudojo fills it with "
        .. "NaN so that it shows): clear it first, on the chunk's stream")
    end
  end,
}
