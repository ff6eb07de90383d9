/* kernels/emu/emu_native.c: the calls the emulator runs natively: printf
 * (vprintf), malloc, free and assert (__assertfail).
 *
 * Arguments come from the thread's local frame (the .param slots of the
 * inlined call sequence); strings and printf's packed argument buffer are
 * read through the checked path, so a bad pointer is a finding. Output is
 * kept per worker with the block and order, and sorted after the launch. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "base/strbuf.h"
#include "base/xalloc.h"
#include "kernels/emu/emu_mem.h"

static bool read_bytes(Worker *W, Warp *w, int lane, const Instr *in, uint64_t addr, void *out, int n) {
    uint64_t soff = UINT64_MAX;
    unsigned char *p = emu_mem_resolve(W, w, lane, in, SP_GENERIC, addr, n, ACC_READ, &soff);
    if (!p) return false;
    memcpy(out, p, (size_t)n);
    return true;
}

static uint64_t local_param(Worker *W, Warp *w, int lane, int off, int n) {
    uint64_t v = 0;
    const unsigned char *p = W->local + (size_t)(w->index * 32 + lane) * W->k->local_size + off;
    memcpy(&v, p, (size_t)n);
    return v;
}

static void set_local_param(Worker *W, Warp *w, int lane, int off, uint64_t v, int n) {
    unsigned char *p = W->local + (size_t)(w->index * 32 + lane) * W->k->local_size + off;
    memcpy(p, &v, (size_t)n);
}

static void read_cstring(Worker *W, Warp *w, int lane, const Instr *in, uint64_t addr, StrBuf *out) {
    for (int i = 0; i < 4096; i++) {
        char ch;
        if (!read_bytes(W, w, lane, in, addr + (uint64_t)i, &ch, 1) || !ch) return;
        strbuf_append_char(out, ch);
    }
}

/* Appends code point c as UTF-8 (a wide character of %lc or %ls). */
static void append_utf8(StrBuf *out, uint32_t c) {
    if (c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff)) c = 0xfffd;
    if (c < 0x80) strbuf_append_char(out, (char)c);
    else if (c < 0x800) {
        strbuf_append_char(out, (char)(0xc0 | c >> 6));
        strbuf_append_char(out, (char)(0x80 | (c & 0x3f)));
    } else if (c < 0x10000) {
        strbuf_append_char(out, (char)(0xe0 | c >> 12));
        strbuf_append_char(out, (char)(0x80 | (c >> 6 & 0x3f)));
        strbuf_append_char(out, (char)(0x80 | (c & 0x3f)));
    } else {
        strbuf_append_char(out, (char)(0xf0 | c >> 18));
        strbuf_append_char(out, (char)(0x80 | (c >> 12 & 0x3f)));
        strbuf_append_char(out, (char)(0x80 | (c >> 6 & 0x3f)));
        strbuf_append_char(out, (char)(0x80 | (c & 0x3f)));
    }
}

/* A wide string (wchar_t is 4 bytes on the device) as UTF-8, at most 4096 characters. */
static void read_wstring(Worker *W, Warp *w, int lane, const Instr *in, uint64_t addr, StrBuf *out) {
    for (int i = 0; i < 4096; i++) {
        uint32_t ch;
        if (!read_bytes(W, w, lane, in, addr + 4 * (uint64_t)i, &ch, 4) || !ch) return;
        append_utf8(out, ch);
    }
}

/* ---- device printf ------------------------------------------------------------------
 * CUDA's printf is done in two steps, and the emulator does both as an H200
 * does them (tests/programs/printf_star.cu, kernels/emurt/README.md):
 *
 * 1. On the device, vprintf reads the format with the grammar NVIDIA
 *    documents, "%[flags][width][.precision][size]type": flags `#0- +`,
 *    width digits or `*`, precision digits only (no `.*`), size h l ll (no
 *    hh z j t L), type one of `cdiouxXpeEfgGaAs%`. A specification outside
 *    that grammar takes no argument. For each one inside it, the argument
 *    (and each `*`'s int) is read from the compiler's packed buffer as the
 *    format says it is (4 bytes for an int and for `*`, 8 for l/ll, a double,
 *    a pointer; each at a multiple of its size) and stored in an 8-byte slot,
 *    at most 32. printf returns the number of slots: the arguments it
 *    accepted, not the characters. So a specification the device refuses
 *    makes every later one read an argument meant for an earlier one.
 *
 * 2. On the host, the driver formats the format again, with a wider
 *    grammar (hh; `.*`, but only after a `*` width), taking slot after slot.
 *    What it does not know (z j t L, %n, %F, a `.*` on its own) is printed
 *    as written: `%d [%.*f]` with the int kept printed `7 [%.*f]` on the
 *    H200 (session 9), where `[%*.*f]` took its width, its precision and
 *    its value (session 8). Past the last slot it reads the copy of the
 *    format string that follows the slots in the record (then zeros here):
 *    `%hhd %hhu` with nothing kept printed 110 104 on the H200 (session 9),
 *    the low bytes of the format's first two 8-byte words ("not on t", "he
 *    devic"). A `*` outside int's range is 0. */
#define PF_MAX_SLOTS 32
#define PRINTF_FIELD_MAX 4096   /* the emulator's cap on a width or precision: a GPU prints them all */

typedef struct PfSpec {
    char flags[8];
    int nflags;
    bool wstar, pstar;          /* width / precision from an argument */
    int width, prec;            /* -1: none (digits capped at PRINTF_FIELD_MAX) */
    int h, l;                   /* how many h and l */
    char conv;
} PfSpec;

static int pf_digits(const char **s) {
    int v = 0;
    for (; **s >= '0' && **s <= '9'; (*s)++)
        if (v < PRINTF_FIELD_MAX) v = v * 10 + (**s - '0');
    return v > PRINTF_FIELD_MAX ? PRINTF_FIELD_MAX : v;
}

/* Parses the specification after a '%' at *s with the device's grammar
 * (host true: the host's, which takes hh, and `.*` after a `*` width).
 * True with *s past it; false with *s at the character that does not fit. */
static bool pf_parse(const char **s, bool host, PfSpec *sp) {
    memset(sp, 0, sizeof *sp);
    sp->width = sp->prec = -1;
    for (; **s && strchr("#0- +", **s); (*s)++)
        if (sp->nflags < 7 && !memchr(sp->flags, **s, (size_t)sp->nflags)) sp->flags[sp->nflags++] = **s;
    if (**s == '*') {
        sp->wstar = true;
        (*s)++;
    } else if (**s >= '0' && **s <= '9') sp->width = pf_digits(s);
    if (**s == '.') {
        (*s)++;
        if (**s == '*') {
            /* the device knows no `.*`, the host only after a `*` width */
            if (!host || !sp->wstar) return false;
            sp->pstar = true;
            (*s)++;
        } else sp->prec = pf_digits(s);
    }
    if (**s == 'h') {
        sp->h = 1;
        (*s)++;
        if (**s == 'h') {
            if (!host) return false;    /* nor hh */
            sp->h = 2;
            (*s)++;
        }
    } else if (**s == 'l') {
        sp->l = 1;
        (*s)++;
        if (**s == 'l') { sp->l = 2; (*s)++; }
    }
    if (!**s || !strchr("cdiouxXpeEfgGaAs%", **s)) return false;
    sp->conv = *(*s)++;
    return true;
}

static bool pf_is_float(char c) { return strchr("eEfgGaA", c) != NULL; }

/* The bytes of the device's argument for sp: a double, a pointer or an l/ll
 * integer 8, any other 4. */
static int pf_arg_size(const PfSpec *sp) {
    return pf_is_float(sp->conv) || sp->conv == 's' || sp->conv == 'p' || sp->l ? 8 : 4;
}

/* Step 1: the slots the device stores for fmt from the packed buffer at
 * args; returns their number (what printf returns). */
static int pf_device_slots(Worker *W, Warp *w, int lane, const Instr *in, const char *fmt, uint64_t args,
                           uint64_t slots[PF_MAX_SLOTS]) {
    int n = 0;
    uint64_t pos = 0;
    for (const char *s = fmt; *s;) {
        if (*s++ != '%') continue;
        PfSpec sp;
        if (!pf_parse(&s, false, &sp) || sp.conv == '%') continue;
        int sizes[2] = {4, pf_arg_size(&sp)}, k0 = sp.wstar ? 0 : 1;
        for (int k = k0; k < 2; k++) {
            int sz = sizes[k];
            pos = (pos + (uint64_t)sz - 1) / (uint64_t)sz * (uint64_t)sz;
            uint64_t v = 0;
            if (n == PF_MAX_SLOTS || !read_bytes(W, w, lane, in, args + pos, &v, sz)) return n;
            pos += (uint64_t)sz;
            slots[n++] = sz == 4 ? (uint64_t)(int64_t)(int32_t)v : v;  /* an int widened with its sign */
        }
    }
    return n;
}

/* Step 2's reader: slot i, or past the last one the format's copy after them, then zeros. */
static uint64_t pf_slot(const uint64_t *slots, int n, const char *fmt, int i) {
    if (i < n) return slots[i];
    size_t len = strlen(fmt) + 1, off = (size_t)(i - n) * 8;
    uint64_t v = 0;
    if (off < len) memcpy(&v, fmt + off, len - off < 8 ? len - off : 8);
    return v;
}

/* A width or precision from a slot: 0 outside int's range. */
static long long pf_star(uint64_t v) {
    int64_t x = (int64_t)v;
    return x < INT32_MIN || x > INT32_MAX ? 0 : x;
}

/* Step 2: fmt formatted from the n slots, as the driver does on the host. */
static void pf_host_format(Worker *W, Warp *w, int lane, const Instr *in, const char *fmt, const uint64_t *slots,
                           int n, StrBuf *out) {
    int next = 0;
    for (const char *s = fmt; *s;) {
        if (*s != '%') { strbuf_append_char(out, *s++); continue; }
        const char *start = s++;
        PfSpec sp;
        if (!pf_parse(&s, true, &sp)) {               /* unknown to the host: as written */
            strbuf_append_n(out, start, (size_t)(s - start));
            continue;
        }
        if (sp.conv == '%') { strbuf_append_char(out, '%'); continue; }
        int need = sp.wstar + sp.pstar + 1;
        if (next + need > PF_MAX_SLOTS) {
            strbuf_append_n(out, start, (size_t)(s - start));
            continue;
        }
        if (sp.wstar) {
            long long x = pf_star(pf_slot(slots, n, fmt, next++));
            if (x < 0 && sp.nflags < 7 && !memchr(sp.flags, '-', (size_t)sp.nflags)) sp.flags[sp.nflags++] = '-';
            sp.width = (int)(llabs(x) > PRINTF_FIELD_MAX ? PRINTF_FIELD_MAX : llabs(x));
        }
        if (sp.pstar) {
            long long x = pf_star(pf_slot(slots, n, fmt, next++));
            sp.prec = x < 0 ? -1 : x > PRINTF_FIELD_MAX ? PRINTF_FIELD_MAX : (int)x;  /* negative: none */
        }
        bool real = next < n;                         /* a slot the device stored, not the record's tail */
        uint64_t v = pf_slot(slots, n, fmt, next++);
        sp.flags[sp.nflags] = 0;
        char spec[48];
        int k = snprintf(spec, sizeof spec, "%%%s", sp.flags);
        if (sp.width >= 0) k += snprintf(spec + k, sizeof spec - (size_t)k, "%d", sp.width);
        if (sp.prec >= 0 && sp.conv != 'c') k += snprintf(spec + k, sizeof spec - (size_t)k, ".%d", sp.prec);
        if (pf_is_float(sp.conv)) {
            double d;
            memcpy(&d, &v, 8);
            snprintf(spec + k, sizeof spec - (size_t)k, "%c", sp.conv);
            strbuf_printf(out, spec, d);
        } else if (sp.conv == 'p') {
            snprintf(spec + k, sizeof spec - (size_t)k, "p");
            strbuf_printf(out, spec, (void *)(uintptr_t)v);   /* the C library's: 0x1000, (nil) */
        } else if (sp.conv == 's' || sp.conv == 'c') {
            StrBuf str;
            strbuf_init(&str);
            if (sp.conv == 'c' && sp.l) append_utf8(&str, (uint32_t)v);
            else if (sp.conv == 'c') { if (v & 0xff) strbuf_append_char(&str, (char)v); }
            else if (!v) strbuf_append(&str, sp.prec < 0 || sp.prec >= 6 ? "(null)" : "");  /* as glibc */
            else if (!real) { }                       /* a "pointer" from the format's bytes: not followed */
            else if (sp.l) read_wstring(W, w, lane, in, v, &str);
            else read_cstring(W, w, lane, in, v, &str);
            /* a character goes out as a one-character string: the width pads it (a NUL
               prints nothing); a wide string is cut by bytes, like %s */
            snprintf(spec + k, sizeof spec - (size_t)k, "s");
            strbuf_printf(out, spec, str.data);
            strbuf_fini(&str);
        } else if (sp.conv == 'd' || sp.conv == 'i') {
            long long x = sp.l ? (long long)v : sp.h == 2 ? (signed char)v : sp.h ? (short)v : (int)v;
            snprintf(spec + k, sizeof spec - (size_t)k, "ll%c", sp.conv);
            strbuf_printf(out, spec, x);
        } else {
            unsigned long long x = sp.l ? v : sp.h == 2 ? (unsigned char)v : sp.h ? (unsigned short)v : (uint32_t)v;
            snprintf(spec + k, sizeof spec - (size_t)k, "ll%c", sp.conv);
            strbuf_printf(out, spec, x);
        }
    }
}

/* One printf call of a thread: its output in *out; returns what printf
 * returns on a GPU (the number of argument slots the device stored, -1 for
 * a NULL format). */
static int do_printf(Worker *W, Warp *w, int lane, const Instr *in, uint64_t fmt, uint64_t args, StrBuf *out) {
    if (!fmt) return -1;    /* CUDA: -1 for a NULL format, nothing printed */
    StrBuf f;
    strbuf_init(&f);
    read_cstring(W, w, lane, in, fmt, &f);
    uint64_t slots[PF_MAX_SLOTS];
    int n = pf_device_slots(W, w, lane, in, f.data, args, slots);
    pf_host_format(W, w, lane, in, f.data, slots, n, out);
    strbuf_fini(&f);
    return n;
}

void emu_exec_native(Worker *W, Warp *w, const Instr *in, uint32_t m) {
    EmuLaunch *L = W->L;
    for (int l = 0; l < 32; l++) {
        if (!(m >> l & 1)) continue;
        switch (in->op) {
        case OP_CALL_PRINTF: {
            uint64_t fmt = local_param(W, w, l, in->a[0], 8), args = local_param(W, w, l, in->a[1], 8);
            StrBuf out;
            strbuf_init(&out);
            int nargs = do_printf(W, w, l, in, fmt, args, &out);
            if (W->npr == W->cappr) {
                W->cappr = W->cappr ? W->cappr * 2 : 64;
                W->pr = xrealloc(W->pr, sizeof *W->pr * (size_t)W->cappr);
            }
            W->pr[W->npr++] = (PrintRec){W->block_linear, W->pseq++, strbuf_steal(&out), false};
            strbuf_fini(&out);
            if (in->d[0] >= 0) set_local_param(W, w, l, in->d[0], (uint64_t)(uint32_t)nargs, 4);
            break;
        }
        case OP_CALL_MALLOC: {
            uint64_t n = local_param(W, w, l, in->a[0], 8);
            uint64_t p = 0;
            pthread_mutex_lock(&L->lock);
            size_t need = (size_t)((n + 15) & ~15ull);
            if (n && need <= L->heap_size - L->heap_used) {
                p = L->heap_base + L->heap_used;
                L->heap_used += need;
            }
            pthread_mutex_unlock(&L->lock);
            if (in->d[0] >= 0) set_local_param(W, w, l, in->d[0], p, 8);
            break;
        }
        case OP_CALL_FREE:
            break;
        case OP_CALL_ASSERT: {
            StrBuf msg;
            strbuf_init(&msg);
            read_cstring(W, w, l, in, local_param(W, w, l, in->a[0], 8), &msg);
            unsigned c[6];
            emu_thread_args(W, w, l, c);
            emu_report(W, w, l, "assert", DIAG_ERROR, in->line,
                       N_("Assertion `%s` failed in " THR "; the kernel stops here."), msg.data,
                       c[0], c[1], c[2], c[3], c[4], c[5]);
            /* the line a GPU prints on stderr when the host synchronises:
             * "a.cu:22: void k(const int *, int): block: [2,0,0], thread: [13,0,0] Assertion `x` failed." */
            StrBuf file, fn, line;
            strbuf_init(&file);
            strbuf_init(&fn);
            strbuf_init(&line);
            read_cstring(W, w, l, in, local_param(W, w, l, in->a[1], 8), &file);
            read_cstring(W, w, l, in, local_param(W, w, l, in->a[3], 8), &fn);
            strbuf_printf(&line, "%s:%u: %s: block: [%u,%u,%u], thread: [%u,%u,%u] Assertion `%s` failed.\n", file.data,
                          (unsigned)local_param(W, w, l, in->a[2], 4), fn.data, c[3], c[4], c[5], c[0], c[1], c[2],
                          msg.data);
            if (W->npr == W->cappr) {
                W->cappr = W->cappr ? W->cappr * 2 : 64;
                W->pr = xrealloc(W->pr, sizeof *W->pr * (size_t)W->cappr);
            }
            W->pr[W->npr++] = (PrintRec){W->block_linear, W->pseq++, strbuf_steal(&line), true};
            strbuf_fini(&line);
            strbuf_fini(&file);
            strbuf_fini(&fn);
            strbuf_fini(&msg);
            W->stop = true;
            __atomic_store_n(&L->abort_flag, 1, __ATOMIC_RELAXED);
            break;
        }
        default: break;
        }
    }
}
