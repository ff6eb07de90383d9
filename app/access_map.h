/* app/access_map.h: the access map — what one warp's memory instruction
 * did, drawn as text: lanes 0–31 → addresses (as the array's element
 * indices), the 128-byte lines and 32-byte sectors a global access touched
 * (a row per line, a mark per 4 bytes, the lanes that hit it), and for
 * shared memory the 32 banks with the lanes of each distinct word stacked
 * (a column per bank, its height the conflict degree). The picture the
 * coalescing and bank-conflict lessons describe in words.
 *
 * The rendering is a pure function of one recorded access
 * (kernels/emu/emu_trace.h's EmuTraceMem) and the arrays that name its
 * addresses; `cudojo run --explain` and the workbench's results pane
 * (app/tui/tui_access.c) get the access from app/access_explain.c. */
#ifndef CUDOJO_APP_ACCESS_MAP_H
#define CUDOJO_APP_ACCESS_MAP_H

#include <stdbool.h>
#include <stdint.h>

#include "kernels/emu/emu_trace.h"

/* What one warp access cost, as the emulator's metrics count it. */
typedef struct AccessCost {
    int active;              /* lanes that took part */
    int width;               /* bytes per lane */
    int sectors, ideal;      /* global: distinct 32-byte sectors; active*width/32 rounded up */
    int lines;               /* global: distinct 128-byte lines */
    int wavefronts;          /* shared: the most distinct words in one bank, summed over phases */
    int ideal_wavefronts;    /* shared: phases with lanes (1, 2 or 4) */
    int degree;              /* shared: the worst phase's wavefronts (1: no conflict) */
    bool broadcast;          /* shared: some word was read by several lanes */
    bool has_stride;         /* the lanes' addresses are lane × stride apart */
    int64_t stride;          /* bytes from one lane to the next (when has_stride) */
} AccessCost;

/* What the map draws: one access of one warp. */
typedef struct AccessMapInput {
    const EmuTraceMem *mem;
    const EmuTraceRegion *regions;   /* arrays to name addresses with (may be NULL) */
    int n_regions;
    const char *source;      /* the source line's text, NULL: not shown */
    unsigned block[3];       /* whose warp it was */
    int warp;
    int times;               /* how often the warp ran the instruction (0: not said) */
} AccessMapInput;

/* Lines of text, none longer than the width asked for (in columns). */
typedef struct AccessMapText {
    char **line;
    int n, cap;
} AccessMapText;

/* The cost of access m. */
void access_map_cost(const EmuTraceMem *m, AccessCost *c);
/* The one-line summary ("8 sectors for 32 lanes x 4 bytes: ideal 4 — stride
 * 2 elements"). Caller frees. */
char *access_map_summary(const AccessMapInput *in, bool utf8);
/* Appends the map of in->mem to out, lines at most `width` columns (≥ 60;
 * 80 fits everything). Plain text; utf8 only picks the dash. */
void access_map_render(AccessMapText *out, const AccessMapInput *in, int width, bool utf8);
/* The region holding addr in `space` (EMU_MEM_GLOBAL/_SHARED), NULL none. */
const EmuTraceRegion *access_map_region(const EmuTraceRegion *r, int n, int space, uint64_t addr);

void access_map_text_add(AccessMapText *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void access_map_text_fini(AccessMapText *t);

#endif
