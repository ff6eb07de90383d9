# mk/confine.mk: cudojo-confine, the trampoline that shuts a learner's
# program in when a tool (compute-sanitizer, ncu, nsys) starts it
# (kernels/confine/main.c, kernels/program_confine.c). Found beside the
# binary like the emulator runtime: $(BUILD)/confine, a bundle's confine/,
# an installation's lib/cudojo/confine.

CONFINE_DIR := $(BUILD)/confine
CONFINE_BIN := $(CONFINE_DIR)/cudojo-confine

RUNTIME_LIBS += $(CONFINE_BIN)

$(CONFINE_BIN): kernels/confine/main.c $(LIB)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC+LD   $@")
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< -Wl,--as-needed $(LIB) $(LDFLAGS) $(LDLIBS) \
	    -Wl,-rpath,'$$ORIGIN/../lib' -Wl,--enable-new-dtags

.PHONY: confine
confine: $(CONFINE_BIN)
