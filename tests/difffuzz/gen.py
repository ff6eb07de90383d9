#!/usr/bin/env python3
"""tests/difffuzz/gen.py: writes one random CUDA program for a seed, for the
differential fuzzer (run.sh). The program holds N random __host__ __device__
functions, a kernel per function, and a main that runs every kernel on
seeded inputs (edge values among them), runs the same functions on the host
and prints each difference, then PASS or FAIL.

    python3 tests/difffuzz/gen.py --seed S [--mode scalar|warp] [--funcs N] [-o FILE]

A function is a few statements (declarations, if/else, loops with constant
or data-dependent bounds, local arrays) over expression trees of typed
values: u8 u16 u32 i32 u64 i64 f32 f64. Every operation is defined the same
on both sides (prelude.cuh): integer arithmetic wraps in unsigned, division
and shifts are guarded, float-to-int conversions saturate. Each variable a
function declares is an output, compared bit for bit (any NaN equals any NaN).

The warp mode writes kernels of warp-level operations (shuffles, votes,
reductions, atomics on shared and global memory) whose host reference
simulates the warp or the block; see gen_warp.py.
"""
import argparse
import os
import random
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

INTS = ['u8', 'i8', 'u16', 'i16', 'u32', 'i32', 'u64', 'i64']
FLOATS = ['f32', 'f64']
TYPES = INTS + FLOATS
CT = {'u8': 'uint8_t', 'i8': 'int8_t', 'u16': 'uint16_t', 'i16': 'int16_t', 'u32': 'uint32_t', 'i32': 'int32_t',
      'u64': 'uint64_t', 'i64': 'int64_t', 'f32': 'float', 'f64': 'double'}
BITS = {'u8': 8, 'i8': 8, 'u16': 16, 'i16': 16, 'u32': 32, 'i32': 32, 'u64': 64, 'i64': 64, 'f32': 32, 'f64': 64}
# The unsigned type integer arithmetic of a type is done in (C promotes u8/u16
# to int, whose overflow is undefined).
UC = {'u8': 'uint32_t', 'i8': 'uint32_t', 'u16': 'uint32_t', 'i16': 'uint32_t', 'u32': 'uint32_t', 'i32': 'uint32_t',
      'u64': 'uint64_t', 'i64': 'uint64_t'}
SC = {'u8': 'int32_t', 'i8': 'int32_t', 'u16': 'int32_t', 'i16': 'int32_t', 'u32': 'int32_t', 'i32': 'int32_t',
      'u64': 'int64_t', 'i64': 'int64_t'}
# The In struct: fields per type, three of each wide type.
FIELDS = {'u32': ('u', 3), 'i32': ('i', 3), 'u64': ('U', 3), 'i64': ('I', 3),
          'f32': ('f', 3), 'f64': ('d', 3), 'u16': ('h', 2), 'u8': ('b', 2), 'i16': ('s', 2), 'i8': ('c', 2)}
NOUT = 8
# SIMD intrinsics; the 16x2 ones become add/min/max.{s,u}16x2 in compute_90
# PTX, which the emulator does not decode (cudojo builds such programs with
# compute_80 PTX): only with --ptx 80.
SIMD = ['vadd4', 'vmaxu4']
SIMD16 = ['vsub2', 'vmins2', 'vaddss2']
CMPS = ['<', '<=', '>', '>=', '==', '!=']

INT_CONSTS = {
    'u8': ['0', '1', '7', '0x80', '0xff'],
    'u16': ['0', '1', '0x8000', '0xffff', '255'],
    'i8': ['0', '1', '-1', '-128', '127', '-7'],
    'i16': ['0', '1', '-1', '(-32767 - 1)', '32767', '-255', '128'],
    'u32': ['0u', '1u', '31u', '32u', '0x80000000u', '0xffffffffu', '0x7fffffffu', '12345u', '0xff00ff00u'],
    'i32': ['0', '1', '-1', '(-2147483647 - 1)', '2147483647', '-7', '100', '16', '-129'],
    'u64': ['0ull', '1ull', '63ull', '0x8000000000000000ull', '0xffffffffffffffffull', '0xffffffffull',
            '0x100000000ull', '1000000007ull'],
    'i64': ['0ll', '1ll', '-1ll', '(-9223372036854775807ll - 1)', '9223372036854775807ll', '-3ll',
            '0x7fffffffll', '(-0x80000000ll)', '4294967296ll'],
}
F32_CONSTS = ['0.0f', '-0.0f', '1.0f', '-1.0f', '0.5f', '3.0f', '1e-45f', '1.17549435e-38f', '3.40282347e38f',
              '16777216.0f', '0.1f', '2147483648.0f', '-2147483648.0f', '4294967296.0f', '1e30f', '-2.5f',
              '8388608.0f', '1.5f', 'fz_bitsf(0x7f800000u)', 'fz_bitsf(0xff800000u)', 'fz_bitsf(0x7fc00000u)',
              'fz_bitsf(0x00400000u)']
F64_CONSTS = ['0.0', '-0.0', '1.0', '-1.0', '0.5', '3.0', '4.9e-324', '2.2250738585072014e-308',
              '1.7976931348623157e308', '9007199254740992.0', '0.1', '2147483648.0', '-2147483649.0',
              '9223372036854775808.0', '18446744073709551616.0', '1e300', '-2.5', '4503599627370496.0',
              'fz_bitsd(0x7ff0000000000000ull)', 'fz_bitsd(0xfff0000000000000ull)',
              'fz_bitsd(0x7ff8000000000000ull)', '1.5', '3.4028235677973366e38', '1e-310']


class Fn:
    """Generates one function's body: statements and expressions."""

    def __init__(self, rng, depth, simd16):
        self.r = rng
        self.simd16 = simd16
        self.depth = depth
        self.vars = []          # (name, type) in scope, declared in the body
        self.loopvars = []      # loop counters in scope (u32 leaves)
        self.lines = []
        self.indent = 1
        self.nvar = 0
        self.narr = 0
        self.nuniq = 0

    def uniq(self, prefix):
        self.nuniq += 1
        return '%s%d' % (prefix, self.nuniq)

    def emit(self, s):
        self.lines.append('    ' * self.indent + s)

    def pick(self, seq):
        return self.r.choice(seq)

    # ---- leaves -------------------------------------------------------------
    def leaf(self, t):
        r = self.r.random()
        same = [v for v, vt in self.vars if vt == t]
        if same and r < 0.35:
            return self.pick(same)
        if t == 'u32' and self.loopvars and r < 0.5:
            return self.pick(self.loopvars)
        if r < 0.77:
            f, n = FIELDS[t]
            return 'in->%s[%d]' % (f, self.r.randrange(n))
        if r < 0.8 and self.depth > 0:
            # any bytes of the inputs as this type, at a data-dependent index:
            # loads of every width and signedness from computed addresses
            return 'fz_ld<%s>(in, %s)' % (CT[t], self.pick(['in->u[%d]' % self.r.randrange(3),
                                                            'in->b[%d]' % self.r.randrange(2)]))
        if t == 'f32':
            return self.pick(F32_CONSTS)
        if t == 'f64':
            return self.pick(F64_CONSTS)
        return '(%s)%s' % (CT[t], self.pick(INT_CONSTS[t]))

    def any_type(self):
        return self.pick(TYPES)

    # ---- expressions -----------------------------------------------------------
    def expr(self, t, d=None):
        if d is None:
            d = self.depth
        if d <= 0 or self.r.random() < 0.2:
            return self.leaf(t)
        if t in FLOATS:
            return self.fexpr(t, d - 1)
        return self.iexpr(t, d - 1)

    def cond(self, d):
        t = self.any_type()
        c = '%s %s %s' % (self.expr(t, d), self.pick(CMPS), self.expr(t, d))
        if t in FLOATS and self.r.random() < 0.2:
            fn = self.pick(['isnan', 'isinf', 'isfinite', 'fz_signbit'])
            if fn == 'fz_signbit' and t == 'f32':
                fn = 'fz_signbitf'
            c = '%s(%s)' % (fn, self.expr(t, d))
        if self.r.random() < 0.15:
            c = '(%s) %s (%s)' % (c, self.pick(['&&', '||']), self.cond(max(d - 1, 0)))
        return c

    def cast_to(self, t, d):
        """A value of type t converted from an expression of another type."""
        s = self.pick([x for x in TYPES if x != t])
        e = self.expr(s, d)
        if t in INTS and s in FLOATS:
            src = 'f' if s == 'f32' else 'd'
            if self.r.random() < 0.5:
                # C's cast: truncation, saturating on the device
                return 'fz_%s2%s(%s)' % (src, t, e)
            mode = self.pick(['rn', 'rz', 'ru', 'rd'])
            base = {'f32': 'float', 'f64': 'double'}[s]
            dst = {'i32': 'int', 'u32': 'uint', 'i64': 'll', 'u64': 'ull', 'u16': 'uint', 'u8': 'uint',
                   'i16': 'int', 'i8': 'int'}[t]
            return '(%s)fz_%s2%s_%s(%s)' % (CT[t], base, dst, mode, e)
        if t in FLOATS and s in INTS and self.r.random() < 0.5:
            mode = self.pick(['rn', 'rz', 'ru', 'rd'])
            if t == 'f32':
                fn = {'i32': 'int2float', 'u32': 'uint2float', 'i64': 'll2float', 'u64': 'ull2float',
                      'u8': 'uint2float', 'u16': 'int2float', 'i8': 'int2float', 'i16': 'int2float'}[s]
            else:
                if s in ('i32', 'u32', 'u8', 'u16', 'i8', 'i16'):
                    return '(double)(%s)' % e        # exact
                fn = {'i64': 'll2double', 'u64': 'ull2double'}[s]
            return 'fz_%s_%s(%s)' % (fn, mode, e)
        if t == 'f32' and s == 'f64' and self.r.random() < 0.5:
            return 'fz_double2float_%s(%s)' % (self.pick(['rn', 'rz', 'ru', 'rd']), e)
        return '(%s)(%s)' % (CT[t], e)

    def iexpr(self, t, d):
        w = 64 if BITS[t] == 64 else 32
        uc, ct = UC[t], CT[t]
        x = lambda: self.expr(t, d)
        k = self.r.random()
        if k < 0.22:
            op = self.pick(['+', '-', '*', '&', '|', '^', '+', '-'])
            return '(%s)((%s)(%s) %s (%s)(%s))' % (ct, uc, x(), op, uc, x())
        if k < 0.28:
            op = self.pick(['div', 'rem'])
            st = {'u8': 'u32', 'u16': 'u32', 'i8': 'i32', 'i16': 'i32'}.get(t, t)
            return '(%s)fz_%s_%s(%s, %s)' % (ct, op, st, x(), x())
        if k < 0.30:
            return '(%s)~(%s)(%s)' % (ct, uc, x())
        if k < 0.37:
            sh = self.expr('u32', d)
            kind = self.r.random()
            if kind < 0.4:
                return '(%s)((%s)(%s) << ((%s) & %du))' % (ct, uc, x(), sh, w - 1)
            if kind < 0.8:
                if t[0] == 'i':
                    return '(%s)((%s)(%s) >> ((%s) & %du))' % (ct, SC[t], x(), sh, w - 1)
                return '(%s)((%s)(%s) >> ((%s) & %du))' % (ct, uc, x(), sh, w - 1)
            # shift amounts past the width written out: PTX shl/shr clamp
            v = self.fresh_tmp('u32', sh)
            if t[0] == 'i' and self.r.random() < 0.5:
                return '(%s >= %du ? (%s)((%s)(%s) >> %d) : (%s)((%s)(%s) >> %s))' % (
                    v, w, ct, SC[t], x(), w - 1, ct, SC[t], x(), v)
            return '(%s >= %du ? (%s)0 : (%s)((%s)(%s) << %s))' % (v, w, ct, ct, uc, x(), v)
        if k < 0.43:
            return '(%s)(%s)' % (ct, self.cond(d))
        if k < 0.49:
            return '(%s ? %s : %s)' % (self.cond(d), x(), x())
        if k < 0.53:
            return 'fz_%s<%s>(%s, %s)' % (self.pick(['min', 'max']), ct, x(), x())
        if k < 0.68:
            return self.cast_to(t, d)
        if k < 0.93:
            return '(%s)%s' % (ct, self.intrinsic(d))
        if k < 0.97 and self.loopvars == [] and d > 0:
            return self.loop_expr(t, d)
        return self.leaf(t)

    def intrinsic(self, d):
        u = lambda: self.expr('u32', d)
        i = lambda: self.expr('i32', d)
        U = lambda: self.expr('u64', d)
        I = lambda: self.expr('i64', d)
        choices = [
            lambda: 'fz_popc(%s)' % u(), lambda: 'fz_popcll(%s)' % U(),
            lambda: 'fz_clz(%s)' % i(), lambda: 'fz_clzll(%s)' % I(),
            lambda: 'fz_ffs(%s)' % i(), lambda: 'fz_ffsll(%s)' % I(),
            lambda: 'fz_brev(%s)' % u(), lambda: 'fz_brevll(%s)' % U(),
            lambda: 'fz_byte_perm(%s, %s, %s)' % (u(), u(), u()),
            lambda: 'fz_byte_perm(%s, %s, 0x%04xu)' % (u(), u(), self.r.randrange(0x10000) & 0x7777),
            lambda: 'fz_funnelshift_%s(%s, %s, %s)' % (self.pick(['l', 'lc', 'r', 'rc']), u(), u(), u()),
            lambda: 'fz_mulhi(%s, %s)' % (i(), i()), lambda: 'fz_umulhi(%s, %s)' % (u(), u()),
            lambda: 'fz_mul64hi(%s, %s)' % (I(), I()), lambda: 'fz_umul64hi(%s, %s)' % (U(), U()),
            lambda: 'fz_mul24(%s, %s)' % (i(), i()), lambda: 'fz_umul24(%s, %s)' % (u(), u()),
            lambda: 'fz_sad(%s, %s, %s)' % (i(), i(), u()), lambda: 'fz_usad(%s, %s, %s)' % (u(), u(), u()),
            lambda: 'fz_abs(%s)' % i(), lambda: 'fz_llabs(%s)' % I(),
            lambda: 'fz_%s(%s, %s)' % (self.pick(['hadd', 'rhadd']), i(), i()),
            lambda: 'fz_%s(%s, %s)' % (self.pick(['uhadd', 'urhadd']), u(), u()),
            lambda: 'fz_dp4a(%s, %s, %s)' % (i(), i(), i()), lambda: 'fz_dp4a_u(%s, %s, %s)' % (u(), u(), u()),
            lambda: 'fz_dp2a_lo(%s, %s, %s)' % (i(), i(), i()),
            lambda: 'fz_%s(%s, %s)' % (self.pick(SIMD + (SIMD16 if self.simd16 else [])), u(), u()),
            lambda: 'fz_fbits_canon(%s)' % self.expr('f32', d),
            lambda: 'fz_dbits_canon(%s)' % self.expr('f64', d),
        ]
        if self.r.random() < 0.4:
            return self.asm_op(d)
        return self.pick(choices)()

    def small(self, d):
        """A u32 that is often a small bit position or length."""
        k = self.r.random()
        if k < 0.3:
            return '%du' % self.pick([0, 1, 7, 8, 16, 23, 24, 31, 32, 33, 63, 64, 65, 255, 256])
        if k < 0.7:
            return '((%s) & %du)' % (self.expr('u32', d), self.pick([31, 63, 127, 255]))
        return self.expr('u32', d)

    def asm_op(self, d):
        """A PTX instruction nvcc seldom emits, through inline asm (prelude.cuh)."""
        u = lambda: self.expr('u32', d)
        i = lambda: self.expr('i32', d)
        U = lambda: self.expr('u64', d)
        I = lambda: self.expr('i64', d)
        f = lambda: self.expr('f32', d)
        D = lambda: self.expr('f64', d)
        choices = [
            lambda: 'fz_%s(%s, %s)' % (self.pick(['mul24lo_s', 'mul24hi_s']), i(), i()),
            lambda: 'fz_%s(%s, %s)' % (self.pick(['mul24lo_u', 'mul24hi_u']), u(), u()),
            lambda: 'fz_%s(%s, %s, %s)' % (self.pick(['mad24lo_s', 'mad24hi_s', 'mad24hisat_s', 'madhi_s',
                                                      'madhisat_s']), i(), i(), i()),
            lambda: 'fz_%s(%s, %s, %s)' % (self.pick(['mad24lo_u', 'mad24hi_u', 'madhi_u']), u(), u(), u()),
            lambda: 'fz_%s(%s, %s)' % (self.pick(['addsat_s', 'subsat_s']), i(), i()),
            lambda: 'fz_madwide_s(%s, %s, %s)' % (i(), i(), I()),
            lambda: 'fz_madwide_u(%s, %s, %s)' % (u(), u(), U()),
            lambda: 'fz_bfe_u32(%s, %s, %s)' % (u(), self.small(d), self.small(d)),
            lambda: 'fz_bfe_s32(%s, %s, %s)' % (i(), self.small(d), self.small(d)),
            lambda: 'fz_bfe_u64(%s, %s, %s)' % (U(), self.small(d), self.small(d)),
            lambda: 'fz_bfe_s64(%s, %s, %s)' % (I(), self.small(d), self.small(d)),
            lambda: 'fz_bfi_b32(%s, %s, %s, %s)' % (u(), u(), self.small(d), self.small(d)),
            lambda: 'fz_bfi_b64(%s, %s, %s, %s)' % (U(), U(), self.small(d), self.small(d)),
            lambda: 'fz_%s(%s)' % (self.pick(['bfind_u32', 'bfindsh_u32']), u()),
            lambda: 'fz_bfind_s32(%s)' % i(),
            lambda: 'fz_bfind_u64(%s)' % U(),
            lambda: 'fz_%s(%s)' % (self.pick(['bfind_s64', 'bfindsh_s64']), I()),
            lambda: 'fz_prmt(%s, %s, %s)' % (u(), u(), u()),
            lambda: 'fz_%s(%s, %s)' % (self.pick(['addcc', 'subcc', 'addcarry']), U(), U()),
            lambda: 'fz_madcc(%s, %s, %s)' % (u(), u(), U()),
            lambda: 'fz_%s(%s)' % (self.pick(['testp_normal_f32', 'testp_subnormal_f32', 'testp_notanumber_f32']), f()),
            lambda: 'fz_%s(%s)' % (self.pick(['testp_finite_f64', 'testp_normal_f64', 'testp_subnormal_f64']), D()),
            lambda: 'fz_cnot(%s)' % u(),
            lambda: 'fz_slct_s(%s, %s, %s)' % (i(), i(), i()),
            lambda: 'fz_%s(%s)' % (self.pick(['cvtsat_s8_s32', 'cvtsat_u8_s32', 'cvtsat_u32_s32']), i()),
            lambda: 'fz_cvtsat_s16_u32(%s)' % u(),
            lambda: 'fz_%s(%s)' % (self.pick(['cvtsat_u16_s64', 'cvtsat_u32_s64', 'cvtsat_s32_s64',
                                              'cvtsat_u64_s64']), I()),
            lambda: 'fz_%s(%s)' % (self.pick(['cvtsat_s32_u64', 'cvtsat_s64_u64']), U()),
        ]
        return self.pick(choices)()

    def fexpr(self, t, d):
        f = t == 'f32'
        x = lambda: self.expr(t, d)
        sfx = 'f' if f else ''
        k = self.r.random()
        if k < 0.25:
            return '(%s %s %s)' % (x(), self.pick(['+', '-', '*', '/', '+', '*']), x())
        if k < 0.35:
            mode = self.pick(['rz', 'ru', 'rd'])
            op = self.pick(['add', 'sub', 'mul', 'div'])
            return 'fz_%s%s_%s(%s, %s)' % ('f' if f else 'd', op, mode, x(), x())
        if k < 0.40:
            if self.r.random() < 0.5:
                return 'fma%s(%s, %s, %s)' % (sfx, x(), x(), x())
            return 'fz_fma%s_%s(%s, %s, %s)' % (sfx, self.pick(['rz', 'ru', 'rd']), x(), x(), x())
        if k < 0.46:
            m = self.r.random()
            if m < 0.5:
                return 'sqrt%s(%s)' % (sfx, x())
            if m < 0.75:
                return 'fz_%ssqrt_%s(%s)' % ('f' if f else 'd', self.pick(['rz', 'ru', 'rd']), x())
            return 'fz_%srcp_%s(%s)' % ('f' if f else 'd', self.pick(['rz', 'ru', 'rd']), x())
        if k < 0.52:
            return 'fz_f%s%s(%s, %s)' % (self.pick(['min', 'max']), sfx, x(), x())
        if k < 0.60:
            fn = self.pick(['fabs', 'rint', 'trunc', 'floor', 'ceil', 'round', '-'])
            if fn == '-':
                return '(-(%s))' % x()
            a = x()
            if fn != 'fabs' and not re.search(r'in->|\b[vatj]\d+\b|\blane\b', a):
                a = 'fz_keep%s(%s)' % (sfx, a)   # a constant: cicc folds ceil() wrong (prelude.cuh)
            return '%s%s(%s)' % (fn, sfx, a)
        if k < 0.63:
            return 'fz_copysign%s(%s, %s)' % (sfx, x(), x())
        if k < 0.66:
            return 'fz_ldexp%s(%s, %s)' % (sfx, x(), self.expr('i32', d))
        if k < 0.68:
            return '%s(%s, %s)' % ('fz_fmodf' if f else 'fmod', x(), x())
        if k < 0.70 and f:
            m = self.r.random()
            if m < 0.4:
                return 'fz_saturatef(%s)' % x()
            if m < 0.6:
                return 'fz_%s(%s, %s)' % (self.pick(['addsat_f', 'mulsat_f']), x(), x())
            if m < 0.8:
                return 'fz_fmasat_f(%s, %s, %s)' % (x(), x(), x())
            return 'fz_slct_fc(%s, %s, %s)' % (x(), x(), x())
        if k < 0.80:
            return '(%s ? %s : %s)' % (self.cond(d), x(), x())
        if k < 0.95:
            return self.cast_to(t, d)
        if k < 0.98 and self.loopvars == [] and d > 0:
            return self.loop_expr(t, d)
        return self.leaf(t)

    # ---- statements -------------------------------------------------------------
    def fresh_tmp(self, t, e):
        """Declares a temporary holding e (not an output) and returns its name."""
        name = self.uniq('t')
        self.emit('const %s %s = %s;' % (CT[t], name, e))
        return name

    def loop_expr(self, t, d):
        """A loop accumulating into a temporary; returns the temporary."""
        acc = self.uniq('a')
        j = self.uniq('j')
        self.emit('%s %s = %s;' % (CT[t], acc, self.expr(t, d)))
        bound = self.loop_bound(d)
        self.emit('for (uint32_t %s = 0; %s < %s; %s++) {' % (j, j, bound, j))
        self.indent += 1
        self.loopvars.append(j)
        self.vars.append((acc, t))
        self.emit('%s = %s;' % (acc, self.expr(t, d)))
        self.vars.pop()
        self.loopvars.pop()
        self.indent -= 1
        self.emit('}')
        return acc

    def loop_bound(self, d):
        if self.r.random() < 0.5:
            return '%du' % self.r.randrange(1, 9)
        return '((%s) & %du)' % (self.expr('u32', 0), self.pick([3, 7, 15]))

    def new_var(self, t):
        name = 'v%d' % self.nvar
        self.nvar += 1
        return name

    def statement(self):
        k = self.r.random()
        d = self.depth
        if k < 0.45 or not self.vars:
            t = self.any_type()
            name = self.new_var(t)
            self.emit('%s %s = %s;' % (CT[t], name, self.expr(t, d)))
            self.vars.append((name, t))
        elif k < 0.62:
            name, t = self.pick(self.vars)
            self.emit('if (%s) {' % self.cond(d - 1))
            self.indent += 1
            self.emit('%s = %s;' % (name, self.expr(t, d)))
            self.indent -= 1
            if self.r.random() < 0.6:
                self.emit('} else {')
                self.indent += 1
                self.emit('%s = %s;' % (name, self.expr(t, d)))
                self.indent -= 1
            self.emit('}')
        elif k < 0.70:
            # a switch over a small value, with fall-through and a default
            name, t = self.pick(self.vars)
            self.emit('switch ((%s) & 7u) {' % self.expr('u32', 1))
            for c in sorted(self.r.sample(range(8), self.r.randrange(1, 6))):
                self.emit('case %d: {' % c)
                self.indent += 1
                self.emit('%s = %s;' % (name, self.expr(t, d - 1)))
                self.indent -= 1
                self.emit('}' + (' break;' if self.r.random() < 0.7 else ''))
            self.emit('default: {')
            self.indent += 1
            self.emit('%s = %s;' % (name, self.expr(t, d - 1)))
            self.indent -= 1
            self.emit('}')
            self.emit('}')
        elif k < 0.82:
            name, t = self.pick(self.vars)
            j = self.uniq('j')
            bound = self.loop_bound(d)
            self.emit('for (uint32_t %s = 0; %s < %s; %s++) {' % (j, j, bound, j))
            self.indent += 1
            self.loopvars.append(j)
            self.emit('%s = %s;' % (name, self.expr(t, d - 1)))
            if self.r.random() < 0.3:
                self.emit('if (%s) break;' % self.cond(0))
            self.loopvars.pop()
            self.indent -= 1
            self.emit('}')
        else:
            # a local array, filled in a loop and read at a data-dependent index
            t = self.any_type()
            n = self.pick([4, 8, 16])
            arr = 'arr%d' % self.narr
            self.narr += 1
            j = self.uniq('j')
            self.emit('%s %s[%d];' % (CT[t], arr, n))
            self.emit('for (uint32_t %s = 0; %s < %du; %s++) {' % (j, j, n, j))
            self.indent += 1
            self.loopvars.append(j)
            self.emit('%s[%s] = %s;' % (arr, j, self.expr(t, d - 1)))
            self.loopvars.pop()
            self.indent -= 1
            self.emit('}')
            if self.r.random() < 0.5:
                idx = self.expr('u32', 1)
                self.emit('%s[(%s) & %du] = %s;' % (arr, idx, n - 1, self.expr(t, d - 1)))
            name = self.new_var(t)
            self.emit('%s %s = %s[(%s) & %du];' % (CT[t], name, arr, self.expr('u32', d - 1), n - 1))
            self.vars.append((name, t))


def gen_function(rng, idx, depth, nstmt, simd16):
    fn = Fn(rng, depth, simd16)
    while fn.nvar < NOUT and len([l for l in fn.lines]) < 400:
        fn.statement()
        if fn.nvar >= nstmt:
            break
    outs = []
    for k, (name, t) in enumerate(fn.vars[:NOUT]):
        if t == 'f32':
            outs.append(('o[%d] = fz_fbits(%s);' % (k, name), 'f'))
        elif t == 'f64':
            outs.append(('o[%d] = fz_dbits(%s);' % (k, name), 'd'))
        else:
            outs.append(('o[%d] = (uint64_t)%s;' % (k, name), 'i'))
    body = ['H void f%d(const In *in, uint64_t *o) {' % idx] + fn.lines
    body += ['    ' + s for s, _ in outs]
    body.append('}')
    kinds = ''.join(kd for _, kd in outs)
    return '\n'.join(body), kinds


MAIN = r'''
/* ---- inputs: seeded, a third of them edge values ---------------------------- */
static uint64_t rng_state = SEED_VALUE;
static uint64_t rng_next(void) {
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static const uint32_t EDGE32[] = {0, 1, 0xffffffffu, 0x80000000u, 0x7fffffffu, 2, 31, 32, 33, 0xffu, 0x8000u,
                                  0x80000001u, 0xfffffffeu, 0x55555555u, 7, 0x01020304u};
static const uint64_t EDGE64[] = {0, 1, ~0ull, 0x8000000000000000ull, 0x7fffffffffffffffull, 63, 64, 65,
                                  0xffffffffull, 0x100000000ull, 0x80000000ull, 0xffffffff80000000ull,
                                  0x5555555555555555ull, 3};
static const uint32_t EDGEF[] = {0x00000000u, 0x80000000u, 0x3f800000u, 0xbf800000u, 0x00000001u, 0x80000001u,
                                 0x007fffffu, 0x00800000u, 0x7f7fffffu, 0xff7fffffu, 0x7f800000u, 0xff800000u,
                                 0x7fc00000u, 0xffc00001u, 0x3f000000u, 0x3fc00000u, 0x4f000000u, 0xcf000000u,
                                 0x4f800000u, 0x5f000000u, 0xdf000000u, 0x4b000000u, 0x3effffffu, 0x3f000001u,
                                 0x40400000u, 0xc0200000u, 0x4effffffu, 0x7f000000u};
static const uint64_t EDGED[] = {0, 0x8000000000000000ull, 0x3ff0000000000000ull, 0xbff0000000000000ull, 1,
                                 0x800fffffffffffffull, 0x0010000000000000ull, 0x7fefffffffffffffull,
                                 0x7ff0000000000000ull, 0xfff0000000000000ull, 0x7ff8000000000000ull,
                                 0xfff8000000000001ull, 0x3fe0000000000000ull, 0x41e0000000000000ull,
                                 0xc1e0000000000000ull, 0x41f0000000000000ull, 0x43e0000000000000ull,
                                 0xc3e0000000000000ull, 0x43f0000000000000ull, 0x4330000000000000ull,
                                 0x3fdfffffffffffffull, 0x41dfffffffc00000ull, 0x47efffffe0000000ull,
                                 0x36a0000000000000ull, 0x3810000000000000ull};
#define NE(a) (sizeof a / sizeof a[0])
static uint32_t in_u32(void) {
    uint64_t k = rng_next() % 8;
    if (k < 3) return EDGE32[rng_next() % NE(EDGE32)];
    if (k < 5) return (uint32_t)(rng_next() % 64) - 16;
    return (uint32_t)rng_next();
}
static uint64_t in_u64(void) {
    uint64_t k = rng_next() % 8;
    if (k < 3) return EDGE64[rng_next() % NE(EDGE64)];
    if (k < 4) return (uint64_t)(int64_t)(int32_t)in_u32();
    if (k < 5) return (rng_next() % 64) - 16;
    return rng_next();
}
static float in_f32(void) {
    uint64_t k = rng_next() % 8;
    float f;
    if (k < 3) { uint32_t u = EDGEF[rng_next() % NE(EDGEF)]; memcpy(&f, &u, 4); return f; }
    if (k < 5) return (float)((int)(rng_next() % 64) - 32) * 0.25f;
    if (k < 6) return (float)(int64_t)rng_next() * 1e-9f;
    uint32_t u = (uint32_t)rng_next(); memcpy(&f, &u, 4); return f;
}
static double in_f64(void) {
    uint64_t k = rng_next() % 8;
    double f;
    if (k < 3) { uint64_t u = EDGED[rng_next() % NE(EDGED)]; memcpy(&f, &u, 8); return f; }
    if (k < 5) return (double)((int)(rng_next() % 64) - 32) * 0.25;
    if (k < 6) return (double)(int64_t)rng_next() * 1e-9;
    uint64_t u = rng_next(); memcpy(&f, &u, 8); return f;
}
static void in_fill(In *in) {
    for (int k = 0; k < 3; k++) {
        in->u[k] = in_u32(); in->i[k] = (int32_t)in_u32(); in->U[k] = in_u64(); in->I[k] = (int64_t)in_u64();
        in->f[k] = in_f32(); in->d[k] = in_f64();
    }
    for (int k = 0; k < 2; k++) {
        in->h[k] = (uint16_t)in_u32(); in->b[k] = (uint8_t)in_u32();
        in->s[k] = (int16_t)in_u32(); in->c[k] = (int8_t)in_u32();
    }
}
static void in_print(const In *in) {
    printf("    in: u={%#x,%#x,%#x} i={%d,%d,%d} U={%#llx,%#llx,%#llx} I={%lld,%lld,%lld}\n",
           in->u[0], in->u[1], in->u[2], in->i[0], in->i[1], in->i[2],
           (unsigned long long)in->U[0], (unsigned long long)in->U[1], (unsigned long long)in->U[2],
           (long long)in->I[0], (long long)in->I[1], (long long)in->I[2]);
    uint32_t fb[3]; uint64_t db[3];
    memcpy(fb, in->f, 12); memcpy(db, in->d, 24);
    printf("    in: f={%a,%a,%a}(%#x,%#x,%#x) d={%a,%a,%a}(%#llx,%#llx,%#llx) h={%u,%u} b={%u,%u} s={%d,%d} c={%d,%d}\n",
           in->f[0], in->f[1], in->f[2], fb[0], fb[1], fb[2], in->d[0], in->d[1], in->d[2],
           (unsigned long long)db[0], (unsigned long long)db[1], (unsigned long long)db[2],
           in->h[0], in->h[1], in->b[0], in->b[1], in->s[0], in->s[1], in->c[0], in->c[1]);
}
/* Equal bits, or both NaN of the kind (f: float, d: double). */
static bool same(char kind, uint64_t a, uint64_t b) {
    if (a == b) return true;
    if (kind == 'f') {
        uint32_t x = (uint32_t)a, y = (uint32_t)b;
        return (x & 0x7fffffffu) > 0x7f800000u && (y & 0x7fffffffu) > 0x7f800000u;
    }
    if (kind == 'd')
        return (a & ~(1ull << 63)) > 0x7ff0000000000000ull && (b & ~(1ull << 63)) > 0x7ff0000000000000ull;
    return false;
}
#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    printf("%s:%d: %s: %s\nFAIL\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); return 1; } } while (0)

int main(void) {
    static In in[NELEM];
    static uint64_t dev[NFUNC][NELEM * NOUT], host[NELEM * NOUT];
    for (int t = 0; t < NELEM; t++) in_fill(&in[t]);
    In *din; uint64_t *dout;
    CK(cudaMalloc(&din, sizeof in));
    CK(cudaMalloc(&dout, sizeof dev));
    CK(cudaMemcpy(din, in, sizeof in, cudaMemcpyHostToDevice));
    CK(cudaMemset(dout, 0, sizeof dev));
    for (int k = 0; k < NFUNC; k++) {
        KERNELS[k]<<<(NELEM + 31) / 32, 32>>>(din, dout + (size_t)k * NELEM * NOUT);
        CK(cudaGetLastError());
    }
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(dev, dout, sizeof dev, cudaMemcpyDeviceToHost));
    int bad = 0, badfn = 0;
    for (int k = 0; k < NFUNC; k++) {
        memset(host, 0, sizeof host);
        int nb = 0;
        for (int t = 0; t < NELEM; t++) {
            HOSTFNS[k](&in[t], host + t * NOUT);
            for (int s = 0; KINDS[k][s]; s++) {
                uint64_t a = dev[k][t * NOUT + s], b = host[t * NOUT + s];
                if (same(KINDS[k][s], a, b)) continue;
                if (nb < 4) {
                    printf("MISMATCH f%d t=%d v%d (%c): device %#llx host %#llx\n", k, t, s, KINDS[k][s],
                           (unsigned long long)a, (unsigned long long)b);
                    in_print(&in[t]);
                }
                nb++;
            }
        }
        if (nb) { bad += nb; badfn++; }
    }
    printf("functions %d elements %d mismatches %d in %d functions\n", NFUNC, NELEM, bad, badfn);
    puts(bad ? "FAIL" : "PASS");
    cudaFree(din); cudaFree(dout);
    return bad ? 1 : 0;
}
'''


def gen_scalar(seed, nfuncs, depth, ptx):
    rng = random.Random(seed)
    out = []
    out.append('// generated by tests/difffuzz/gen.py --seed %d --mode scalar --funcs %d --depth %d --ptx %d'
               % (seed, nfuncs, depth, ptx))
    out.append(open(os.path.join(HERE, 'prelude.cuh')).read())
    out.append('struct In { uint32_t u[3]; int32_t i[3]; uint64_t U[3]; int64_t I[3]; float f[3]; double d[3]; '
               'uint16_t h[2]; uint8_t b[2]; int16_t s[2]; int8_t c[2]; };')
    out.append('#define NOUT %d\n#define NELEM 64\n#define NFUNC %d' % (NOUT, nfuncs))
    kinds = []
    for k in range(nfuncs):
        body, kd = gen_function(rng, k, depth, rng.randrange(2, NOUT + 1), ptx == 80)
        out.append(body)
        out.append('__global__ void k%d(const In *in, uint64_t *out) {\n'
                   '    int t = blockIdx.x * blockDim.x + threadIdx.x;\n'
                   '    if (t < NELEM) f%d(in + t, out + t * NOUT);\n}' % (k, k))
        kinds.append(kd)
    out.append('typedef void (*Kernel)(const In *, uint64_t *);')
    out.append('static const Kernel KERNELS[NFUNC] = {%s};' % ', '.join('k%d' % k for k in range(nfuncs)))
    out.append('static void (*const HOSTFNS[NFUNC])(const In *, uint64_t *) = {%s};'
               % ', '.join('f%d' % k for k in range(nfuncs)))
    out.append('static const char *const KINDS[NFUNC] = {%s};' % ', '.join('"%s"' % s for s in kinds))
    out.append(MAIN.replace('SEED_VALUE', '%dull' % (seed * 0x100000001 + 12345)))
    return '\n'.join(out) + '\n'


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--seed', type=int, required=True)
    ap.add_argument('--mode', choices=['scalar', 'warp'], default='scalar')
    ap.add_argument('--funcs', type=int, default=24)
    ap.add_argument('--depth', type=int, default=3)
    ap.add_argument('--ptx', type=int, choices=[80, 90], default=90,
                    help='the PTX the program is built with (80: compute_80 beside sm_90 SASS)')
    ap.add_argument('-o', '--output')
    a = ap.parse_args()
    if a.mode == 'scalar':
        src = gen_scalar(a.seed, a.funcs, a.depth, a.ptx)
    else:
        sys.path.insert(0, HERE)
        import gen_warp
        src = gen_warp.generate(a.seed, a.funcs, a.ptx)
    if a.output:
        with open(a.output, 'w') as f:
            f.write(src)
    else:
        sys.stdout.write(src)


if __name__ == '__main__':
    main()
