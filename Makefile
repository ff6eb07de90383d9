# cudojo — build, test, bench, bundle.
#
#   make run        build and open the workbench (installs missing Debian packages as root)
#   make test       build and run every test (no GPU needed), TEST_JOBS (2) at once; the
#                   slowest are listed at the end, all in $(BUILD)/test-times.txt
#   make test-gpu   the same plus the GPU-only tests, on a machine with an NVIDIA GPU
#   make san        every test under ASan + UBSan and the debug-only invariants (build-san/;
#                   DEBUG=1 turns those invariants on in any build)
#   make bench      performance figures (never part of the tests)
#   make fuzz       every fuzz target for FUZZ_SECONDS (20) seconds each
#   make bundle     a relocatable dist/cudojo/ for a GPU server without -dev packages
#   make install    PREFIX (/usr/local) and DESTDIR: binary, course, runtime libraries,
#                   man page cudojo(1), bash and zsh completion; make uninstall
#   make clean

CUDA_HOME ?= /usr/local/cuda
BUILD     ?= build
CC        ?= cc
PKGS      := lua5.4 sqlite3 ncursesw jansson libcmark libzstd libarchive libxxhash
TEST_PKGS := cmocka

WARN    := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes
ifeq ($(CI),true)
WARN    += -Werror
endif
OPT     ?= -O2 -g
SAN_FLAGS :=
# Debug-only invariants (EMU_ASSERT on the emulator's hot paths): on under
# SAN=1 and DEBUG=1, compiled out of release builds.
DEBUG_FLAGS := $(if $(filter 1,$(DEBUG) $(SAN)),-DCUDOJO_DEBUG)
ifeq ($(SAN),1)
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
OPT     := -O1 -g
endif

PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
TEST_CFLAGS := $(shell pkg-config --cflags $(TEST_PKGS) 2>/dev/null)
TEST_LIBS   := $(shell pkg-config --libs $(TEST_PKGS) 2>/dev/null)

CPPFLAGS := -I. -I$(CUDA_HOME)/include -D_GNU_SOURCE -DCUDOJO_VERSION='"0.1.0"' $(DEBUG_FLAGS)
CFLAGS   := -std=c11 $(OPT) $(WARN) $(SAN_FLAGS) -pthread $(PKG_CFLAGS)
# The emulator's inner loops are the hot path: let the compiler vectorise them.
EMU_CFLAGS := $(if $(filter 1,$(SAN)),,-O3)
LDFLAGS  := $(SAN_FLAGS) -pthread -L$(CUDA_HOME)/lib64 \
            -Wl,-rpath,'$$ORIGIN/lib' -Wl,-rpath,$(CUDA_HOME)/lib64 -Wl,--enable-new-dtags
LDLIBS   := $(PKG_LIBS) -lnvrtc -lcudart -lm -ldl

MODULES  := base kernels kernels/cuda kernels/emu lua progress-db app app/tui
LIB_SRC  := $(filter-out app/main.c,$(foreach m,$(MODULES),$(wildcard $(m)/*.c)))
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
# Lua preludes built into the binary (tools/embed.sh turns each into a C array).
PRELUDE_SRC := $(wildcard lua/prelude/*.lua)
PRELUDE_C   := $(PRELUDE_SRC:lua/prelude/%.lua=$(BUILD)/gen/prelude_%.c)
PRELUDE_OBJ := $(PRELUDE_C:%.c=%.o)
LIB_OBJ  += $(PRELUDE_OBJ)
MAIN_OBJ := $(BUILD)/obj/app/main.o
LIB      := $(BUILD)/libcudojo.a
BIN      := $(BUILD)/cudojo

TEST_SRC     := $(wildcard tests/*/test_*.c)
TEST_BIN     := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
SUPPORT_SRC  := $(wildcard tests/support/*.c)
SUPPORT_OBJ  := $(SUPPORT_SRC:%.c=$(BUILD)/obj/%.o)
BENCH_SRC    := $(wildcard bench/bench_*.c)
BENCH_BIN    := $(BENCH_SRC:bench/%.c=$(BUILD)/bench/%)
FUZZ_SRC     := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BIN     := $(FUZZ_SRC:tests/fuzz/%.c=$(BUILD)/fuzz/%)
FUZZ_DRIVER  := $(BUILD)/obj/tests/fuzz/driver.o

.PHONY: all runtime-libs deps deps-test run test test-gpu test-unit san bench bundle clean tests-build fuzz difffuzz \
        install install-files uninstall

# Dependencies are checked (and installed as root) before anything compiles,
# in a separate make so that -j never races the compiler against apt-get.
all:
	@sh tools/deps.sh $(PKGS)
	@$(MAKE) --no-print-directory $(BIN) runtime-libs

deps:
	@sh tools/deps.sh $(PKGS)

deps-test:
	@sh tools/deps.sh --test $(PKGS) -- $(TEST_PKGS)

# `make V=1` shows the full commands.
Q := $(if $(filter 1,$(V)),,@)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(if $(findstring kernels/emu/,$<),$(EMU_CFLAGS)) -MMD -MP -c $< -o $@

$(BUILD)/obj/tests/%.o: tests/%.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(TEST_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/gen/prelude_%.c: lua/prelude/%.lua tools/embed.sh
	@mkdir -p $(dir $@)
	$(Q)sh tools/embed.sh $(subst -,_,prelude_$*_lua) $< > $@

$(BUILD)/gen/%.o: $(BUILD)/gen/%.c
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

$(LIB): $(LIB_OBJ)
	@rm -f $@
	$(Q)ar rcs $@ $^

$(BIN): $(MAIN_OBJ) $(LIB)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/tests/%: $(BUILD)/obj/tests/%.o $(SUPPORT_OBJ) $(LIB)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $< $(SUPPORT_OBJ) $(LIB) $(LDLIBS) $(TEST_LIBS)

$(BUILD)/bench/%: bench/%.c $(LIB)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC+LD   $@")
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -O2 -o $@ $< $(LIB) $(LDFLAGS) $(LDLIBS)

$(BUILD)/fuzz/%: tests/fuzz/%.c $(FUZZ_DRIVER) $(LIB)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC+LD   $@")
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(FUZZ_DRIVER) $(LIB) $(LDFLAGS) $(LDLIBS)

# Every fuzz target (tests/fuzz/fuzz_*.c) for FUZZ_SECONDS each; a crashing
# input is kept as $(BUILD)/fuzz-crash-NAME. CI runs 20 s each; the long run
# under the sanitizers (UBSan stops on the first report and the input is kept):
#   make fuzz SAN=1 BUILD=build-san FUZZ_SECONDS=1800
# (make test runs each target for 3 s: tests/fuzz/test_fuzz.sh.)
FUZZ_SECONDS ?= 20
fuzz:
	@$(MAKE) --no-print-directory $(FUZZ_BIN)
	@BUILD=$(BUILD) FUZZ_SECONDS=$(FUZZ_SECONDS) sh tests/fuzz/test_fuzz.sh

# The emulator's differential fuzzer (tests/difffuzz/README.md): random
# programs run on the emulator and compiled for the host, compared bit for
# bit. make test runs a fixed set of seeds (tests/difffuzz/test_difffuzz.sh);
#   make difffuzz DIFFFUZZ_SEEDS=1-500
DIFFFUZZ_SEEDS ?= 1-20
difffuzz:
	@$(MAKE) --no-print-directory $(BIN) $(RUNTIME_LIBS)
	@BUILD=$(BUILD) sh tests/difffuzz/run.sh --seeds $(DIFFFUZZ_SEEDS)

# Position-independent objects of the engine (base, kernels, the emulator),
# for the shared libraries loaded into learners' programs (mk/*.mk).
PIC_SRC := $(foreach m,base kernels kernels/emu,$(wildcard $(m)/*.c))
PIC_OBJ := $(PIC_SRC:%.c=$(BUILD)/pic/%.o)
PIC_LIB := $(BUILD)/libcudojo_pic.a

$(BUILD)/pic/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC PIC  $<")
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -fPIC $(if $(findstring kernels/emu/,$<),$(EMU_CFLAGS)) -MMD -MP -c $< -o $@

$(PIC_LIB): $(PIC_OBJ)
	@rm -f $@
	$(Q)ar rcs $@ $^

# The libraries loaded into a learner's program: the emulator runtime
# (mk/emurt.mk) and the CUPTI injection library (mk/inject.mk). They define
# RUNTIME_LIBS.
RUNTIME_LIBS :=
-include mk/*.mk

runtime-libs: $(RUNTIME_LIBS)

tests-build: $(BIN) $(TEST_BIN) $(FUZZ_BIN) $(RUNTIME_LIBS)

# Every unit test, the emulator suites, the lessons verified on the emulator, the TUI in tmux.
test: deps-test
	@$(MAKE) --no-print-directory tests-build
	@CUDOJO_BIN=$(BIN) BUILD=$(BUILD) sh tools/run-tests.sh $(TEST_BIN)

test-gpu: deps-test
	@$(MAKE) --no-print-directory tests-build
	@CUDOJO_TEST_GPU=1 CUDOJO_BIN=$(BIN) BUILD=$(BUILD) sh tools/run-tests.sh $(TEST_BIN)

san:
	@$(MAKE) --no-print-directory SAN=1 BUILD=build-san test

bench: deps
	@$(MAKE) --no-print-directory $(BIN) $(BENCH_BIN) $(RUNTIME_LIBS)
	@for b in $(BENCH_BIN); do echo "== $$b"; $$b || exit 1; done

bundle: deps
	@$(MAKE) --no-print-directory $(BIN) $(RUNTIME_LIBS)
	@sh tools/bundle.sh $(BIN) dist/cudojo

run: all
	@$(BIN)

# An installed cudojo: PREFIX/bin/cudojo finds the course in ../share/cudojo/lessons
# and the libraries it loads into programs in ../lib/cudojo/{emurt,inject}.
PREFIX ?= /usr/local
DESTDIR ?=
INSTALL_ROOT := $(DESTDIR)$(PREFIX)
install: all
	@$(MAKE) --no-print-directory install-files

# What install copies, from a build that exists (make test installs into a
# DESTDIR this way without rebuilding the binary the other tests run).
install-files:
	@test -x $(BIN) || { echo "$(BIN) is not built: run make install" >&2; exit 1; }
	@mkdir -p $(INSTALL_ROOT)/bin $(INSTALL_ROOT)/share/cudojo $(INSTALL_ROOT)/lib/cudojo \
	    $(INSTALL_ROOT)/share/man/man1 $(INSTALL_ROOT)/share/bash-completion/completions \
	    $(INSTALL_ROOT)/share/zsh/site-functions
	install -m 755 $(BIN) $(INSTALL_ROOT)/bin/cudojo
	rm -rf $(INSTALL_ROOT)/share/cudojo/lessons && cp -R lessons $(INSTALL_ROOT)/share/cudojo/lessons
	@for d in $(dir $(RUNTIME_LIBS)); do \
	    mkdir -p $(INSTALL_ROOT)/lib/cudojo/$$(basename $$d) || exit 1; \
	done
	@for f in $(RUNTIME_LIBS); do \
	    echo "install -m 755 $$f $(INSTALL_ROOT)/lib/cudojo/$$(basename $$(dirname $$f))/"; \
	    install -m 755 $$f $(INSTALL_ROOT)/lib/cudojo/$$(basename $$(dirname $$f))/ || exit 1; \
	done
	$(BIN) __man > $(INSTALL_ROOT)/share/man/man1/cudojo.1
	install -m 644 completions/cudojo.bash $(INSTALL_ROOT)/share/bash-completion/completions/cudojo
	install -m 644 completions/_cudojo $(INSTALL_ROOT)/share/zsh/site-functions/_cudojo
	@echo "installed cudojo in $(INSTALL_ROOT)/bin (put it on PATH if it is not)"

uninstall:
	rm -f $(INSTALL_ROOT)/bin/cudojo $(INSTALL_ROOT)/share/man/man1/cudojo.1 \
	    $(INSTALL_ROOT)/share/bash-completion/completions/cudojo $(INSTALL_ROOT)/share/zsh/site-functions/_cudojo
	rm -rf $(INSTALL_ROOT)/share/cudojo $(INSTALL_ROOT)/lib/cudojo

clean:
	rm -rf build build-san dist

-include $(PIC_OBJ:.o=.d)
-include $(LIB_OBJ:.o=.d) $(MAIN_OBJ:.o=.d) $(SUPPORT_OBJ:.o=.d) $(TEST_BIN:$(BUILD)/tests/%=$(BUILD)/obj/tests/%.d)
