# session 17: probes sourced by call 2 (O, el set): what racecheck's ~0.7 s over memcheck is, what MPS's start is
el "compute-sanitizer: racecheck's options (bug-shared-race's solution, N=4096)"
{
nvcc -lineinfo -arch=sm_90 -DN=4096 lessons/14-errors-and-debugging/solutions/bug-shared-race.cu -o /tmp/bsr
tm() { s=$(date +%s%N); "$@" > /tmp/tm.out 2>&1; rc=$?; echo "$(( ($(date +%s%N) - s) / 1000000 )) ms rc=$rc: $*" | cut -c1-200; }
S="compute-sanitizer --print-limit 100 --show-backtrace no"
compute-sanitizer --help 2>&1 | grep -A2 -iE "^ *--racecheck|^ *--check-|^ *--mode|^ *--require|^ *--nvtx|^ *--force" | cut -c1-160 | head -60
tm /tmp/bsr; tm /tmp/bsr
for i in 1 2; do
  tm $S --tool memcheck /tmp/bsr
  tm $S --tool racecheck /tmp/bsr
  tm $S --tool racecheck --racecheck-num-hazards 1024 /tmp/bsr
  tm $S --tool racecheck --racecheck-memcpy-async no /tmp/bsr
  tm $S --tool racecheck --racecheck-num-workers 1 /tmp/bsr
  tm $S --tool racecheck --racecheck-detect-level error /tmp/bsr
  tm $S --tool racecheck --racecheck-indirect-barrier-dependency no /tmp/bsr
  tm $S --tool racecheck --nvtx no --check-api-memory-access no /tmp/bsr
  tm $S --tool synccheck /tmp/bsr
  tm $S --tool initcheck /tmp/bsr
done
} > "$O/sanitizer.txt" 2>&1; cat "$O/sanitizer.txt" | grep " ms rc="
el "MPS: a private daemon's start, the first client (the server's start), a second, four at once, the quit"
{
tm() { s=$(date +%s%N); "$@" > /tmp/tm.out 2>&1; rc=$?; echo "$(( ($(date +%s%N) - s) / 1000000 )) ms rc=$rc: $*" | cut -c1-200; }
nvcc -O2 -o /tmp/cec lessons/14-errors-and-debugging/solutions/check-every-call.cu
D=$(mktemp -d); mkdir -p $D/pipe $D/log
export CUDA_MPS_PIPE_DIRECTORY=$D/pipe CUDA_MPS_LOG_DIRECTORY=$D/log
tm nvidia-cuda-mps-control -d
tm /tmp/cec; tm /tmp/cec
s=$(date +%s%N); for i in 1 2 3 4; do /tmp/cec > /dev/null 2>&1 & done; wait; echo "$(( ($(date +%s%N) - s) / 1000000 )) ms: four at once"
echo get_server_list | nvidia-cuda-mps-control; sleep 2; echo "after 2 s idle:"; echo get_server_list | nvidia-cuda-mps-control
tm /tmp/cec
s=$(date +%s%N); echo quit | nvidia-cuda-mps-control; while pgrep -f nvidia-cuda-mps > /dev/null; do sleep 0.01; done
echo "$(( ($(date +%s%N) - s) / 1000000 )) ms: quit until no daemon/server"
unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
tm /tmp/cec; tm /tmp/cec
s=$(date +%s%N); for i in 1 2 3 4; do /tmp/cec > /dev/null 2>&1 & done; wait; echo "$(( ($(date +%s%N) - s) / 1000000 )) ms: four at once, no MPS"
} > "$O/mps.txt" 2>&1; cat "$O/mps.txt"
