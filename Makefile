# hiercoll: one entry point.
#   make                 build the library, the tools and the benchmark
#   make test [T=regex]  build and run the tests (unit, MPI, end-to-end); T filters by name
#   make demo            the two-pass profile-then-remap demo on the bundled programs
#   make bench           vendor-versus-hiercoll comparison at 2 ranks
#   make install PREFIX=/usr/local
#   make SANITIZE=address,undefined test     sanitizer build (separate build dir)
#
# Folders own their code: common/ (no MPI), mapping/ (no MPI), collectives/ and preload/
# (MPI, linked into libhiercoll.so), tools/<prog>/ (one program each), tests/, examples/.

MPICC    ?= mpicc.mpich
MPIF90   ?= mpif90.mpich
MPIEXEC  ?= mpiexec.mpich
CC       ?= cc
PREFIX   ?= /usr/local
SANITIZE ?=
SKIP_DEPS ?=

BUILD ?= build$(if $(SANITIZE),-$(subst $(comma),-,$(SANITIZE)))
comma := ,

WARN     := -Wall -Wextra -Wno-unused-parameter
CSTD     := -std=c11 -D_GNU_SOURCE
OPT      ?= -O2 -g
SANFLAGS := $(if $(SANITIZE),-fsanitize=$(SANITIZE) -fno-omit-frame-pointer)
INCLUDES := -Icommon -Imapping -Icollectives -Ipreload -I/usr/include/scotch
CFLAGS_ALL = $(CSTD) $(OPT) $(WARN) -fPIC -fvisibility=hidden $(SANFLAGS) $(INCLUDES) -MMD -MP $(EXTRA_CFLAGS)
LIBS_SYS  := -lhwloc -lnuma -lunwind -lmetis -lscotch -lscotcherr -lm -lpthread -ldl

COMMON_SRC  := $(wildcard common/*.c)
MAPPING_SRC := $(wildcard mapping/*.c)
COLL_SRC    := $(wildcard collectives/*.c)
PRELOAD_SRC := $(wildcard preload/*.c)

obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))

LIB_COMMON  := $(BUILD)/lib/libhccommon.a
LIB_MAPPING := $(BUILD)/lib/libhcmap.a
LIB_COLL    := $(BUILD)/lib/libhccoll.a
LIB_PRELOAD := $(BUILD)/lib/libhiercoll.so

# tools/<dir>/ builds build/bin/hiercoll-<dir> (tools/hiercoll/ builds build/bin/hiercoll).
# Programs that are MPI programs are listed here; the rest are plain C.
MPI_TOOLS   := bench commperf pingpong
TOOL_DIRS   := $(patsubst tools/%/,%,$(filter %/,$(wildcard tools/*/)))
tool_bin     = $(BUILD)/bin/$(if $(filter hiercoll,$(1)),hiercoll,hiercoll-$(1))
TOOL_BINS   := $(foreach t,$(TOOL_DIRS),$(if $(wildcard tools/$(t)/*.c),$(call tool_bin,$(t))))

UNIT_SRC    := $(wildcard tests/unit/test_*.c)
UNIT_BINS   := $(patsubst tests/unit/%.c,$(BUILD)/tests/unit/%,$(UNIT_SRC))
MPIT_SRC    := $(wildcard tests/mpi/*.c)
MPIT_F90    := $(wildcard tests/mpi/*.f90)
MPIT_BINS   := $(patsubst tests/mpi/%.c,$(BUILD)/tests/mpi/%,$(MPIT_SRC)) \
               $(patsubst tests/mpi/%.f90,$(BUILD)/tests/mpi/%,$(MPIT_F90))
EXAMPLE_SRC := $(wildcard examples/*.c)
EXAMPLE_BINS:= $(patsubst examples/%.c,$(BUILD)/examples/%,$(EXAMPLE_SRC))

.PHONY: all deps test check demo bench install clean tests-build stress fuzz
all: deps $(LIB_PRELOAD) $(TOOL_BINS) $(EXAMPLE_BINS)

deps:
	@$(if $(SKIP_DEPS),true,sh tools/install-deps.sh)

# --- libraries ---------------------------------------------------------------------------
$(BUILD)/obj/common/%.o: common/%.c | deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -c $< -o $@
$(BUILD)/obj/mapping/%.o: mapping/%.c | deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -c $< -o $@
$(BUILD)/obj/collectives/%.o: collectives/%.c | deps
	@mkdir -p $(@D)
	$(MPICC) $(CFLAGS_ALL) -c $< -o $@
$(BUILD)/obj/preload/%.o: preload/%.c | deps
	@mkdir -p $(@D)
	$(MPICC) $(CFLAGS_ALL) -c $< -o $@

$(LIB_COMMON): $(call obj,$(COMMON_SRC))
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^
$(LIB_MAPPING): $(call obj,$(MAPPING_SRC))
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^
$(LIB_COLL): $(call obj,$(COLL_SRC))
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

# The preload exports nothing but the MPI entry points it defines (preload/exports.map).
$(LIB_PRELOAD): $(call obj,$(PRELOAD_SRC)) $(LIB_COLL) $(LIB_MAPPING) $(LIB_COMMON) preload/exports.map
	@mkdir -p $(@D)
	$(MPICC) -shared $(SANFLAGS) -Wl,--version-script=preload/exports.map -Wl,-z,defs \
	    -o $@ $(call obj,$(PRELOAD_SRC)) -Wl,--whole-archive $(LIB_COLL) -Wl,--no-whole-archive \
	    $(LIB_MAPPING) $(LIB_COMMON) $(LIBS_SYS)

# --- programs ----------------------------------------------------------------------------
define TOOL_RULE
$(call tool_bin,$(1)): $(call obj,$(wildcard tools/$(1)/*.c)) $(LIB_COLL) $(LIB_MAPPING) $(LIB_COMMON)
	@mkdir -p $$(@D)
	$(if $(filter $(1),$(MPI_TOOLS)),$(MPICC),$(CC)) $(SANFLAGS) -o $$@ $(call obj,$(wildcard tools/$(1)/*.c)) \
	    $(if $(filter $(1),$(MPI_TOOLS)),$(LIB_COLL)) $(LIB_MAPPING) $(LIB_COMMON) $(LIBS_SYS)
endef
$(foreach t,$(TOOL_DIRS),$(eval $(call TOOL_RULE,$(t))))
$(BUILD)/obj/tools/%.o: tools/%.c | deps
	@mkdir -p $(@D)
	$(if $(filter $(firstword $(subst /, ,$*)),$(MPI_TOOLS)),$(MPICC),$(CC)) $(CFLAGS_ALL) -Itools/$(firstword $(subst /, ,$*)) -c $< -o $@

$(BUILD)/examples/%: examples/%.c | deps
	@mkdir -p $(@D)
	$(MPICC) $(CSTD) $(OPT) $(WARN) $(SANFLAGS) -o $@ $< -lm

# Unit tests are compiled with the MPI wrapper so they can link pure functions from
# collectives/ too; they never call MPI and run without mpiexec.
$(BUILD)/tests/unit/%: tests/unit/%.c tests/unit/hc_test.h $(LIB_COLL) $(LIB_MAPPING) $(LIB_COMMON)
	@mkdir -p $(@D)
	$(MPICC) $(CFLAGS_ALL) -Itests/unit -o $@ $< $(LIB_COLL) $(LIB_MAPPING) $(LIB_COMMON) $(LIBS_SYS)
$(BUILD)/tests/mpi/%: tests/mpi/%.c $(wildcard tests/mpi/*.h) | deps
	@mkdir -p $(@D)
	$(MPICC) $(CSTD) $(OPT) $(WARN) $(SANFLAGS) -Itests/mpi -o $@ $< -lm -lpthread
$(BUILD)/tests/mpi/%: tests/mpi/%.f90 | deps
	@mkdir -p $(@D)
	$(MPIF90) -O2 -g -J $(@D) -o $@ $<

tests-build: all $(UNIT_BINS) $(MPIT_BINS)

# --- workflows ---------------------------------------------------------------------------
test check: tests-build
	@BUILD=$(BUILD) MPIEXEC=$(MPIEXEC) SANITIZE=$(SANITIZE) bash tests/run.sh $(if $(T),'$(T)')

demo: all
	@BUILD=$(BUILD) MPIEXEC=$(MPIEXEC) bash tools/demo.sh

bench: all
	@BUILD=$(BUILD) MPIEXEC=$(MPIEXEC) bash tools/bench.sh $(BENCH_ARGS)

stress: tests-build
	@BUILD=$(BUILD) MPIEXEC=$(MPIEXEC) HC_STRESS_FULL=1 bash tests/run.sh 'stress'

fuzz: all
	@BUILD=$(BUILD) bash tests/fuzz/run.sh

install: all
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/doc/hiercoll
	install -m 755 $(LIB_PRELOAD) $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(TOOL_BINS) $(DESTDIR)$(PREFIX)/bin/
	install -m 644 README.md docs/*.md $(DESTDIR)$(PREFIX)/share/doc/hiercoll/

clean:
	rm -rf build build-*

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
