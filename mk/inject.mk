# mk/inject.mk: the CUPTI injection library, loaded into a learner's CUDA
# program on a GPU through CUDA_INJECTION64_PATH (kernels/cuda/inject.c; the
# Injector it feeds: inject_trace.c, inject_call.c, inject_activity.c).
#
# It runs beside NVIDIA's libcudart, so it never links one; libcupti is
# dlopen'ed (kernels/cuda/cupti.c). Only InitializeInjection is exported: the
# engine's names stay inside and never meet the program's. Its rpath
# $ORIGIN/../lib finds jansson in a bundle (tools/bundle.sh).
#
# cudaError_t's names come from the toolkit's driver_types.h, generated into
# $(BUILD)/gen/cuda_errors.h, so they always match the toolkit built against.

INJECT_DIR  := $(BUILD)/inject
INJECT_SO   := $(INJECT_DIR)/libcudojo_inject.so
INJECT_OBJ  := $(addprefix $(BUILD)/pic/kernels/cuda/,inject.o inject_trace.o inject_call.o inject_activity.o cupti.o)
INJECT_VERS := $(INJECT_DIR)/gen/inject.map
INJECT_LIBS := $(shell pkg-config --libs jansson 2>/dev/null)
CUDA_ERRORS := $(BUILD)/gen/cuda_errors.h

RUNTIME_LIBS += $(INJECT_SO)

$(CUDA_ERRORS): $(CUDA_HOME)/include/driver_types.h mk/inject.mk
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  GEN     $@")
	$(Q)sed -n -E \
	    's/^[[:space:]]*,?[[:space:]]*(cudaError[A-Za-z0-9_]*)[[:space:]]*=[[:space:]]*([0-9]+).*/    {\2, "\1"},/p' \
	    $< > $@.tmp && mv $@.tmp $@

# inject_trace.c includes the generated table, in the engine's library and in the .so.
$(BUILD)/obj/kernels/cuda/inject_trace.o $(BUILD)/pic/kernels/cuda/inject_trace.o: $(CUDA_ERRORS)
$(BUILD)/obj/kernels/cuda/inject_trace.o $(BUILD)/pic/kernels/cuda/inject_trace.o: CPPFLAGS += -I$(BUILD)/gen

$(INJECT_VERS): mk/inject.mk
	@mkdir -p $(dir $@)
	$(Q)printf '{\n  global: InitializeInjection;\n  local: *;\n};\n' > $@

$(INJECT_SO): $(INJECT_OBJ) $(PIC_LIB) $(INJECT_VERS)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) -shared -o $@ -Wl,--version-script=$(INJECT_VERS) $(if $(SAN_FLAGS),,-Wl,--no-undefined) \
	    -Wl,-rpath,'$$ORIGIN/../lib' -Wl,--enable-new-dtags $(SAN_FLAGS) -pthread \
	    $(INJECT_OBJ) $(PIC_LIB) $(INJECT_LIBS) -lm -ldl

.PHONY: inject
inject: $(INJECT_SO)

# test_inject drives the library through a stand-in libcupti (no GPU needed).
INJECT_FAKE_CUPTI := $(INJECT_DIR)/fake/libcupti.so.13

$(INJECT_FAKE_CUPTI): tests/kernels/fake_cupti.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC+LD   $@")
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -fPIC -shared -Wl,-soname,libcupti.so.13 -o $@ $<

$(BUILD)/tests/kernels/test_inject: $(INJECT_SO) $(INJECT_FAKE_CUPTI)

-include $(INJECT_OBJ:.o=.d)
