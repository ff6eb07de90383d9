/* app/tui/tui_debug.h: the warp debugger's screen (tui_debug.c) as
 * `cudojo debug` opens it, without the workbench around it. No curses here:
 * app/cmd_debug.c includes it. */
#ifndef CUDOJO_APP_TUI_DEBUG_H
#define CUDOJO_APP_TUI_DEBUG_H

#include "app/cli.h"
#include "app/debug.h"

/* Runs the debugger screen on trace `tr` (taken) of target tg (copied),
 * at step `start`, until q. Returns the exit status for main. Defined in
 * tui_main.c, which builds every screen. */
int tui_debug_open(Cli *cli, const DebugTarget *tg, EmuTrace *tr, int start);

#endif
