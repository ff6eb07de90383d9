# mk/anchors.mk: bench/anchors.cu, the course's reference solutions beside
# CUB, cuBLAS and a device-to-device copy in one process (issue 15 part 3).
# Built with nvcc (no GPU needed to build); never part of `make test` or
# `make bench` (it needs a GPU). The solutions are compiled from lessons/ at
# run time, so run it from the repository root:
#   make BUILD=build anchors && build/bench/anchors
# ANCHORS_ARCH picks the GPU code for CUB's kernels (default: H100/H200 and
# A100, plus PTX for newer GPUs).

NVCC         ?= $(CUDA_HOME)/bin/nvcc
ANCHORS      := $(BUILD)/bench/anchors
ANCHORS_ARCH ?= -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 \
                -gencode arch=compute_90,code=compute_90

.PHONY: anchors
anchors: $(ANCHORS)

$(ANCHORS): bench/anchors.cu mk/anchors.mk
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  NVCC    $@")
	$(Q)$(NVCC) -O2 -std=c++17 $(ANCHORS_ARCH) -DANCHORS_CUDA_INCLUDE='"$(CUDA_HOME)/include"' \
	    -o $@ bench/anchors.cu -L$(CUDA_HOME)/lib64 -Xlinker -rpath,$(CUDA_HOME)/lib64 -lcublas -lnvrtc
