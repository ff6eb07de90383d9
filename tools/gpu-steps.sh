# tools/gpu-steps.sh: sourced by tools/gpu-check.sh and tools/gpu-bench.sh:
# runs each step of a call on the GPU machine in a session of its own under
# a time limit, kills whatever it leaves, and packs everything the steps
# wrote into one archive, rewritten after each step, so that a call stopped
# at its limit still brings back what was done (that machine brings back at
# most 8 files from $OUT).
#
# The caller sets, before sourcing: out (the folder that comes back), work
# (where steps write; emptied here), archive (its name in $out, e.g.
# gpu-check.tar.gz), prefix (of the variables below: GPU_CHECK or
# GPU_BENCH), and defines summarize (prints the summary of what has run,
# reading $work/steps.txt and the steps' files: only heads and tails).
# It gets: run_step, pack, now, and $work/steps.txt with a line a step:
# "NAME EXIT SECONDS LIMIT killed|-|no-time|dry".
#
# Settings (PREFIX is $prefix):
#   PREFIX_LIMIT_<step>=S  the step's limit instead of its default (a '-' in
#                          the step's name is '_' here)
#   PREFIX_DEADLINE=S      no step runs past S seconds from the start (default
#                          560: a 10-minute call, less the unpacking), 15 s
#                          kept for packing
#   PREFIX_FILE_KB=K       each file in the archive cut to K KiB (default 1024),
#                          its head and tail kept
#   PREFIX_FSIZE_MB=M      no step writes a file past M MiB (default 256;
#                          prlimit's soft limit: the writer gets SIGXFSZ)
#   PREFIX_DRY=1           print each step's command, run none
#
# At its limit a step's process group and every process below it (a cudojo
# worker leads a session of its own) are stopped, then killed; after every
# step, whatever it left running is killed too, found by a mark in its
# environment (PREFIX_MARK). Summaries must never read a file whole: a
# stuck writer's file can be gigabytes.
start=$(date +%s)
mark=$prefix-$$-$start
eval "deadline=\${${prefix}_DEADLINE:-560} cap_kb=\${${prefix}_FILE_KB:-1024} fsize_mb=\${${prefix}_FSIZE_MB:-256}"
eval "dry=\${${prefix}_DRY:-}"
mkdir -p "$out" || exit 2
rm -rf "$work" && mkdir -p "$work" || exit 2
: > "$work/steps.txt"

now() { echo $(( $(date +%s) - start )); }

# PID and every process below it, one a line (from one snapshot of ps).
tree_of() {
    ps -e -o pid= -o ppid= 2>/dev/null | awk -v root="$1" '
        { kids[$2] = kids[$2] " " $1 }
        END { todo = root; while (todo != "") { n = split(todo, a, " "); todo = "";
              for (i = 1; i <= n; i++) { print a[i]; todo = todo kids[a[i]] } } }'
}

# Every process but this shell whose environment holds the mark $1.
marked() {
    grep -lsxz "GPU_STEP_MARK=$1" /proc/[0-9]*/environ 2>/dev/null | sed 's|^/proc/\([0-9]*\)/environ$|\1|' |
        grep -vx "$$"
}

# kill_step PID MARK [tree]: stops then kills the group led by PID, every
# process marked MARK and, with "tree" (PID still running), every process
# below PID: stopped first, so that none forks a new one meanwhile.
kill_step() {
    pids="$( [ "${3:-}" = tree ] && tree_of "$1") $(marked "$2")"
    kill -STOP -- "-$1" 2>/dev/null
    for p in $pids; do kill -STOP "$p" 2>/dev/null; done
    pids="$pids $( [ "${3:-}" = tree ] && tree_of "$1") $(marked "$2")"
    kill -KILL -- "-$1" 2>/dev/null
    for p in $pids; do kill -KILL "$p" 2>/dev/null; done
    # one that was being forked (setsid) between the passes above, outside
    # the group and past both looks: again until no marked process is left
    # (a loaded machine made that window wide enough for the selftest's
    # own-session child to survive, in a CI run beside two builds)
    tries=0
    while [ $tries -lt 20 ]; do
        pids=$(marked "$2")
        [ -z "$pids" ] && break
        for p in $pids; do kill -KILL "$p" 2>/dev/null; done
        sleep 0.1
        tries=$((tries + 1))
    done
}

# run_step NAME DEFAULT_LIMIT_S LOG COMMAND...: runs COMMAND, its output in
# $work/LOG, in a session of its own under its limit, and records it in
# $work/steps.txt.
run_step() {
    name=$1 lim=$2 log=$3
    shift 3
    vname=$(printf '%s' "$name" | tr -c 'A-Za-z0-9_' '_')    # grade-exclusive: _LIMIT_grade_exclusive
    eval "lim=\${${prefix}_LIMIT_$vname:-$lim}"
    left=$(( deadline - $(now) - 15 ))
    [ "$left" -lt "$lim" ] && lim=$left
    echo "== $name (at $(now) s, limit $lim s)"
    if [ "$lim" -le 0 ]; then
        echo "$name - 0 0 no-time" >> "$work/steps.txt"
        echo "   not run: no time left before ${prefix}_DEADLINE=$deadline s"
        return
    fi
    if [ "$dry" = 1 ]; then
        echo "   $*"
        echo "$name 0 0 $lim dry" >> "$work/steps.txt"
        return
    fi
    t0=$(date +%s)
    limiter=""
    command -v prlimit > /dev/null 2>&1 && limiter="prlimit --fsize=$((fsize_mb * 1048576)):"
    session=""
    command -v setsid > /dev/null 2>&1 && session="setsid -w"
    # shellcheck disable=SC2086 # $session and $limiter are words or nothing
    env GPU_STEP_MARK="$mark-$name" $session $limiter "$@" > "$work/$log" 2>&1 < /dev/null &
    pid=$!
    killed=-
    while kill -0 "$pid" 2>/dev/null; do
        # a finished step is a zombie until waited for
        case $(ps -o stat= -p "$pid" 2>/dev/null) in Z*) break ;; esac
        if [ $(( $(date +%s) - t0 )) -ge "$lim" ]; then
            killed=killed
            kill_step "$pid" "$mark-$name" tree
            break
        fi
        sleep 1
    done
    wait "$pid" 2>/dev/null    # (no "Killed" from the shell)
    rc=$?
    # what it left behind (a worker's session, an MPS daemon it started)
    kill_step "$pid" "$mark-$name"
    echo "$name $rc $(( $(date +%s) - t0 )) $lim $killed" >> "$work/steps.txt"
    [ $killed = killed ] && echo "   killed at its limit ($lim s)"
}

# A file larger than the cap becomes its head, a line saying how much was
# cut, and its tail: the cap in all, so a later pack leaves it alone.
cut_file() {
    size=$(wc -c < "$1")
    [ "$size" -le $((cap_kb * 1024)) ] && return
    tailb=$((cap_kb * 256)) headb=$((cap_kb * 768 - 100))
    { head -c "$headb" "$1"
      printf '\n[... %d bytes cut here by tools/gpu-steps.sh ...]\n' $((size - headb - tailb)) | head -c 100
      tail -c "$tailb" "$1"; } > "$1.cut" && mv "$1.cut" "$1"
}

# The steps' lines of the summary.
summarize_steps() {
    while read -r sname src ssecs slim skilled; do
        case $skilled in
        killed) echo "  $sname: KILLED at its limit of $slim s (exit $src)" ;;
        no-time) echo "  $sname: not run (no time left)" ;;
        dry) echo "  $sname: dry run" ;;
        *) echo "  $sname: exit $src in $ssecs s (limit $slim s)" ;;
        esac
    done < "$work/steps.txt"
}

# Cuts every file, writes the summary and packs the work folder into $out
# (each by a rename, so $out always holds a whole archive).
pack() {
    find "$work" -type f | while read -r f; do cut_file "$f"; done
    summarize > "$work/summary.txt" 2>&1
    cp "$work/summary.txt" "$out/.summary.txt.tmp" && mv "$out/.summary.txt.tmp" "$out/summary.txt"
    tar czf "$out/.$archive.tmp" -C "$work" . 2>/dev/null && mv "$out/.$archive.tmp" "$out/$archive"
}
