-- vec3-library: four vector helpers (sub3, dot3, cross3, normalize3) written
-- once and used by two kernels: face normals of 10007 triangles, then the
-- Lambert lighting of those normals. The triangles are well shaped (no
-- near-zero areas) and every other one is flipped, so normals point both ways
-- and half the faces are dark.
return {
  id = "vec3-library",
  title = "A helper library for two kernels",
  title_zh = "两个核函数共用的辅助函数库",
  source = "vec3-library.cu",
  solution = "solutions/vec3-library.cu",
  wrong = {
    "solutions/wrong/vec3-library-cross-sign.cu",
    "solutions/wrong/vec3-library-no-sqrt.cu",
  },
  hints = {
    "Each helper is one line. float3 is a struct with fields .x .y .z; make_float3(x, y, z) "
      .. "builds one. Both kernels call the same helpers, so each bug shows up twice.",
    "cross3(p, q) = make_float3(p.y*q.z - p.z*q.y, p.z*q.x - p.x*q.z, p.x*q.y - p.y*q.x); "
      .. "normalize3(p): float len = sqrtf(dot3(p, p)); return make_float3(p.x/len, p.y/len, p.z/len);",
  },
  hints_zh = {
    "每个辅助函数一行就够。float3 是有 .x .y .z 三个字段的结构体；make_float3(x, y, z) 构造一个。两个核函数调用同一批辅助函数，所以每个错误都会出现两次。",
    "cross3(p, q) = make_float3(p.y*q.z - p.z*q.y, p.z*q.x - p.x*q.z, p.x*q.y - p.y*q.x); normalize3(p)：float len = sqrtf(dot3(p, p)); return make_float3(p.x/len, p.y/len, p.z/len);",
  },
  run = function(t)
    local T = t:param("triangles", 10007)
    local v = gpu.array("f32", 9 * T, "v"):random{ lo = -1, hi = 1, seed = 111 }
    -- b = a + (about 1, 0, 0), c = a + (about 0, 1, 0), swapped every other triangle.
    for k = 0, T - 1 do
      local o = 9 * k
      local ax, ay, az = v[o], v[o + 1], v[o + 2]
      local b = { ax + 1 + 0.5 * v[o + 3], ay + 0.3 * v[o + 4], az + 0.3 * v[o + 5] }
      local c = { ax + 0.3 * v[o + 6], ay + 1 + 0.5 * v[o + 7], az + 0.3 * v[o + 8] }
      if k % 2 == 1 then b, c = c, b end
      v[o + 3], v[o + 4], v[o + 5] = b[1], b[2], b[3]
      v[o + 6], v[o + 7], v[o + 8] = c[1], c[2], c[3]
    end
    local normals = gpu.array("f32", 3 * T, "normals")
    local light = gpu.array("f32", T, "light")
    local grid = (T + 127) // 128

    t:kernel("face_normals"):launch{ grid = grid, block = 128, args = { v, normals, gpu.i32(T) } }
    local want_n = gpu.array("f32", 3 * T, "want_normals")
    for k = 0, T - 1 do
      local o = 9 * k
      local ux, uy, uz = v[o + 3] - v[o], v[o + 4] - v[o + 1], v[o + 5] - v[o + 2]
      local wx, wy, wz = v[o + 6] - v[o], v[o + 7] - v[o + 1], v[o + 8] - v[o + 2]
      local nx, ny, nz = uy * wz - uz * wy, uz * wx - ux * wz, ux * wy - uy * wx
      local len = math.sqrt(nx * nx + ny * ny + nz * nz)
      want_n[3 * k], want_n[3 * k + 1], want_n[3 * k + 2] = nx / len, ny / len, nz / len
    end
    t:expect_close(normals, want_n, { rel = 1e-5, abs = 1e-5, name = "normals" })

    local lx, ly, lz = 0.3, -0.5, 0.8
    t:kernel("lambert"):launch{ grid = grid, block = 128,
                                args = { normals, light, gpu.f32(lx), gpu.f32(ly), gpu.f32(lz), gpu.i32(T) } }
    local ll = math.sqrt(lx * lx + ly * ly + lz * lz)
    local want_l = ref.map(light, function(_, k)
      local d = (want_n[3 * k] * lx + want_n[3 * k + 1] * ly + want_n[3 * k + 2] * lz) / ll
      return math.max(0.0, d)
    end, "f32")
    t:expect_close(light, want_l, { rel = 1e-5, abs = 1e-5, name = "light" })
  end,
}
