#!/bin/sh
# session 18 call 3 (14183c8, the bundle alone): chapter 10 verified with 8 jobs, where call 2's whole-course verify
# timed out compact-ballot's solution after 80.6 s behind the hanging wrong variants (each held the GPU for its
# 8x-stretched timeout); now a run's timeout leaves out its waits for the GPU's lock and is not stretched.
set -u
export XDG_CACHE_HOME=/tmp/xc3 XDG_DATA_HOME=/tmp/xd3 NO_COLOR=1
T0=$(date +%s)
timeout 150 dist/cudojo/cudojo.sh verify --backend=cuda --jobs 8 dist/cudojo/lessons/10-warp-level 2>&1 | tail -32
echo "[$(( $(date +%s) - T0 )) s] done"
