/* kernels/emurt/emurt_dwarf.c: the program's DWARF line table — which
 * source file and line an address of its code comes from.
 *
 * Read once from /proc/self/exe (.debug_line versions 2 to 5, with
 * .debug_str and .debug_line_str), every offset checked against its
 * section: the executable may be anyone's, and anything unexpected just
 * leaves the table empty. Used to name allocations the way the program's
 * source does (emurt_names.c). */
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/xalloc.h"
#include "kernels/emurt/emurt_internal.h"

typedef struct Row {
    uint64_t addr;
    int file;                       /* index into g_files */
    int line, col;
    bool end;                       /* end of a sequence: no code from here */
} Row;

typedef struct SrcFile {
    char *path;
    char *text;                     /* read on first use; NULL if unreadable */
    bool tried;
} SrcFile;

static Row *g_rows;
static size_t g_n_rows, g_cap_rows;
static SrcFile *g_files;
static int g_n_files;
static bool g_loaded;
static uintptr_t g_bias;            /* load address of the executable (PIE) */
static uintptr_t g_lo, g_hi;        /* where its segments are mapped */

/* ---- a bounds-checked reader ------------------------------------------------------------------------ */
typedef struct Rd {
    const unsigned char *p, *end;
    bool bad;
} Rd;

static uint64_t rd_n(Rd *r, int n) {
    if (r->bad || r->end - r->p < n) {
        r->bad = true;
        return 0;
    }
    uint64_t v = 0;
    for (int i = 0; i < n; i++) v |= (uint64_t)r->p[i] << (8 * i);
    r->p += n;
    return v;
}

static uint64_t rd_uleb(Rd *r) {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        uint64_t b = rd_n(r, 1);
        if (r->bad) return 0;
        v |= (b & 0x7f) << shift;
        if (!(b & 0x80)) return v;
    }
    r->bad = true;
    return 0;
}

static int64_t rd_sleb(Rd *r) {
    int64_t v = 0;
    int shift = 0;
    uint64_t b;
    do {
        b = rd_n(r, 1);
        if (r->bad || shift >= 64) {
            r->bad = true;
            return 0;
        }
        v |= (int64_t)(b & 0x7f) << shift;
        shift += 7;
    } while (b & 0x80);
    if (shift < 64 && (b & 0x40)) v |= -((int64_t)1 << shift);
    return v;
}

static const char *rd_str(Rd *r) {
    const unsigned char *s = r->p;
    while (r->p < r->end && *r->p) r->p++;
    if (r->p >= r->end) {
        r->bad = true;
        return "";
    }
    r->p++;
    return (const char *)s;
}

typedef struct Sect {
    const unsigned char *p;
    size_t n;
} Sect;

static const char *sect_str(Sect s, uint64_t off) {
    if (!s.p || off >= s.n || !memchr(s.p + off, 0, s.n - off)) return "";
    return (const char *)s.p + off;
}

/* ---- the line tables ---------------------------------------------------------------------------------- */
/* The file's path: a relative directory is relative to the compilation
 * directory (`comp`, the unit's directory 0). */
static int file_add(const char *comp, const char *dir, const char *name) {
    char *path;
    if (name[0] == '/' || !dir || !*dir) path = xstrdup(name);
    else if (dir[0] == '/' || !comp || !*comp) path = xasprintf("%s/%s", dir, name);
    else path = xasprintf("%s/%s/%s", comp, dir, name);
    for (int i = 0; i < g_n_files; i++)
        if (!strcmp(g_files[i].path, path)) {
            free(path);
            return i;
        }
    g_files = xrealloc(g_files, sizeof *g_files * (size_t)(g_n_files + 1));
    g_files[g_n_files] = (SrcFile){path, NULL, false};
    return g_n_files++;
}

static void row_add(uint64_t addr, int file, int line, int col, bool end) {
    if (g_n_rows == g_cap_rows) {
        g_cap_rows = g_cap_rows ? g_cap_rows * 2 : 1024;
        g_rows = xrealloc(g_rows, sizeof *g_rows * g_cap_rows);
    }
    g_rows[g_n_rows++] = (Row){addr, file, line, col, end};
}

/* An entry's attribute in a v5 directory/file table. */
static void v5_attr(Rd *r, uint64_t form, bool dwarf64, Sect str, Sect line_str, const char **s, uint64_t *u) {
    *s = NULL;
    *u = 0;
    switch (form) {
    case 0x08: *s = rd_str(r); break;                                     /* DW_FORM_string */
    case 0x1f: *s = sect_str(line_str, rd_n(r, dwarf64 ? 8 : 4)); break; /* DW_FORM_line_strp */
    case 0x0e: *s = sect_str(str, rd_n(r, dwarf64 ? 8 : 4)); break;      /* DW_FORM_strp */
    case 0x0f: *u = rd_uleb(r); break;                                    /* DW_FORM_udata */
    case 0x0b: *u = rd_n(r, 1); break;
    case 0x05: *u = rd_n(r, 2); break;
    case 0x06: *u = rd_n(r, 4); break;
    case 0x07: *u = rd_n(r, 8); break;
    case 0x1e: rd_n(r, 8), rd_n(r, 8); break;                            /* DW_FORM_data16 (MD5) */
    case 0x09: {                                                          /* DW_FORM_block */
        uint64_t n = rd_uleb(r);
        if (n > (uint64_t)(r->end - r->p)) r->bad = true;
        else r->p += n;
        break;
    }
    default: r->bad = true; break;
    }
}

/* One unit's line program; returns false when it cannot be read. */
static bool read_unit(Rd *r, Sect str, Sect line_str) {
    uint64_t len = rd_n(r, 4);
    bool dwarf64 = len == 0xffffffffu;
    if (dwarf64) len = rd_n(r, 8);
    if (r->bad || len > (uint64_t)(r->end - r->p)) return false;
    Rd u = {r->p, r->p + len, false};
    r->p += len;
    int version = (int)rd_n(&u, 2);
    if (version < 2 || version > 5) return true; /* skip what we do not know */
    int addr_size = 8;
    if (version >= 5) {
        addr_size = (int)rd_n(&u, 1);
        rd_n(&u, 1);
    }
    uint64_t hlen = rd_n(&u, dwarf64 ? 8 : 4);
    if (u.bad || hlen > (uint64_t)(u.end - u.p)) return false;
    const unsigned char *prog = u.p + hlen;
    int min_inst = (int)rd_n(&u, 1);
    if (version >= 4) rd_n(&u, 1);
    bool default_stmt = rd_n(&u, 1) != 0;
    (void)default_stmt;
    int line_base = (int8_t)rd_n(&u, 1);
    int line_range = (int)rd_n(&u, 1);
    int opcode_base = (int)rd_n(&u, 1);
    unsigned char lens[256] = {0};
    for (int i = 1; i < opcode_base; i++) lens[i] = (unsigned char)rd_n(&u, 1);
    if (u.bad || !line_range || (addr_size != 4 && addr_size != 8)) return false;
    int *files = NULL, n_files = 0;
    const char **dirs = NULL;
    int n_dirs = 0;
    if (version >= 5) {
        for (int pass = 0; pass < 2 && !u.bad; pass++) {
            int nfmt = (int)rd_n(&u, 1);
            uint64_t fmt[2 * 16];
            if (nfmt > 16) { u.bad = true; break; }
            for (int i = 0; i < nfmt; i++) {
                fmt[2 * i] = rd_uleb(&u);
                fmt[2 * i + 1] = rd_uleb(&u);
            }
            uint64_t count = rd_uleb(&u);
            if (count > 100000) { u.bad = true; break; }
            for (uint64_t k = 0; k < count && !u.bad; k++) {
                const char *path = NULL;
                uint64_t dir = 0;
                for (int i = 0; i < nfmt; i++) {
                    const char *s;
                    uint64_t v;
                    v5_attr(&u, fmt[2 * i + 1], dwarf64, str, line_str, &s, &v);
                    if (fmt[2 * i] == 1) path = s;       /* DW_LNCT_path */
                    else if (fmt[2 * i] == 2) dir = v;   /* DW_LNCT_directory_index */
                }
                if (pass == 0) {
                    dirs = xrealloc(dirs, sizeof *dirs * (size_t)(n_dirs + 1));
                    dirs[n_dirs++] = path ? path : "";
                } else {
                    files = xrealloc(files, sizeof *files * (size_t)(n_files + 1));
                    files[n_files++] = file_add(n_dirs && dir ? dirs[0] : NULL, dir < (uint64_t)n_dirs ? dirs[dir] : "",
                                                path ? path : "?");
                }
            }
        }
    } else {
        dirs = xcalloc(1, sizeof *dirs);
        dirs[n_dirs++] = "";
        for (;;) {
            const char *d = rd_str(&u);
            if (u.bad || !*d) break;
            dirs = xrealloc(dirs, sizeof *dirs * (size_t)(n_dirs + 1));
            dirs[n_dirs++] = d;
        }
        files = xcalloc(1, sizeof *files);
        files[n_files++] = -1; /* v4 counts files from 1 */
        for (;;) {
            const char *f = rd_str(&u);
            if (u.bad || !*f) break;
            uint64_t dir = rd_uleb(&u);
            rd_uleb(&u), rd_uleb(&u);
            files = xrealloc(files, sizeof *files * (size_t)(n_files + 1));
            files[n_files++] = file_add(NULL, dir < (uint64_t)n_dirs ? dirs[dir] : "", f);
        }
    }
    bool ok = !u.bad;
    /* the program */
    Rd p = {prog, u.end, false};
    uint64_t addr = 0;
    int64_t line = 1;
    uint64_t col = 0;
    uint64_t file = version >= 5 ? 0 : 1;
#define FILE_OF(f) ((f) < (uint64_t)n_files ? files[f] : -1)
    while (ok && p.p < p.end && !p.bad) {
        int op = (int)rd_n(&p, 1);
        if (op >= opcode_base) {
            int adj = op - opcode_base;
            addr += (uint64_t)(adj / line_range) * (uint64_t)min_inst;
            line += line_base + adj % line_range;
            if (FILE_OF(file) >= 0) row_add(addr, FILE_OF(file), (int)line, (int)col, false);
            continue;
        }
        switch (op) {
        case 0: {
            uint64_t n = rd_uleb(&p);
            if (p.bad || !n || n > (uint64_t)(p.end - p.p)) { p.bad = true; break; }
            const unsigned char *next = p.p + n;
            int sub = (int)rd_n(&p, 1);
            if (sub == 1) { /* end_sequence */
                row_add(addr, -1, 0, 0, true);
                addr = 0, line = 1, col = 0, file = version >= 5 ? 0 : 1;
            } else if (sub == 2) addr = rd_n(&p, addr_size);
            p.p = next;
            break;
        }
        case 1: if (FILE_OF(file) >= 0) row_add(addr, FILE_OF(file), (int)line, (int)col, false); break;
        case 2: addr += rd_uleb(&p) * (uint64_t)min_inst; break;
        case 3: line += rd_sleb(&p); break;
        case 4: file = rd_uleb(&p); break;
        case 5: col = rd_uleb(&p); break;
        case 8: addr += (uint64_t)((255 - opcode_base) / line_range) * (uint64_t)min_inst; break;
        case 9: addr += rd_n(&p, 2); break;
        default:
            for (int i = 0; i < lens[op]; i++) rd_uleb(&p);
            break;
        }
    }
#undef FILE_OF
    free(files);
    free(dirs);
    return ok;
}

static int cmp_row(const void *a, const void *b) {
    const Row *x = a, *y = b;
    if (x->addr != y->addr) return x->addr < y->addr ? -1 : 1;
    return (int)y->end - (int)x->end; /* an end and a start at one address: the end first */
}

static int exe_bias(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size, (void)data;
    g_bias = info->dlpi_addr;
    g_lo = UINTPTR_MAX;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD) continue;
        if (g_bias + ph->p_vaddr < g_lo) g_lo = g_bias + ph->p_vaddr;
        if (g_bias + ph->p_vaddr + ph->p_memsz > g_hi) g_hi = g_bias + ph->p_vaddr + ph->p_memsz;
    }
    return 1;
}

static void load(void) {
    g_loaded = true;
    dl_iterate_phdr(exe_bias, NULL);
    int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    struct stat st;
    if (fstat(fd, &st) || st.st_size < (off_t)sizeof(Elf64_Ehdr) || st.st_size > (off_t)1 << 31) {
        close(fd);
        return;
    }
    size_t size = (size_t)st.st_size;
    unsigned char *m = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (m == MAP_FAILED) return;
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)m;
    Sect line = {0}, str = {0}, line_str = {0};
    if (!memcmp(eh->e_ident, ELFMAG, SELFMAG) && eh->e_ident[EI_CLASS] == ELFCLASS64 && eh->e_shentsize == sizeof(Elf64_Shdr) &&
        eh->e_shoff < size && eh->e_shnum <= (size - eh->e_shoff) / sizeof(Elf64_Shdr) && eh->e_shstrndx < eh->e_shnum) {
        const Elf64_Shdr *sh = (const Elf64_Shdr *)(m + eh->e_shoff);
        const Elf64_Shdr *names = &sh[eh->e_shstrndx];
        for (int i = 0; i < eh->e_shnum && names->sh_offset < size && names->sh_size <= size - names->sh_offset; i++) {
            if (sh[i].sh_type == SHT_NOBITS || sh[i].sh_offset > size || sh[i].sh_size > size - sh[i].sh_offset) continue;
            if (sh[i].sh_flags & SHF_COMPRESSED) continue;
            Sect nm = {m + names->sh_offset, names->sh_size};
            const char *n = sect_str(nm, sh[i].sh_name);
            Sect s = {m + sh[i].sh_offset, sh[i].sh_size};
            if (!strcmp(n, ".debug_line")) line = s;
            else if (!strcmp(n, ".debug_str")) str = s;
            else if (!strcmp(n, ".debug_line_str")) line_str = s;
        }
    }
    Rd r = {line.p, line.p + line.n, false};
    while (line.p && r.p < r.end && !r.bad)
        if (!read_unit(&r, str, line_str)) break;
    munmap(m, size);
    if (g_n_rows) qsort(g_rows, g_n_rows, sizeof *g_rows, cmp_row);
}

/* The row that holds the instruction at `addr` (an address in the executable file's terms). */
static const Row *row_at(uint64_t addr) {
    size_t lo = 0, hi = g_n_rows;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (g_rows[mid].addr <= addr) lo = mid + 1;
        else hi = mid;
    }
    if (!lo) return NULL;
    const Row *row = &g_rows[lo - 1];
    return row->end || row->file < 0 ? NULL : row;
}

const char *rt_dwarf_source(int file, int line) {
    SrcFile *f = &g_files[file];
    if (!f->tried) {
        f->tried = true;
        size_t len;
        Diag *d = fs_read_file_max(f->path, 4u << 20, &f->text, &len);
        if (d) f->text = NULL;
        diag_free(&d);
    }
    const char *p = f->text;
    for (int l = 1; p && l < line; l++) {
        p = strchr(p, '\n');
        if (p) p++;
    }
    return p;
}

bool rt_dwarf_line(uintptr_t pc, int *file, int *line, int *col) {
    if (!g_loaded) load();
    if (!g_n_rows || pc <= g_lo || pc > g_hi) return false; /* not the program's own code */
    const Row *row = row_at((uint64_t)(pc - g_bias - 1));     /* a return address: the call is just before */
    if (!row) return false;
    *file = row->file;
    *line = row->line;
    *col = row->col;
    return true;
}
