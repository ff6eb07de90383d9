# mk/emurt.mk: cudojo's emulator runtime, our own libcudart.so.<major> over
# the PTX emulator (kernels/emurt/), loaded into learners' CUDA programs
# instead of NVIDIA's (LD_LIBRARY_PATH=$(BUILD)/emurt). It lives in its own
# directory: cudojo itself links NVIDIA's libcudart.
#
# Every exported symbol gets the version node libcudart.so.<major> (programs
# import cudaMalloc@libcudart.so.13); only the CUDA API (cuda[A-Z]*,
# __cuda*) is exported, so the engine's own names never meet the program's.
# Functions of NVIDIA's libcudart we do not implement become stubs that say
# so (tools/cudart-stubs.sh).

CUDART_MAJOR := $(shell awk '/define CUDART_VERSION/ {print int($$3 / 1000)}' $(CUDA_HOME)/include/cuda_runtime_api.h 2>/dev/null)
CUDART_REAL  := $(CUDA_HOME)/lib64/libcudart.so.$(CUDART_MAJOR)

ifneq ($(CUDART_MAJOR),)
EMURT_SRC  := $(wildcard kernels/emurt/*.c)
EMURT_OBJ  := $(EMURT_SRC:%.c=$(BUILD)/pic/%.o)
EMURT_DIR  := $(BUILD)/emurt
EMURT_LIB  := $(EMURT_DIR)/libcudart.so.$(CUDART_MAJOR)
EMURT_STUB := $(EMURT_DIR)/gen/stubs.c
EMURT_VERS := $(EMURT_DIR)/gen/libcudart.map
EMURT_LIBS := $(shell pkg-config --libs jansson libzstd 2>/dev/null)

RUNTIME_LIBS += $(EMURT_LIB)

$(EMURT_VERS): mk/emurt.mk
	@mkdir -p $(dir $@)
	$(Q)printf 'libcudart.so.%s {\n  global: cuda[A-Z]*; __cuda*;\n  local: *;\n};\n' $(CUDART_MAJOR) > $@

# The stubs: every function the real library exports that no emurt object defines.
$(EMURT_STUB): $(EMURT_OBJ) tools/cudart-stubs.sh
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  GEN     $@")
	$(Q)sh tools/cudart-stubs.sh $(CUDART_REAL) $(EMURT_OBJ) > $@.tmp && mv $@.tmp $@

$(EMURT_DIR)/gen/stubs.o: $(EMURT_STUB)
	@$(if $(Q),echo "  CC PIC  $<")
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -fPIC -c $< -o $@

$(EMURT_LIB): $(EMURT_OBJ) $(EMURT_DIR)/gen/stubs.o $(PIC_LIB) $(EMURT_VERS)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) -shared -o $@ -Wl,-soname,libcudart.so.$(CUDART_MAJOR) -Wl,--version-script=$(EMURT_VERS) \
	    -Wl,--no-undefined $(SAN_FLAGS) -pthread $(EMURT_OBJ) $(EMURT_DIR)/gen/stubs.o $(PIC_LIB) \
	    $(EMURT_LIBS) -lm -ldl

.PHONY: emurt
emurt: $(EMURT_LIB)

-include $(EMURT_OBJ:.o=.d)
endif
