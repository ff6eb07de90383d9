-- block-reverse: the smallest shared-memory cooperation. Each thread reads an
-- element that another thread (usually of another warp) stored, so the
-- barrier is required; n = 100003 leaves a last block of 163 elements.
return {
  id = "block-reverse",
  title = "Reverse inside a block: shared memory and the barrier",
  title_zh = "线程块内反转：共享内存与屏障",
  source = "block-reverse.cu",
  solution = "solutions/block-reverse.cu",
  wrong = {
    "solutions/wrong/block-reverse-no-sync.cu",
    "solutions/wrong/block-reverse-whole-block.cu",
  },
  hints = {
    "Shared memory is seen by the whole block, but a store by one thread is not "
      .. "guaranteed to be there when another thread reads, unless both sides of a "
      .. "barrier separate them.",
    "Put __syncthreads(); after the store into s[t] (outside any if, so all threads of "
      .. "the block reach it), then write out[base + t] = s[count - 1 - t];",
  },
  hints_zh = {
    "共享内存整个线程块都能看到，但一个线程写入的值，另一个线程读的时候不保证已经在那里——除非读和写被一道屏障隔开。",
    "在写 s[t] 之后加上 __syncthreads();（放在任何 if 之外，让线程块的所有线程都能到达），然后写 out[base + t] = s[count - 1 - t];",
  },
  run = function(t)
    local on_gpu = t:device().backend ~= "emu"
    local n = t:param("n", on_gpu and (1 << 21) + 3 or 100003)
    local block = 256
    local x = gpu.array("i32", n, "in"):random{ lo = -1000000, hi = 1000000, seed = 21 }
    local out = gpu.array("i32", n, "out")
    local grid = (n + block - 1) // block
    t:log("n = %d: %d blocks of %d, the last one owns %d elements",
          n, grid, block, n - (grid - 1) * block)
    t:kernel("reverse_blocks"):launch{ grid = grid, block = block, args = { x, out, gpu.i32(n) } }

    -- each block's part reversed (the last block's shorter part too)
    local want = ref.reverse(x, { segment = block })
    t:expect_equal(out, want, { name = "out" })
  end,
}
