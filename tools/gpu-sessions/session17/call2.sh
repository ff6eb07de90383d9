#!/bin/sh
# session 17 call 2 (4408883): probes only (probe.sh): compute-sanitizer's racecheck options (racecheck ~1 s where
# memcheck is ~0.3 s in the workbench), and what a private MPS daemon's start, its server's start and its quit cost
set -u
O=${OUT:-/tmp/out}; mkdir -p "$O"
export XDG_CACHE_HOME=/tmp/xc XDG_DATA_HOME=/tmp/xd NO_COLOR=1 PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
. /tmp/exp/probe.sh
el done
