# hiercoll: one entry point.
#   make                 build the library, the tools and the benchmark
#   make test [T=regex]  build and run the tests (unit, MPI, end-to-end); T filters by name
#   make demo            the two-pass profile-then-remap demo on the bundled programs
#   make apps            real applications (LAMMPS, GROMACS, HPCC, ScaLAPACK) under the vendor
#                        and under the preload, answers checked (APPS_MODE=cluster: the two passes
#                        on a cluster of namespaces; docs/apps.md)
#   make bench           vendor-versus-hiercoll comparison at 2 ranks
#   make install PREFIX=/usr/local
#   make SANITIZE=address,undefined test     sanitizer build (separate build dir)
#
# Folders own their code: common/ (no MPI), mapping/ (no MPI), collectives/ and preload/
# (MPI, linked into libhiercoll.so), tools/<prog>/ (one program each), tests/, examples/.

# Two MPI families from one source: MPICH (and MPICH-ABI libraries) and Open MPI. Each gets its
# own build of everything that includes mpi.h; common/, mapping/ and the plain tools are built
# once. MPI_FAMILIES picks the families (tools/install-deps.sh installs what they need); Open
# MPI is built when its compiler wrapper is there.
MPI_FAMILIES ?= mpich ompi
MPICC    ?= mpicc.mpich
MPIF90   ?= mpif90.mpich
MPIEXEC  ?= mpiexec.mpich
OMPI_MPICC   ?= mpicc.openmpi
OMPI_MPIF90  ?= mpif90.openmpi
OMPI_MPIEXEC ?= mpirun.openmpi
CC       ?= cc
PREFIX   ?= /usr/local
SANITIZE ?=
SKIP_DEPS ?=

BUILD ?= build$(if $(SANITIZE),-$(subst $(comma),-,$(SANITIZE)))
comma := ,

# Packages first, before anything below asks which MPI families are installed.
ifeq ($(SKIP_DEPS)$(filter clean,$(MAKECMDGOALS)),)
DEPS_STATUS := $(shell MPI_FAMILIES='$(MPI_FAMILIES)' sh tools/install-deps.sh >&2; echo $$?)
endif
FAMILIES := $(filter mpich,$(MPI_FAMILIES)) \
            $(if $(filter ompi,$(MPI_FAMILIES)),$(if $(shell command -v $(OMPI_MPICC)),ompi))
FAMILIES := $(strip $(FAMILIES))

WARN     := -Wall -Wextra -Wno-unused-parameter
CSTD     := -std=c11 -D_GNU_SOURCE
OPT      ?= -O2 -g
# Link-time optimisation: the call path of a small collective crosses a dozen small functions
# in several files (entry, selector, learner, engine); inlined across them the learner costs
# an 8-byte broadcast 3 ns instead of 7 (docs/development.md). Fat objects keep every archive usable by
# a link without it; gcc-ar indexes the archives for the linker plugin. LTO= turns it off; a
# sanitizer build goes without (each unit test's link would redo the optimisation).
LTO      ?= $(if $(SANITIZE),,-flto=auto -ffat-lto-objects)
AR       := $(if $(LTO),gcc-ar,ar)
SANFLAGS := $(if $(SANITIZE),-fsanitize=$(SANITIZE) -fno-omit-frame-pointer)
INCLUDES := -Icommon -Imapping -Icollectives -Ipreload -I/usr/include/scotch
CFLAGS_ALL = $(CSTD) $(OPT) $(LTO) $(WARN) -fPIC -fvisibility=hidden $(SANFLAGS) $(INCLUDES) $(LATE_LIBS) \
             -MMD -MP $(EXTRA_CFLAGS)
LIBS_SYS  := -lhwloc -lnuma -lm -lpthread -ldl
# METIS, Scotch and libunwind are opened on first use, not linked (common/hc_late_lib.h says
# why): their sonames as this machine's linker would find them, for dlopen.
soname    = $(shell readelf -d "$$($(CC) -print-file-name=lib$(1).so)" 2>/dev/null | \
                    sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
LATE_LIBS := $(foreach l,metis scotch unwind,$(if $(call soname,$(l)),\
                 -DHC_$(shell echo $(l) | tr a-z A-Z)_SONAME='"$(call soname,$(l))"'))

COMMON_SRC  := $(wildcard common/*.c)
MAPPING_SRC := $(wildcard mapping/*.c)
COLL_SRC    := $(wildcard collectives/*.c)
PRELOAD_SRC := $(wildcard preload/*.c)

obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))

LIB_COMMON  := $(BUILD)/lib/libhccommon.a
LIB_MAPPING := $(BUILD)/lib/libhcmap.a

# tools/<dir>/ builds build/bin/hiercoll-<dir> (tools/hiercoll/ builds build/bin/hiercoll).
# Programs that are MPI programs are listed here and built per family (Open MPI's with the
# suffix -ompi); the rest are plain C.
MPI_TOOLS   := bench commperf pingpong rootmoves
TOOL_DIRS   := $(patsubst tools/%/,%,$(filter %/,$(wildcard tools/*/)))
tool_bin     = $(BUILD)/bin/$(if $(filter hiercoll,$(1)),hiercoll,hiercoll-$(1))
PLAIN_TOOLS := $(foreach t,$(filter-out $(MPI_TOOLS),$(TOOL_DIRS)),$(if $(wildcard tools/$(t)/*.c),$(t)))

UNIT_SRC    := $(wildcard tests/unit/test_*.c)
UNIT_BINS   := $(patsubst tests/unit/%.c,$(BUILD)/tests/unit/%,$(UNIT_SRC))
MPIT_SRC    := $(wildcard tests/mpi/*.c)
MPIT_F90    := $(wildcard tests/mpi/*.f90)
EXAMPLE_SRC := $(wildcard examples/*.c)

.PHONY: all deps test check demo apps bench install clean tests-build stress fuzz
.DEFAULT_GOAL := all
deps:
	@$(if $(SKIP_DEPS),true,exit $(DEPS_STATUS))

# --- what does not include mpi.h: built once ----------------------------------------------
$(BUILD)/obj/common/%.o: common/%.c | deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -c $< -o $@
$(BUILD)/obj/mapping/%.o: mapping/%.c | deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -c $< -o $@
$(LIB_COMMON): $(call obj,$(COMMON_SRC))
	@mkdir -p $(@D)
	rm -f $@ && $(AR) rcs $@ $^
$(LIB_MAPPING): $(call obj,$(MAPPING_SRC))
	@mkdir -p $(@D)
	rm -f $@ && $(AR) rcs $@ $^

define PLAIN_TOOL_RULE
$(call tool_bin,$(1)): $(call obj,$(wildcard tools/$(1)/*.c)) $(LIB_MAPPING) $(LIB_COMMON)
	@mkdir -p $$(@D)
	$(CC) $(SANFLAGS) -o $$@ $(call obj,$(wildcard tools/$(1)/*.c)) $(LIB_MAPPING) $(LIB_COMMON) $(LIBS_SYS)
$(BUILD)/obj/tools/$(1)/%.o: tools/$(1)/%.c | deps
	@mkdir -p $$(@D)
	$(CC) $(CFLAGS_ALL) -Itools/$(1) -c $$< -o $$@
endef
$(foreach t,$(PLAIN_TOOLS),$(eval $(call PLAIN_TOOL_RULE,$(t))))

# --- one MPI family ------------------------------------------------------------------------
# $(1) family, $(2) mpicc, $(3) mpif90, $(4) folder of its objects, tests and examples,
# $(5) suffix of its library and tools. Defines <family>_LIB, _TOOLS, _MPIT, _EXAMPLES.
define MPI_FAMILY
$(1)_LIB      := $(BUILD)/lib/libhiercoll$(5).so
$(1)_COLL     := $(4)/lib/libhccoll.a
$(1)_TOOLS    := $(foreach t,$(MPI_TOOLS),$(BUILD)/bin/hiercoll-$(t)$(5))
$(1)_MPIT     := $(patsubst tests/mpi/%.c,$(4)/tests/mpi/%,$(MPIT_SRC)) \
                 $(patsubst tests/mpi/%.f90,$(4)/tests/mpi/%,$(MPIT_F90))
$(1)_EXAMPLES := $(patsubst examples/%.c,$(4)/examples/%,$(EXAMPLE_SRC))

$(4)/obj/collectives/%.o: collectives/%.c | deps
	@mkdir -p $$(@D)
	$(2) $$(CFLAGS_ALL) -c $$< -o $$@
$(4)/obj/preload/%.o: preload/%.c | deps
	@mkdir -p $$(@D)
	$(2) $$(CFLAGS_ALL) -c $$< -o $$@
$(4)/obj/tools/%.o: tools/%.c | deps
	@mkdir -p $$(@D)
	$(2) $$(CFLAGS_ALL) -Itools/$$(firstword $$(subst /, ,$$*)) -c $$< -o $$@
$$($(1)_COLL): $(patsubst %.c,$(4)/obj/%.o,$(COLL_SRC))
	@mkdir -p $$(@D)
	rm -f $$@ && $(AR) rcs $$@ $$^

# The preload exports nothing but the MPI entry points it defines (preload/exports.map).
$$($(1)_LIB): $(patsubst %.c,$(4)/obj/%.o,$(PRELOAD_SRC)) $$($(1)_COLL) $(LIB_MAPPING) $(LIB_COMMON) preload/exports.map
	@mkdir -p $$(@D)
	$(2) -shared $(OPT) $(LTO) $(SANFLAGS) -Wl,--version-script=preload/exports.map -Wl,-z,defs \
	    -o $$@ $(patsubst %.c,$(4)/obj/%.o,$(PRELOAD_SRC)) -Wl,--whole-archive $$($(1)_COLL) \
	    -Wl,--no-whole-archive $(LIB_MAPPING) $(LIB_COMMON) $(LIBS_SYS)

$(foreach t,$(MPI_TOOLS),
$(BUILD)/bin/hiercoll-$(t)$(5): $(patsubst %.c,$(4)/obj/%.o,$(wildcard tools/$(t)/*.c)) $$($(1)_COLL) $(LIB_MAPPING) $(LIB_COMMON)
	@mkdir -p $$(@D)
	$(2) $(OPT) $(LTO) $(SANFLAGS) -o $$@ $(patsubst %.c,$(4)/obj/%.o,$(wildcard tools/$(t)/*.c)) $$($(1)_COLL) \
	    $(LIB_MAPPING) $(LIB_COMMON) $(LIBS_SYS)
)

$(4)/examples/%: examples/%.c | deps
	@mkdir -p $$(@D)
	$(2) $(CSTD) $$(OPT) $(WARN) $(SANFLAGS) -o $$@ $$< -lm
$(4)/tests/mpi/%: tests/mpi/%.c $(wildcard tests/mpi/*.h) | deps
	@mkdir -p $$(@D)
	$(2) $(CSTD) $$(OPT) $(WARN) $(SANFLAGS) -Itests/mpi -o $$@ $$< -lm -lpthread
$(4)/tests/mpi/%: tests/mpi/%.f90 | deps
	@mkdir -p $$(@D)
	$(3) -O2 -g -J $$(@D) -o $$@ $$<
endef
$(eval $(call MPI_FAMILY,mpich,$(MPICC),$(MPIF90),$(BUILD),))
ifneq ($(filter ompi,$(FAMILIES)),)
# Debian's mpif90.openmpi links the libmpi.so that the "mpi" alternative names, which may be
# MPICH's: Open MPI's library folder goes first.
OMPI_LIBDIRS := $(addprefix -L,$(shell $(OMPI_MPICC) --showme:libdirs 2>/dev/null))
$(eval $(call MPI_FAMILY,ompi,$(OMPI_MPICC),$(OMPI_MPIF90) $(OMPI_LIBDIRS),$(BUILD)/ompi,-ompi))
endif

FAMILY_LIBS     := $(foreach f,$(FAMILIES),$($(f)_LIB))
FAMILY_TOOLS    := $(foreach f,$(FAMILIES),$($(f)_TOOLS))
FAMILY_MPIT     := $(foreach f,$(FAMILIES),$($(f)_MPIT))
FAMILY_EXAMPLES := $(foreach f,$(FAMILIES),$($(f)_EXAMPLES))
TOOL_BINS       := $(foreach t,$(PLAIN_TOOLS),$(call tool_bin,$(t))) $(FAMILY_TOOLS)
LIB_PRELOAD     := $(mpich_LIB)
LIB_COLL        := $(mpich_COLL)

all: deps $(FAMILY_LIBS) $(TOOL_BINS) $(FAMILY_EXAMPLES)

# Unit tests are compiled with the MPI wrapper so they can link pure functions from
# collectives/ too; they never call MPI and run without a launcher (one family is enough).
$(BUILD)/tests/unit/%: tests/unit/%.c tests/unit/hc_test.h $(LIB_COLL) $(LIB_MAPPING) $(LIB_COMMON)
	@mkdir -p $(@D)
	$(MPICC) $(CFLAGS_ALL) -Itests/unit -o $@ $< $(LIB_COLL) $(LIB_MAPPING) $(LIB_COMMON) $(LIBS_SYS)

tests-build: all $(UNIT_BINS) $(FAMILY_MPIT)

# --- workflows ---------------------------------------------------------------------------
test check: tests-build
	@BUILD=$(BUILD) MPIEXEC=$(MPIEXEC) OMPI_MPIEXEC=$(OMPI_MPIEXEC) FAMILIES='$(FAMILIES)' \
	    SANITIZE=$(SANITIZE) bash tests/run.sh $(if $(T),'$(T)')

# What a newcomer sees: the build as one line with its log (V=1: every command).
define QUIET_BUILD
	@mkdir -p $(BUILD)/logs
	@if [ -n "$(V)" ]; then $(MAKE) --no-print-directory SKIP_DEPS=1 all; else \
	    printf 'Building hiercoll (log: %s) ...\n' $(BUILD)/logs/build.log; \
	    $(MAKE) --no-print-directory SKIP_DEPS=1 all >$(BUILD)/logs/build.log 2>&1 || \
	    { tail -n 30 $(BUILD)/logs/build.log; echo "build failed: $(BUILD)/logs/build.log"; exit 1; }; fi
endef

demo: deps
	$(QUIET_BUILD)
	@BUILD=$(BUILD) MPIEXEC=$(MPIEXEC) bash tools/demo.sh

# The applications' runs print one line a step; V=1 shows every command's output.
apps: deps
	$(QUIET_BUILD)
	@BUILD=$(BUILD) V=$(V) bash tools/apps/apps.sh $(APPS_MODE)

bench: all
	@BUILD=$(BUILD) MPIEXEC=$(MPIEXEC) bash tools/bench.sh $(BENCH_ARGS)

stress: tests-build
	@BUILD=$(BUILD) MPIEXEC=$(MPIEXEC) OMPI_MPIEXEC=$(OMPI_MPIEXEC) FAMILIES='$(FAMILIES)' \
	    HC_STRESS_FULL=1 bash tests/run.sh 'stress'

fuzz: all
	@BUILD=$(BUILD) bash tests/fuzz/run.sh

# Scripts that compile parts of the library on their own ask here for its flags: print-LIBS_SYS.
print-%:
	@echo $($*)

install: all
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/doc/hiercoll
	install -m 755 $(FAMILY_LIBS) $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(TOOL_BINS) $(DESTDIR)$(PREFIX)/bin/
	install -m 644 README.md docs/*.md $(DESTDIR)$(PREFIX)/share/doc/hiercoll/

clean:
	rm -rf build build-*

-include $(shell find $(BUILD)/obj $(BUILD)/ompi/obj -name '*.d' 2>/dev/null)
