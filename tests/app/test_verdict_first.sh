#!/bin/sh
# tests/app/test_verdict_first.sh: a run whose profile comes after its
# verdict (t:program{ after = }: hot-spot) through the real worker, on the
# emulator: `cudojo run` prints the verdict once (and, when the profile
# logged something, its part under "What Nsight Compute measured (after
# the verdict)"); --json prints one document, the final result, with
# metrics.after; `watch --json` writes a "verdict" event, then the
# "result". The profile on the emulator is unavailable, so a copy of the
# chapter whose after function is handed a made-up Nsight Compute report
# shows the part after the verdict. On a terminal `run` says what goes on
# after the verdict: a profile, or compute-sanitizer's check.
BIN=${CUDOJO_BIN:-build/cudojo}
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
LESSONS=$(pwd)/lessons
SOL=$LESSONS/16-profiling/solutions/hot-spot.cu
T=$(mktemp -d /tmp/cudojo-verdict-XXXXXX)
trap 'rm -rf "$T"' EXIT
export XDG_DATA_HOME="$T/data" XDG_CACHE_HOME="$T/cache" NO_COLOR=1
ok() { echo "ok - $1"; }
nok() { echo "not ok - $1"; shift; for l in "$@"; do echo "    $l"; done; }

# the chapter, with a made-up ncu report in hot-spot's after function
mkdir -p "$T/lessons" && cp -R "$LESSONS/16-profiling" "$T/lessons/"
python3 - "$T/lessons/16-profiling/hot-spot.lua" <<'EOF'
import sys
p = sys.argv[1]
s = open(p).read()
fake = ('prof = { available = true, kernels = { '
        '{ name = "scale_cols_orig", metrics = { [SECTORS] = 3200, [REQUESTS] = 100 } }, '
        '{ name = "scale_cols", metrics = { [SECTORS] = 2400, [REQUESTS] = 100 } } } }\n')
old = "    local function after(prof)\n"
assert old in s
open(p, "w").write(s.replace(old, old + "      " + fake, 1))
EOF

$BIN --lessons "$LESSONS" --backend=emu run hot-spot --file "$SOL" > "$T/out" 2> "$T/err"; rc=$?
if [ $rc = 0 ] && [ "$(grep -c '^PASS' "$T/out")" = 1 ] && grep -q '^hot-spot — ' "$T/out" && ! grep -q 'after the verdict' "$T/out"; then
    ok "run: the verdict printed once; nothing after it when the profile logged nothing (emulator)"
else
    nok "run: the verdict printed once" "rc=$rc" "$(head -c 800 "$T/out")" "stderr: $(head -c 300 "$T/err")"
fi

$BIN --lessons "$T/lessons" --backend=emu run hot-spot --file "$SOL" > "$T/out" 2> "$T/err"; rc=$?
if [ $rc = 0 ] && [ "$(grep -c '^PASS' "$T/out")" = 1 ] &&
    grep -A1 'What Nsight Compute measured (after the verdict):' "$T/out" | grep -q 'ncu: scale_cols.s loads take 24.0 sectors per request.*ncu disagrees with the verdict'; then
    ok "run: the verdict, then what Nsight Compute measured under its heading"
else
    nok "run: the verdict, then what Nsight Compute measured" "rc=$rc" "$(head -c 1500 "$T/out")" "stderr: $(head -c 300 "$T/err")"
fi

$BIN --lessons "$T/lessons" --backend=emu run hot-spot --file "$SOL" --json > "$T/out" 2> "$T/err"
if python3 - "$T/out" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))        # one document
assert d["verdict"] == "pass", d["verdict"]
assert "24.0 sectors per request" in d["after_log"], d.get("after_log")
a = d["metrics"]["after"]
assert a["runs"] == 1 and a["tools"] == ["ncu"] and a["verdict_ms"] > 0, a
EOF
then ok "run --json: one document, the final result, with after_log and metrics.after"
else nok "run --json: one document" "$(head -c 800 "$T/out")" "stderr: $(head -c 300 "$T/err")"
fi

# watch --json on the solution: verdict, result, watching
$BIN --lessons "$T/lessons" --backend=emu watch hot-spot --file "$SOL" --json > "$T/watch" 2> "$T/watch.err" &
wpid=$!
i=0; while [ $i -lt 300 ] && ! grep -q '"event": *"watching"' "$T/watch"; do sleep 0.1; i=$((i + 1)); done
kill -INT $wpid 2>/dev/null; sleep 0.3; kill $wpid 2>/dev/null
wait $wpid 2>/dev/null
if python3 - "$T/watch" <<'EOF'
import json, sys
events = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8")]
kinds = [e["event"] for e in events]
assert kinds[:3] == ["verdict", "result", "watching"], kinds
assert events[0]["result"]["verdict"] == "pass" and "after_log" not in events[0]["result"]
assert "24.0 sectors" in events[1]["result"]["after_log"]
EOF
then ok "watch --json: a verdict event, then the result with what came after it"
else nok "watch --json: verdict, result, watching" "$(head -c 1500 "$T/watch")" "stderr: $(head -c 300 "$T/watch.err")"
fi

# On a terminal `cudojo run` says what goes on after the verdict: a
# profile (hot-spot's ncu), or compute-sanitizer's check (bug-shared-race's
# racecheck, after = function(san)), not a profiler's words. `script`
# gives the run a terminal.
if command -v script > /dev/null 2>&1; then
    RACE=$LESSONS/14-errors-and-debugging/solutions/bug-shared-race.cu
    script -qec "'$BIN' --lessons '$LESSONS' --backend=emu run bug-shared-race --file '$RACE'" /dev/null > "$T/tty" 2>&1
    script -qec "'$BIN' --lessons '$LESSONS' --backend=emu run hot-spot --file '$SOL'" /dev/null > "$T/tty2" 2>&1
    if grep -q '^PASS' "$T/tty" && grep -q 'checking with compute-sanitizer after the verdict' "$T/tty" &&
        ! grep -q 'profiling after the verdict' "$T/tty" && grep -q 'profiling after the verdict' "$T/tty2"; then
        ok "run on a terminal: 'checking with compute-sanitizer after the verdict' for racecheck, 'profiling' for ncu"
    else
        nok "run on a terminal: compute-sanitizer's words for racecheck, a profiler's for ncu" \
            "$(tail -c 600 "$T/tty")" "$(tail -c 300 "$T/tty2")"
    fi
else
    echo "skip - run on a terminal: what runs after the verdict (no script(1))"
fi
