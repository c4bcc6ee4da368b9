# Sluice: one non-recursive Makefile.
#   make            build every binary and the Slurm-named links in build/bin/
#   make check      unit, golden and end-to-end tests; ends "N passed, N failed"
#   make san        the same build under ASan/UBSan in build-san/
#   make check-san  the whole suite under the sanitizers
#   make fuzz-smoke each libFuzzer target for a bounded time (clang)
#   make demo       deps, build, a local four-node cluster from etc/quant-cluster.conf
#   make man        the man pages from docs/ (pandoc) in build/man/
#   make deb        the Debian packages in build/deb/ (dpkg-buildpackage)
#   make check-deb  build, lint, install, run and purge the packages (root)
#   make format-check / make format, make install (PREFIX, DESTDIR), make clean

SAN ?= 0
ifeq ($(SAN),1)
BUILD ?= build-san
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
OPT := -O1
else
BUILD ?= build
SANFLAGS :=
OPT := -O2
endif

CC ?= cc
WERROR ?= -Werror
PREFIX ?= /usr/local
DESTDIR ?=
BINDIR ?= $(PREFIX)/bin
SBINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
# The Slurm names always go here (links to sluice), where no Slurm client
# can shadow them: PATH=$(SLURMLINKDIR):$PATH during a trial beside Slurm.
SLURMLINKDIR ?= $(PREFIX)/lib/sluice/bin
# ... and into BINDIR unless SLURM_NAMES_IN_BINDIR=no (the Debian package
# installs them there with update-alternatives instead)
SLURM_NAMES_IN_BINDIR ?= yes
# The file names of the Slurm-named man pages: sbatch.1, or with a prefix
# (the Debian package: sluice-sbatch.1, beside Slurm's own pages)
SLURM_MAN_PREFIX ?=
PANDOC ?= $(shell command -v pandoc 2>/dev/null)

PKGS := libevent jansson sqlite3 openssl
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
# OpenSSL's headers only: libcrypto is loaded when first needed
# (src/common/libcrypto.c), so that a CLI on the unix socket never pays for
# loading it.
PKG_LIBS := $(shell pkg-config --libs $(filter-out openssl,$(PKGS)) 2>/dev/null)

WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	-Wformat=2 -Wvla $(WERROR)
CFLAGS ?= $(OPT) -g
ALL_CFLAGS := -std=gnu17 $(CPPFLAGS) $(CFLAGS) $(WARN) $(SANFLAGS) \
	-D_GNU_SOURCE -Isrc $(PKG_CFLAGS) -MMD -MP
LDLIBS := $(PKG_LIBS) -lmunge -lm
# The controller's HTTP server (src/ctld/web) serves TLS through libevent's
# OpenSSL bufferevents; the daemons and tests link them, the CLI does not.
WEB_LIBS := $(shell pkg-config --libs libevent_openssl libssl libcrypto 2>/dev/null)
# The CLI starts once per command (sbatch in a shell loop): with libevent,
# jansson and munge linked statically the dynamic loader has only libc to
# map, which cuts a third of its start-up CPU (bench/RESULTS.md).  Shared
# libraries when the static ones are not installed.
CLI_STATIC := event_core jansson munge
CLI_HAVE_STATIC := $(foreach l,$(CLI_STATIC),$(filter /%,$(shell $(CC) -print-file-name=lib$(l).a 2>/dev/null)))
CLI_STATIC_LDLIBS := -Wl,-Bstatic $(addprefix -l,$(CLI_STATIC)) -Wl,-Bdynamic \
	-lm -lpthread
# CLI_STATIC_LINK=no links them shared all the same (the Debian package:
# a security update of a library then reaches the CLI too).
CLI_STATIC_LINK ?= yes
CLI_LDLIBS := $(if $(filter yes,$(CLI_STATIC_LINK)),$(if $(word \
	$(words $(CLI_STATIC)),$(CLI_HAVE_STATIC)),$(CLI_STATIC_LDLIBS),\
	$(LDLIBS)),$(LDLIBS))
DAEMON_LDLIBS := $(LDLIBS) $(WEB_LIBS)
ALL_LDFLAGS := $(LDFLAGS) $(SANFLAGS)

# The Slurm commands implemented so far (sacct, sacctmgr, sprio, sshare come
# with accounting and priority).
SLURM_NAMES := sbatch squeue scancel sinfo scontrol sacctmgr sacct sprio sshare sdiag srun salloc sstat

COMMON_SRC := $(sort $(wildcard src/common/*.c))
SCHED_SRC := $(sort $(wildcard src/sched/*.c))
CTLD_SRC := $(sort $(wildcard src/ctld/*.c src/ctld/*/*.c))
NODED_SRC := $(sort $(wildcard src/noded/*.c))
CLI_SRC := $(sort $(wildcard src/cli/*.c))
SIM_SRC := $(sort $(wildcard src/sim/*.c))
UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
BENCH_SRC := $(sort $(wildcard bench/*.c))
E2E_SRC := $(sort $(wildcard tests/e2e/*.c tests/e2e/steps_prog/*.c))
FUZZ_SRC := $(sort $(wildcard tests/fuzz/fuzz_*.c))

obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))

COMMON_LIB := $(BUILD)/lib/libsluice_common.a
SCHED_LIB := $(BUILD)/lib/libsluice_sched.a
# Daemon modules are linked into unit tests too (without their main.c).
CTLD_LIB := $(BUILD)/lib/libsluice_ctld.a
NODED_LIB := $(BUILD)/lib/libsluice_noded.a
CLI_LIB := $(BUILD)/lib/libsluice_cli.a
# The simulator (src/sim): the scheduler core replayed on traces; the CLI's
# `sluice simulate` and the unit tests link it.
SIM_LIB := $(BUILD)/lib/libsluice_sim.a

# A binary is built once its main.c exists.
BINS := $(patsubst src/%/main.c,$(BUILD)/bin/%,$(wildcard src/ctld/main.c src/noded/main.c src/cli/main.c))
BINS := $(subst bin/ctld,bin/sluicectld,$(subst bin/noded,bin/sluiced,$(subst bin/cli,bin/sluice,$(BINS))))
LINKS := $(if $(wildcard src/cli/main.c),$(addprefix $(BUILD)/bin/,$(SLURM_NAMES)))
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRC))
BENCH_BINS := $(patsubst bench/%.c,$(BUILD)/bench/%,$(BENCH_SRC))
# A static "hello" that bench/throughput.sh compares sbatch's start with.
BENCH_BINS += $(BUILD)/bench/hello_static
# Helper programs of the end-to-end scripts (not tests themselves).
E2E_BINS := $(patsubst tests/e2e/%.c,$(BUILD)/tests/%,$(E2E_SRC))

# A fake libnvidia-ml.so.1 that the GPU tests load through sluiced's own
# dlopen path (SLUICE_NVML_LIBRARY).
FAKE_NVML := $(BUILD)/tests/fake_nvml/libnvidia-ml.so.1

.PHONY: FORCE bins all check check-san san fuzz fuzz-smoke demo format format-check \
	install clean deps unit man units deb check-deb
all: $(BINS) $(LINKS) $(UNIT_BINS) $(BENCH_BINS) $(E2E_BINS) $(FAKE_NVML)
# the programs alone, without the tests (what make install and the
# Debian package build)
bins: $(BINS) $(LINKS)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(COMMON_LIB): $(call obj,$(COMMON_SRC))
$(SCHED_LIB): $(call obj,$(SCHED_SRC))
# The files the controller serves (dashboard, OpenAPI document), compiled
# into it: scripts/embed.sh makes one C table of everything under web/.
WEB_ASSETS := $(sort $(shell find web -type f 2>/dev/null))
WEB_ASSETS_C := $(BUILD)/gen/web_assets.c
WEB_ASSETS_O := $(BUILD)/obj/gen/web_assets.o
# the list of names, rewritten only when it changes: a file removed from
# web/ makes the table again too
$(BUILD)/gen/web_assets.list: FORCE
	@mkdir -p $(@D)
	@echo '$(WEB_ASSETS)' | cmp -s - $@ || echo '$(WEB_ASSETS)' >$@
$(WEB_ASSETS_C): scripts/embed.sh $(WEB_ASSETS) $(BUILD)/gen/web_assets.list
	@mkdir -p $(@D)
	scripts/embed.sh $@ web $(WEB_ASSETS)
$(WEB_ASSETS_O): $(WEB_ASSETS_C)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(CTLD_LIB): $(call obj,$(filter-out src/ctld/main.c,$(CTLD_SRC))) $(WEB_ASSETS_O)
$(NODED_LIB): $(call obj,$(filter-out src/noded/main.c,$(NODED_SRC)))
$(CLI_LIB): $(call obj,$(filter-out src/cli/main.c,$(CLI_SRC)))
$(SIM_LIB): $(call obj,$(SIM_SRC))
$(BUILD)/lib/%.a:
	@mkdir -p $(@D)
	@rm -f $@
	ar rcs $@ $^

LIBS := $(CTLD_LIB) $(NODED_LIB) $(CLI_LIB) $(SIM_LIB) $(SCHED_LIB) $(COMMON_LIB)

$(BUILD)/bin/sluicectld: $(call obj,src/ctld/main.c) $(CTLD_LIB) $(SCHED_LIB) $(COMMON_LIB)
$(BUILD)/bin/sluiced: $(call obj,src/noded/main.c) $(NODED_LIB) $(COMMON_LIB)
$(BUILD)/bin/sluice: $(call obj,src/cli/main.c) $(CLI_LIB) $(SIM_LIB) $(SCHED_LIB) $(COMMON_LIB)
$(BUILD)/bin/sluice: LDLIBS := $(CLI_LDLIBS)
$(BUILD)/bin/sluicectld: LDLIBS := $(DAEMON_LDLIBS)
$(BINS):
	@mkdir -p $(@D)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS)

$(LINKS): | $(BUILD)/bin/sluice
	ln -sf sluice $@

$(BUILD)/tests/%: $(BUILD)/obj/tests/unit/%.o $(LIBS)
	@mkdir -p $(@D)
	$(CC) $(ALL_LDFLAGS) -o $@ $< $(LIBS) $(DAEMON_LDLIBS) -lcmocka

$(FAKE_NVML): tests/fake_nvml/fake_nvml.c
	@mkdir -p $(@D)
	$(CC) -std=gnu17 $(CFLAGS) $(WARN) -fPIC -shared -o $@ $<

$(E2E_BINS): $(BUILD)/tests/%: $(BUILD)/obj/tests/e2e/%.o $(COMMON_LIB)
	@mkdir -p $(@D)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/bench/%: $(BUILD)/obj/bench/%.o $(SIM_LIB) $(SCHED_LIB) $(COMMON_LIB)
	@mkdir -p $(@D)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS)

# submit_bench --squeue asks for the fields squeue asks for (cli/jobview.h)
$(BUILD)/bench/submit_bench: $(BUILD)/obj/bench/submit_bench.o $(CLI_LIB) \
		$(SIM_LIB) $(SCHED_LIB) $(COMMON_LIB)
	@mkdir -p $(@D)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/bench/hello_static: bench/static/hello.c
	@mkdir -p $(@D)
	$(CC) -std=gnu17 -O2 $(WARN) -static -o $@ $<

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)

check: all
	@SLUICE_BUILD=$(BUILD) tests/run.sh

san:
	$(MAKE) SAN=1 all

check-san:
	$(MAKE) SAN=1 check

# libFuzzer targets: every common/sched/sim source rebuilt with clang.
FUZZ_BUILD := build-fuzz
FUZZ_CFLAGS := -std=gnu17 -g -O1 -D_GNU_SOURCE -Isrc $(PKG_CFLAGS) \
	-fsanitize=fuzzer,address,undefined
FUZZ_BINS := $(patsubst tests/fuzz/%.c,$(FUZZ_BUILD)/%,$(FUZZ_SRC))
fuzz: $(FUZZ_BINS)
$(FUZZ_BUILD)/%: tests/fuzz/%.c $(COMMON_SRC) $(SCHED_SRC) $(SIM_SRC)
	@mkdir -p $(@D)
	clang $(FUZZ_CFLAGS) -o $@ $< $(COMMON_SRC) $(SCHED_SRC) $(SIM_SRC) $(LDLIBS)
FUZZ_SECONDS ?= 20
fuzz-smoke: $(FUZZ_BINS)
	@set -e; for f in $(FUZZ_BINS); do \
	  name=$$(basename $$f); corpus=tests/fuzz/corpus/$${name#fuzz_}; \
	  work=$$(mktemp -d); cp -r $$corpus/. $$work/ 2>/dev/null || true; \
	  echo "fuzz: $$name for $(FUZZ_SECONDS)s"; \
	  $$f -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -print_final_stats=1 \
	     $$work >$$work.log 2>&1 || { tail -40 $$work.log; exit 1; }; \
	  grep -E 'stat::number_of_executed_units' $$work.log || true; \
	  rm -rf $$work $$work.log; \
	done

deps:
	@scripts/deps.sh

demo:
	@scripts/deps.sh
	@$(MAKE) --no-print-directory all
	@scripts/demo.sh

CLANG_FORMAT ?= clang-format
FORMAT_SRC = $(shell find src tests bench -name '*.[ch]' 2>/dev/null | sort)
format:
	$(CLANG_FORMAT) -i $(FORMAT_SRC)
format-check:
	@$(CLANG_FORMAT) --dry-run --Werror $(FORMAT_SRC) && echo "format-check: ok"

# The man pages, made from docs/ (scripts/manpages.py, pandoc): remade
# when a doc, the generator or the CLI (its verbs and usages) changes.
MAN_DEPS := $(sort $(wildcard docs/*.md)) scripts/manpages.py \
	scripts/man-tables.lua $(BUILD)/bin/sluice
man: $(BUILD)/man/.stamp
$(BUILD)/man/.stamp: $(MAN_DEPS) $(BUILD)/install.vars
	@test -n "$(PANDOC)" || { echo "make man: pandoc is not installed" \
	    "(apt-get install pandoc)" >&2; exit 1; }
	rm -rf $(BUILD)/man
	python3 scripts/manpages.py --sluice $(BUILD)/bin/sluice \
	    --slurm-names "$(SLURM_NAMES)" --docs docs --out $(BUILD)/man \
	    --slurm-page-prefix "$(SLURM_MAN_PREFIX)" --pandoc "$(PANDOC)" \
	    --docdir "$(MAN_DOCDIR)" $(if $(SOURCE_DATE_EPOCH),--date \
	    $(shell date -u -d @$(SOURCE_DATE_EPOCH) +%Y-%m-%d))
	@touch $@
MAN_DOCDIR ?= docs/ of the source

# The systemd units, with this installation's paths.
UNITS := $(BUILD)/systemd/sluicectld.service $(BUILD)/systemd/sluiced.service
units: $(UNITS)
# the paths in a file rewritten only when they change, so that a make
# with another PREFIX writes the units (and man pages) again
INSTALL_VARS := $(SBINDIR) $(SLURMLINKDIR) $(SLURM_MAN_PREFIX) $(MAN_DOCDIR)
$(BUILD)/install.vars: FORCE
	@mkdir -p $(@D)
	@echo '$(INSTALL_VARS)' | cmp -s - $@ || echo '$(INSTALL_VARS)' >$@
$(BUILD)/systemd/%.service: etc/systemd/%.service.in $(BUILD)/install.vars
	@mkdir -p $(@D)
	sed -e 's|@SBINDIR@|$(SBINDIR)|g' -e 's|@SLURMLINKDIR@|$(SLURMLINKDIR)|g' \
	    $< >$@

# The man pages go in when they can be made (pandoc), else a note says so.
install: $(BINS) $(UNITS) $(if $(PANDOC),man)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(SBINDIR) \
	    $(DESTDIR)$(SLURMLINKDIR) $(DESTDIR)$(SYSTEMDUNITDIR)
	install -m 755 $(BUILD)/bin/sluice $(DESTDIR)$(BINDIR)/sluice
	install -m 755 $(BUILD)/bin/sluicectld $(DESTDIR)$(SBINDIR)/sluicectld
	install -m 755 $(BUILD)/bin/sluiced $(DESTDIR)$(SBINDIR)/sluiced
	for n in $(SLURM_NAMES); do \
	    ln -sf $(shell realpath -m --relative-to=$(SLURMLINKDIR) \
	        $(BINDIR)/sluice) $(DESTDIR)$(SLURMLINKDIR)/$$n; done
	if [ "$(SLURM_NAMES_IN_BINDIR)" = yes ]; then \
	    for n in $(SLURM_NAMES); do \
	        ln -sf sluice $(DESTDIR)$(BINDIR)/$$n; done; fi
	install -m 644 $(UNITS) $(DESTDIR)$(SYSTEMDUNITDIR)/
ifneq ($(PANDOC),)
	for s in 1 5 8; do install -d $(DESTDIR)$(MANDIR)/man$$s && \
	    install -m 644 $(BUILD)/man/man$$s/*.$$s $(DESTDIR)$(MANDIR)/man$$s/; \
	done
else
	@echo "make install: pandoc is not installed, so no man pages" >&2
endif

# The Debian packages (scripts/deb.sh; docs/deploying.md) and their test:
# built from a fresh copy of the tree, installed into a scratch root,
# checked, run as a cluster of namespaces, purged (tests/deb/check.sh;
# root, minutes).
deb:
	scripts/deb.sh build/deb
check-deb: deb
	@SLUICE_DEB_DIR=build/deb tests/deb/check.sh

clean:
	rm -rf build build-san build-fuzz

# make print-VAR: a variable's value, for scripts (tests/man/check.py)
print-%:
	@echo $($*)
