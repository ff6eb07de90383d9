/* app/mutants.h: `cudojo verify --mutants`: checks an exercise's checks by
 * mutating its solution the way learners get it wrong and running each
 * mutant as a wrong variant. A mutant the checks let pass is a hole in the
 * exercise (or, documented with `mutants_equivalent`, code that is still
 * correct after the change).
 *
 * Mutants are made at the source level by a small CUDA-aware tokenizer
 * (comments, strings, character literals and preprocessor lines are never
 * touched). Inside __global__/__device__ function bodies: drop each
 * __syncthreads(), __syncwarp(...) and cooperative-groups g.sync(); weaken
 * each `if` guard (`<` → `<=`, `>=` → `>`) and drop it (the condition made
 * true, or false for an early exit); move each loop bound by one (`<` ↔
 * `<=`, `>` ↔ `>=` in for/while conditions); swap threadIdx.x/.y and
 * blockIdx.x/.y (one occurrence at a time, in functions that use both);
 * replace an atomic read-modify-
 * write by a plain one (atomicAdd(p, v) → *p += v). In a program's host
 * code: drop each cudaDeviceSynchronize() / cudaStreamSynchronize(s) (the
 * call becomes cudaSuccess). Every mutant keeps the solution's line
 * numbers, so its findings point at the solution's lines. */
#ifndef CUDOJO_APP_MUTANTS_H
#define CUDOJO_APP_MUTANTS_H

#include <stdbool.h>

#include "app/cli.h"
#include "lua/exercise.h"

typedef struct Mutant {
    int line;               /* 1-based line of the change (the same in both texts) */
    char *op;               /* the mutation: "drop __syncthreads()", "weaken guard < to <=" ... */
    char *before, *after;   /* that line before and after, trimmed */
    char *source;           /* the whole mutated file */
} Mutant;

typedef struct MutantList {
    Mutant *v;
    int n;
} MutantList;

/* Every mutant of a CUDA source, in source order; `program`: a whole
 * program (host-side synchronisations are mutated too). Caller frees
 * with mutants_free. */
void mutants_generate(const char *source, bool program, MutantList *out);
void mutants_free(MutantList *l);

/* Whether an exercise's `mutants_equivalent` entry names mutant m: the same
 * op and its line (whitespace runs read as one space) containing the
 * entry's line text. */
bool mutants_entry_matches(const MutantEquivalent *e, const Mutant *m);

/* The --mutants pass of `cudojo verify` over a loaded course: the solution
 * of each exercise must pass (its duration sets the mutants' time limit),
 * then every mutant runs as a wrong variant would, `jobs` at a time (0 =
 * the cores); those the exercise allows are not run unless run_allowed
 * (which finds allowances the checks no longer need). A mutant past its
 * instruction budget (a multiple of the solution's largest launch) loops:
 * killed. A mutant out of time runs once more with a longer limit; out of
 * time again, it is "timed out", neither killed nor survived. Prints the survivors and timed-out
 * mutants with file:line, the mutation and the changed line, and a summary
 * (--json: one object). Returns the exit status: 0 when every mutant was
 * killed, invalid or allowed. */
int mutants_verify(Cli *cli, const Course *course, int jobs, bool run_allowed);

#endif
