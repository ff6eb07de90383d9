# tests/tui/tmux.sh: sourced by the tmux-driven tests once they have set TM
# (tmux on a private socket). A new client that reaches a server which is
# shutting down (after kill-server, or after its last session ended) fails
# with "server exited unexpectedly"; under load that happened to about one
# start in seven. tm_fresh ends the server and waits until it is gone;
# tm_new runs new-session with the given arguments, retried for up to 5 s
# while a dying server refuses it (a refused start creates nothing).
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
