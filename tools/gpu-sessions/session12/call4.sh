#!/bin/sh
# ncu: where the target's time goes (hot-spot solution, 4 kernels)
N=/tmp/ncux; mkdir -p $N; [ -x $N/hs ] || nvcc -lineinfo -arch=sm_90 -DW=4096 -o $N/hs /tmp/p/lessons/16-profiling/solutions/hot-spot.cu
M=gpu__time_duration.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
tm() { s0=$(date +%s.%N); "$@" > $N/o.txt 2>&1; rc=$?; s1=$(date +%s.%N); echo "$(python3 -c "print('%.2f'%($s1-$s0))") s rc=$rc: $(echo "$*" | sed 's|/tmp/ncux/||g; s|l1tex__t_[a-z_]*\.sum|L1|g' | cut -c1-150)"; }
tm $N/hs
tm ncu --csv --metrics $M --clock-control none $N/hs
tm ncu --csv --metrics gpu__time_duration.sum --clock-control none $N/hs
tm ncu --csv --metrics $M --clock-control none --launch-count 1 $N/hs
tm ncu --csv --metrics $M --clock-control none --launch-count 0 --launch-skip 100 $N/hs
tm ncu --csv --metrics $M --clock-control none --cache-control none $N/hs
tm ncu --csv --metrics $M --clock-control none --replay-mode application $N/hs
tm ncu --csv --metrics $M --clock-control none -k regex:scale_cols $N/hs
grep -c '^"' $N/o.txt
CUDA_MODULE_LOADING=EAGER tm $N/hs
tm ncu --csv --metrics $M --clock-control none --target-processes application-only $N/hs
