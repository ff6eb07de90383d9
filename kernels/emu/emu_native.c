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

/* Formats one printf call from the format string and the packed argument buffer. */
/* Returns what printf returns on a GPU: the number of arguments it read
 * (0 for none), not the number of characters. */
static int do_printf(Worker *W, Warp *w, int lane, const Instr *in, uint64_t fmt, uint64_t args, StrBuf *out) {
    StrBuf f;
    strbuf_init(&f);
    read_cstring(W, w, lane, in, fmt, &f);
    uint64_t pos = 0;
    int nargs = 0;
    for (const char *s = f.data; *s;) {
        if (*s != '%') { strbuf_append_char(out, *s++); continue; }
        if (s[1] == '%') { strbuf_append_char(out, '%'); s += 2; continue; }
        char spec[32];
        int n = 0;
        spec[n++] = *s++;
        while (*s && strchr("-+ #0", *s) && n < 20) spec[n++] = *s++;
        while (*s && ((*s >= '0' && *s <= '9') || *s == '.') && n < 26) spec[n++] = *s++;
        int lng = 0, shrt = 0;
        while (*s == 'l' || *s == 'h' || *s == 'z' || *s == 'L' || *s == 'j' || *s == 't') {
            if (*s == 'h') shrt++;
            else if (*s != 'L') lng++;
            s++;
        }
        char conv = *s ? *s++ : 0;
        if (!conv) break;
        int sz = (strchr("fFeEgGaA", conv) || conv == 's' || conv == 'p' || lng) ? 8 : 4;
        pos = (pos + (uint64_t)sz - 1) / (uint64_t)sz * (uint64_t)sz;
        uint64_t v = 0;
        if (!read_bytes(W, w, lane, in, args + pos, &v, sz)) break;
        pos += (uint64_t)sz;
        nargs++;
        char buf[512];
        if (strchr("fFeEgGaA", conv)) {
            spec[n++] = conv; spec[n] = 0;
            double d;
            memcpy(&d, &v, 8);
            snprintf(buf, sizeof buf, spec, d);
        } else if (conv == 's') {
            spec[n++] = 's'; spec[n] = 0;
            StrBuf str;
            strbuf_init(&str);
            if (v) read_cstring(W, w, lane, in, v, &str);
            else strbuf_append(&str, "(null)");  /* as the GPU's printf, not a fault */
            snprintf(buf, sizeof buf, spec, str.data);
            strbuf_fini(&str);
        } else if (conv == 'p') {
            snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)v);
        } else if (strchr("dic", conv)) {
            spec[n++] = 'l'; spec[n++] = 'l'; spec[n++] = conv == 'c' ? 'd' : conv; spec[n] = 0;
            long long x = sz == 8 ? (long long)v : (long long)(int32_t)v;
            if (shrt) x = shrt == 1 ? (long long)(int16_t)x : (long long)(signed char)x;
            if (conv == 'c') {
                spec[n - 3] = 'c'; spec[n - 2] = 0;  /* keeps flags and width: "%-3c" */
                snprintf(buf, sizeof buf, spec, (int)(unsigned char)x);
            } else snprintf(buf, sizeof buf, spec, x);
        } else if (strchr("uxXo", conv)) {
            spec[n++] = 'l'; spec[n++] = 'l'; spec[n++] = conv; spec[n] = 0;
            unsigned long long x = sz == 8 ? v : (uint32_t)v;
            if (shrt) x = shrt == 1 ? (uint16_t)x : (unsigned char)x;
            snprintf(buf, sizeof buf, spec, x);
        } else {
            snprintf(buf, sizeof buf, "%%%c", conv);
        }
        strbuf_append(out, buf);
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
