#!/bin/sh
# session 18 calls 4-6, run inline on the warm machine after call 3 (the bundle of 14183c8 in /tmp/b/dist):
# call 4: test_cuda_streams three times alone and chapter 10 verified with 3 jobs (before the bundle; payload 3662d1d)
# call 5: the whole course verified on the H200 with 8 jobs (384 as expected, 0 not, in 115 s)
# call 6: cudojo grade of the chapter 14 bug hunts (two under memcheck, confined by cudojo-confine; bug-shared-race
#         with emu_checked), the solutions against the starters
set -u
export XDG_CACHE_HOME=/tmp/xc3 XDG_DATA_HOME=/tmp/xd3 NO_COLOR=1
T0=$(date +%s)
timeout 215 dist/cudojo/cudojo.sh verify --backend=cuda --jobs 8 dist/cudojo/lessons/[0-9]* > /tmp/v.txt 2>&1
echo "rc=$? $(( $(date +%s) - T0 )) s"; grep "✗" /tmp/v.txt | head; tail -3 /tmp/v.txt
L=dist/cudojo/lessons/14-errors-and-debugging
rm -rf /tmp/g && mkdir -p /tmp/g/subs/good/errors-and-debugging /tmp/g/subs/starter/errors-and-debugging
for e in bug-shared-race bug-out-of-bounds bug-use-after-free; do
  cp $L/solutions/$e.cu /tmp/g/subs/good/errors-and-debugging/; cp $L/$e.cu /tmp/g/subs/starter/errors-and-debugging/
done
timeout 80 dist/cudojo/cudojo.sh --backend=cuda grade /tmp/g/subs/good /tmp/g/subs/starter --course dist/cudojo/lessons \
  --out /tmp/g/out --jobs 4 --exercises bug-shared-race,bug-out-of-bounds,bug-use-after-free > /tmp/g/log 2>&1
echo "rc=$?"; tail -6 /tmp/g/log; cat /tmp/g/out/gradebook.csv
