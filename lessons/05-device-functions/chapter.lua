-- Chapter 5: device functions. Factoring kernels into __device__ helpers,
-- inlining (__forceinline__ / __noinline__), templates over the element type,
-- and a small helper library shared by two kernels.
return {
  id = "device-functions",
  title = "Device functions, inlining and templates",
  title_zh = "设备函数、内联与模板",
  order = 5,
  exercises = { "smoothstep", "inline-polar", "template-axpy", "vec3-library" },
}
