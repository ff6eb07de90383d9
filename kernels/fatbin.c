/* kernels/fatbin.c: reading nvcc's fat binaries (layout in fatbin.h).
 *
 * Only little-endian reads through memcpy (the data may be unaligned), and
 * every offset checked against the bytes the caller said are there before
 * it is used. */
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "base/xalloc.h"
#include "kernels/fatbin.h"

#define ENTRY_MIN_HEADER 64

static uint16_t rd16(const unsigned char *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t rd32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t rd64(const unsigned char *p) { return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32; }

/* One entry at `p` (`left` bytes remain in the fat binary); sets *used. */
static Diag *parse_entry(const unsigned char *p, size_t left, FatbinEntry *e, size_t *used) {
    memset(e, 0, sizeof *e);
    if (left < ENTRY_MIN_HEADER)
        return diag_error("fatbin", "damaged fat binary: an entry header needs %d bytes but %zu remain",
                          ENTRY_MIN_HEADER, left);
    uint32_t hsize = rd32(p + 4);
    uint64_t psize = rd64(p + 8);
    if (hsize < ENTRY_MIN_HEADER || hsize > left)
        return diag_error("fatbin", "damaged fat binary: entry header size %u (must be %d..%zu)", hsize,
                          ENTRY_MIN_HEADER, left);
    if (psize > left - hsize)
        return diag_error("fatbin", "damaged fat binary: entry payload of %llu bytes but only %zu remain",
                          (unsigned long long)psize, left - hsize);
    e->kind = rd16(p);
    e->ptx_minor = rd16(p + 24);
    e->ptx_major = rd16(p + 26);
    e->arch = (int)(rd32(p + 28) & 0xffff);
    e->flags = rd64(p + 40);
    e->payload = p + hsize;
    e->payload_size = (size_t)psize;
    uint32_t csize = rd32(p + 16);
    e->zstd = (e->flags & FATBIN_FLAG_ZSTD) || (psize >= 4 && !memcmp(e->payload, "\x28\xb5\x2f\xfd", 4));
    e->lz4 = !e->zstd && (e->flags & FATBIN_FLAG_LZ4);
    if ((e->zstd || e->lz4) && csize && csize <= psize) e->payload_size = csize;
    if (e->zstd || e->lz4) e->decompressed_size = (size_t)rd64(p + 56);
    uint32_t noff = rd32(p + 32), nlen = rd32(p + 36);
    if (noff >= ENTRY_MIN_HEADER && noff < hsize && nlen && nlen <= hsize - noff) {
        size_t n = nlen < sizeof e->name ? nlen : sizeof e->name - 1;
        memcpy(e->name, p + noff, n);
        e->name[n] = 0;
        e->name[strnlen(e->name, n)] = 0;
    }
    *used = hsize + (size_t)psize;
    return NULL;
}

Diag *fatbin_parse(const void *data, size_t avail, Fatbin **out) {
    *out = NULL;
    const unsigned char *p = data;
    if (!p || avail < 16) return diag_error("fatbin", "damaged fat binary: %zu bytes is too short for a header", avail);
    if (rd32(p) != FATBIN_MAGIC)
        return diag_error("fatbin", "not a fat binary: magic 0x%08x (expected 0x%08x)", rd32(p), FATBIN_MAGIC);
    uint16_t hsize = rd16(p + 6);
    uint64_t size = rd64(p + 8);
    if (hsize < 16 || hsize > avail)
        return diag_error("fatbin", "damaged fat binary: header size %u", hsize);
    if (size > avail - hsize)
        return diag_error("fatbin", "damaged fat binary: it says %llu bytes follow the header but only %zu are there",
                          (unsigned long long)size, avail - hsize);
    Fatbin *fb = xcalloc(1, sizeof *fb);
    fb->size = hsize + (size_t)size;
    int cap = 0;
    size_t off = hsize;
    while (off < fb->size) {
        if (fb->n_entries == 4096) break;
        if (fb->size - off < ENTRY_MIN_HEADER && !rd16(p + off)) break; /* trailing padding */
        FatbinEntry e;
        size_t used = 0;
        Diag *d = parse_entry(p + off, fb->size - off, &e, &used);
        if (d) {
            fatbin_free(&fb);
            return d;
        }
        if (fb->n_entries == cap) {
            cap = cap ? cap * 2 : 4;
            fb->entries = xrealloc(fb->entries, sizeof *fb->entries * (size_t)cap);
        }
        fb->entries[fb->n_entries++] = e;
        off += used;
    }
    *out = fb;
    return NULL;
}

void fatbin_free(Fatbin **fb) {
    if (!*fb) return;
    free((*fb)->entries);
    free(*fb);
    *fb = NULL;
}

const FatbinEntry *fatbin_find_ptx(const Fatbin *fb, int max_arch) {
    const FatbinEntry *best = NULL, *lowest = NULL;
    for (int i = 0; i < fb->n_entries; i++) {
        const FatbinEntry *e = &fb->entries[i];
        if (e->kind != FATBIN_KIND_PTX) continue;
        if (!lowest || e->arch < lowest->arch) lowest = e;
        if (e->arch <= max_arch && (!best || e->arch > best->arch)) best = e;
    }
    return best ? best : lowest;
}

const FatbinEntry *fatbin_find_elf(const Fatbin *fb, int arch) {
    for (int i = 0; i < fb->n_entries; i++)
        if (fb->entries[i].kind == FATBIN_KIND_ELF && fb->entries[i].arch == arch) return &fb->entries[i];
    return NULL;
}

Diag *fatbin_entry_data(const FatbinEntry *e, unsigned char **out, size_t *len) {
    *out = NULL;
    *len = 0;
    if (e->lz4)
        return diag_error("fatbin", "the fat binary's %s for arch %d is LZ4-compressed (an older nvcc); rebuild the "
                          "program with CUDA 13's nvcc", e->kind == FATBIN_KIND_PTX ? "PTX" : "code", e->arch);
    unsigned char *buf;
    size_t n;
    if (e->zstd) {
        unsigned long long want = ZSTD_getFrameContentSize(e->payload, e->payload_size);
        if (want == ZSTD_CONTENTSIZE_ERROR)
            return diag_error("fatbin", "damaged fat binary: the compressed entry for arch %d is not zstd data", e->arch);
        if (want == ZSTD_CONTENTSIZE_UNKNOWN) want = e->decompressed_size;
        if (!want || want > FATBIN_MAX_DECOMPRESSED)
            return diag_error("fatbin", "damaged fat binary: the entry for arch %d would decompress to %llu bytes",
                              e->arch, want);
        buf = xmalloc((size_t)want + 1);
        size_t got = ZSTD_decompress(buf, (size_t)want, e->payload, e->payload_size);
        if (ZSTD_isError(got)) {
            free(buf);
            return diag_error("fatbin", "damaged fat binary: decompressing the entry for arch %d failed (%s)", e->arch,
                              ZSTD_getErrorName(got));
        }
        n = got;
    } else {
        buf = xmalloc(e->payload_size + 1);
        memcpy(buf, e->payload, e->payload_size);
        n = e->payload_size;
    }
    if (e->kind == FATBIN_KIND_PTX) n = strnlen((const char *)buf, n);
    buf[n] = 0;
    *out = buf;
    *len = n;
    return NULL;
}
