/* lua/ref_cache.h: costly CPU references computed once. ref.c's
 * super-linear references (matmul, window, sort) look their answer up by
 * the content of everything they were given before computing it, and store
 * what they computed when that took well over what a lookup costs.
 *
 * The key is XXH3-128 over: this binary's build id (any rebuilt reference
 * code gets new keys), the function's name and version, and every input
 * tagged and length-prefixed (dtypes, dimensions, scalars, the arrays'
 * bytes), hashed with a random secret kept in the cache directory (read,
 * and the directory made, once per directory and process, under a lock:
 * threads may call at once), so nothing an exercise or a kernel chooses
 * can aim at another entry's key.
 * Never keyed by exercise, seed or file name: a changed or hostile
 * exercise computes its own answer.
 *
 * Entries live in $XDG_CACHE_HOME/cudojo/refs/ (written to a temporary
 * file and renamed: readers never see half of one; many processes at once
 * are safe, the last rename wins with the same bytes), are checked on
 * every read (length, key and an XXH3-128 of the whole file: a truncated
 * or scribbled entry is a miss, recomputed and rewritten), and are pruned
 * least recently used first past REF_CACHE_KEEP entries or
 * REF_CACHE_MAX_BYTES (CUDOJO_REF_CACHE_KEEP=N keeps N entries instead:
 * tests). CUDOJO_REF_CACHE=0 turns the cache off,
 * CUDOJO_REF_CACHE=always stores every answer of a cacheable function
 * whatever its size or time (tests). Lua-free; used only by ref.c. */
#ifndef CUDOJO_LUA_REF_CACHE_H
#define CUDOJO_LUA_REF_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define XXH_STATIC_LINKING_ONLY   /* XXH3_state_t on the stack */
#include <xxhash.h>

/* The most entries and bytes the directory keeps; pruning takes it down
 * to three quarters of both. */
#define REF_CACHE_KEEP 4096
#define REF_CACHE_MAX_BYTES ((uint64_t)1 << 30)
/* Below this much work (multiply-adds, or element visits) a reference is
 * never looked up: it costs about a millisecond on one core, which a file
 * lookup would not save. */
#define REF_CACHE_MIN_WORK ((double)(1 << 20))
/* An answer is stored only when computing it took at least this many times
 * what a later hit costs (the inputs' hash, which every lookup pays, plus
 * reading the answer back). */
#define REF_CACHE_GAIN 3.0

typedef enum RefCacheMode { REF_CACHE_OFF, REF_CACHE_AUTO, REF_CACHE_ALWAYS } RefCacheMode;

/* One reference call's lookup: ref_cache_begin, ref_cache_add for each
 * input, ref_cache_lookup, and after a miss ref_cache_store. */
typedef struct RefCacheCall {
    bool active;                 /* false: not cached (off, too small, no directory); the rest is unused */
    RefCacheMode mode;
    XXH3_state_t st;
    char *dir;                   /* the cache directory (malloc'ed) */
    char name[40];               /* the entry's file name: 32 hex digits + ".ref" */
    unsigned char key[16];
    double t_begin, hash_ms;     /* monotonic ms */
    double t_compute;            /* when the miss was known: computing starts */
    bool hit;                    /* ref_cache_lookup found it */
    bool stored;                 /* ref_cache_store wrote it */
} RefCacheCall;

/* CUDOJO_REF_CACHE: "0" off, "always", anything else (or unset) auto. */
RefCacheMode ref_cache_mode(void);
/* Starts a call of function fn (version ver) estimated at `work`
 * multiply-adds; c->active says whether it will be looked up at all. */
void ref_cache_begin(RefCacheCall *c, const char *fn, int ver, double work);
/* Adds one input (an array's bytes, a dimension, a scalar's bits) under a
 * tag; inputs are told apart by tag and length, never by position alone. */
void ref_cache_add(RefCacheCall *c, const char *tag, const void *data, size_t len);
void ref_cache_add_u64(RefCacheCall *c, const char *tag, uint64_t v);
void ref_cache_add_f64(RefCacheCall *c, const char *tag, double v);
/* Looks the answer up: true when out's len bytes are the stored answer.
 * On false, out may hold anything: the caller computes all of it. */
bool ref_cache_lookup(RefCacheCall *c, void *out, size_t len);
/* After a miss: stores the computed answer when it was worth it (the time
 * since ref_cache_lookup against the lookup's cost, unless mode is
 * always). Failing to write only costs time. Frees what c holds; also
 * call it (or ref_cache_end) after a hit. */
void ref_cache_store(RefCacheCall *c, const void *data, size_t len);
void ref_cache_end(RefCacheCall *c);

/* The cache directory ($XDG_CACHE_HOME/cudojo/refs); caller frees. */
char *ref_cache_dir(void);
/* The path of c's entry (after ref_cache_lookup); caller frees. */
char *ref_cache_entry_path(const RefCacheCall *c);

#endif
