#!/bin/sh
# bench/emu_same.sh: do two builds of the emulator give the same answers?
# Runs every exercise's solution, starter and wrong variants on the emulator
# with cudojo A and cudojo B (`cudojo run ID --file F --json --backend=emu`),
# keeps each result without what is timed on the host (duration_ms, phases,
# compile, wall_ms, any other *_ms key; the modeled timeline stays: it comes
# from the emulator's counts), and compares A's with B's: verdict, checks,
# findings with their messages, metrics and the modeled timeline must be
# byte for byte the same. Prints one line per run that differs and a tally.
#
#   bench/emu_same.sh A/cudojo B/cudojo [OUTDIR] [EXERCISE...]
#
# A = B (the same binary twice) shows what varies from run to run anyway:
# scan-array's solution and two wrong variants (blocks spin on the flags of
# the blocks before them, so what a block sees depends on the threads),
# wrong variants with races (grid-stride-*, block-size-block-stride,
# histogram-not-atomic, ...), exercises that time the host (host-timer,
# launch-cost) and, while the emulator runtime measures host time, the
# modeled timelines of programs. OUTDIR (default a
# temporary directory, removed) keeps the normalised JSON per run
# (OUTDIR/A/CHAPTER_FILE.json). Run from a repository root; never part of the
# tests (minutes: ~350 runs per build).
set -eu
if [ $# -lt 2 ]; then
    echo "usage: $0 CUDOJO_A CUDOJO_B [OUTDIR] [EXERCISE...]" >&2
    exit 2
fi
a=$1 b=$2
shift 2
keep=
if [ $# -ge 1 ]; then out=$1; keep=1; shift; else out=$(mktemp -d); fi
for bin in "$a" "$b"; do
    [ -x "$bin" ] || { echo "$0: $bin is not an executable" >&2; exit 2; }
done
[ -d lessons ] || { echo "$0: run from the repository root (no lessons/ here)" >&2; exit 2; }
mkdir -p "$out/A" "$out/B"
[ -n "$keep" ] || trap 'rm -rf "$out"' EXIT
home=$(mktemp -d)
trap 'rm -rf "$home"; [ -n "$keep" ] || rm -rf "$out"' EXIT

# "ID<TAB>FILE" for every solution, starter and wrong variant
python3 - "$@" >"$out/runs.tsv" <<'EOF'
import glob, os, re, sys
only = set(sys.argv[1:])
for lua in sorted(glob.glob("lessons/*/*.lua")):
    if os.path.basename(lua) == "chapter.lua":
        continue
    text = open(lua, encoding="utf-8").read()
    m = re.search(r'^\s*id\s*=\s*"([^"]+)"', text, re.M)
    if not m or (only and m.group(1) not in only):
        continue
    files = []
    for key in ("solution", "source"):
        f = re.search(r'^\s*%s\s*=\s*"([^"]+)"' % key, text, re.M)
        if f:
            files.append(f.group(1))
    w = re.search(r'^\s*wrong\s*=\s*\{(.*?)\}', text, re.M | re.S)
    if w:
        files += re.findall(r'"([^"]+)"', w.group(1))
    for f in files:
        path = os.path.join(os.path.dirname(lua), f)
        if os.path.exists(path):
            print("%s\t%s" % (m.group(1), path))
EOF

norm() {   # normalised JSON of stdin on stdout
    python3 -c '
import json, sys
def strip(o):
    if isinstance(o, dict):
        return {k: strip(v) for k, v in o.items()
                if k not in ("duration_ms", "phases", "compile", "wall_ms", "ms") and not k.endswith("_ms")}
    if isinstance(o, list):
        return [strip(v) for v in o]
    return o
try:
    d = json.load(sys.stdin)
except ValueError as e:
    d = {"unreadable": str(e)}
json.dump(strip(d), sys.stdout, indent=1, sort_keys=True, ensure_ascii=False)
'
}

n=0 diff=0
while IFS="$(printf '\t')" read -r id file; do
    name=$(echo "$file" | sed 's|^lessons/||; s|\.cu$||; s|/|_|g')
    for side in A B; do
        if [ $side = A ]; then bin=$a; else bin=$b; fi
        XDG_DATA_HOME=$home/data XDG_CACHE_HOME=$home/cache \
            "$bin" run "$id" --file "$file" --json --backend=emu --lessons "$PWD/lessons" </dev/null 2>/dev/null | norm >"$out/$side/$name.json" || true
    done
    n=$((n + 1))
    if ! cmp -s "$out/A/$name.json" "$out/B/$name.json"; then
        diff=$((diff + 1))
        echo "differs: $id $file"
        diff "$out/A/$name.json" "$out/B/$name.json" | head -8 | sed 's/^/    /'
    fi
done <"$out/runs.tsv"
echo "$n runs, $diff differ"
