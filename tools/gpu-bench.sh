#!/bin/sh
# tools/gpu-bench.sh: the GPU figures the issues ask for, in one call on a GPU
# machine that has the NVIDIA driver and CUDA toolkit but none of our -dev
# packages (the H200 we test on). Build here first:
#   make bundle anchors build/bench/bench_grade build/bench/bench_predict build/bench/bench_verdict
# carry dist and build/bench (build/bench/anchors links cuBLAS and cudart from
# /usr/local/cuda/lib64), then on the GPU machine, from the repo root:
#   sh tools/gpu-bench.sh [OUTDIR] [BENCH...]
# OUTDIR: default $OUT, else /tmp/cudojo-gpu-bench ("" or - for that default).
# BENCH is any of grade, grade-exclusive, predict, scan, anchors, verdict
# (default: grade predict scan). Each writes <bench>.txt (predict and verdict
# also .json) into OUTDIR/gpu-bench.tar.gz and its summary into
# OUTDIR/summary.txt, both rewritten after each bench, so a call stopped at
# its limit still brings back what was done; the summary is printed at the
# end. Each bench is bounded by GPU_BENCH_TIMEOUT seconds (default 170;
# GPU_BENCH_LIMIT_<bench>=S for one) and all by GPU_BENCH_DEADLINE (default
# 560 s from the start), so one slow bench never costs the others their
# turn: tools/gpu-steps.sh runs them (a session each, killed whole at the
# limit) and packs the archive. GPU_BENCH_WORK (default
# /tmp/cudojo-gpu-bench-work, emptied first) is where the files are made;
# GPU_BENCH_DRY=1 prints each bench's command and runs none.
#   grade            bench_grade 1: one submission of the whole course, 16 workers,
#                    untimed GPU work shared (issue 13's runs/s and projection)
#   grade-exclusive  the same with every GPU lock exclusive (the old scheme: the A/B)
#   predict          bench_predict: the emulator's predicted times vs the GPU's (issue 15 item 5);
#                    replay here with build/bench/bench_predict --replay predict.json --fit even
#   scan             anchors --only scan: the course's scan and its experiments vs CUB
#   anchors          every anchor (reduce, scan, transpose, histogram, SGEMM vs CUB/cuBLAS)
#   verdict          bench_verdict --all on cuda: each exercise's verdict time and its phases
set -u
out=${1:-}
[ $# -gt 0 ] && shift
[ -z "$out" ] || [ "$out" = - ] && out=${OUT:-/tmp/cudojo-gpu-bench}
benches=${*:-grade predict scan}
for b in $benches; do
    case $b in grade|grade-exclusive|predict|scan|anchors|verdict) ;;
    *) echo "gpu-bench: no bench called '$b' (grade, grade-exclusive, predict, scan, anchors, verdict)" >&2; exit 2 ;;
    esac
done
here=$(pwd)
work=${GPU_BENCH_WORK:-/tmp/cudojo-gpu-bench-work} archive=gpu-bench.tar.gz prefix=GPU_BENCH
. "$(dirname "$0")/gpu-steps.sh"
[ -d build/bench ] && ln -sfn "$here/dist/cudojo/lib" build/bench/lib
export XDG_CACHE_HOME="${XDG_CACHE_HOME:-/tmp/cudojo-gpu-cache}" XDG_DATA_HOME="${XDG_DATA_HOME:-/tmp/cudojo-gpu-data}" NO_COLOR=1
cuda_libs=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
limit=${GPU_BENCH_TIMEOUT:-170}
bin=$here/dist/cudojo/cudojo.sh

# What each bench says in the end, from the tails of its output.
summarize() {
    echo "gpu-bench at $(now) s: benches $benches"
    summarize_steps
    for b in $benches; do
        f=$work/$b.txt
        [ -f "$f" ] || continue
        echo "$b:"
        case $b in
        grade) tail -c 20000 "$f" | tail -30 ;;
        grade-exclusive) tail -c 20000 "$f" | tail -16 ;;
        predict) tail -c 4000 "$f" | tail -4 ;;
        scan) tail -c 200000 "$f" | grep -aE "%|WRONG" | tail -30 ;;
        anchors) tail -c 200000 "$f" | grep -aE "%|WRONG" | tail -40 ;;
        verdict) tail -c 20000 "$f" | tail -40 ;;
        esac | sed 's/^/  /'
    done
}

for b in $benches; do
    case $b in
    grade)
        run_step grade "$limit" grade.txt env CUDOJO_BIN="$bin" CUDOJO_BACKEND=cuda build/bench/bench_grade 1 ;;
    grade-exclusive)
        run_step grade-exclusive "$limit" grade-exclusive.txt env CUDOJO_GPU_LOCK_MODE=exclusive CUDOJO_BIN="$bin" \
            CUDOJO_BACKEND=cuda build/bench/bench_grade 1 ;;
    predict)
        run_step predict "$limit" predict.txt env LD_LIBRARY_PATH="$cuda_libs" build/bench/bench_predict \
            --json "$work/predict.json" ;;
    scan) run_step scan "$limit" scan.txt env LD_LIBRARY_PATH="$cuda_libs" build/bench/anchors --only scan ;;
    anchors) run_step anchors "$limit" anchors.txt env LD_LIBRARY_PATH="$cuda_libs" build/bench/anchors ;;
    verdict)
        run_step verdict "$limit" verdict.txt env CUDOJO_BIN="$bin" build/bench/bench_verdict --all --reps 5 \
            --backend cuda --json "$work/verdict.json" ;;
    esac
    pack
done
echo "== done in $(now) s: $out/$archive, $out/summary.txt"
cat "$work/summary.txt"
