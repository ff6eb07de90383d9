/* app/similarity.h: which submissions of one exercise are the same kernel up
 * to identifier names, spacing, comments and literal formatting (issue 13's
 * MOSS-style check), for the instructor to look at.
 *
 * A source is tokenised as C/CUDA: comments and whitespace are dropped,
 * every identifier becomes one class token except keywords, types and CUDA
 * builtins (threadIdx, __syncthreads, atomicAdd...), numbers are written
 * canonically (1.0f, 1.f and 1.0 are one token; 0x10 and 16 another),
 * string and character literals become one class token. Everyone's correct
 * vector-add is the same few tokens, so only the part the student wrote is
 * compared: the tokens that a diff against the starter's token stream
 * (longest common subsequence) leaves over. Students whose written parts
 * are the same token stream (SHA-256 fingerprint) form a group, reported
 * when the part has at least SIMILARITY_MIN_TOKENS tokens. Near-duplicates
 * (MOSS's winnowing of token k-grams) form groups marked "near". */
#ifndef CUDOJO_APP_SIMILARITY_H
#define CUDOJO_APP_SIMILARITY_H

#include <jansson.h>
#include <stddef.h>

#include "base/diag.h"

/* Below this many student-written tokens a match says nothing: the whole
 * body of vector-add (index, guard, c[i] = a[i] + b[i]) is 36 tokens. */
#define SIMILARITY_MIN_TOKENS 40
/* A group of at least this many students holding more than half of an
 * exercise's submissions is the obvious solution (MOSS's -m): marked
 * "common", not listed as a suspicion. */
#define SIMILARITY_COMMON_MIN_STUDENTS 5
/* Near-duplicates (a copy with lines added, moved or changed): winnowing
 * of k-grams of SIMILARITY_KGRAM tokens in windows of SIMILARITY_WINDOW;
 * two written parts are linked when SIMILARITY_NEAR of the smaller one's
 * selection is in the other's (each with at least
 * SIMILARITY_NEAR_MIN_KGRAMS). Measured on a 106-token block sum: a copy
 * with three lines changed shares 0.79, a different solution 0.23. */
#define SIMILARITY_KGRAM 6
#define SIMILARITY_WINDOW 4
#define SIMILARITY_NEAR 0.7
#define SIMILARITY_NEAR_MIN_KGRAMS 6

typedef struct SimilarityItem {
    const char *student;
    const char *exercise;       /* the exercise id */
    const char *path;           /* the student's source; an unreadable one is left out */
    const char *starter_path;   /* the course's starter; NULL or unreadable: the whole source counts */
} SimilarityItem;

/* The groups of students whose source of one exercise is the same, as a new
 * JSON array [{"exercise", "students": [names, sorted], "fingerprint":
 * SHA-256 hex of the written part, "tokens": its length, "submissions":
 * the exercise's readable submissions, "common": true (only when set)}],
 * then the near-duplicates [{"exercise", "students", "near": true,
 * "similarity": 0..1 (the weakest link's share of winnowed k-grams),
 * "tokens": the smallest written part, "submissions"}] (no fingerprint);
 * all sorted by exercise then first student. A student listed twice for an
 * exercise counts once. */
json_t *similarity_groups(const SimilarityItem *items, int n);

/* The groups as Markdown (similarity.md of `cudojo grade --out DIR`),
 * written atomically; names are escaped so none can break the page. */
Diag *similarity_write_markdown(const json_t *groups, const char *path);
/* The Markdown text itself. Caller frees. */
char *similarity_markdown(const json_t *groups);

/* The normalised tokens of a C/CUDA source of len bytes: *out is an array
 * of *n strings (caller frees with similarity_tokens_free). Exposed for
 * tests. */
void similarity_tokenize(const char *src, size_t len, char ***out, int *n);
void similarity_tokens_free(char ***toks, int n);
/* The tokens of `source` that a diff against `starter` leaves as the
 * student's own, joined by spaces (caller frees); *count gets how many. */
char *similarity_written_part(const char *source, size_t source_len, const char *starter, size_t starter_len,
                              int *count);

#endif
