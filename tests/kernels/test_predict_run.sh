#!/bin/sh
# tests/kernels/test_predict_run.sh: the time prediction in a run on the
# emulator (kernels/PREDICT.md). transpose-tiled's solution and its
# unpadded wrong variant (a 32-way bank conflict): the log says "predicted
# on an H200" next to the proxies, metrics.kernels.transpose.predicted has a
# positive time, a bound and its terms, and the conflicting variant's shared
# term is the larger. The memory waits the latency term counts follow what
# ptxas issues: matmul-tiled's two loads per step, stored to shared memory,
# are one round trip per step (K = 61: 4 steps); matmul-coalesced's loop,
# which NVVM unrolls by 4 as ld, ld, fma, ..., waits once per 4 steps;
# sgemm-tiled loads a tile in two loops: two round trips per tile (K = 50:
# 4 tiles). The chain's finer counts: histogram's starter re-reads hist[]
# (its second wait per byte is an L1 hit), the solution's waits are all on
# fresh data; scan-array's block path follows warp 0, which takes the
# ticket, publishes and looks back (more than twice the average warp).
# Prints ok / not ok per case.
BIN=${CUDOJO_BIN:-build/cudojo}
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
T=$(mktemp -d /tmp/cudojo-predict-XXXXXX)
trap 'rm -rf "$T"' EXIT INT TERM
export XDG_DATA_HOME="$T/data" XDG_CACHE_HOME="$T/cache" XDG_STATE_HOME="$T/state"
CH=lessons/04-shared-memory
run() { "$BIN" run transpose-tiled --backend emu --file "$1" --json 2>/dev/null; }
run "$CH/solutions/transpose-tiled.cu" > "$T/sol.json"
run "$CH/solutions/wrong/transpose-tiled-no-padding.cu" > "$T/nopad.json"
"$BIN" run matmul-tiled --backend emu --file "$CH/solutions/matmul-tiled.cu" --json > "$T/tiled.json" 2>/dev/null
"$BIN" run matmul-coalesced --backend emu --file lessons/18-matmul/solutions/matmul-coalesced.cu --json \
    > "$T/coalesced.json" 2>/dev/null
CH10=lessons/10-warp-level
"$BIN" run sgemm-tiled --backend emu --file lessons/11-roofline/sgemm-tiled.cu --json > "$T/sgemm.json" 2>/dev/null
"$BIN" run histogram --backend emu --file "$CH10/histogram.cu" --json > "$T/hist0.json" 2>/dev/null
"$BIN" run histogram --backend emu --file "$CH10/solutions/histogram.cu" --json > "$T/hist1.json" 2>/dev/null
"$BIN" run scan-array --backend emu --file "$CH10/solutions/scan-array.cu" --json > "$T/scan.json" 2>/dev/null
python3 - "$T/sol.json" "$T/nopad.json" "$T/tiled.json" "$T/coalesced.json" "$T/sgemm.json" "$T/hist0.json" \
    "$T/hist1.json" "$T/scan.json" <<'PY'
import json, sys
def load(p):
    try:
        return json.load(open(p))
    except Exception as e:
        return {"error": str(e)}
sol, nopad, tiled, coalesced, sgemm, hist0, hist1, scan = (load(p) for p in sys.argv[1:9])
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
def waits_per_warp(r):
    t = ((r.get("metrics") or {}).get("emu") or {}).get("totals") or {}
    return t.get("memory_waits", 0) / max(1, t.get("warps", 0))
w = waits_per_warp(tiled)
check("a tile's loads stored to shared memory wait once per step (matmul-tiled: 4 steps)", 3.5 <= w <= 4.5,
      "%.2f waits per warp" % w)
w = waits_per_warp(coalesced)
check("loads NVVM unrolled between their uses wait once per group (matmul-coalesced, K = 44)", 8 <= w <= 14,
      "%.2f waits per warp (44 before grouping)" % w)
def counts(r, kernel):
    return ((((r.get("metrics") or {}).get("kernels") or {}).get(kernel) or {}).get("predicted") or {}).get("input") or {}
i = counts(sgemm, "sgemm")
check("loads stored to shared memory wait at the latest at a loop's branch back (sgemm-tiled: 2 per tile, 4 tiles)",
      i.get("critical_waits", 0) == 8 * i.get("blocks", -1), json.dumps(i))
i = counts(hist0, "histogram_global")
w, h = i.get("memory_waits", 0), i.get("memory_waits_hit", -1)
check("a load of sectors the block read before is an L1 hit (histogram starter: hist[] re-read, half its waits)",
      w > 0 and 0.4 * w <= h <= 0.6 * w and i.get("critical_hit_waits", 0) > 0, json.dumps(i))
i = counts(hist1, "histogram_global")
check("loads of fresh data are no L1 hits (histogram solution: atomics leave hist[] alone)",
      i.get("memory_waits", 0) > 0 and i.get("memory_waits_hit", -1) == 0, json.dumps(i))
i = counts(scan, "scan")
avg = i.get("memory_waits", 0) / max(1, i.get("warps", 0))
path = i.get("critical_waits", 0) / max(1, i.get("blocks", 0))
check("a block's critical path follows its slowest warp (scan-array: warp 0's ticket, publish and look-back)",
      avg > 0 and path > 2 * avg and i.get("critical_instructions", 0) > i.get("warp_instructions", 0) / max(1, i.get("warps", 1)) * i.get("blocks", 0),
      "%.2f waits per warp, %.2f on the block's path: %s" % (avg, path, json.dumps(i)))
PY
