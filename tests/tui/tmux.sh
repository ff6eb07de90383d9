# tests/tui/tmux.sh: sourced by the tmux-driven tests once they have set TM
# (tmux on a private socket). A new client that reaches a server which is
# shutting down (after kill-server, or after its last session ended) fails
# with "server exited unexpectedly"; under load that happened to about one
# start in seven. tm_fresh ends the server and waits until it is gone;
# tm_new runs new-session with the given arguments, retried for up to 5 s
# while a dying server refuses it (a refused start creates nothing);
# wait_for waits for the screen, long enough for a loaded machine.
tm_fresh() {
    $TM kill-server 2>/dev/null
    _tm_i=0
    while $TM has-session 2>/dev/null && [ $_tm_i -lt 50 ]; do
        sleep 0.1; _tm_i=$((_tm_i + 1))
    done
}
tm_new() {
    _tm_i=0
    until _tm_err=$($TM new-session "$@" 2>&1); do
        _tm_i=$((_tm_i + 1))
        if [ $_tm_i -ge 50 ]; then echo "$_tm_err" >&2; return 1; fi
        sleep 0.1
    done
}
# wait_for PATTERN SECONDS: true once the screen (the test's `screen`, the
# pane's text) matches PATTERN (grep -E). It waits at least TM_WAIT_MIN
# seconds (20) whatever SECONDS says: under CI's load (two tests at once
# on two cores) a workbench's first screen, a key's redraw or an emulator
# run took longer than the 3 s a test named, and a longer wait costs
# nothing when the screen is right. No test waits for something that must
# not come.
wait_for() {
    _tm_lim=$2
    [ "$_tm_lim" -lt "${TM_WAIT_MIN:-20}" ] && _tm_lim=${TM_WAIT_MIN:-20}
    _tm_end=$(($(date +%s) + _tm_lim))
    while :; do
        screen | grep -Eq -- "$1" && return 0
        if [ "$(date +%s)" -ge "$_tm_end" ]; then
            echo "# waited $_tm_lim s for /$1/ in vain" >&2     # a wait that fails unchecked shows
            return 1
        fi
        sleep 0.1
    done
}
# wait_until CHECK: true once the shell command CHECK succeeds, tried every
# 0.1 s for TM_WAIT_MIN seconds (20). For a screen judged by more than one
# pattern (a redraw's size and its layout): one capture that matches a
# pattern, then a second one for the rest, can land on two different
# redraws (a resize sends the workbench SIGWINCH, and it may draw twice).
wait_until() {
    _tm_end=$(($(date +%s) + ${TM_WAIT_MIN:-20}))
    until eval "$1"; do
        if [ "$(date +%s)" -ge "$_tm_end" ]; then
            echo "# waited ${TM_WAIT_MIN:-20} s for '$1' in vain" >&2
            return 1
        fi
        sleep 0.1
    done
}
