/* tests/fuzz/fuzz_ptx.c: a fuzz target for the emulator's PTX parser and
 * decoder (emu_parse_check in kernels/emu/emu.h), on the driver in
 * tests/fuzz/driver.c (usage there).
 *
 * Malformed PTX must come back as a Diag, never as a crash, a hang or an
 * assert. Seeds: tests/fuzz/corpus/. A crash is saved to fuzz-crash.ptx
 * (or $FUZZ_CRASH_FILE): replay it with `fuzz_ptx fuzz-crash.ptx`. */
#include <stdio.h>
#include <stdlib.h>

#include "base/diag.h"
#include "kernels/emu/emu.h"
#include "tests/fuzz/driver.h"

/* Tokens that have broken PTX parsers before: keep adding to this list. */
static const char *const TOKENS[] = {
    "%r<4294967295>", "%r<0>", "%rd99999", "%p0", "%r-1", "%", "%%", "{", "}", "{{", ";", ";;", ",", "[", "]",
    "[%rd1+-9223372036854775808]", "[%rd1+]", "[]", "0f", "0fFFFFFFFF", "0d7FF8000000000000", "0x", "-0x8000000000000000",
    "99999999999999999999999", "-", "@", "@!", "@%p1", "@!%p9", "bra", "bra $L__BB0_1;", "$L__BB0_999:", ":",
    ".reg", ".reg .pred", ".reg .b32 %r<", ".param", ".param .align 0 .b8 p[]", ".shared", ".local", ".global",
    ".const .b8 c[2] = {1, 2, 3, 4};", ".entry", ".func", ".visible .entry k(", ")", "(", ".loc 1 0 0", ".loc 99 -1 5",
    ".file 1 \"", ".version", ".target sm_", ".address_size 128", "mov.u32", "mov.b32 {%r1, %r2}, %rd1;",
    "ld.global.v4.f32 {%f1,%f2,%f3}, [%rd1];", "st.shared.v8.u32", "shfl.sync.bfly.b32 %r1|%p1, %r2, 1, 31, -1;",
    "call.uni (retval0), f, (param0);", "call", "ret;", "exit;", "trap;", "bar.sync -1;", "bar.red.popc.u32 %r1, 0, %p1;",
    "setp.lt.f32 %p1|%p2, %f1, %f2;", "selp.b32 %r1, %r2, %r3;", "cvt.rni.s32.f32.f16", "atom.global.cas.b64",
    "prmt.b32.f4e", ".maxntid 65535, 65535, 65535", ".reqntid 1024, 1024", ".minnctapersm 4294967295", "\"", "\\", "/*", "*/", "//", "\n", "\t", "\0",
};

static int check_ptx(const char *data, size_t len) {
    Diag *d = emu_parse_check(data, len);
    int rejected = d != NULL;
    if (d && !d->message) {
        fprintf(stderr, "fuzz_ptx: a Diag without a message\n");
        abort();
    }
    diag_free(&d);
    return rejected;
}

int main(int argc, char **argv) {
    static const FuzzTarget t = {"fuzz_ptx", "tests/fuzz/corpus", "fuzz-crash.ptx", TOKENS,
                                 sizeof TOKENS / sizeof TOKENS[0], check_ptx};
    return fuzz_main(&t, argc, argv);
}
