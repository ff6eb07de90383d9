/* kernels/emu/emu_parse.c: PTX text → Program of raw functions and variables.
 *
 * A hand-written tokenizer: statements end at ';' and may span lines, while
 * `.loc`, `.file` and labels are line-based. Anything the parser does not
 * understand becomes a Diag naming the PTX line, never an assert: the input
 * may be hand-edited (and is fuzzed). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "kernels/emu/emu.h"
#include "kernels/emu/emu_raw.h"

/* ---- arena ---------------------------------------------------------------- */
struct Arena {
    struct Arena *next;
    size_t used, cap;
    unsigned char data[];
};

void *arena_alloc(Arena *a, size_t n) {
    n = (n + 15) & ~(size_t)15;
    Arena *c = a->next ? a->next : a;
    if (c->used + n > c->cap) {
        size_t cap = n > 65536 ? n : 65536;
        Arena *nc = xmalloc(sizeof *nc + cap);
        nc->used = 0;
        nc->cap = cap;
        nc->next = a->next;
        a->next = nc;
        c = nc;
    }
    void *p = c->data + c->used;
    c->used += n;
    memset(p, 0, n);
    return p;
}

char *arena_strndup(Arena *a, const char *s, size_t n) {
    char *p = arena_alloc(a, n + 1);
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}

static Arena *arena_new(void) {
    Arena *a = xmalloc(sizeof *a);
    a->next = NULL;
    a->used = a->cap = 0;
    return a;
}

static void arena_free(Arena *a) {
    Arena *c = a->next;
    while (c) {
        Arena *n = c->next;
        free(c);
        c = n;
    }
    free(a);
}

/* ---- types ---------------------------------------------------------------- */
EmuType emu_type_parse(const char *s, size_t n) {
    static const struct { const char *name; EmuType t; } tab[] = {
        {"b8", T_B8}, {"b16", T_B16}, {"b32", T_B32}, {"b64", T_B64}, {"b128", T_B128},
        {"u8", T_U8}, {"u16", T_U16}, {"u32", T_U32}, {"u64", T_U64}, {"s8", T_S8},
        {"s16", T_S16}, {"s32", T_S32}, {"s64", T_S64}, {"f16", T_F16}, {"f16x2", T_F16X2},
        {"bf16", T_BF16}, {"bf16x2", T_BF16X2}, {"f32", T_F32}, {"f64", T_F64}, {"pred", T_PRED},
    };
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
        if (strlen(tab[i].name) == n && !memcmp(tab[i].name, s, n)) return tab[i].t;
    return T_NONE;
}

int emu_type_bytes(EmuType t) {
    switch (t) {
    case T_B8: case T_U8: case T_S8: return 1;
    case T_B16: case T_U16: case T_S16: case T_F16: case T_BF16: return 2;
    case T_B32: case T_U32: case T_S32: case T_F32: case T_F16X2: case T_BF16X2: return 4;
    case T_B64: case T_U64: case T_S64: case T_F64: return 8;
    case T_B128: return 16;
    default: return 0;
    }
}

/* ---- lexer ---------------------------------------------------------------- */
enum { TK_EOF, TK_IDENT, TK_NUM, TK_STR, TK_PUNCT };

typedef struct Lexer {
    const char *s, *end;
    int line;
    /* current token */
    int kind;
    const char *tok;
    size_t len;
    int tline;
    Arena *arena;
    Diag *err;
} Lexer;

static bool is_ident_char(int c) { return isalnum(c) || c == '_' || c == '$' || c == '%' || c == '.'; }

static void lex_next(Lexer *L) {
    for (;;) {
        while (L->s < L->end && isspace((unsigned char)*L->s)) {
            if (*L->s == '\n') L->line++;
            L->s++;
        }
        if (L->s + 1 < L->end && L->s[0] == '/' && L->s[1] == '/') {
            while (L->s < L->end && *L->s != '\n') L->s++;
            continue;
        }
        if (L->s + 1 < L->end && L->s[0] == '/' && L->s[1] == '*') {
            L->s += 2;
            while (L->s + 1 < L->end && !(L->s[0] == '*' && L->s[1] == '/')) {
                if (*L->s == '\n') L->line++;
                L->s++;
            }
            L->s = L->s + 2 <= L->end ? L->s + 2 : L->end;
            continue;
        }
        break;
    }
    L->tline = L->line;
    L->tok = L->s;
    if (L->s >= L->end || *L->s == 0) {
        L->kind = TK_EOF;
        L->len = 0;
        return;
    }
    unsigned char c = (unsigned char)*L->s;
    if (isdigit(c)) {
        while (L->s < L->end && (isalnum((unsigned char)*L->s) || *L->s == '.')) L->s++;
        L->kind = TK_NUM;
    } else if (is_ident_char(c)) {
        /* "L1::evict_last" style cache hints are part of an opcode */
        while (L->s < L->end && (is_ident_char((unsigned char)*L->s) ||
                                 (L->s + 1 < L->end && L->s[0] == ':' && L->s[1] == ':')))
            L->s += (*L->s == ':') ? 2 : 1;
        L->kind = TK_IDENT;
    } else if (c == '"') {
        L->s++;
        while (L->s < L->end && *L->s != '"' && *L->s != '\n') L->s++;
        if (L->s < L->end && *L->s == '"') L->s++;
        L->kind = TK_STR;
    } else {
        L->s++;
        L->kind = TK_PUNCT;
    }
    L->len = (size_t)(L->s - L->tok);
}

static bool tok_is(const Lexer *L, const char *t) {
    return L->kind != TK_EOF && strlen(t) == L->len && !memcmp(L->tok, t, L->len);
}

static bool punct(const Lexer *L, char c) { return L->kind == TK_PUNCT && L->tok[0] == c; }

static const char *tok_dup(Lexer *L) { return arena_strndup(L->arena, L->tok, L->len); }

static void lex_error(Lexer *L, const char *what) {
    if (L->err) return;
    int n = (int)(L->len > 40 ? 40 : L->len);
    L->err = diag_error("ptx-parse", "PTX line %d: %s (at '%.*s')", L->tline, what, n,
                        L->kind == TK_EOF ? "end of file" : L->tok);
}

static bool expect(Lexer *L, char c) {
    if (!punct(L, c)) {
        char what[32];
        snprintf(what, sizeof what, "expected '%c'", c);
        lex_error(L, what);
        return false;
    }
    lex_next(L);
    return true;
}

static void skip_statement(Lexer *L) {
    while (L->kind != TK_EOF && !punct(L, ';')) lex_next(L);
    if (punct(L, ';')) lex_next(L);
}

static void skip_line(Lexer *L) {
    int line = L->tline;
    while (L->kind != TK_EOF && L->tline == line) lex_next(L);
}

static int hexval(int c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Parses a number token into an operand (integer, f32/f64 bits, decimal float). */
static bool parse_number(const char *s, size_t n, RawOpnd *o) {
    if (n > 2 && s[0] == '0' && (s[1] == 'f' || s[1] == 'F' || s[1] == 'd' || s[1] == 'D')) {
        size_t digits = (s[1] == 'f' || s[1] == 'F') ? 8 : 16;
        if (n != digits + 2) return false;
        uint64_t v = 0;
        for (size_t i = 2; i < n; i++) {
            int h = hexval((unsigned char)s[i]);
            if (h < 0) return false;
            v = v << 4 | (uint64_t)h;
        }
        o->kind = digits == 8 ? RO_F32 : RO_F64;
        o->bits = v;
        return true;
    }
    if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        uint64_t v = 0;
        size_t i = 2;
        for (; i < n && hexval((unsigned char)s[i]) >= 0; i++) v = v << 4 | (uint64_t)hexval((unsigned char)s[i]);
        if (i < n && (s[i] == 'U' || s[i] == 'u')) i++;
        if (i != n || n == 2) return false;
        o->kind = RO_INT;
        o->imm = (int64_t)v;
        return true;
    }
    bool isfloat = false;
    for (size_t i = 0; i < n; i++)
        if (s[i] == '.' || s[i] == 'e' || s[i] == 'E') isfloat = true;
    if (isfloat) {
        char buf[64];
        if (n >= sizeof buf) return false;
        memcpy(buf, s, n);
        buf[n] = 0;
        char *endp;
        o->fval = strtod(buf, &endp);
        if (*endp) return false;
        o->kind = RO_FLT;
        return true;
    }
    uint64_t v = 0;
    size_t i = 0;
    bool octal = n > 1 && s[0] == '0';
    for (; i < n && isdigit((unsigned char)s[i]); i++) v = v * (octal ? 8 : 10) + (uint64_t)(s[i] - '0');
    if (i < n && (s[i] == 'U' || s[i] == 'u')) i++;
    if (i != n) return false;
    o->kind = RO_INT;
    o->imm = (int64_t)v;
    return true;
}

/* ---- operands ------------------------------------------------------------- */
static bool parse_operand(Lexer *L, RawOpnd *o);

static bool parse_list(Lexer *L, RawOpnd *o, char open, char close) {
    (void)open;
    lex_next(L);
    RawOpnd tmp[64];
    int n = 0;
    while (!punct(L, close)) {
        if (n == 64) { lex_error(L, "too many list members"); return false; }
        if (!parse_operand(L, &tmp[n++])) return false;
        if (punct(L, ',')) lex_next(L);
        else if (!punct(L, close)) { lex_error(L, "expected ',' in list"); return false; }
    }
    lex_next(L);
    o->nvec = n;
    o->vec = arena_alloc(L->arena, sizeof(RawOpnd) * (size_t)(n ? n : 1));
    if (n) memcpy(o->vec, tmp, sizeof(RawOpnd) * (size_t)n);
    return true;
}

static bool parse_signed_int(Lexer *L, int64_t *v) {
    bool neg = false;
    if (punct(L, '-')) { neg = true; lex_next(L); }
    if (L->kind != TK_NUM) { lex_error(L, "expected a number"); return false; }
    RawOpnd t;
    memset(&t, 0, sizeof t);
    if (!parse_number(L->tok, L->len, &t) || t.kind != RO_INT) { lex_error(L, "bad integer"); return false; }
    *v = neg ? (int64_t)(0 - (uint64_t)t.imm) : t.imm;
    lex_next(L);
    return true;
}

/* `|%p` after a destination (setp's second predicate, elect.sync's), when there. */
static bool parse_pair_pred(Lexer *L, RawOpnd *o) {
    if (!punct(L, '|')) return true;
    lex_next(L);
    if (L->kind != TK_IDENT) { lex_error(L, "expected a predicate after '|'"); return false; }
    o->name2 = tok_dup(L);
    lex_next(L);
    return true;
}

static bool parse_operand(Lexer *L, RawOpnd *o) {
    memset(o, 0, sizeof *o);
    if (punct(L, '[')) {
        lex_next(L);
        o->kind = RO_MEM;
        if (L->kind == TK_IDENT) {
            o->name = tok_dup(L);
            lex_next(L);
        } else if (L->kind == TK_NUM || punct(L, '-')) {
            if (!parse_signed_int(L, &o->imm)) return false;
            if (!expect(L, ']')) return false;
            return true;
        }
        while (punct(L, '+') || punct(L, '-')) {
            bool neg = punct(L, '-');
            lex_next(L);
            int64_t v;
            if (!parse_signed_int(L, &v)) return false;
            o->imm = (int64_t)((uint64_t)o->imm + (neg ? 0 - (uint64_t)v : (uint64_t)v));
        }
        /* [tensorMap, {x, y}]: a tensor map and coordinates (cp.async.bulk.tensor),
         * kept in vec for the decoder to refuse by name */
        if (punct(L, ',')) {
            lex_next(L);
            if (!punct(L, '{')) { lex_error(L, "expected '{' after ',' in an address"); return false; }
            if (!parse_list(L, o, '{', '}')) return false;
        }
        return expect(L, ']');
    }
    if (punct(L, '{')) {
        o->kind = RO_VEC;
        return parse_list(L, o, '{', '}');
    }
    if (punct(L, '(')) {
        o->kind = RO_LIST;
        return parse_list(L, o, '(', ')');
    }
    if (punct(L, '!')) {
        lex_next(L);
        if (L->kind != TK_IDENT) { lex_error(L, "expected a predicate after '!'"); return false; }
        o->kind = RO_REG;
        o->neg = true;
        o->name = tok_dup(L);
        lex_next(L);
        return true;
    }
    if (punct(L, '-') || L->kind == TK_NUM) {
        bool neg = false;
        if (punct(L, '-')) { neg = true; lex_next(L); }
        if (L->kind != TK_NUM || !parse_number(L->tok, L->len, o)) { lex_error(L, "bad number"); return false; }
        if (neg) {
            if (o->kind == RO_INT) o->imm = (int64_t)(0 - (uint64_t)o->imm);
            else if (o->kind == RO_FLT) o->fval = -o->fval;
            else if (o->kind == RO_F32) o->bits ^= 0x80000000u;
            else o->bits ^= 0x8000000000000000ull;
        }
        lex_next(L);
        return true;
    }
    if (L->kind == TK_IDENT) {
        const char *name = tok_dup(L);
        lex_next(L);
        if (!strcmp(name, "_")) {   /* the sink; `_|%p` (elect.sync) keeps the predicate */
            o->kind = RO_SINK;
            return parse_pair_pred(L, o);
        }
        o->name = name;
        o->kind = name[0] == '%' ? RO_REG : RO_SYM;
        if (o->kind == RO_SYM && punct(L, '(')) {  /* generic(sym) */
            lex_error(L, "address operators like generic(sym) are not supported");
            return false;
        }
        if (o->kind == RO_SYM && (punct(L, '+') || punct(L, '-'))) {
            bool neg = punct(L, '-');
            lex_next(L);
            int64_t v;
            if (!parse_signed_int(L, &v)) return false;
            o->imm = neg ? (int64_t)(0 - (uint64_t)v) : v;
        }
        return parse_pair_pred(L, o);
    }
    lex_error(L, "unexpected token in operand");
    return false;
}

/* ---- declarations --------------------------------------------------------- */
typedef struct StmtVec { RawStmt *v; int n, cap; } StmtVec;

static RawStmt *stmt_push(StmtVec *sv) {
    if (sv->n == sv->cap) {
        sv->cap = sv->cap ? sv->cap * 2 : 64;
        sv->v = xrealloc(sv->v, sizeof *sv->v * (size_t)sv->cap);
    }
    RawStmt *s = &sv->v[sv->n++];
    memset(s, 0, sizeof *s);
    return s;
}

/* Reads `[.align N] [.ptr .space .align N] .type name[dims]` after a state-space keyword.
 * Leaves the lexer on the token after the name/dims. */
static bool parse_var_head(Lexer *L, EmuType *type, size_t *align, const char **name, size_t *count,
                           bool *unsized) {
    *type = T_NONE;
    *align = 0;
    *count = 1;
    *unsized = false;
    while (L->kind == TK_IDENT && L->tok[0] == '.') {
        if (tok_is(L, ".align")) {
            lex_next(L);
            int64_t v;
            if (!parse_signed_int(L, &v)) return false;
            if (v <= 0 || v > 4096 || (v & (v - 1))) { lex_error(L, "bad .align"); return false; }
            *align = (size_t)v;
            continue;
        }
        if (tok_is(L, ".attribute")) {   /* .attribute(.managed): __managed__ is ordinary memory here */
            lex_next(L);
            if (punct(L, '(')) {
                int guard = 0;
                while (!punct(L, ')') && L->kind != TK_EOF && guard++ < 16) lex_next(L);
                if (punct(L, ')')) lex_next(L);
            }
            continue;
        }
        EmuType t = emu_type_parse(L->tok + 1, L->len - 1);
        if (t != T_NONE) *type = t;
        else if (tok_is(L, ".v2") || tok_is(L, ".v4")) { lex_error(L, "vector variables are not supported"); return false; }
        lex_next(L);
    }
    if (*type == T_NONE) { lex_error(L, "expected a type"); return false; }
    if (L->kind != TK_IDENT) { lex_error(L, "expected a name"); return false; }
    *name = tok_dup(L);
    lex_next(L);
    while (punct(L, '[')) {
        lex_next(L);
        if (punct(L, ']')) {
            *unsized = true;
            *count = 0;
            lex_next(L);
            continue;
        }
        int64_t v;
        if (!parse_signed_int(L, &v)) return false;
        if (v < 0 || v > (1 << 30)) { lex_error(L, "array too large"); return false; }
        *count *= (size_t)v;
        if (!expect(L, ']')) return false;
    }
    if (*align == 0) *align = (size_t)(emu_type_bytes(*type) ? emu_type_bytes(*type) : 1);
    return true;
}

static bool parse_params(Lexer *L, RawParam **out, int *n) {
    RawParam tmp[256];
    int k = 0;
    if (!expect(L, '(')) return false;
    while (!punct(L, ')')) {
        if (!tok_is(L, ".param") && !tok_is(L, ".reg")) { lex_error(L, "expected .param"); return false; }
        lex_next(L);
        EmuType t;
        size_t align, count;
        const char *name;
        bool unsized;
        if (!parse_var_head(L, &t, &align, &name, &count, &unsized)) return false;
        if (k == 256) { lex_error(L, "too many parameters"); return false; }
        tmp[k].name = name;
        tmp[k].type = t;
        tmp[k].size = (size_t)emu_type_bytes(t) * count;
        tmp[k].align = align;
        k++;
        if (punct(L, ',')) lex_next(L);
        else if (!punct(L, ')')) { lex_error(L, "expected ',' or ')'"); return false; }
    }
    lex_next(L);
    *out = arena_alloc(L->arena, sizeof(RawParam) * (size_t)(k ? k : 1));
    if (k) memcpy(*out, tmp, sizeof(RawParam) * (size_t)k);
    *n = k;
    return true;
}

static bool parse_initialiser(Lexer *L, unsigned char *data, size_t size, EmuType t, int *pos) {
    int eb = emu_type_bytes(t);
    if (punct(L, '{')) {
        lex_next(L);
        while (!punct(L, '}')) {
            if (!parse_initialiser(L, data, size, t, pos)) return false;
            if (punct(L, ',')) lex_next(L);
            else if (!punct(L, '}')) { lex_error(L, "expected ',' in initialiser"); return false; }
        }
        lex_next(L);
        return true;
    }
    RawOpnd o;
    if (!parse_operand(L, &o)) return false;
    if ((size_t)(*pos + 1) * (size_t)eb > size) { lex_error(L, "initialiser longer than the array"); return false; }
    uint64_t bits = 0;
    if (o.kind == RO_INT) {
        if (t == T_F32) { float f = (float)o.imm; uint32_t u; memcpy(&u, &f, 4); bits = u; }
        else if (t == T_F64) { double d = (double)o.imm; memcpy(&bits, &d, 8); }
        else bits = (uint64_t)o.imm;
    } else if (o.kind == RO_F32 || o.kind == RO_F64) {
        bits = o.bits;
    } else if (o.kind == RO_FLT) {
        if (t == T_F32) { float f = (float)o.fval; uint32_t u; memcpy(&u, &f, 4); bits = u; }
        else memcpy(&bits, &o.fval, 8);
    } else {
        /* {fn, ...}: a function pointer or a virtual function table */
        lex_error(L, o.kind == RO_SYM || o.kind == RO_REG
                  ? "an address in an initialiser (a __device__ function pointer or a virtual function table) "
                    "is not supported: the emulator does not run indirect calls"
                  : "only numeric initialisers are supported");
        return false;
    }
    memcpy(data + (size_t)*pos * (size_t)eb, &bits, (size_t)eb); /* little-endian host */
    (*pos)++;
    return true;
}

/* ---- function bodies ------------------------------------------------------ */
static bool parse_loc(Lexer *L, RawStmt *s) {
    int line = L->tline;
    lex_next(L);
    int64_t v[3] = {0, 0, 0};
    for (int i = 0; i < 3 && L->kind == TK_NUM && L->tline == line; i++) {
        if (!parse_signed_int(L, &v[i])) return false;
    }
    s->file = (int)v[0];
    s->line = (int)v[1];
    s->inl_file = 0;
    s->inl_line = 0;
    /* ", function_name X, inlined_at F L C" */
    while (L->kind != TK_EOF && L->tline == line) {
        if (tok_is(L, "inlined_at")) {
            lex_next(L);
            int64_t f = 0, l = 0;
            if (L->kind == TK_NUM && !parse_signed_int(L, &f)) return false;
            if (L->kind == TK_NUM && !parse_signed_int(L, &l)) return false;
            s->inl_file = (int)f;
            s->inl_line = (int)l;
            continue;
        }
        lex_next(L);
    }
    return true;
}

static bool parse_body(Lexer *L, RawFunc *f) {
    StmtVec sv = {0};
    int depth = 0;
    if (!expect(L, '{')) return false;
    depth = 1;
    while (depth > 0) {
        if (L->kind == TK_EOF) { lex_error(L, "unterminated function body"); goto fail; }
        int pl = L->tline;
        if (punct(L, '{')) {
            stmt_push(&sv)->kind = RS_OPEN;
            sv.v[sv.n - 1].ptx_line = pl;
            depth++;
            lex_next(L);
            continue;
        }
        if (punct(L, '}')) {
            depth--;
            lex_next(L);
            if (depth > 0) {
                stmt_push(&sv)->kind = RS_CLOSE;
                sv.v[sv.n - 1].ptx_line = pl;
            }
            continue;
        }
        if (punct(L, ';')) { lex_next(L); continue; }
        if (L->kind == TK_IDENT && L->tok[0] == '.') {
            if (tok_is(L, ".loc")) {
                RawStmt *s = stmt_push(&sv);
                s->kind = RS_LOC;
                s->ptx_line = pl;
                if (!parse_loc(L, s)) goto fail;
                continue;
            }
            if (tok_is(L, ".reg") || (L->len > 5 && !memcmp(L->tok, ".reg.", 5))) {
                /* ".reg .b32" or, in inline asm, ".reg.b32" as one token */
                EmuType t = T_NONE;
                if (L->len > 5) {
                    t = emu_type_parse(L->tok + 5, L->len - 5);
                    if (t == T_NONE) { lex_error(L, "unsupported .reg qualifier"); goto fail; }
                }
                lex_next(L);
                while (L->kind == TK_IDENT && L->tok[0] == '.') {
                    EmuType tt = emu_type_parse(L->tok + 1, L->len - 1);
                    if (tt == T_NONE) { lex_error(L, "unsupported .reg qualifier"); goto fail; }
                    t = tt;
                    lex_next(L);
                }
                if (t == T_NONE) { lex_error(L, "expected a register type"); goto fail; }
                for (;;) {
                    if (L->kind != TK_IDENT) { lex_error(L, "expected a register name"); goto fail; }
                    RawStmt *s = stmt_push(&sv);
                    s->kind = RS_REG;
                    s->ptx_line = pl;
                    s->type = t;
                    s->op = tok_dup(L);
                    s->count = -1;
                    lex_next(L);
                    if (punct(L, '<')) {
                        lex_next(L);
                        int64_t v;
                        if (!parse_signed_int(L, &v)) goto fail;
                        if (v < 0 || v > 1000000) { lex_error(L, "too many registers"); goto fail; }
                        sv.v[sv.n - 1].count = (int)v;
                        if (!expect(L, '>')) goto fail;
                    }
                    if (punct(L, ',')) { lex_next(L); continue; }
                    break;
                }
                if (!expect(L, ';')) goto fail;
                continue;
            }
            if (tok_is(L, ".local") || tok_is(L, ".shared") || tok_is(L, ".param") ||
                tok_is(L, ".extern")) {
                bool ext = false;
                if (tok_is(L, ".extern")) { ext = true; lex_next(L); }
                EmuSpace sp = tok_is(L, ".local") ? SP_LOCAL : tok_is(L, ".shared") ? SP_SHARED : SP_PARAM;
                if (!tok_is(L, ".local") && !tok_is(L, ".shared") && !tok_is(L, ".param")) {
                    lex_error(L, "unsupported declaration in a function body");
                    goto fail;
                }
                lex_next(L);
                EmuType t;
                size_t align, count;
                const char *name;
                bool unsized;
                if (!parse_var_head(L, &t, &align, &name, &count, &unsized)) goto fail;
                RawStmt *s = stmt_push(&sv);
                s->kind = RS_VAR;
                s->ptx_line = pl;
                s->op = name;
                s->space = sp;
                s->type = t;
                s->size = (size_t)emu_type_bytes(t) * count;
                s->align = align;
                s->is_extern = ext || unsized;
                if (punct(L, '=')) { lex_error(L, "initialised local variables are not supported"); goto fail; }
                if (!expect(L, ';')) goto fail;
                continue;
            }
            /* .pragma, .maxnreg ... */
            skip_statement(L);
            continue;
        }
        if (L->kind == TK_IDENT && L->tok[0] != '%') {
            /* label? */
            const char *save = L->s;
            int sline = L->line;
            const char *tok = L->tok;
            size_t len = L->len;
            int tline = L->tline;
            lex_next(L);
            if (punct(L, ':')) {
                RawStmt *s = stmt_push(&sv);
                s->kind = RS_LABEL;
                s->ptx_line = pl;
                s->op = arena_strndup(L->arena, tok, len);
                lex_next(L);
                continue;
            }
            L->s = save;
            L->line = sline;
            L->tok = tok;
            L->len = len;
            L->tline = tline;
            L->kind = TK_IDENT;
        }
        /* instruction */
        RawStmt *s = stmt_push(&sv);
        int idx = sv.n - 1;
        s->kind = RS_INSTR;
        s->ptx_line = pl;
        if (punct(L, '@')) {
            lex_next(L);
            if (punct(L, '!')) { s->gneg = true; lex_next(L); }
            if (L->kind != TK_IDENT) { lex_error(L, "expected a guard predicate"); goto fail; }
            s->guard = tok_dup(L);
            lex_next(L);
        }
        if (L->kind != TK_IDENT) { lex_error(L, "expected an instruction"); goto fail; }
        s->op = tok_dup(L);
        lex_next(L);
        RawOpnd tmp[16];
        int n = 0;
        while (!punct(L, ';')) {
            if (n == 16) { lex_error(L, "too many operands"); goto fail; }
            if (!parse_operand(L, &tmp[n++])) goto fail;
            if (punct(L, ',')) lex_next(L);
            else if (!punct(L, ';')) { lex_error(L, "expected ',' or ';' after an operand"); goto fail; }
        }
        lex_next(L);
        s = &sv.v[idx];
        s->nops = n;
        s->ops = arena_alloc(L->arena, sizeof(RawOpnd) * (size_t)(n ? n : 1));
        if (n) memcpy(s->ops, tmp, sizeof(RawOpnd) * (size_t)n);
    }
    f->body = arena_alloc(L->arena, sizeof(RawStmt) * (size_t)(sv.n ? sv.n : 1));
    if (sv.n) memcpy(f->body, sv.v, sizeof(RawStmt) * (size_t)sv.n);
    f->n_body = sv.n;
    f->has_body = true;
    free(sv.v);
    return true;
fail:
    free(sv.v);
    return false;
}

/* ---- top level ------------------------------------------------------------ */
typedef struct ProgBuild {
    RawFunc *funcs;
    int n_funcs, cap_funcs;
    ModVar *vars;
    int n_vars, cap_vars;
} ProgBuild;

static RawFunc *func_get(ProgBuild *pb, Arena *a, const char *name) {
    for (int i = 0; i < pb->n_funcs; i++)
        if (!strcmp(pb->funcs[i].name, name)) return &pb->funcs[i];
    if (pb->n_funcs == pb->cap_funcs) {
        pb->cap_funcs = pb->cap_funcs ? pb->cap_funcs * 2 : 16;
        pb->funcs = xrealloc(pb->funcs, sizeof *pb->funcs * (size_t)pb->cap_funcs);
    }
    RawFunc *f = &pb->funcs[pb->n_funcs++];
    memset(f, 0, sizeof *f);
    f->name = arena_strndup(a, name, strlen(name));
    return f;
}

static bool parse_function(Lexer *L, ProgBuild *pb, bool is_entry, bool is_extern) {
    int pl = L->tline;
    lex_next(L); /* .entry / .func */
    RawParam *rets = NULL;
    int n_rets = 0;
    if (!is_entry && punct(L, '(')) {
        if (!parse_params(L, &rets, &n_rets)) return false;
    }
    if (L->kind != TK_IDENT) { lex_error(L, "expected a function name"); return false; }
    const char *name = tok_dup(L);
    lex_next(L);
    RawParam *params = NULL;
    int n_params = 0;
    if (punct(L, '(')) {
        if (!parse_params(L, &params, &n_params)) return false;
    }
    int maxntid = 0;
    while (L->kind == TK_IDENT && L->tok[0] == '.') {
        bool is_maxntid = tok_is(L, ".maxntid") || tok_is(L, ".reqntid");
        lex_next(L);
        /* 64-bit and saturated: a directive may list any number of sizes
         * (".maxntid 60000, 60000, 60000" overflowed an int). */
        int64_t prod = 1;
        while (L->kind == TK_NUM) {
            int64_t v;
            if (!parse_signed_int(L, &v)) return false;
            prod *= v > 0 && v < 65536 ? v : 1;
            if (prod > INT32_MAX) prod = INT32_MAX;
            if (punct(L, ',')) lex_next(L);
        }
        if (is_maxntid) maxntid = (int)prod;
    }
    RawFunc *f = func_get(pb, L->arena, name);
    if (f->has_body && punct(L, '{')) { lex_error(L, "function defined twice"); return false; }
    f->is_entry = is_entry;
    f->is_extern = is_extern && !punct(L, '{');
    f->params = params;
    f->n_params = n_params;
    f->rets = rets;
    f->n_rets = n_rets;
    f->ptx_line = pl;
    f->maxntid = maxntid;
    if (punct(L, ';')) { lex_next(L); return true; }
    f->is_extern = false;
    return parse_body(L, f);
}

static bool parse_module_var(Lexer *L, ProgBuild *pb, bool is_extern) {
    EmuSpace sp = tok_is(L, ".global") ? SP_GLOBAL : tok_is(L, ".const") ? SP_CONST : SP_SHARED;
    lex_next(L);
    EmuType t;
    size_t align, count;
    const char *name;
    bool unsized;
    if (!parse_var_head(L, &t, &align, &name, &count, &unsized)) return false;
    if (pb->n_vars == pb->cap_vars) {
        pb->cap_vars = pb->cap_vars ? pb->cap_vars * 2 : 16;
        pb->vars = xrealloc(pb->vars, sizeof *pb->vars * (size_t)pb->cap_vars);
    }
    ModVar *v = &pb->vars[pb->n_vars++];
    memset(v, 0, sizeof *v);
    v->name = xstrdup(name);
    v->space = sp;
    v->size = (size_t)emu_type_bytes(t) * count;
    v->align = align;
    v->is_extern = is_extern || unsized;
    if (sp != SP_SHARED) v->data = xcalloc(1, v->size ? v->size : 1);
    if (punct(L, '=')) {
        lex_next(L);
        if (sp == SP_SHARED) { lex_error(L, "shared variables cannot be initialised"); return false; }
        int pos = 0;
        if (unsized) { lex_error(L, "unsized initialised arrays are not supported"); return false; }
        if (!parse_initialiser(L, v->data, v->size, t, &pos)) return false;
    }
    return expect(L, ';');
}

Diag *emu_program_parse(const char *ptx, size_t len, Program **out) {
    *out = NULL;
    Lexer L;
    memset(&L, 0, sizeof L);
    L.s = ptx;
    L.end = ptx + len;
    L.line = 1;
    Arena *arena = arena_new();
    L.arena = arena;
    ProgBuild pb;
    memset(&pb, 0, sizeof pb);
    char **files = NULL;
    int n_files = 0;
    lex_next(&L);
    while (L.kind != TK_EOF && !L.err) {
        if (L.kind != TK_IDENT || L.tok[0] != '.') {
            lex_error(&L, "unexpected text at module scope");
            break;
        }
        if (tok_is(&L, ".version") || tok_is(&L, ".target") || tok_is(&L, ".address_size")) {
            skip_line(&L);
            continue;
        }
        if (tok_is(&L, ".file")) {
            int line = L.tline;
            lex_next(&L);
            int64_t idx = 0;
            if (!parse_signed_int(&L, &idx)) break;
            if (L.kind == TK_STR && idx >= 0 && idx < 4096) {
                if (idx >= n_files) {
                    files = xrealloc(files, sizeof *files * (size_t)(idx + 1));
                    for (int i = n_files; i <= idx; i++) files[i] = NULL;
                    n_files = (int)idx + 1;
                }
                free(files[idx]);
                files[idx] = xstrndup(L.tok + 1, L.len >= 2 ? L.len - 2 : 0);
            }
            while (L.kind != TK_EOF && L.tline == line) lex_next(&L);
            continue;
        }
        if (tok_is(&L, ".section")) {
            while (L.kind != TK_EOF && !punct(&L, '{')) lex_next(&L);
            int depth = 0;
            while (L.kind != TK_EOF) {
                if (punct(&L, '{')) depth++;
                if (punct(&L, '}') && --depth == 0) { lex_next(&L); break; }
                lex_next(&L);
            }
            continue;
        }
        bool is_extern = false;
        while (tok_is(&L, ".visible") || tok_is(&L, ".weak") || tok_is(&L, ".extern") ||
               tok_is(&L, ".common")) {
            if (tok_is(&L, ".extern")) is_extern = true;
            lex_next(&L);
        }
        if (tok_is(&L, ".entry") || tok_is(&L, ".func")) {
            if (!parse_function(&L, &pb, tok_is(&L, ".entry"), is_extern)) break;
            continue;
        }
        if (tok_is(&L, ".global") || tok_is(&L, ".const") || tok_is(&L, ".shared")) {
            if (!parse_module_var(&L, &pb, is_extern)) break;
            continue;
        }
        lex_error(&L, "unsupported module-scope directive");
        break;
    }
    Program *p = xcalloc(1, sizeof *p);
    p->arena = arena;
    p->funcs = pb.funcs;
    p->n_funcs = pb.n_funcs;
    p->vars = pb.vars;
    p->n_vars = pb.n_vars;
    p->files = files;
    p->n_files = n_files;
    p->user_file = 1;
    for (int i = 1; i < n_files; i++)
        if (files[i] && !emu_ptx_toolkit_file(files[i])) {
            p->user_file = i;
            break;
        }
    if (L.err) {
        emu_program_free(&p);
        return L.err;
    }
    *out = p;
    return NULL;
}

void emu_program_free(Program **pp) {
    Program *p = *pp;
    if (!p) return;
    for (int i = 0; i < p->n_vars; i++) {
        free(p->vars[i].name);
        free(p->vars[i].data);
    }
    free(p->vars);
    free(p->funcs);
    for (int i = 0; i < p->n_files; i++) free(p->files[i]);
    free(p->files);
    arena_free(p->arena);
    free(p);
    *pp = NULL;
}

/* "/cuda", "/cuda-13.0": a component that names a toolkit install. */
static bool toolkit_component(const char *c, const char *end) {
    if (end - c < 5 || strncmp(c, "/cuda", 5)) return false;
    c += 5;
    if (c == end) return true;
    if (*c != '-') return false;
    for (c++; c < end; c++)
        if (!((*c >= '0' && *c <= '9') || *c == '.')) return false;
    return true;
}

bool emu_ptx_toolkit_file(const char *path) {
    if (!strncmp(path, "/usr/include/", 13) || strstr(path, "/include/cccl/")) return true;
    /* <toolkit>/include/... or <toolkit>/targets/<arch>/include/... (nvcc's
     * "/usr/local/cuda/bin/../targets/x86_64-linux/include/cuda_runtime.h") */
    if (strstr(path, "/targets/") && strstr(path, "/include/")) return true;
    for (const char *c = strstr(path, "/cuda"); c; c = strstr(c + 1, "/cuda")) {
        const char *end = strchr(c + 1, '/');
        if (end && toolkit_component(c, end) && !strncmp(end, "/include/", 9)) return true;
    }
    return false;
}

int emu_program_entries(const Program *p, const char **names, int max) {
    int n = 0;
    for (int i = 0; i < p->n_funcs; i++)
        if (p->funcs[i].is_entry && p->funcs[i].has_body) {
            if (n < max) names[n] = p->funcs[i].name;
            n++;
        }
    return n;
}
