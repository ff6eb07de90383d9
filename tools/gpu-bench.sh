#!/bin/sh
# tools/gpu-bench.sh: the GPU figures the issues ask for, in one call on a GPU
# machine that has the NVIDIA driver and CUDA toolkit but none of our -dev
# packages (the H200 we test on). Build here first:
#   make bundle anchors build/bench/bench_grade build/bench/bench_predict build/bench/bench_verdict
# carry dist and build/bench (build/bench/anchors links cuBLAS and cudart from
# /usr/local/cuda/lib64), then on the GPU machine, from the repo root:
#   sh tools/gpu-bench.sh [OUTDIR] [BENCH...]
# BENCH is any of grade, grade-exclusive, predict, scan, anchors, verdict
# (default: grade predict scan). Each writes OUTDIR/<bench>.txt (predict and
# verdict also .json) and prints its summary; each is bounded by
# GPU_BENCH_TIMEOUT seconds (default 170) so one slow bench never costs the
# others their turn.
#   grade            bench_grade 1: one submission of the whole course, 16 workers,
#                    untimed GPU work shared (issue 13's runs/s and projection)
#   grade-exclusive  the same with every GPU lock exclusive (the old scheme: the A/B)
#   predict          bench_predict: the emulator's predicted times vs the GPU's (issue 15 item 5);
#                    replay here with build/bench/bench_predict --replay OUTDIR/predict.json --fit even
#   scan             anchors --only scan: the course's scan and its experiments vs CUB
#   anchors          every anchor (reduce, scan, transpose, histogram, SGEMM vs CUB/cuBLAS)
#   verdict          bench_verdict --all on cuda: each exercise's verdict time and its phases
out=${1:-${OUT:-/tmp/cudojo-gpu-bench}}
[ $# -gt 0 ] && shift
benches=${*:-grade predict scan}
mkdir -p "$out"
here=$(pwd)
[ -d build/bench ] && ln -sfn "$here/dist/cudojo/lib" build/bench/lib
export XDG_CACHE_HOME=${XDG_CACHE_HOME:-/tmp/cudojo-gpu-cache} XDG_DATA_HOME=${XDG_DATA_HOME:-/tmp/cudojo-gpu-data} NO_COLOR=1
cuda_libs=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
limit=${GPU_BENCH_TIMEOUT:-170}
bin=$here/dist/cudojo/cudojo.sh
start=$(date +%s)
for b in $benches; do
    echo "== $b (at $(( $(date +%s) - start )) s)"
    case $b in
    grade)
        CUDOJO_BIN=$bin CUDOJO_BACKEND=cuda timeout "$limit" build/bench/bench_grade 1 > "$out/grade.txt" 2>&1
        echo "rc=$?"; tail -30 "$out/grade.txt" ;;
    grade-exclusive)
        CUDOJO_GPU_LOCK_MODE=exclusive CUDOJO_BIN=$bin CUDOJO_BACKEND=cuda timeout "$limit" build/bench/bench_grade 1 \
            > "$out/grade-exclusive.txt" 2>&1
        echo "rc=$?"; tail -16 "$out/grade-exclusive.txt" ;;
    predict)
        LD_LIBRARY_PATH=$cuda_libs timeout "$limit" build/bench/bench_predict --json "$out/predict.json" > "$out/predict.txt" 2>&1
        echo "rc=$?"; tail -4 "$out/predict.txt" ;;
    scan)
        LD_LIBRARY_PATH=$cuda_libs timeout "$limit" build/bench/anchors --only scan > "$out/scan.txt" 2>&1
        echo "rc=$?"; grep -E "%|WRONG" "$out/scan.txt" | tail -30 ;;
    anchors)
        LD_LIBRARY_PATH=$cuda_libs timeout "$limit" build/bench/anchors > "$out/anchors.txt" 2>&1
        echo "rc=$?"; grep -E "%|WRONG" "$out/anchors.txt" | tail -40 ;;
    verdict)
        CUDOJO_BIN=$bin timeout "$limit" build/bench/bench_verdict --all --reps 5 --backend cuda --json "$out/verdict.json" \
            > "$out/verdict.txt" 2>&1
        echo "rc=$?"; tail -40 "$out/verdict.txt" ;;
    *)
        echo "gpu-bench: no bench called '$b' (grade, grade-exclusive, predict, scan, anchors, verdict)" >&2 ;;
    esac
done
echo "== done in $(( $(date +%s) - start )) s; files in $out"
