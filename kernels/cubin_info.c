/* kernels/cubin_info.c: per-kernel registers, stack frame and static shared
 * memory read straight from a CUDA cubin (an ELF64 little-endian file).
 *
 * The layout is in cubin_info.h. Every header, table and record is copied
 * out with memcpy after its bounds are checked against the buffer, so a
 * truncated or scribbled file (the disk cache, a bad toolkit) is a Diag and
 * unaligned fields are never dereferenced in place. */
#include "kernels/cubin_info.h"

#include <elf.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "cubin_info reads little-endian ELF fields in place: a big-endian host needs byte swaps"
#endif

#define STO_CUDA_ENTRY 0x10         /* st_other bit of a __global__ function */
#define EIFMT_NVAL 0x01
#define EIFMT_BVAL 0x02
#define EIFMT_HVAL 0x03
#define EIFMT_SVAL 0x04
#define EIATTR_FRAME_SIZE 0x11
#define EIATTR_REGCOUNT 0x2f

typedef struct Cubin {
    const unsigned char *buf;
    size_t size;
    Elf64_Ehdr eh;
    Elf64_Shdr *sh;                 /* e_shnum headers, copied out */
    int nsh;
    const char *shstr;              /* section names */
    size_t shstr_size;
    const char *symstr;             /* symbol names */
    size_t symstr_size;
    int symtab;                     /* section index of .symtab */
    size_t nsyms;
} Cubin;

static Diag *bad(const char *what) {
    return diag_error("cubin", "the cubin is damaged or not one cudojo understands: %s", what);
}

/* Whether section `i`'s bytes lie inside the buffer (NOBITS sections have none). */
static bool section_in_file(const Cubin *c, int i) {
    const Elf64_Shdr *s = &c->sh[i];
    if (s->sh_type == SHT_NOBITS) return false;
    return s->sh_offset <= c->size && s->sh_size <= c->size - s->sh_offset;
}

/* The NUL-terminated string at `off` of a string table, or NULL if it runs off the end. */
static const char *table_string(const char *tab, size_t tab_size, uint64_t off) {
    if (!tab || off >= tab_size) return NULL;
    return memchr(tab + off, '\0', tab_size - off) ? tab + off : NULL;
}

static const char *section_name(const Cubin *c, int i) {
    return table_string(c->shstr, c->shstr_size, c->sh[i].sh_name);
}

static bool starts_with(const char *s, const char *prefix) {
    return !strncmp(s, prefix, strlen(prefix));
}

/* ELF header, section headers and their names. */
static Diag *read_sections(Cubin *c) {
    if (c->size < sizeof c->eh) return bad("shorter than an ELF header");
    memcpy(&c->eh, c->buf, sizeof c->eh);
    const unsigned char *id = c->eh.e_ident;
    if (memcmp(id, ELFMAG, SELFMAG)) return bad("no ELF magic");
    if (id[EI_CLASS] != ELFCLASS64 || id[EI_DATA] != ELFDATA2LSB) return bad("not 64-bit little-endian ELF");
    if (c->eh.e_machine != EM_CUDA) return bad("not a CUDA ELF (e_machine)");
    const Elf64_Ehdr *e = &c->eh;
    if (e->e_shnum == 0 || e->e_shentsize < sizeof(Elf64_Shdr)) return bad("no section header table");
    if (e->e_shoff > c->size || (c->size - e->e_shoff) / e->e_shentsize < e->e_shnum)
        return bad("section header table past the end of the file");
    if (e->e_shstrndx >= e->e_shnum) return bad("section name table index out of range");
    c->nsh = e->e_shnum;
    c->sh = xcalloc((size_t)c->nsh, sizeof *c->sh);
    for (int i = 0; i < c->nsh; i++)
        memcpy(&c->sh[i], c->buf + e->e_shoff + (size_t)i * e->e_shentsize, sizeof c->sh[i]);
    if (!section_in_file(c, e->e_shstrndx)) return bad("section name table past the end of the file");
    c->shstr = (const char *)c->buf + c->sh[e->e_shstrndx].sh_offset;
    c->shstr_size = c->sh[e->e_shstrndx].sh_size;
    for (int i = 0; i < c->nsh; i++)
        if (!section_name(c, i)) return bad("section name out of range");
    return NULL;
}

/* .symtab and its string table. */
static Diag *read_symtab(Cubin *c) {
    c->symtab = -1;
    for (int i = 0; i < c->nsh && c->symtab < 0; i++)
        if (c->sh[i].sh_type == SHT_SYMTAB) c->symtab = i;
    if (c->symtab < 0) return bad("no symbol table");
    const Elf64_Shdr *st = &c->sh[c->symtab];
    if (st->sh_entsize != sizeof(Elf64_Sym) || !section_in_file(c, c->symtab))
        return bad("symbol table malformed or past the end of the file");
    if (st->sh_link >= (Elf64_Word)c->nsh || !section_in_file(c, (int)st->sh_link))
        return bad("symbol name table missing or past the end of the file");
    c->nsyms = st->sh_size / sizeof(Elf64_Sym);
    c->symstr = (const char *)c->buf + c->sh[st->sh_link].sh_offset;
    c->symstr_size = c->sh[st->sh_link].sh_size;
    return NULL;
}

static Elf64_Sym symbol_at(const Cubin *c, size_t i) {
    Elf64_Sym s;
    memcpy(&s, c->buf + c->sh[c->symtab].sh_offset + i * sizeof s, sizeof s);
    return s;
}

/* Every entry symbol becomes a kernel; kernel_of[sym] is its index (-1 for other symbols). */
static Diag *read_kernels(const Cubin *c, CubinInfo *info, int *kernel_of) {
    for (size_t i = 0; i < c->nsyms; i++) {
        kernel_of[i] = -1;
        Elf64_Sym s = symbol_at(c, i);
        if (ELF64_ST_TYPE(s.st_info) != STT_FUNC || !(s.st_other & STO_CUDA_ENTRY)) continue;
        const char *name = table_string(c->symstr, c->symstr_size, s.st_name);
        if (!name || !*name) return bad("kernel symbol name out of range");
        info->kernels = xrealloc(info->kernels, (size_t)(info->n_kernels + 1) * sizeof *info->kernels);
        CubinKernel *k = &info->kernels[info->n_kernels];
        k->name = xstrdup(name);
        k->registers = k->local_bytes = k->shared_static = -1;
        kernel_of[i] = info->n_kernels++;
    }
    return NULL;
}

static uint32_t u32_at(const unsigned char *p) {
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* Walks the attribute records of one .nv.info section. */
static Diag *read_info_records(const Cubin *c, int sec, CubinInfo *info, const int *kernel_of) {
    if (!section_in_file(c, sec)) return bad(".nv.info past the end of the file");
    const unsigned char *p = c->buf + c->sh[sec].sh_offset, *end = p + c->sh[sec].sh_size;
    while (p < end) {
        if (end - p < 4) return bad(".nv.info ends inside a record");
        unsigned fmt = p[0], attr = p[1], len = (unsigned)p[2] | (unsigned)p[3] << 8;
        if (fmt == EIFMT_NVAL || fmt == EIFMT_BVAL || fmt == EIFMT_HVAL) {
            p += 4;
            continue;
        }
        if (fmt != EIFMT_SVAL) return bad(".nv.info record of unknown format");
        if ((size_t)(end - p - 4) < len) return bad(".nv.info record runs past its section");
        if (attr == EIATTR_REGCOUNT || attr == EIATTR_FRAME_SIZE) {
            if (len != 8) return bad("register count or frame size record of the wrong size");
            uint32_t sym = u32_at(p + 4), value = u32_at(p + 8);
            if (sym >= c->nsyms) return bad(".nv.info names a symbol past the symbol table");
            if (value > INT_MAX) return bad("register count or frame size out of range");
            int k = kernel_of[sym];
            if (k >= 0) {
                if (attr == EIATTR_REGCOUNT) info->kernels[k].registers = (int)value;
                else info->kernels[k].local_bytes = (int)value;
            }
        }
        p += 4 + len;
    }
    return NULL;
}

/* Static shared memory of each kernel from the size of .nv.shared.<kernel>. */
static void read_shared(const Cubin *c, CubinInfo *info) {
    for (int i = 0; i < c->nsh; i++)
        if (starts_with(section_name(c, i), ".nv.shared.reserved.")) info->has_reserved_shared = true;
    for (int k = 0; k < info->n_kernels; k++) {
        CubinKernel *kern = &info->kernels[k];
        kern->shared_static = 0;
        for (int i = 0; i < c->nsh; i++) {
            const char *n = section_name(c, i);
            if (!starts_with(n, ".nv.shared.") || strcmp(n + 11, kern->name)) continue;
            uint64_t size = c->sh[i].sh_size;
            if (info->has_reserved_shared)
                size = size >= CUBIN_SHARED_RESERVED ? size - CUBIN_SHARED_RESERVED : UINT64_MAX;
            kern->shared_static = size <= INT_MAX ? (int)size : -1;
            break;
        }
    }
}

Diag *cubin_info_parse(const void *cubin, size_t size, CubinInfo **out) {
    *out = NULL;
    if (!cubin) return bad("no data");
    Cubin c = {.buf = cubin, .size = size};
    CubinInfo *info = xcalloc(1, sizeof *info);
    int *kernel_of = NULL;
    Diag *d = read_sections(&c);
    if (!d) d = read_symtab(&c);
    if (!d) {
        kernel_of = xcalloc(c.nsyms ? c.nsyms : 1, sizeof *kernel_of);
        d = read_kernels(&c, info, kernel_of);
    }
    for (int i = 0; !d && i < c.nsh; i++) {
        /* The per-kernel .nv.info.<k> sections hold parameters and such;
         * registers and frames are in the module-wide one, about .symtab. */
        if (!strcmp(section_name(&c, i), ".nv.info") && c.sh[i].sh_link == (Elf64_Word)c.symtab)
            d = read_info_records(&c, i, info, kernel_of);
    }
    if (!d) {
        read_shared(&c, info);
        unsigned abi = c.eh.e_ident[EI_ABIVERSION];
        info->abi_version = (int)abi;
        info->arch = (int)(abi >= 8 ? (c.eh.e_flags >> 8) & 0xff : c.eh.e_flags & 0xff);
    }
    free(kernel_of);
    free(c.sh);
    if (d) cubin_info_free(&info);
    *out = info;
    return d;
}

void cubin_info_free(CubinInfo **info) {
    CubinInfo *ci = *info;
    if (!ci) return;
    for (int i = 0; i < ci->n_kernels; i++) free(ci->kernels[i].name);
    free(ci->kernels);
    free(ci);
    *info = NULL;
}

const CubinKernel *cubin_info_find(const CubinInfo *info, const char *name) {
    if (!info || !name) return NULL;
    for (int i = 0; i < info->n_kernels; i++)
        if (!strcmp(info->kernels[i].name, name)) return &info->kernels[i];
    return NULL;
}
