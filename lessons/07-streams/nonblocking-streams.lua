-- nonblocking-streams: the chunked pipeline with a call the learner may not
-- change (a cudaMemset on the legacy default stream after each chunk). The
-- learner creates the streams with cudaStreamNonBlocking. Checks: values,
-- per-chunk order, overlap, and the library's memset still between every
-- two chunks (moving it out of the way is not the lesson).

-- The host replay of chapters 06 and 07 is built into cudojo
-- (lua/prelude/host_replay.lua; see lua/API.md, `host`).
local replay, chunk_spec, check_pipeline = host.replay, host.chunk_spec, host.check_pipeline

return {
  id = "nonblocking-streams",
  title = "Non-blocking streams: when stream 0 is not yours",
  title_zh = "非阻塞流：当 0 号流不归你管",
  source = "nonblocking-streams.cu",
  solution = "solutions/nonblocking-streams.cu",
  wrong = {
    "solutions/wrong/nonblocking-streams-moved.cu",
    "solutions/wrong/nonblocking-streams-copy-on-0.cu",
  },
  timeout = 30,
  hints = {
    "The barrier is a property of the legacy default stream and of the streams that block on "
      .. "it. You cannot change the call on stream 0, but you choose how your streams are created.",
    "cudaStreamCreateWithFlags(&stream[c], cudaStreamNonBlocking); for every chunk's stream.",
  },
  hints_zh = {
    "这道栅栏来自传统默认流，以及会被它阻塞的那些流。0 号流上的调用你改不了，但你自己的流怎么创建，由你决定。",
    "每个块的流都用 cudaStreamCreateWithFlags(&stream[c], cudaStreamNonBlocking); 创建。",
  },
  run = function(t)
    local H, why = replay(t, chunk_spec(t))
    if not H then t:fail(why) return end
    for c = 1, #H.launches - 1 do
      local found = false
      for _, at in ipairs(H.default_memset_at) do
        if at > H.launches[c].pos and at < H.launches[c + 1].pos then found = true end
      end
      if not found then
        t:fail(string.format("legacy_library_call() is no longer between chunk %d and chunk %d: "
          .. "it stands for code you cannot change or move. Leave it in the loop and change "
          .. "how the streams are created", c - 1, c))
        return
      end
    end
    check_pipeline(t, H, function(x) return ref.scale(x, 2) end, true)
  end,
}
