-- Chapter 17: several GPUs and several processes. cudaGetDeviceCount and
-- cudaSetDevice, splitting work over devices, one stream per device so the
-- devices run at once, peer-to-peer copies (cudaDeviceCanAccessPeer,
-- cudaDeviceEnablePeerAccess, cudaMemcpyPeerAsync), and several processes
-- on one GPU: time slicing vs MPS (t:program{ processes = N, mps = true }).
-- Each exercise is a whole CUDA program (kind = "program"). The multi-GPU
-- ones run on 2 and 4 emulated devices (t:program{ devices = N }) and on a
-- GPU with its own count.
return {
  id = "many-gpus",
  title = "Many GPUs and many processes",
  title_zh = "多 GPU 与多进程",
  order = 17,
  exercises = { "split-devices", "overlap-devices", "peer-copy", "mps-share" },
}
