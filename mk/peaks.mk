# mk/peaks.mk: bench/peaks_check.cu, the check that cudojo's copy bandwidth
# (kernels/cuda/cuda_peaks.c) lands within 2% of a plain device-to-device
# cudaMemcpy and varies < 2% between repetitions. Built with nvcc against the
# engine's archive; never part of `make test` or `make bench` (needs a GPU):
#   make BUILD=build peaks-check && build/bench/peaks_check

NVCC        ?= $(CUDA_HOME)/bin/nvcc
PEAKS_CHECK := $(BUILD)/bench/peaks_check

.PHONY: peaks-check
peaks-check: $(PEAKS_CHECK)

$(PEAKS_CHECK): bench/peaks_check.cu kernels/cuda/cuda_peaks.h $(LIB)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  NVCC    $@")
	$(Q)$(NVCC) -O2 -std=c++17 -cudart shared -I. -I$(CUDA_HOME)/include $(filter -I%,$(PKG_CFLAGS)) \
	    -o $@ bench/peaks_check.cu $(LIB) -L$(CUDA_HOME)/lib64 -Xlinker -rpath,$(CUDA_HOME)/lib64 \
	    $(filter -l% -L%,$(PKG_LIBS)) -lnvrtc -lm -ldl -lpthread
