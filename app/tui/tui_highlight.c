/* app/tui/tui_highlight.c: lexical highlighting of CUDA C++ lines. */
#include "app/tui/tui_highlight.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

static const char *const KEYWORDS[] = {
    "if", "else", "for", "while", "do", "return", "break", "continue", "switch", "case", "default", "goto",
    "sizeof", "struct", "typedef", "const", "static", "extern", "volatile", "inline", "template", "typename",
    "class", "namespace", "using", "true", "false", "nullptr", "NULL", "enum", "union", "constexpr", "auto",
    "__global__", "__device__", "__host__", "__shared__", "__constant__", "__restrict__", "__forceinline__",
    "__launch_bounds__", "__managed__", "operator", "public", "private", "new", "delete", "this", NULL};
static const char *const TYPES[] = {
    "void", "int", "unsigned", "signed", "float", "double", "char", "short", "long", "bool", "size_t",
    "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t", "half",
    "__half", "__nv_bfloat16", "float2", "float3", "float4", "int2", "int3", "int4", "uint2", "uint4",
    "dim3", "double2", "cudaError_t", "cudaStream_t", "cudaEvent_t", NULL};
static const char *const BUILTINS[] = {
    "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "__syncthreads", "__syncwarp",
    "__shfl_sync", "__shfl_down_sync", "__shfl_up_sync", "__shfl_xor_sync", "__ballot_sync", "__any_sync",
    "__all_sync", "__activemask", "atomicAdd", "atomicSub", "atomicMax", "atomicMin", "atomicCAS",
    "atomicExch", "atomicAnd", "atomicOr", "atomicXor", "__threadfence", "__ldg", "printf", "min", "max",
    "__fmaf_rn", "fmaf", "sqrtf", "expf", "logf", "__expf", "rsqrtf", "fabsf", NULL};

static bool in_list(const char *const *list, const char *w, size_t n) {
    for (int i = 0; list[i]; i++)
        if (strlen(list[i]) == n && !memcmp(list[i], w, n)) return true;
    return false;
}

static bool is_ident(int c) { return isalnum(c) || c == '_'; }

void hl_line(TextLine *out, const char *line, HlState *st, int plain) {
    size_t n = strlen(line), i = 0;
    /* Leading whitespace decides whether this is a preprocessor line. */
    size_t first = 0;
    while (first < n && (line[first] == ' ' || line[first] == '\t')) first++;
    bool preproc = !st->in_comment && first < n && line[first] == '#';
    if (preproc) {
        for (; i < first; i++) text_line_add(out, plain, line[i] == '\t' ? "    " : " ");
    }
    while (i < n) {
        char c = line[i];
        if (c == '\t') {
            text_line_add(out, st->in_comment ? ROLE_COMMENT : plain, "    ");
            i++;
            continue;
        }
        if (st->in_comment) {
            const char *end = strstr(line + i, "*/");
            size_t stop = end ? (size_t)(end - line) + 2 : n;
            text_line_addn(out, ROLE_COMMENT, line + i, stop - i);
            i = stop;
            if (end) st->in_comment = false;
            continue;
        }
        if (c == '/' && i + 1 < n && line[i + 1] == '/') {
            text_line_addn(out, ROLE_COMMENT, line + i, n - i);
            break;
        }
        if (c == '/' && i + 1 < n && line[i + 1] == '*') {
            st->in_comment = true;
            text_line_addn(out, ROLE_COMMENT, line + i, 2);
            i += 2;
            continue;
        }
        if (preproc) {
            size_t j = i;
            while (j < n && !(line[j] == '/' && j + 1 < n && (line[j + 1] == '/' || line[j + 1] == '*'))) j++;
            text_line_addn(out, ROLE_PREPROC, line + i, j - i);
            i = j;
            continue;
        }
        if (c == '"' || c == '\'') {
            size_t j = i + 1;
            while (j < n && line[j] != c) j += line[j] == '\\' && j + 1 < n ? 2 : 1;
            if (j < n) j++;
            text_line_addn(out, ROLE_STRING, line + i, j - i);
            i = j;
            continue;
        }
        if (isdigit((unsigned char)c) || (c == '.' && i + 1 < n && isdigit((unsigned char)line[i + 1]))) {
            size_t j = i;
            while (j < n && (isalnum((unsigned char)line[j]) || line[j] == '.' || line[j] == '\'' ||
                             ((line[j] == '+' || line[j] == '-') && j > i && (line[j - 1] == 'e' || line[j - 1] == 'E'))))
                j++;
            text_line_addn(out, ROLE_NUMBER, line + i, j - i);
            i = j;
            continue;
        }
        if (is_ident((unsigned char)c)) {
            size_t j = i;
            while (j < n && is_ident((unsigned char)line[j])) j++;
            int role = in_list(KEYWORDS, line + i, j - i)   ? ROLE_KEYWORD
                       : in_list(TYPES, line + i, j - i)    ? ROLE_TYPE
                       : in_list(BUILTINS, line + i, j - i) ? ROLE_BUILTIN
                                                            : plain;
            text_line_addn(out, role, line + i, j - i);
            i = j;
            continue;
        }
        size_t j = i;
        while (j < n && !is_ident((unsigned char)line[j]) && line[j] != '"' && line[j] != '\'' && line[j] != '/' &&
               line[j] != '\t' && !(line[j] == '.' && j + 1 < n && isdigit((unsigned char)line[j + 1])))
            j++;
        if (j == i) j = i + 1;
        text_line_addn(out, plain, line + i, j - i);
        i = j;
    }
}

bool hl_is_c_like(const char *info) {
    if (!info) return false;
    char word[16];
    size_t k = 0;
    while (info[k] && !isspace((unsigned char)info[k]) && k < sizeof word - 1) {
        word[k] = info[k];
        k++;
    }
    word[k] = '\0';
    static const char *const C_LIKE[] = {"c", "cu", "cuda", "cpp", "c++", "cxx", "h", "hpp", "cuh", NULL};
    for (int i = 0; C_LIKE[i]; i++)
        if (!strcasecmp(word, C_LIKE[i])) return true;
    return false;
}
