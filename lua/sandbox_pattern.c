/* lua/sandbox_pattern.c: string.find/match/gmatch/gsub, refused before they
 * run when their matching could take too long on the text given.
 *
 * Lua's pattern matcher is C: the count hook never runs inside it, so
 * neither the instruction budget nor the wall-clock limit can stop one
 * call. A pattern backtracks: every repeated item (x*, x+, x-, x?) may try
 * each length it can match, and the rest of the pattern is retried for
 * each. So the work is bounded by
 *
 *     start positions  x  product over repeated items of (longest run of
 *                         characters in the text the item can match + 1)
 *
 * where an unanchored pattern starts at every position, and an item after
 * which the rest cannot fail (the last one, one before ".*") counts once. The
 * longest runs are measured on the actual text, so ordinary patterns on
 * ordinary text ("(%w+)%s*=%s*(.*)" on a line) cost little; ".-b" on a
 * megabyte of 'a' (10^12 steps) is refused with a message. */
#include <ctype.h>
#include <lauxlib.h>
#include <string.h>

#include "lua/sandbox.h"

#define PATTERN_MAX_STEPS 2e8   /* about a second of matching */
#define PATTERN_SCAN_MAX 4e8    /* bytes of text the estimate itself may scan */

/* Does c match the class at p ("%a", ".", "x"), Lua's rules. */
static bool class_single(int c, const char *p) {
    if (*p == '.') return true;
    if (*p != '%') return (unsigned char)*p == c;
    int cl = (unsigned char)p[1], r;
    switch (tolower(cl)) {
    case 'a': r = isalpha(c); break;
    case 'c': r = iscntrl(c); break;
    case 'd': r = isdigit(c); break;
    case 'g': r = isgraph(c); break;
    case 'l': r = islower(c); break;
    case 'p': r = ispunct(c); break;
    case 's': r = isspace(c); break;
    case 'u': r = isupper(c); break;
    case 'w': r = isalnum(c); break;
    case 'x': r = isxdigit(c); break;
    default: return cl == c;
    }
    if (isupper(cl)) r = !r;
    return r != 0;
}

/* Does c match the set [p, end) ("[^a-z%d]", p at '[', end at ']'). */
static bool class_set(int c, const char *p, const char *end) {
    bool neg = false;
    p++;
    if (*p == '^') {
        neg = true;
        p++;
    }
    for (; p < end; p++) {
        if (*p == '%' && p + 1 < end) {
            if (class_single(c, p)) return !neg;
            p++;
        } else if (p + 2 < end && p[1] == '-') {
            if ((unsigned char)p[0] <= c && c <= (unsigned char)p[2]) return !neg;
            p += 2;
        } else if ((unsigned char)*p == c) {
            return !neg;
        }
    }
    return neg;
}

/* End of the single-character class at p (one past it); NULL if malformed. */
static const char *class_end(const char *p, const char *pend) {
    if (p >= pend) return NULL;
    if (*p == '%') return p + 2 <= pend ? p + 2 : NULL;
    if (*p != '[') return p + 1;
    const char *q = p + 1;
    if (q < pend && *q == '^') q++;
    do {
        if (q >= pend) return NULL;
        if (*q == '%') q++;
        q++;
    } while (q < pend && *q != ']');
    return q < pend ? q + 1 : NULL;
}

/* The longest run of characters in s matching the class [p, e). */
static double longest_run(const char *s, size_t n, const char *p, const char *e) {
    if (*p == '.') return (double)n;
    size_t best = 0, run = 0;
    for (size_t i = 0; i < n; i++) {
        int c = (unsigned char)s[i];
        bool m = *p == '[' ? class_set(c, p, e - 1) : class_single(c, p);
        run = m ? run + 1 : 0;
        if (run > best) best = run;
    }
    return (double)best;
}

/* Can the pattern [p, pend) match at every position of any text? Then
 * nothing before it is ever retried: every item may match empty (x*, x-,
 * x?), and a final '$' needs one of them, or the item just before
 * (`eats_all`), to be able to eat anything (.*). */
static bool rest_always_matches(const char *p, const char *pend, bool eats_all) {
    while (p < pend) {
        if (*p == '(' || *p == ')') {
            p++;
            continue;
        }
        if (*p == '$' && p + 1 == pend) return eats_all;
        if (*p == '%' && p + 1 < pend && (p[1] == 'b' || p[1] == 'f' || (p[1] >= '1' && p[1] <= '9'))) return false;
        const char *e = class_end(p, pend);
        if (!e || e >= pend || (*e != '*' && *e != '-' && *e != '?')) return false;
        if (*p == '.' && *e != '?') eats_all = true;
        p = e + 1;
    }
    return true;
}

/* Upper bound of the matcher's steps for pattern p on text s; anchored_ok:
 * whether '^' anchors (not in gmatch). Malformed patterns give 0: the real
 * function reports them. */
static double pattern_cost(const char *s, size_t n, const char *p, size_t lp, bool anchored_ok) {
    const char *pend = p + lp;
    bool anchored = anchored_ok && lp && *p == '^';
    if (anchored) p++;
    double steps = 1, scanned = 0;
    while (p < pend) {
        if (*p == '(' || *p == ')') {
            p++;
            continue;
        }
        if (*p == '$' && p + 1 == pend) break;
        if (*p == '%' && p + 1 < pend && p[1] == 'b') {
            steps *= (double)n + 1;
            p += 4;
            continue;
        }
        if (*p == '%' && p + 1 < pend && p[1] == 'f') {
            const char *e = class_end(p + 2, pend);
            if (!e) return 0;
            p = e;
            continue;
        }
        if (*p == '%' && p + 1 < pend && p[1] >= '1' && p[1] <= '9') {
            steps *= (double)n + 1;
            p += 2;
            continue;
        }
        const char *e = class_end(p, pend);
        if (!e) return 0;
        if (e < pend && (*e == '*' || *e == '+' || *e == '-' || *e == '?')) {
            /* Counted once when what follows cannot fail (the last item, ".*"). */
            if (!rest_always_matches(e + 1, pend, *p == '.' && (*e == '*' || *e == '-'))) {
                if (*e == '?') {
                    steps *= 2;
                } else if (scanned + (double)n > PATTERN_SCAN_MAX) {
                    steps *= (double)n + 1;
                } else {
                    scanned += (double)n;
                    steps *= longest_run(s, n, p, e) + 1;
                }
            }
            p = e + 1;
        } else {
            p = e;
        }
        if (steps > PATTERN_MAX_STEPS) break;
    }
    return steps * (anchored ? 1.0 : (double)n + 1);
}

/* Calls the original function (upvalue 1) after the estimate. */
static int guarded_call(lua_State *L, const char *name, bool anchored_ok) {
    size_t n = 0, lp = 0;
    const char *s = lua_type(L, 1) == LUA_TSTRING ? lua_tolstring(L, 1, &n) : NULL;
    const char *p = lua_type(L, 2) == LUA_TSTRING ? lua_tolstring(L, 2, &lp) : NULL;
    bool plain = !strcmp(name, "find") && lua_toboolean(L, 4);
    if (s && p && !plain && pattern_cost(s, n, p, lp, anchored_ok) > PATTERN_MAX_STEPS)
        return luaL_error(L, "string.%s: this pattern could take too long on a text of %d bytes (its repeated "
                             "items can match the same characters in many ways); shorten the text, anchor the "
                             "pattern with '^' or make the repeated items more specific",
                          name, (int)(n > 0x7fffffff ? 0x7fffffff : n));
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    return lua_gettop(L);
}

static int g_find(lua_State *L) { return guarded_call(L, "find", true); }
static int g_match(lua_State *L) { return guarded_call(L, "match", true); }
static int g_gmatch(lua_State *L) { return guarded_call(L, "gmatch", false); }
static int g_gsub(lua_State *L) { return guarded_call(L, "gsub", true); }

void sandbox_pattern_install(lua_State *L) {
    static const luaL_Reg fns[] = {
        {"find", g_find}, {"match", g_match}, {"gmatch", g_gmatch}, {"gsub", g_gsub}, {NULL, NULL},
    };
    luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
    lua_getfield(L, -1, "string");
    for (const luaL_Reg *f = fns; f->name; f++) {
        lua_getfield(L, -1, f->name);
        lua_pushcclosure(L, f->func, 1);
        lua_setfield(L, -2, f->name);
    }
    lua_pop(L, 2);
}
