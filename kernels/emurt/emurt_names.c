/* kernels/emurt/emurt_names.c: what the program calls its allocations —
 * "d_x" rather than "alloc1" in call records, timelines and messages.
 *
 * cudaMalloc(&d_x, n) gives us the address of d_x, not its name; but
 * programs are built with -g, so the executable's DWARF line table
 * (.debug_line, versions 4 and 5) maps the call's return address to the
 * learner's file and line, and that line of source says
 * `cudaMalloc(&d_x, ...)`. The table is read once, from /proc/self/exe,
 * with every offset checked against the section (the executable may be
 * anyone's); anything unexpected just leaves the allocation unnamed. */
#include <elf.h>
#include <execinfo.h>
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

/* ---- reading the name off the source line ---------------------------------------------------------------------- */
static const char *source_line(int file, int line) {
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

static bool ident_char(char c) { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

/* In `text` (a few lines ending at the call), the first argument of the
 * last call to `fn` that starts before `limit` (the call's column on its
 * line; several calls may share one): "&d_x" or "(void **)&d_x" → "d_x"
 * (members and [i] kept). */
static bool name_from(const char *text, size_t len, const char *limit, const char *fn, size_t fl, char *out,
                      size_t n) {
    const char *hit = NULL;
    for (const char *p = text; p + fl < text + len && p < limit; p++)
        if (!memcmp(p, fn, fl) && (p == text || !ident_char(p[-1])) && !ident_char(p[fl])) hit = p + fl;
    if (!hit) return false;
    const char *p = hit, *end = text + len;
    while (p < end && *p != '(') p++;
    if (p >= end) return false;
    p++;
    const char *amp = NULL;
    for (const char *q = p; q < end && *q != ','; q++)
        if (*q == '&') {
            amp = q + 1;
            break;
        }
    if (!amp) return false;
    while (amp < end && (*amp == ' ' || *amp == '(')) amp++;
    size_t k = 0;
    for (const char *q = amp; q < end && k + 1 < n; q++) {
        if (ident_char(*q) || *q == '.' || *q == '[' || *q == ']' || (*q == '-' && q[1] == '>') || (*q == '>' && q > amp && q[-1] == '-'))
            out[k++] = *q;
        else break;
    }
    out[k] = 0;
    return k > 0 && !(out[0] >= '0' && out[0] <= '9');
}

/* Calls `fn(text, len, limit, name, name_len, ctx)` with the source around
 * each of the program's frames (the call's line and up to three before it,
 * `limit` the call's column on its line) until it returns true. */
typedef bool (*SiteFn)(const char *text, size_t len, const char *limit, const char *name, size_t fl, void *ctx);

static bool at_call_site(const char *fn, SiteFn try_site, void *ctx) {
    if (!g_loaded) load();
    if (!g_n_rows) return false;
    void *frames[12];
    int nf = backtrace(frames, 12);
    for (int i = 1; i < nf; i++) {
        uintptr_t a = (uintptr_t)frames[i];
        if (a <= g_lo || a > g_hi) continue; /* our frames, libc's: only the program's own code */
        const Row *row = row_at((uint64_t)(a - g_bias - 1));
        if (!row) continue;
        const char *start = source_line(row->file, row->line > 3 ? row->line - 3 : 1);
        const char *here = source_line(row->file, row->line);
        const char *stop = source_line(row->file, row->line + 4); /* a call's arguments may go on */
        if (!start || !here) continue;
        size_t len = stop && stop > start ? (size_t)(stop - start) : strlen(start);
        if (len > 2000) len = 2000;
        /* gcc puts a call's column at its '(' or name: a call on this line starts before it */
        const char *limit = row->col > 0 && here + row->col <= start + len ? here + row->col : start + len;
        for (const char *f = fn; *f;) {
            size_t fl = strcspn(f, "|");
            if (try_site(start, len, limit, f, fl, ctx) ||
                (limit < start + len && try_site(start, len, start + len, f, fl, ctx)))
                return true;
            f += fl + (f[fl] == '|');
        }
    }
    return false;
}

typedef struct NameOut {
    char *out;
    size_t n;
} NameOut;

static bool site_name(const char *text, size_t len, const char *limit, const char *name, size_t fl, void *ctx) {
    NameOut *o = ctx;
    return name_from(text, len, limit, name, fl, o->out, o->n);
}

bool rt_name_allocation(const char *fn, char *out, size_t n) {
    NameOut o = {out, n};
    return at_call_site(fn, site_name, &o);
}

/* ---- the arguments as the program wrote them ------------------------------------------------------------ */
typedef struct ArgsOut {
    char (*args)[RT_ARG_TEXT];
    int max, n;
} ArgsOut;

static bool site_args(const char *text, size_t len, const char *limit, const char *name, size_t fl, void *ctx) {
    ArgsOut *o = ctx;
    const char *hit = NULL, *end = text + len;
    for (const char *p = text; p + fl < end && p < limit; p++)
        if (!memcmp(p, name, fl) && (p == text || !ident_char(p[-1])) && !ident_char(p[fl])) hit = p + fl;
    if (!hit) return false;
    const char *p = hit;
    while (p < end && (*p == ' ' || *p == '\t')) p++;
    if (p >= end || *p != '(') return false;
    p++;
    int depth = 0, n = 0;
    const char *arg = p;
    for (; p < end; p++) {
        char c = *p;
        if (c == '(' || c == '[' || c == '{') depth++;
        else if ((c == ')' || c == ']' || c == '}') && depth > 0) depth--;
        else if ((c == ',' || c == ')') && depth == 0) {
            if (n < o->max) {
                const char *a = arg, *z = p;
                while (a < z && (*a == ' ' || *a == '\t' || *a == '\n' || *a == '\r')) a++;
                while (z > a && (z[-1] == ' ' || z[-1] == '\t' || z[-1] == '\n' || z[-1] == '\r')) z--;
                size_t k = (size_t)(z - a) < RT_ARG_TEXT - 1 ? (size_t)(z - a) : RT_ARG_TEXT - 1;
                for (size_t i = 0; i < k; i++) o->args[n][i] = (a[i] == '\n' || a[i] == '\t' || a[i] == '\r') ? ' ' : a[i];
                o->args[n][k] = 0;
            }
            n++;
            arg = p + 1;
            if (c == ')') break;
        }
    }
    if (p >= end) return false; /* the call goes on past what we read */
    o->n = n < o->max ? n : o->max;
    return true;
}

int rt_call_args(const char *fn, char (*args)[RT_ARG_TEXT], int max) {
    ArgsOut o = {args, max, 0};
    return at_call_site(fn, site_args, &o) ? o.n : 0;
}

void rt_alloc_name(RtAlloc *a, const char *fn) {
    char name[sizeof a->name];
    if (!rt_name_allocation(fn, name, sizeof name)) return;
    /* the same name still live (an allocation in a loop): number the new one */
    int same = 0;
    for (int i = 0; i < g_rt.n_allocs; i++)
        if (&g_rt.allocs[i] != a && !strncmp(g_rt.allocs[i].name, name, strlen(name)) &&
            (g_rt.allocs[i].name[strlen(name)] == 0 || g_rt.allocs[i].name[strlen(name)] == '#'))
            same++;
    if (same) snprintf(a->name, sizeof a->name, "%.40s#%d", name, same + 1);
    else snprintf(a->name, sizeof a->name, "%s", name);
    if (a->kind != RT_MEM_SYMBOL) emu_alloc_set_label(g_rt.dev[a->dev].b, a->base, a->name);
}
