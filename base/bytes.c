/* base/bytes.c: any bytes into JSON strings and back (UTF-8b), and onto a
 * terminal without control sequences. */
#include "base/bytes.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

#define RAW_BASE 0xEF00u   /* byte b (0x80..0xFF) is carried as U+EF00 + b */

/* Length of the valid UTF-8 sequence at s (1..4) with its code point, or 0
 * when s does not start one. The same rules as jansson's decoder. */
static size_t utf8_seq(const unsigned char *s, size_t n, uint32_t *cp) {
    unsigned char c = s[0];
    size_t len;
    uint32_t v;
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    if (c < 0xC2) return 0;
    if (c < 0xE0) {
        len = 2;
        v = c & 0x1Fu;
    } else if (c < 0xF0) {
        len = 3;
        v = c & 0x0Fu;
    } else if (c < 0xF5) {
        len = 4;
        v = c & 0x07u;
    } else {
        return 0;
    }
    if (n < len) return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0u) != 0x80u) return 0;
        v = (v << 6) | (s[i] & 0x3Fu);
    }
    if ((len == 3 && v < 0x800) || (len == 4 && v < 0x10000)) return 0;   /* overlong */
    if (v >= 0xD800 && v <= 0xDFFF) return 0;                              /* surrogate */
    if (v > 0x10FFFF) return 0;
    *cp = v;
    return len;
}

bool bytes_is_utf8(const char *s, size_t n) {
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) {
        uint32_t cp;
        size_t len = utf8_seq(p + i, n - i, &cp);
        if (!len) return false;
        i += len;
    }
    return true;
}

static void append_raw_byte(StrBuf *sb, unsigned char b) {
    uint32_t cp = RAW_BASE + b;
    char u[3] = {(char)(0xE0u | (cp >> 12)), (char)(0x80u | ((cp >> 6) & 0x3Fu)), (char)(0x80u | (cp & 0x3Fu))};
    strbuf_append_n(sb, u, 3);
}

json_t *bytes_to_json_n(const char *s, size_t n) {
    if (!s) return NULL;
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    /* The common case: valid UTF-8 with no code point of our escape range. */
    for (; i < n; i++) {
        if (p[i] >= 0x80) break;
    }
    if (i == n) return json_stringn(s, n);
    StrBuf sb;
    strbuf_init(&sb);
    strbuf_append_n(&sb, s, i);
    while (i < n) {
        uint32_t cp;
        size_t len = utf8_seq(p + i, n - i, &cp);
        if (len && !(cp >= RAW_BASE + 0x80 && cp <= RAW_BASE + 0xFF)) {
            strbuf_append_n(&sb, s + i, len);
            i += len;
        } else if (len) {
            for (size_t k = 0; k < len; k++) append_raw_byte(&sb, p[i + k]);
            i += len;
        } else {
            append_raw_byte(&sb, p[i]);
            i++;
        }
    }
    json_t *j = json_stringn(sb.data, sb.len);
    strbuf_fini(&sb);
    return j;
}

char *bytes_to_utf8(const char *s) {
    if (!s) return NULL;
    json_t *j = bytes_to_json(s);
    char *r = xstrdup(json_string_value(j));
    json_decref(j);
    return r;
}

json_t *bytes_to_json(const char *s) { return s ? bytes_to_json_n(s, strlen(s)) : NULL; }

char *bytes_from_json(const json_t *j) {
    if (!json_is_string(j)) return NULL;
    const char *s = json_string_value(j);
    size_t n = json_string_length(j);
    char *out = xmalloc(n + 1);
    size_t o = 0;
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        /* U+EF80..U+EFBF is EE BE 80..BF, U+EFC0..U+EFFF is EE BF 80..BF. */
        if (p[i] == 0xEE && i + 2 < n && (p[i + 1] == 0xBE || p[i + 1] == 0xBF) && (p[i + 2] & 0xC0) == 0x80) {
            out[o++] = (char)(p[i + 1] == 0xBE ? p[i + 2] : p[i + 2] + 0x40);
            i += 3;
        } else {
            out[o++] = s[i++];
        }
    }
    out[o] = '\0';
    return out;
}

void bytes_append_printable(StrBuf *sb, const char *s) {
    const unsigned char *p = (const unsigned char *)s;
    size_t n = strlen(s), i = 0;
    while (i < n) {
        size_t run = i;
        while (run < n && p[run] >= 0x20 && p[run] < 0x7F) run++;
        strbuf_append_n(sb, s + i, run - i);
        i = run;
        if (i >= n) break;
        uint32_t cp;
        size_t len = utf8_seq(p + i, n - i, &cp);
        if (!len) {
            strbuf_printf(sb, "\\x%02X", p[i]);
            i++;
        } else if (cp == '\n' || cp == '\t') {
            strbuf_append_char(sb, (char)cp);
            i++;
        } else if (cp < 0x20) {
            strbuf_append_char(sb, '^');
            strbuf_append_char(sb, (char)('@' + cp));
            i++;
        } else if (cp == 0x7F || (cp >= 0x80 && cp < 0xA0)) {
            strbuf_printf(sb, "\\u%04X", (unsigned)cp);   /* DEL and the C1 controls (CSI is U+009B) */
            i += len;
        } else {
            strbuf_append_n(sb, s + i, len);
            i += len;
        }
    }
}

char *bytes_printable(const char *s) {
    if (!s) return NULL;
    StrBuf sb;
    strbuf_init(&sb);
    bytes_append_printable(&sb, s);
    char *r = strbuf_steal(&sb);
    strbuf_fini(&sb);
    return r;
}
