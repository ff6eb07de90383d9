"""tests/difffuzz/gen_warp.py: the warp mode of gen.py: kernels of warp-level
operations whose host reference simulates the warp, or the block and the grid
for atomics.

Each kernel computes per-thread values with a random scalar function (gen.Fn,
the lane id among its leaves), then runs a few steps:
  shuffles      __shfl_sync/_up/_down/_xor with widths 32..2, constant or
                per-lane lanes and deltas (some past 31), and shfl.sync in
                inline asm with any clamp/segment operand c (the PTX ISA's
                pseudocode on the host)
  votes         __ballot_sync, __any_sync, __all_sync, __activemask,
                __syncthreads_count/_and/_or (the block)
  reductions    __reduce_add/min/max_sync (u32, i32), __reduce_and/or/xor_sync
  matches       __match_any_sync, __match_all_sync (u32, u64)
  divergence    a ballot's lanes only: __reduce_add_sync, __shfl_sync from the
                first of them, __syncwarp(mask)
  atomics       atomicAdd/Min/Max/And/Or/Xor/CAS loops on shared memory (the
                block) and global memory (the grid), in orders whose result is
                independent of the order: integer ops, float adds of small
                integers or of subnormals (exact sums; global ones flushed to
                zero as the ISA says for atom.add.f32 on global memory)
The block is 64 threads (two warps), the grid two blocks. Every thread writes
NOUT outputs; the atomics' memory is compared after the kernel too.
"""
import random

import gen

FULL = '0xffffffffu'
NT = 128         # threads in the grid
BT = 64          # threads in a block
NOUT = 6
NG = 8           # global atomic words per kernel

VT = ['u32', 'i32', 'f32', 'u64', 'i64', 'f64']


class Kernel:
    def __init__(self, rng, k):
        self.r = rng
        self.k = k
        self.dev = []       # device statements
        self.host = []      # host statements, inside "for each block b"
        self.outs = []      # (device expr, host array expr, kind)
        self.helpers = []   # __host__ __device__ functions
        self.nv = 0
        self.gkind = None   # kind of the global atomic words ('i' or 'f'), None: unused

    def pick(self, s):
        return self.r.choice(s)

    def lane_fn(self, t, name):
        """A per-thread value of type t: a random function of the inputs and the lane."""
        fn = gen.Fn(self.r, 2, False)
        fn.loopvars = ['lane']
        e = fn.expr(t)
        body = ['H %s %s(const In *in, uint32_t lane) {' % (gen.CT[t], name)] + fn.lines
        body += ['    return %s;' % e, '}']
        self.helpers.append('\n'.join(body))

    def var(self, t, dev_init, host_init):
        """A per-thread variable: device scalar, host array over the block."""
        name = 'w%d' % self.nv
        self.nv += 1
        self.dev.append('%s %s = %s;' % (gen.CT[t], name, dev_init))
        self.host.append('%s %s[BT];' % (gen.CT[t], name))
        self.host.append('for (int l = 0; l < BT; l++) %s[l] = %s;' % (name, host_init))
        return name

    def out(self, name, t):
        kind = 'f' if t == 'f32' else 'd' if t == 'f64' else 'i'
        if kind == 'f':
            self.outs.append(('fz_fbits(%s)' % name, 'fz_fbits(%s[l])' % name, kind))
        elif kind == 'd':
            self.outs.append(('fz_dbits(%s)' % name, 'fz_dbits(%s[l])' % name, kind))
        else:
            self.outs.append(('(uint64_t)%s' % name, '(uint64_t)%s[l]' % name, kind))

    # ---- steps ---------------------------------------------------------------------
    def shfl(self, x, t, q):
        mode = self.pick(['idx', 'up', 'down', 'bfly'])
        width = self.pick([32, 32, 16, 8, 4, 2])
        if self.r.random() < 0.5:
            src = '%du' % self.pick([0, 1, 2, 3, 5, 7, 15, 16, 17, 31, 32, 33, 40, 63])
            hsrc = src
        else:
            mask = self.pick([7, 31, 63, 0xffffffff])
            src = '(%s & %du)' % (q, mask)
            hsrc = '(%s[l] & %du)' % (q, mask)
        n = self.var(t, x, '%s[l]' % x)
        if self.r.random() < 0.25 and t in ('u32', 'i32', 'f32'):
            # shfl.sync in inline asm, any c: the ISA's segment mask and clamp
            c = self.r.randrange(0, 0x2000) & 0x1f1f
            reg = 'f' if t == 'f32' else 'r'
            self.dev.append('asm volatile("shfl.sync.%s.b32 %%0, %%1, %%2, %%3, -1;" : "=%s"(%s) : "%s"(%s), "r"(%s), "r"(%du));'
                            % (mode, reg, n, reg, x, src, c))
            cval = '%du' % c
        else:
            fn = {'idx': '__shfl_sync', 'up': '__shfl_up_sync', 'down': '__shfl_down_sync',
                  'bfly': '__shfl_xor_sync'}[mode]
            self.dev.append('%s = %s(%s, %s, %s, %d);' % (n, fn, FULL, x, src, width))
            cval = '%du' % (((32 - width) << 8) | (0 if mode == 'up' else 0x1f))
        m = {'idx': 3, 'up': 0, 'down': 1, 'bfly': 2}[mode]
        self.host.append('for (int l = 0; l < BT; l++) %s[l] = %s[(l & ~31) + fz_shfl_src(%d, l & 31, %s, %s)];'
                         % (n, x, m, hsrc, cval))
        return n

    def cond(self, x, t, q):
        """A per-lane predicate: device expression and host expression (over l)."""
        k = self.r.random()
        if k < 0.4:
            b = self.r.randrange(32)
            return '((%s >> %d) & 1u)' % (q, b), '((%s[l] >> %d) & 1u)' % (q, b)
        if k < 0.7:
            c = self.pick(['0', '1', '-1', '100'])
            op = self.pick(['<', '>', '==', '!=', '>='])
            cast = gen.CT[t]
            return '(%s %s (%s)%s)' % (x, op, cast, c), '(%s[l] %s (%s)%s)' % (x, op, cast, c)
        m = self.pick([1, 3, 7])
        return '((lane & %du) == %du)' % (m, m & 1), '(((l & 31) & %du) == %du)' % (m, m & 1)

    def vote(self, x, t, q):
        d, h = self.cond(x, t, q)
        kind = self.pick(['ballot', 'any', 'all', 'active'])
        if kind == 'ballot':
            n = self.var('u32', '__ballot_sync(%s, %s)' % (FULL, d), '0')
            self.host.append('for (int w = 0; w < BT; w += 32) { uint32_t b_ = 0; '
                             'for (int l = w; l < w + 32; l++) b_ |= (uint32_t)(%s != 0) << (l - w); '
                             'for (int l = w; l < w + 32; l++) %s[l] = b_; }' % (h, n))
        elif kind in ('any', 'all'):
            n = self.var('u32', '(uint32_t)__%s_sync(%s, %s)' % (kind, FULL, d), '0')
            self.host.append('for (int w = 0; w < BT; w += 32) { int c_ = 0; '
                             'for (int l = w; l < w + 32; l++) c_ += %s != 0; '
                             'for (int l = w; l < w + 32; l++) %s[l] = %s; }'
                             % (h, n, 'c_ > 0' if kind == 'any' else 'c_ == 32'))
        else:
            n = self.var('u32', '__activemask()', '0xffffffffu')
        self.out(n, 'u32')

    def bar_red(self, x, t, q):
        """__syncthreads_count/_and/_or: bar.red over the block."""
        d, h = self.cond(x, t, q)
        kind = self.pick(['count', 'and', 'or'])
        n = self.var('u32', '(uint32_t)__syncthreads_%s(%s)' % (kind, d), '0')
        res = {'count': 'c_', 'and': 'c_ == BT', 'or': 'c_ > 0'}[kind]
        self.host.append('{ int c_ = 0; for (int l = 0; l < BT; l++) c_ += %s != 0; '
                         'for (int l = 0; l < BT; l++) %s[l] = (uint32_t)(%s); }' % (h, n, res))
        self.out(n, 'u32')

    def reduce(self, x, t, q):
        op = self.pick(['add', 'min', 'max', 'and', 'or', 'xor'])
        signed = op in ('add', 'min', 'max') and self.r.random() < 0.5
        vt = 'i32' if signed else 'u32'
        v = self.var(vt, '(%s)%s' % (gen.CT[vt], q), '(%s)%s[l]' % (gen.CT[vt], q))
        n = self.var(vt, '__reduce_%s_sync(%s, %s)' % (op, FULL, v), '0')
        comb = {'add': '(%s)((uint32_t)a_ + (uint32_t)%s[l])', 'min': 'fz_min<%s>(a_, %s[l])',
                'max': 'fz_max<%s>(a_, %s[l])', 'and': '(%s)(a_ & %s[l])', 'or': '(%s)(a_ | %s[l])',
                'xor': '(%s)(a_ ^ %s[l])'}[op] % (gen.CT[vt], v)
        self.host.append('for (int w = 0; w < BT; w += 32) { %s a_ = %s[w]; '
                         'for (int l = w + 1; l < w + 32; l++) a_ = %s; '
                         'for (int l = w; l < w + 32; l++) %s[l] = a_; }' % (gen.CT[vt], v, comb, n))
        self.out(n, vt)

    def match(self, x, t, q):
        wide = self.r.random() < 0.4
        vt = 'u64' if wide else 'u32'
        mod = self.pick([1, 2, 3, 5, 32])
        ve = '((%s)(%s %% %du) << %d)' % (gen.CT[vt], q, mod, 40 if wide else 3)
        v = self.var(vt, ve, '((%s)(%s[l] %% %du) << %d)' % (gen.CT[vt], q, mod, 40 if wide else 3))
        if self.r.random() < 0.5:
            n = self.var('u32', '__match_any_sync(%s, %s)' % (FULL, v), '0')
            self.host.append('for (int l = 0; l < BT; l++) { uint32_t m_ = 0; int w = l & ~31; '
                             'for (int j = w; j < w + 32; j++) m_ |= (uint32_t)(%s[j] == %s[l]) << (j - w); '
                             '%s[l] = m_; }' % (v, v, n))
            self.out(n, 'u32')
        else:
            n = self.var('u32', '0', '0')
            p = self.var('u32', '0', '0')
            self.dev.append('{ int p_; %s = __match_all_sync(%s, %s, &p_); %s = (uint32_t)p_; }' % (n, FULL, v, p))
            self.host.append('for (int w = 0; w < BT; w += 32) { bool a_ = true; '
                             'for (int l = w; l < w + 32; l++) a_ = a_ && %s[l] == %s[w]; '
                             'for (int l = w; l < w + 32; l++) { %s[l] = a_ ? 0xffffffffu : 0; %s[l] = a_; } }'
                             % (v, v, n, p))
            self.out(n, 'u32')
            self.out(p, 'u32')

    def diverge(self, x, t, q):
        d, h = self.cond(x, t, q)
        m = self.var('u32', '__ballot_sync(%s, %s)' % (FULL, d), '0')
        self.host.append('for (int w = 0; w < BT; w += 32) { uint32_t b_ = 0; '
                         'for (int l = w; l < w + 32; l++) b_ |= (uint32_t)(%s != 0) << (l - w); '
                         'for (int l = w; l < w + 32; l++) %s[l] = b_; }' % (h, m))
        s = self.var('u32', '0', '0')
        y = self.var(t, '(%s)0' % gen.CT[t], '(%s)0' % gen.CT[t])
        self.dev.append('if (%s) { %s = __reduce_add_sync(%s, %s); %s = __shfl_sync(%s, %s, __ffs(%s) - 1); '
                        '__syncwarp(%s); }' % (d, s, m, q, y, m, x, m, m))
        self.host.append('for (int w = 0; w < BT; w += 32) { uint32_t a_ = 0; int f_ = -1; '
                         'for (int l = w; l < w + 32; l++) if (%s) { a_ += %s[l]; if (f_ < 0) f_ = l; } '
                         'for (int l = w; l < w + 32; l++) if (%s) { %s[l] = a_; %s[l] = %s[f_]; } }'
                         % (h, q, h, s, y, x))
        self.out(s, 'u32')
        self.out(y, t)

    def atomics(self, x, t, q, space):
        """Block-level (shared) or grid-level (global) atomics with an order-independent result."""
        op = self.pick(['add', 'add', 'min', 'max', 'and', 'or', 'xor', 'cas', 'fadd', 'faddsub'])
        at = self.pick(['u32', 'i32', 'u64']) if op not in ('fadd', 'faddsub') else 'f32'
        if op in ('and', 'or', 'xor', 'cas') and at == 'i32':
            at = 'u32'
        ct = gen.CT[at]
        if op == 'fadd':
            ve, vh = '(float)(%s & 255u)' % q, '(float)(%s[l] & 255u)' % q
        elif op == 'faddsub':
            # subnormal multiples of 2^-149: their sums are exact in any order
            ve, vh = 'fz_bitsf(%s & 0xffffu)' % q, 'fz_bitsf(%s[l] & 0xffffu)' % q
        elif at == 'u64':
            ve, vh = '((uint64_t)%s << %d)' % (q, self.pick([0, 20, 32])), None
            vh = ve.replace(q, '%s[l]' % q)
        else:
            ve, vh = '(%s)%s' % (ct, q), '(%s)%s[l]' % (ct, q)
        v = self.var(at, ve, vh)
        slot = '(%s & 7u)' % q
        init = [self.r.randrange(1 << 32) for _ in range(8)]
        if at == 'f32':
            init = [self.pick([0, 0x3f800000, 0x00000001, 0x80000000]) for _ in range(8)]
        apply = {'add': '%s + %s', 'min': 'fz_min<' + ct + '>(%s, %s)', 'max': 'fz_max<' + ct + '>(%s, %s)',
                 'and': '%s & %s', 'or': '%s | %s', 'xor': '%s ^ %s', 'cas': '%s + %s',
                 'fadd': '%s + %s', 'faddsub': '%s + %s'}[op]
        call = {'add': 'atomicAdd(&%s, %s)', 'min': 'atomicMin(&%s, %s)', 'max': 'atomicMax(&%s, %s)',
                'and': 'atomicAnd(&%s, %s)', 'or': 'atomicOr(&%s, %s)', 'xor': 'atomicXor(&%s, %s)',
                'fadd': 'atomicAdd(&%s, %s)', 'faddsub': 'atomicAdd(&%s, %s)'}
        atype = {'u32': 'unsigned int', 'i32': 'int', 'u64': 'unsigned long long', 'f32': 'float'}[at]
        flush = space == 'global' and at == 'f32'
        if space == 'shared':
            arr = 'sh%d' % self.nv
            self.dev.append('__shared__ %s %s[8];' % (atype, arr))
            self.dev.append('if (threadIdx.x < 8) %s[threadIdx.x] = %s;' % (arr, self.init_expr(at, 'threadIdx.x', init)))
            self.dev.append('__syncthreads();')
            target = '%s[%s]' % (arr, slot)
        else:
            arr = 'g'
            target = 'g_[%s]' % slot
            self.gkind = ('f', init) if at == 'f32' else ('i', init)
            self.gtype = (atype, at)
            self.ginit = self.init_expr(at, 'i', init)
        if op == 'cas':
            self.dev.append('{ %s *p_ = (%s *)&%s; %s o_ = *p_, a_; '
                            'do { a_ = o_; o_ = atomicCAS(p_, a_, (%s)(a_ + (%s)%s)); } while (o_ != a_); }'
                            % (atype, atype, target, atype, atype, atype, v))
        else:
            self.dev.append('%s;' % (call[op] % (target, '(%s)%s' % (atype, v))))
        if space == 'shared':
            self.dev.append('__syncthreads();')
            r = self.var(at, '%s[lane & 7u]' % arr, '0')
            self.host.append('{ %s s_[8]; for (int i = 0; i < 8; i++) s_[i] = %s; '
                             'for (int l = 0; l < BT; l++) { %s *p_ = &s_[%s[l] & 7u]; *p_ = (%s)(%s); } '
                             'for (int l = 0; l < BT; l++) %s[l] = s_[l & 7]; }'
                             % (ct, self.init_expr(at, 'i', init), ct, q, ct,
                                apply % ('*p_', '%s[l]' % v), r))
            self.out(r, at)
        else:
            fl = 'fz_ftz' if flush else ''
            self.host.append('for (int l = 0; l < BT; l++) { %s *p_ = (%s *)&g[%s[l] & 7u]; *p_ = %s((%s)(%s)); }'
                             % (ct, ct, q, fl, ct, apply % ('%s(*p_)' % fl, '%s(%s[l])' % (fl, v))))

    def init_expr(self, at, idx, init):
        """The initial value of atomic word idx: a table in a helper function."""
        name = 'wi%d_%d' % (self.k, self.nv)
        self.nv += 1
        self.helpers.append('H uint32_t %s(uint32_t i) {\n    const uint32_t v[8] = {%s};\n    return v[i & 7];\n}'
                            % (name, ', '.join('%du' % x for x in init)))
        if at == 'f32':
            return 'fz_bitsf(%s(%s))' % (name, idx)
        if at == 'u64':
            return '((uint64_t)%s(%s) << 16)' % (name, idx)
        return '(%s)%s(%s)' % (gen.CT[at], name, idx)

    def build(self):
        t = self.pick(VT)
        self.lane_fn(t, 'wx%d' % self.k)
        self.lane_fn('u32', 'wq%d' % self.k)
        x = self.var(t, 'wx%d(p, lane)' % self.k, 'wx%d(&in[b * BT + l], l & 31)' % self.k)
        q = self.var('u32', 'wq%d(p, lane)' % self.k, 'wq%d(&in[b * BT + l], l & 31)' % self.k)
        steps = self.r.randrange(1, 5)
        for _ in range(steps):
            k = self.r.random()
            if k < 0.35:
                x = self.shfl(x, t, q)
                if self.r.random() < 0.5:
                    self.out(x, t)
            elif k < 0.5:
                self.vote(x, t, q)
            elif k < 0.62:
                self.reduce(x, t, q)
            elif k < 0.72:
                self.match(x, t, q)
            elif k < 0.78:
                self.diverge(x, t, q)
            elif k < 0.84:
                self.bar_red(x, t, q)
            else:
                self.atomics(x, t, q, self.pick(['shared', 'global']) if self.gkind is None else 'shared')
        self.out(x, t)
        self.outs = self.outs[-NOUT:]


def emit(k, kern):
    out = list(kern.helpers)
    dev = ['__global__ void k%d(const In *in, uint64_t *out, uint64_t *g) {' % k,
           '    uint32_t t = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x & 31;',
           '    const In *p = in + t;']
    if kern.gkind:
        dev.append('    %s *g_ = (%s *)g;' % (kern.gtype[0], kern.gtype[0]))
    dev += ['    ' + s for s in kern.dev]
    dev += ['    out[t * NOUT + %d] = %s;' % (j, d) for j, (d, _, _) in enumerate(kern.outs)]
    dev.append('}')
    out.append('\n'.join(dev))
    host = ['static void h%d(const In *in, uint64_t *out, uint64_t *g) {' % k]
    if kern.gkind:
        kind, init = kern.gkind
        ct = gen.CT[kern.gtype[1]]
        host.append('    %s *gi_ = (%s *)g;' % (ct, ct))
        host.append('    for (int i = 0; i < 8; i++) gi_[i] = %s;' % kern.ginit)
        host.append('    { %s *g = gi_;' % ct)
    else:
        host.append('    {')
    host.append('    for (int b = 0; b < NT / BT; b++) {')
    host += ['        ' + s for s in kern.host]
    host.append('        for (int l = 0; l < BT; l++) {')
    host += ['            out[(b * BT + l) * NOUT + %d] = %s;' % (j, h) for j, (_, h, _) in enumerate(kern.outs)]
    host += ['        }', '    }', '    }', '}']
    out.append('\n'.join(host))
    # the global words' initial values, for main to upload
    if kern.gkind:
        kind, init = kern.gkind
        ct = gen.CT[kern.gtype[1]]
        out.append('static void gi%d(uint64_t *g) { %s *gi_ = (%s *)g; for (int i = 0; i < 8; i++) gi_[i] = %s; }'
                   % (k, ct, ct, kern.ginit))
    else:
        out.append('static void gi%d(uint64_t *g) { (void)g; }' % k)
    gk = kern.gkind[0] if kern.gkind else 'n'
    gsize = {'u32': 'u', 'i32': 'u', 'f32': 'f', 'u64': 'U'}[kern.gtype[1]] if kern.gkind else 'n'
    kinds = ''.join(kd for _, _, kd in kern.outs)
    return '\n'.join(out), kinds, gsize


MAIN = r'''
/* The PTX ISA's shfl.sync: the lane a lane reads (its own when out of range). */
static int fz_shfl_src(int mode, uint32_t lane, uint32_t b, uint32_t c) {
    int bval = (int)(b & 31), cval = (int)(c & 31), seg = (int)((c >> 8) & 31), l = (int)lane;
    int maxl = (l & seg) | (cval & ~seg), minl = l & seg, j;
    bool ok;
    switch (mode) {
    case 0: j = l - bval; ok = j >= maxl; break;
    case 1: j = l + bval; ok = j <= maxl; break;
    case 2: j = l ^ bval; ok = j <= maxl; break;
    default: j = minl | (bval & ~seg); ok = j <= maxl; break;
    }
    return ok ? j : l;
}
/* atom.add.f32 on global memory flushes subnormal inputs and results. */
static float fz_ftz(float x) { return fabsf(x) < 1.17549435e-38f ? copysignf(0.0f, x) : x; }
static uint32_t fz_ftz(uint32_t x) { return x; }
static uint64_t fz_ftz(uint64_t x) { return x; }
static int32_t fz_ftz(int32_t x) { return x; }
'''

MAIN2 = r'''
int main(void) {
    static In in[NT];
    static uint64_t dev[NFUNC][NT * NOUT], host[NT * NOUT], gdev[NFUNC][NG], ghost[NG];
    for (int t = 0; t < NT; t++) in_fill(&in[t]);
    In *din; uint64_t *dout, *dg;
    CK(cudaMalloc(&din, sizeof in));
    CK(cudaMalloc(&dout, sizeof dev));
    CK(cudaMalloc(&dg, sizeof gdev));
    CK(cudaMemcpy(din, in, sizeof in, cudaMemcpyHostToDevice));
    CK(cudaMemset(dout, 0, sizeof dev));
    for (int k = 0; k < NFUNC; k++) { memset(ghost, 0, sizeof ghost); GINIT[k](ghost); memcpy(gdev[k], ghost, sizeof ghost); }
    CK(cudaMemcpy(dg, gdev, sizeof gdev, cudaMemcpyHostToDevice));
    for (int k = 0; k < NFUNC; k++) {
        KERNELS[k]<<<NT / BT, BT>>>(din, dout + (size_t)k * NT * NOUT, dg + (size_t)k * NG);
        CK(cudaGetLastError());
    }
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(dev, dout, sizeof dev, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(gdev, dg, sizeof gdev, cudaMemcpyDeviceToHost));
    int bad = 0, badfn = 0;
    for (int k = 0; k < NFUNC; k++) {
        memset(host, 0, sizeof host);
        memset(ghost, 0, sizeof ghost);
        HOSTFNS[k](in, host, ghost);
        int nb = 0;
        for (int t = 0; t < NT; t++)
            for (int s = 0; KINDS[k][s]; s++) {
                uint64_t a = dev[k][t * NOUT + s], b = host[t * NOUT + s];
                if (same(KINDS[k][s], a, b)) continue;
                if (nb < 4) {
                    printf("MISMATCH k%d t=%d out%d (%c): device %#llx host %#llx\n", k, t, s, KINDS[k][s],
                           (unsigned long long)a, (unsigned long long)b);
                }
                nb++;
            }
        if (GKIND[k] != 'n') {
            const uint32_t *a32 = (const uint32_t *)gdev[k], *b32 = (const uint32_t *)ghost;
            int words = GKIND[k] == 'U' ? NG : NG * 2;
            for (int i = 0; i < (GKIND[k] == 'U' ? NG : 8); i++) {
                uint64_t a = GKIND[k] == 'U' ? gdev[k][i] : a32[i], b = GKIND[k] == 'U' ? ghost[i] : b32[i];
                if (a == b || same(GKIND[k] == 'f' ? 'f' : 'i', a, b)) continue;
                if (nb < 4) printf("MISMATCH k%d global word %d: device %#llx host %#llx\n", k, i,
                                   (unsigned long long)a, (unsigned long long)b);
                nb++;
            }
            (void)words;
        }
        if (nb) { bad += nb; badfn++; }
    }
    printf("kernels %d threads %d mismatches %d in %d kernels\n", NFUNC, NT, bad, badfn);
    puts(bad ? "FAIL" : "PASS");
    cudaFree(din); cudaFree(dout); cudaFree(dg);
    return bad ? 1 : 0;
}
'''


def generate(seed, nfuncs, ptx=90):
    rng = random.Random(seed * 7919 + 1)
    src = gen.gen_scalar(seed, 0, 2, ptx)   # the prelude, In and the input helpers
    head = src[:src.index('typedef void (*Kernel)')]
    head = head.replace('#define NFUNC 0', '#define NFUNC %d\n#define NT %d\n#define BT %d\n#define NG %d'
                        % (nfuncs, NT, BT, NG))
    head = head.replace('#define NOUT %d' % gen.NOUT, '#define NOUT %d' % NOUT)
    head = head.replace('--mode scalar --funcs 0 --depth 2', '--mode warp --funcs %d' % nfuncs)
    inputs = src[src.index('\n/* ---- inputs'):src.index('int main(void)')]
    inputs = inputs.replace('SEED_VALUE', '%dull' % (seed * 0x100000001 + 12345))
    parts, kinds, gk = [], [], []
    for k in range(nfuncs):
        kern = Kernel(rng, k)
        kern.build()
        body, kd, g = emit(k, kern)
        parts.append(body)
        kinds.append(kd)
        gk.append(g)
    tables = ['typedef void (*Kernel)(const In *, uint64_t *, uint64_t *);',
              'static const Kernel KERNELS[NFUNC] = {%s};' % ', '.join('k%d' % k for k in range(nfuncs)),
              'static void (*const HOSTFNS[NFUNC])(const In *, uint64_t *, uint64_t *) = {%s};'
              % ', '.join('h%d' % k for k in range(nfuncs)),
              'static void (*const GINIT[NFUNC])(uint64_t *) = {%s};' % ', '.join('gi%d' % k for k in range(nfuncs)),
              'static const char *const KINDS[NFUNC] = {%s};' % ', '.join('"%s"' % s for s in kinds),
              'static const char GKIND[NFUNC] = {%s};' % ', '.join("'%s'" % g for g in gk)]
    return head + MAIN + inputs + '\n'.join(parts) + '\n' + '\n'.join(tables) + '\n' + MAIN2
