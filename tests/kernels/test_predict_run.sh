#!/bin/sh
# tests/kernels/test_predict_run.sh: the time prediction in a run on the
# emulator (kernels/PREDICT.md). transpose-tiled's solution and its
# unpadded wrong variant (a 32-way bank conflict): the log says "predicted
# on an H200" next to the proxies, metrics.kernels.transpose.predicted has a
# positive time, a bound and its terms, and the conflicting variant's shared
# term is the larger. Prints ok / not ok per case.
BIN=${CUDOJO_BIN:-build/cudojo}
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
T=$(mktemp -d /tmp/cudojo-predict-XXXXXX)
trap 'rm -rf "$T"' EXIT INT TERM
export XDG_DATA_HOME="$T/data" XDG_CACHE_HOME="$T/cache" XDG_STATE_HOME="$T/state"
CH=lessons/04-shared-memory
run() { "$BIN" run transpose-tiled --backend emu --file "$1" --json 2>/dev/null; }
run "$CH/solutions/transpose-tiled.cu" > "$T/sol.json"
run "$CH/solutions/wrong/transpose-tiled-no-padding.cu" > "$T/nopad.json"
python3 - "$T/sol.json" "$T/nopad.json" <<'PY'
import json, sys
def load(p):
    try:
        return json.load(open(p))
    except Exception as e:
        return {"error": str(e)}
sol, nopad = load(sys.argv[1]), load(sys.argv[2])
def check(name, cond, why=""):
    print(("ok - " if cond else "not ok - ") + name + ("" if cond else "\n    " + why))
log = sol.get("log") or ""
check("log says the predicted time on an H200 next to the proxies",
      "predicted on an H200:" in log and "of copy" in log and "sectors per request" in log, log[:300])
pred = ((sol.get("metrics") or {}).get("kernels") or {}).get("transpose", {}).get("predicted") or {}
check("metrics.kernels.transpose.predicted has a time, a bound and its terms",
      pred.get("ms", 0) > 0 and pred.get("bound") and "latency_chain" in (pred.get("terms_us") or {}), json.dumps(pred))
# the proxied launch (200 x 296) is the one the log names; the last launch is the 37 x 53 check
emu_s = (((sol.get("metrics") or {}).get("emu") or {}).get("totals") or {})
check("the emulator's totals carry the prediction's counts",
      all(k in emu_s for k in ("fp32_instructions", "memory_waits", "global_store_sectors", "warps")), json.dumps(emu_s)[:300])
def term(r):
    return ((((r.get("metrics") or {}).get("kernels") or {}).get("transpose") or {}).get("predicted") or {}).get("terms_us", {}).get("shared", 0)
check("a 32-way bank conflict makes the shared-memory term larger", term(nopad) > 4 * term(sol),
      "solution %s, no padding %s" % (term(sol), term(nopad)))
PY
