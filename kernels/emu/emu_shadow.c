/* kernels/emu/emu_shadow.c: races and uninitialised reads in shared memory
 * (checks on).
 *
 * Every 4-byte shared word has a Shadow (emu_worker.h): the last writer and
 * the last two readers of the current barrier epoch, with the bytes each
 * touched, whether the write was atomic, the lane's __syncwarp count and the
 * source line. An access that meets another thread's access of the same
 * bytes in the same epoch (RAW, WAR, WAW; an atomic against a plain access)
 * is a race, reported at the later of the two lines; between lanes of one
 * warp with no __syncwarp() between it is an intra-warp hazard. The fast
 * path (emu_mem.c) records hazard-free accesses itself with the inline
 * functions of emu_mem.h and calls emu_shadow_access for the rest. */
#include <stdio.h>

#include "base/i18n.h"
#include "kernels/emu/emu_mem.h"

/* A race between this access (line in->line) and another thread's access at
 * other_line; reported at the later of the two lines, where the missing
 * barrier belongs before. */
static void race_report(Worker *W, Warp *w, int lane, const Instr *in, uint64_t off, const char *what,
                        unsigned other, int other_line, bool same_warp) {
    unsigned c[6], o[3];
    emu_thread_args(W, w, lane, c);
    emu_thread_coords(W, other, o);
    int line = other_line > in->line ? other_line : in->line;
    int first = other_line > 0 && other_line < in->line ? other_line : in->line;
    char lines[64], nm[80];
    emu_shared_name(W, in, off, nm, sizeof nm);
    if (other_line > 0 && other_line != in->line) snprintf(lines, sizeof lines, N_("lines %d and %d"), first, line);
    else snprintf(lines, sizeof lines, N_("line %d"), line);
    if (same_warp)
        emu_report(W, w, lane, "race-warp", DIAG_WARNING, line,
                   N_("Intra-warp hazard (%s, %s): " THR " and thread (%u,%u,%u) of the same warp access %s "
                      "with no __syncwarp() in between; since Volta the lanes of a warp are not "
                      "guaranteed to run in lockstep."), what, lines, c[0], c[1], c[2], c[3], c[4], c[5], o[0], o[1],
                   o[2], nm);
    else
        emu_report(W, w, lane, "race-shared", DIAG_ERROR, line,
                   N_("Shared-memory race (%s, %s): " THR " and thread (%u,%u,%u) access %s "
                      "with no __syncthreads() in between."), what, lines, c[0], c[1], c[2], c[3], c[4], c[5], o[0],
                   o[1], o[2], nm);
}

void emu_shadow_access(Worker *W, Warp *w, int lane, const Instr *in, uint64_t off, int bytes, int kind) {
    EMU_ASSERT(bytes > 0 && off + (uint64_t)bytes <= W->shared_size);
    EMU_ASSERT(lane >= 0 && lane < 32 && w->index >= 0 && w->index < W->nwarps);
    uint16_t tid = (uint16_t)(w->index * 32 + lane);
    bool atomic = kind == ACC_ATOMIC;
    uint8_t akind = !atomic ? 0 : in->sub == AOP_CAS ? 2 : 1;
    uint32_t ep = W->epoch;
    for (uint64_t word = off >> 2; word <= (off + (uint64_t)bytes - 1) >> 2; word++) {
        Shadow *s = emu_shadow_word(W, word * 4);
        uint8_t mask = emu_word_mask(word, off, bytes);
        if (kind == ACC_READ || atomic) {
            if (s->w_epoch < W->epoch0) {
                /* Not in the toolkit's code (CUB, Thrust), which manages its
                 * own shared memory: its merges read one element past a run on
                 * purpose and never use it (CUB's SerialMerge). */
                if (!atomic && !in->toolkit) {
                    unsigned c[6];
                    char nm[80];
                    emu_thread_args(W, w, lane, c);
                    emu_shared_name(W, in, word * 4 > off ? word * 4 : off, nm, sizeof nm);
                    emu_report(W, w, lane, "uninit-shared", DIAG_ERROR, in->line,
                               N_(THR " read %s before any thread of the block wrote it."),
                               c[0], c[1], c[2], c[3], c[4], c[5], nm);
                }
            } else if (!(atomic && s->w_atomic) && !(!atomic && s->w_atomic == 2) && s->w_tid != tid &&
                       (s->w_mask & mask)) {
                /* two atomics never race; an atomic and a plain access do (except
                 * the read that starts a compare-and-swap loop) */
                bool same = s->w_tid / 32 == tid / 32;
                if (same ? (s->w_wsync == w->wsync && s->w_epoch == ep) : s->w_epoch == ep)
                    race_report(W, w, lane, in, word * 4,
                                atomic ? N_("atomic update after a plain write")
                                : s->w_atomic ? N_("plain read after an atomic update") : N_("read after write"),
                                s->w_tid, s->w_line, same);
            }
            if (akind == 1 && s->r_epoch == ep) {
                uint16_t other = emu_shadow_other_reader(s, tid, mask);
                if (other != tid) {
                    bool same = other / 32 == tid / 32;
                    if (!same || s->r_wsync == w->wsync)
                        race_report(W, w, lane, in, word * 4, N_("atomic update after a plain read"), other, s->r_line,
                                    same);
                }
            }
            if (!atomic) emu_shadow_note_read(s, ep, tid, mask, w, in->line);
        }
        if (kind == ACC_WRITE || atomic) {
            /* Writing the value that is already there changes nothing, unless lanes of
             * one store instruction collide after reading the word: a lost update
             * (counter++ by a whole warp). */
            if (!atomic && s->w_epoch == ep && s->w_tid != tid && !s->w_atomic && (s->w_mask & mask)) {
                bool same = s->w_tid / 32 == tid / 32;
                bool same_instr = same && s->w_stamp == w->stamp;
                bool rmw = s->r_epoch == ep && (s->r_tid / 32 == tid / 32 || s->r_tid2 / 32 == tid / 32);
                if (same_instr && (!W->store_same || rmw))
                    race_report(W, w, lane, in, word * 4, N_("write after write"), s->w_tid, s->w_line, false);
                else if (!W->store_same && (!same || s->w_wsync == w->wsync))
                    race_report(W, w, lane, in, word * 4, N_("write after write"), s->w_tid, s->w_line, same);
            }
            if (!atomic && !W->store_same && s->w_atomic && s->w_epoch == ep && s->w_tid != tid &&
                (s->w_mask & mask)) {
                bool same = s->w_tid / 32 == tid / 32;
                if (!same || s->w_wsync == w->wsync)
                    race_report(W, w, lane, in, word * 4, N_("plain write after an atomic update"), s->w_tid, s->w_line,
                                same);
            }
            if (!atomic && !W->store_same && s->r_epoch == ep) {
                uint16_t other = emu_shadow_other_reader(s, tid, mask);
                if (other != tid) {
                    bool same = other / 32 == tid / 32;
                    if (!same || s->r_wsync == w->wsync)
                        race_report(W, w, lane, in, word * 4, N_("write after read"), other, s->r_line, same);
                }
            }
            /* an atomic after a plain write of this epoch keeps that writer: the
             * atomics of every other thread race with it */
            if (!(atomic && s->w_epoch == ep && !s->w_atomic))
                emu_shadow_note_write(s, ep, tid, mask, akind, w, in->line);
        }
    }
}
