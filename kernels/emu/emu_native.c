/* kernels/emu/emu_native.c: the calls the emulator runs natively: printf
 * (vprintf), malloc, free and assert (__assertfail).
 *
 * Arguments come from the thread's local frame (the .param slots of the
 * inlined call sequence); strings and printf's packed argument buffer are
 * read through the checked path, so a bad pointer is a finding. Output is
 * kept per worker with the block and order, and sorted after the launch. */
#include <pthread.h>
#include <stdio.h>
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

/* The next argument of printf's packed buffer: sz bytes at the next
 * multiple of sz (as the compiler packs them). False past readable memory. */
static bool next_arg(Worker *W, Warp *w, int lane, const Instr *in, uint64_t args, uint64_t *pos, int sz,
                     uint64_t *v) {
    *pos = (*pos + (uint64_t)sz - 1) / (uint64_t)sz * (uint64_t)sz;
    *v = 0;
    if (!read_bytes(W, w, lane, in, args + *pos, v, sz)) return false;
    *pos += (uint64_t)sz;
    return true;
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

/* A width or precision: digits, or `*` (the next int argument). Returns
 * -1 for none; digits are capped at PRINTF_FIELD_MAX. */
#define PRINTF_FIELD_MAX 4096
static int field_of(const char **s, bool *star) {
    *star = **s == '*';
    if (*star) {
        (*s)++;
        return 0;
    }
    if (**s < '0' || **s > '9') return -1;
    int v = 0;
    for (; **s >= '0' && **s <= '9'; (*s)++)
        if (v < PRINTF_FIELD_MAX) v = v * 10 + (**s - '0');
    return v > PRINTF_FIELD_MAX ? PRINTF_FIELD_MAX : v;
}

/* Formats one printf call from the format string and the packed argument
 * buffer, as the host's C library does for a GPU: "%[flags][width]
 * [.precision][length]conversion", `*` for a width or precision taken from
 * an int argument, lengths hh h l ll z j t (L ignored), %n ignored (its
 * pointer skipped, nothing stored), %ls and %lc as UTF-8. Returns what
 * printf returns on a GPU: the number of arguments it read (0 for none),
 * not the number of characters. */
static int do_printf(Worker *W, Warp *w, int lane, const Instr *in, uint64_t fmt, uint64_t args, StrBuf *out) {
    StrBuf f;
    strbuf_init(&f);
    read_cstring(W, w, lane, in, fmt, &f);
    uint64_t pos = 0, v = 0;
    int nargs = 0;
    for (const char *s = f.data; *s;) {
        if (*s != '%') { strbuf_append_char(out, *s++); continue; }
        const char *start = s++;
        char flags[8];
        int nf = 0;
        for (; *s && strchr("-+ #0", *s); s++)
            if (nf < 7 && !memchr(flags, *s, (size_t)nf)) flags[nf++] = *s;
        bool star;
        int width = field_of(&s, &star);
        if (star) {
            if (!next_arg(W, w, lane, in, args, &pos, 4, &v)) break;
            nargs++;
            long long x = (int32_t)v;
            if (x < 0 && nf < 7 && !memchr(flags, '-', (size_t)nf)) flags[nf++] = '-';
            width = (int)(llabs(x) > PRINTF_FIELD_MAX ? PRINTF_FIELD_MAX : llabs(x));
        }
        flags[nf] = 0;
        int prec = -1;
        if (*s == '.') {
            s++;
            prec = field_of(&s, &star);
            if (star) {
                if (!next_arg(W, w, lane, in, args, &pos, 4, &v)) break;
                nargs++;
                int32_t x = (int32_t)v;
                prec = x < 0 ? -1 : x > PRINTF_FIELD_MAX ? PRINTF_FIELD_MAX : x;  /* negative: none */
            } else if (prec < 0) prec = 0;
        }
        int lng = 0, shrt = 0;
        for (; *s && strchr("hlzjtL", *s); s++) {
            if (*s == 'h') shrt++;
            else if (*s != 'L') lng++;
        }
        char conv = *s ? *s++ : 0;
        if (!conv) break;
        char spec[48];
        int n = snprintf(spec, sizeof spec, "%%%s", flags);
        if (width >= 0) n += snprintf(spec + n, sizeof spec - (size_t)n, "%d", width);
        if (prec >= 0 && conv != 'c') n += snprintf(spec + n, sizeof spec - (size_t)n, ".%d", prec);
        if (conv == '%') { strbuf_append_char(out, '%'); continue; }  /* "%5%" is a '%' too, no argument */
        bool is_float = strchr("fFeEgGaA", conv) != NULL, is_int = strchr("diouxX", conv) != NULL;
        if (!is_float && !is_int && !strchr("cspn", conv)) {
            /* not a conversion: printed as written, no argument taken */
            strbuf_append_n(out, start, (size_t)(s - start));
            continue;
        }
        int sz = is_float || conv == 's' || conv == 'p' || conv == 'n' || (is_int && lng) ? 8 : 4;
        if (!next_arg(W, w, lane, in, args, &pos, sz, &v)) break;
        nargs++;
        if (is_float) {
            double d;
            memcpy(&d, &v, 8);
            snprintf(spec + n, sizeof spec - (size_t)n, "%c", conv);
            strbuf_printf(out, spec, d);
        } else if (conv == 's' || conv == 'c') {
            StrBuf str;
            strbuf_init(&str);
            if (conv == 'c' && lng) append_utf8(&str, (uint32_t)v);
            else if (conv == 'c' && (v & 0xff)) strbuf_append_char(&str, (char)v);
            else if (!v) strbuf_append(&str, "(null)");  /* as the GPU's printf, not a fault */
            else if (lng) read_wstring(W, w, lane, in, v, &str);
            else read_cstring(W, w, lane, in, v, &str);
            /* a character goes out as a one-character string: the width pads it (a NUL
               prints nothing); a wide string is cut by bytes, like %s */
            snprintf(spec + n, sizeof spec - (size_t)n, "s");
            strbuf_printf(out, spec, str.data);
            strbuf_fini(&str);
        } else if (conv == 'p') {
            strbuf_printf(out, "0x%llx", (unsigned long long)v);
        } else if (conv == 'n') {
            /* nothing stored: a format must not write through a pointer */
        } else if (conv == 'd' || conv == 'i') {
            snprintf(spec + n, sizeof spec - (size_t)n, "ll%c", conv);
            long long x = sz == 8 ? (long long)v : (long long)(int32_t)v;
            if (shrt) x = shrt == 1 ? (long long)(int16_t)x : (long long)(signed char)x;
            strbuf_printf(out, spec, x);
        } else {
            snprintf(spec + n, sizeof spec - (size_t)n, "ll%c", conv);
            unsigned long long x = sz == 8 ? v : (uint32_t)v;
            if (shrt) x = shrt == 1 ? (uint16_t)x : (unsigned char)x;
            strbuf_printf(out, spec, x);
        }
    }
    strbuf_fini(&f);
    return nargs;
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
