#!/bin/sh
# session 15: the smaller GPU sizes of the slow timed programs, on the GPU.
#   chapter 07 (pinned-memory, chunked-overlap, default-stream, nonblocking-streams): 2^22 floats per chunk, was 2^24
#   fuse-kernels: N = 2^22, was 2^24;  graph-replay: 20 iterations, was 200
# From the payload root:  sh tools/gpu-sessions/session15/sizes.sh [BACKEND]   (cuda, the default; emu to try it
# without a GPU). CUDOJO_BIN (default dist/cudojo/cudojo.sh), SIZES_BENCH (default build/bench/bench_verdict),
# SIZES_DEADLINE (default 140 s: each step is cut to what is left), SIZES_BUSY=1 (step 3 on the emulator too, new
# size only), SIZES_HOGS (default 16). The files (JSON of every run) in one archive, $OUT/sizes15.tar.gz
# (OUT default /tmp/out): the device brings back few files.
# Steps, on the H200 about 2 minutes in all:
#   1 verify   the six exercises' solution, starter and wrong variants: verdict, ms, message of each run (4 at once)
#   2 runs     each solution once at the new size and (cuda) once at the old one (--param), one at a time:
#              the GPU lock's exclusive ms, the program's wall, the checks' figures; for chapter 07 the copies and
#              kernels (us) and how long the copy engine waited for the host between copies in
#   3 busy     (cuda) a busy 16-core machine: the four chapter-07 solutions 4x each at once, beside 16 CPU hogs,
#              at 2^22 and at 2^24: passes, late chunks (logged, not failed) and failures per size
#   4 verdict  bench_verdict --all --reps 3 of the six solutions: warm verdict p50, the number a learner feels
# What the new sizes expect on the H200 (the .lua comments say why):
#   chapter 07: copy in ~335 us (was ~1.3 ms), the kernel shorter than the copy (copy-bound), the engine waiting 0 us
#     for the host between copies in; ~120 ms exclusive per run (was 316-364); every solution passes in step 3 at
#     both sizes, late chunks at most one per run (more of them at 2^22 than at 2^24 says how much margin went)
#   fuse-kernels: ~6x (3x wanted), ~150 ms exclusive (was 232);  graph-replay: ~9-14x (1.3x wanted), ~230 ms (was 279)
#   the wrong variants fail as on the emulator; split-streams and copy-on-0 fail on timing (a kernel before its
#     copy in ended, a copy out before its kernel ended): check their messages
set -u
B=${1:-cuda}
R=${OUT:-/tmp/out}; mkdir -p "$R"
W=$(mktemp -d /tmp/sizes15-XXXXXX)
O=$W/sizes15; mkdir -p "$O"
export XDG_CACHE_HOME=${XDG_CACHE_HOME:-/tmp/xc} XDG_DATA_HOME=${XDG_DATA_HOME:-/tmp/xd} NO_COLOR=1
[ -d dist/cudojo/lib ] && [ -d build/bench ] && ln -sfn "$PWD/dist/cudojo/lib" build/bench/lib
export CUDOJO_BIN=${CUDOJO_BIN:-$PWD/dist/cudojo/cudojo.sh}
BENCH=${SIZES_BENCH:-build/bench/bench_verdict}
T0=$(date +%s); DEADLINE=${SIZES_DEADLINE:-140}
el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
# cap N: N seconds, or what is left before the deadline (at least 1)
cap() { l=$(( DEADLINE - ($(date +%s) - T0) )); [ "$l" -lt "$1" ] && echo $(( l > 1 ? l : 1 )) || echo "$1"; }
HOGS=""
stop_hogs() { for p in $HOGS; do kill "$p" 2>/dev/null; done; HOGS=""; }
trap 'stop_hogs' EXIT INT TERM
CH07="pinned-memory chunked-overlap default-stream nonblocking-streams"
old_param() {
    case $1 in fuse-kernels) echo n=16777216 ;; graph-replay) echo iters=200 ;; *) echo chunk=16777216 ;; esac
}
src_of() {
    case $1 in fuse-kernels|graph-replay) echo "lessons/15-graphs-and-overheads/solutions/$1.cu" ;;
    *) echo "lessons/07-streams/solutions/$1.cu" ;; esac
}

cat > "$W/show.py" <<'PY'
import json, sys
def load(p):
    try:
        with open(p) as f: return json.load(f)
    except Exception as e:
        return {"verdict": "no-json", "summary": "%s: %s" % (p, e)}
def verify(p):
    d = load(p)
    for r in d.get("results", []):
        print("  %s %-20s %-8s %-44s %-4s %6.0f ms  %s" % ("ok" if r["ok"] else "NOT", r["exercise"], r["role"],
              r["file"].split("/")[-1], r["verdict"], r.get("duration_ms") or 0, (r.get("summary") or "")[:150]))
    print("  %s as expected, %s not" % (d.get("ok"), d.get("failed")))
def pipeline(ev):
    get = lambda k: sorted([e for e in ev if e["kind"] == k], key=lambda e: e["start_us"])
    h2d, d2h = get("h2d")[-4:], get("d2h")[-4:]
    ks = [e for e in get("kernel") if (e.get("name") or "").startswith("busy")][-4:]
    if len(h2d) < 4 or len(ks) < 4: return "    (no pipeline on the timeline)"
    med = lambda v: sorted(v)[len(v) // 2]
    waits = ["%.0f" % (b["start_us"] - (a["start_us"] + a["dur_us"])) for a, b in zip(h2d, h2d[1:])]
    syncs = [e for e in ev if e["kind"] == "sync" and e["start_us"] > h2d[0]["start_us"]]
    host = "; host queued the 4 chunks in %.0f us" % (syncs[0]["start_us"] - h2d[0]["start_us"]) if syncs else ""
    return ("    copy in %.0f us, kernel %.0f us, copy out %.0f us (medians); the engine waited %s us for the host "
            "between copies in%s" % (med([e["dur_us"] for e in h2d]), med([e["dur_us"] for e in ks]),
            med([e["dur_us"] for e in d2h]) if d2h else 0, "/".join(waits), host))
def run(p, label):
    d = load(p)
    m = d.get("metrics") or {}
    lk, ph, pr = m.get("gpu_lock") or {}, m.get("phases") or {}, m.get("program") or {}
    print("  %-20s %-16s %-4s exclusive %s ms, wait %s ms; program wall %.0f ms, run %.0f ms; %s" % (
        d.get("exercise", "?"), label, d.get("verdict"),
        "%.0f" % lk["exclusive_ms"] if "exclusive_ms" in lk else "-", "%.0f" % lk["wait_ms"] if "wait_ms" in lk else "-",
        pr.get("wall_ms") or 0, d.get("duration_ms") or 0, (d.get("summary") or "")[:120]))
    for c in d.get("checks") or []:
        if "x (at least" in c.get("message", "") or not c.get("passed"): print("    " + c["message"][:200])
    for line in (d.get("log") or "").splitlines(): print("    log: " + line[:200])
    ev = (m.get("timeline") or {}).get("events") or []
    if d.get("exercise") in ("pinned-memory", "chunked-overlap", "default-stream", "nonblocking-streams"):
        print(pipeline(ev))
def busy(label, *paths):
    n = ok = late = 0
    excl, bad = [], []
    for p in paths:
        d = load(p); n += 1
        if d.get("verdict") == "pass": ok += 1
        else: bad.append("%s: %s" % (d.get("exercise", p), (d.get("summary") or "")[:160]))
        if "queued it late" in (d.get("log") or ""): late += 1
        lk = (d.get("metrics") or {}).get("gpu_lock") or {}
        if "exclusive_ms" in lk: excl.append(lk["exclusive_ms"])
    excl.sort()
    print("  %s: %d of %d passed, %d with one late chunk (logged), exclusive ms p50 %s max %s" % (
        label, ok, n, late, "%.0f" % excl[len(excl) // 2] if excl else "-", "%.0f" % excl[-1] if excl else "-"))
    for b in bad: print("    FAIL " + b)
{"verify": verify, "run": run, "busy": busy}[sys.argv[1]](*sys.argv[2:])
PY

el "sizes15 on $B ($(git log --oneline -1 2>/dev/null | cut -c1-60))"
el "1 verify (4 at once)"
mkdir -p "$W/course"
cp -r lessons/07-streams lessons/15-graphs-and-overheads "$W/course/"
sed 's/exercises = {[^}]*}/exercises = { "fuse-kernels", "graph-replay" }/' lessons/15-graphs-and-overheads/chapter.lua \
    > "$W/course/15-graphs-and-overheads/chapter.lua"
timeout "$(cap 40)" "$CUDOJO_BIN" verify --json --backend="$B" --jobs 4 "$W/course/07-streams" \
    "$W/course/15-graphs-and-overheads" > "$O/verify.json" 2> "$O/verify.err"
echo "  rc=$?"
python3 "$W/show.py" verify "$O/verify.json"

el "2 runs: each solution at the new size$([ "$B" = cuda ] && echo ' and the old'), one at a time"
export CUDOJO_GPU_LOCK_DIR="$W/lock"; mkdir -p "$CUDOJO_GPU_LOCK_DIR"
for ex in $CH07 fuse-kernels graph-replay; do
    for size in new old; do
        [ "$size" = old ] && [ "$B" != cuda ] && continue
        set -- ; [ "$size" = old ] && set -- --param "$(old_param "$ex")"
        s0=$(date +%s%N)
        timeout "$(cap 15)" "$CUDOJO_BIN" run --lessons lessons --backend="$B" --json "$@" --file "$(src_of "$ex")" "$ex" \
            > "$O/run-$ex-$size.json" 2> "$O/run-$ex-$size.err"
        python3 "$W/show.py" run "$O/run-$ex-$size.json" "$size $(( ($(date +%s%N) - s0) / 1000000 )) ms"
    done
done

HOGS_N=${SIZES_HOGS:-16}
if [ "$B" = cuda ] || [ "${SIZES_BUSY:-0}" = 1 ]; then
    el "3 busy: chapter 07's solutions 4x each at once beside $HOGS_N CPU hogs, at 2^22$([ "$B" = cuda ] && echo ' and at 2^24')"
    for size in new old; do
        [ "$size" = old ] && [ "$B" != cuda ] && continue
        i=0; pids=""
        h=0; while [ $h -lt "$HOGS_N" ]; do sh -c 'while :; do :; done' & HOGS="$HOGS $!"; h=$(( h + 1 )); done
        for _ in 1 2 3 4; do
            for ex in $CH07; do
                i=$(( i + 1 ))
                set -- ; [ "$size" = old ] && set -- --param chunk=16777216
                timeout "$(cap 25)" "$CUDOJO_BIN" run --lessons lessons --backend="$B" --json "$@" --file "$(src_of "$ex")" \
                    "$ex" > "$O/busy-$size-$i.json" 2> "$O/busy-$size-$i.err" &
                pids="$pids $!"
            done
        done
        for p in $pids; do wait "$p"; done
        stop_hogs
        python3 "$W/show.py" busy "$size ($([ $size = new ] && echo 2^22 || echo 2^24))" "$O"/busy-$size-*.json
    done
fi
unset CUDOJO_GPU_LOCK_DIR

el "4 verdict: bench_verdict --all --reps 3"
timeout "$(cap 40)" "$BENCH" --all --reps 3 --backend "$B" $CH07 fuse-kernels graph-replay > "$O/verdict.txt" 2>&1
echo "  rc=$?"
head -c 6000 "$O/verdict.txt"
tar czf "$R/sizes15.tar.gz" -C "$W" sizes15 && echo "  files: $R/sizes15.tar.gz"
rm -rf "$W"
el "done"
