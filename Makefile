# SPDX-License-Identifier: LGPL-2.1-or-later
# ksymcheck: GNU make, no configure step. `make help` lists the targets.

VERSION := 0.1.0
CC ?= cc
CLANG ?= clang
PKG_CONFIG ?= pkg-config

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR ?= $(PREFIX)/share/man
DATADIR ?= $(PREFIX)/share

# SANITIZE=1 builds everything with ASan+UBSan into its own build folder.
ifeq ($(SANITIZE),1)
BUILD ?= build-san
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
else
BUILD ?= build
SAN_FLAGS :=
endif

PKGS := libelf liblzma libzstd zlib libxxhash json-c libcrypto libbpf
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
# libcrypto: headers only; lib/readers/ksc-crypto.c loads it when first needed
PKG_LIBS := $(shell $(PKG_CONFIG) --libs $(filter-out libcrypto,$(PKGS)) 2>/dev/null)
CMOCKA_LIBS := $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null)

WARN := -Wall -Wextra -Wmissing-prototypes -Wstrict-prototypes -Wshadow -Wformat=2 \
	-Wvla -Wwrite-strings -Wno-unused-parameter
ifeq ($(WERROR),1)
WARN += -Werror
endif
OPT ?= -O2 -g
CFLAGS ?=
ALL_CFLAGS := -std=gnu11 $(OPT) $(WARN) $(SAN_FLAGS) -fvisibility=hidden -fPIC \
	-I. -Ilib $(PKG_CFLAGS) $(CPPFLAGS) $(CFLAGS) -D_GNU_SOURCE -DKSC_VERSION='"$(VERSION)"'
ALL_LDFLAGS := $(SAN_FLAGS) $(LDFLAGS)

LIB_SRCS := $(wildcard lib/*/*.c) $(wildcard util/*.c)
# The public header's parts, one per wing, installed under ksymcheck/
PUBLIC_PARTS := $(wildcard lib/ksymcheck/*.h)
LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/%.o)
TOOL_SRCS := $(wildcard tools/*.c)
TOOL_OBJS := $(TOOL_SRCS:%.c=$(BUILD)/%.o) $(BUILD)/tools/report-assets.o
REPORT_ASSETS := tools/report/report.css tools/report/report.js
UNIT_SRCS := $(wildcard tests/unit/test-*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
# finit.c is the qemu guest helper: scripts/qemu-load.sh builds it static, on its own.
HELPER_SRCS := $(filter-out tests/helpers/finit.c,$(wildcard tests/helpers/*.c))
HELPER_BINS := $(HELPER_SRCS:tests/helpers/%.c=$(BUILD)/tests/helpers/%)

STATIC_LIB := $(BUILD)/libksymcheck.a
SONAME := libksymcheck.so.0
SHARED_LIB := $(BUILD)/libksymcheck.so.$(VERSION)
PC_FILE := $(BUILD)/ksymcheck.pc
TOOL := $(BUILD)/ksymcheck
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
PKGDATADIR ?= $(DATADIR)/ksymcheck
DKMSHOOKDIR ?= $(PKGDATADIR)/dkms
DOCDIR ?= $(DATADIR)/doc/ksymcheck
MAN_PAGES := $(BUILD)/ksymcheck.1 $(BUILD)/libksymcheck.3

Q := @
ifeq ($(V),1)
Q :=
endif

.PHONY: all check check-run check-fresh check-real check-unit demo demo-run demo-fixtures deps clean fuzz fuzz-run bench help fixtures man \
	install uninstall check-dist check-browser regen-expected

all: deps-check $(TOOL) $(SHARED_LIB) $(PC_FILE)

help:
	@echo "make            build libksymcheck.a and the ksymcheck tool into $(BUILD)/"
	@echo "make demo       install missing build dependencies, build, run the sample job"
	@echo "make check      build fixtures and run the whole test suite (SANITIZE=1: ASan+UBSan)"
	@echo "make check-fresh  the README's two commands in a fresh Debian 12 root (root, debootstrap)"
	@echo "make check-real tests against Debian's real kernels: 6.1, 6.12, 7.2, 7.3 (fetched and cached;"
	@echo "                KSC_REAL_KERNELS=\"6.1 trixie sid experimental\" picks them)"
	@echo "make check-browser  the HTML reports in headless Chromium (installs chromium as root)"
	@echo "make regen-expected  rewrite the CLI tests' golden outputs (tests/expected/), for review"
	@echo "make check-dist build the Debian packages, run lintian, install and try them"
	@echo "make install    PREFIX, DESTDIR, BINDIR, LIBDIR, INCLUDEDIR, MANDIR, PKGCONFIGDIR,"
	@echo "                BASHCOMPDIR, DKMSHOOKDIR, DOCDIR; make uninstall removes the same files"
	@echo "make fuzz       build the libFuzzer targets (clang); fuzz-run runs them"
	@echo "make bench      benchmarks against the real tools"

deps-check:
	@if ! command -v $(PKG_CONFIG) > /dev/null; then \
		echo "missing build dependencies: $(PKG_CONFIG) (Debian package pkg-config), which finds the libraries (run 'make deps' or scripts/install-deps.sh)" >&2; exit 1; fi; \
	missing=""; for p in $(PKGS) $(if $(filter check check-run check-unit,$(MAKECMDGOALS)),cmocka); do $(PKG_CONFIG) --exists $$p || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then echo "missing build dependencies:$$missing (run 'make deps' or scripts/install-deps.sh)" >&2; exit 1; fi

deps:
	@scripts/install-deps.sh

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

$(STATIC_LIB): $(LIB_OBJS)
	@echo "  AR      $@"
	$(Q)rm -f $@ && ar rcs $@ $^

# The shared library: soname, version script, only ksc_ names exported (the rest is
# hidden by -fvisibility=hidden and KSC_EXPORT).
$(SHARED_LIB): $(LIB_OBJS) lib/ksymcheck.sym
	@echo "  LD      $@"
	$(Q)$(CC) $(ALL_LDFLAGS) -shared -Wl,-soname,$(SONAME) \
		-Wl,--version-script=lib/ksymcheck.sym -o $@ $(LIB_OBJS) $(PKG_LIBS)
	$(Q)ln -sf $(notdir $@) $(BUILD)/$(SONAME)
	$(Q)ln -sf $(SONAME) $(BUILD)/libksymcheck.so

$(PC_FILE): lib/ksymcheck.pc.in Makefile
	@mkdir -p $(dir $@)
	$(Q)sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
		-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(VERSION)|' $< > $@

# The HTML report's style sheet and script, embedded as C strings.
$(BUILD)/tools/report-assets.c: tools/report/embed.sh $(REPORT_ASSETS)
	@mkdir -p $(dir $@)
	@echo "  EMBED   $@"
	$(Q)sh tools/report/embed.sh $(REPORT_ASSETS) > $@.tmp && mv $@.tmp $@
$(BUILD)/tools/report-assets.o: $(BUILD)/tools/report-assets.c
	@echo "  CC      $<"
	$(Q)$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

$(TOOL): $(TOOL_OBJS) $(STATIC_LIB)
	@echo "  LD      $@"
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $(TOOL_OBJS) $(STATIC_LIB) $(PKG_LIBS)

$(BUILD)/tests/test-%: tests/unit/test-%.c $(STATIC_LIB) tests/unit/unit.h tests/unit/mkmod.h
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(STATIC_LIB) $(PKG_LIBS) $(CMOCKA_LIBS)

# test-text compiles the tool's tools/text.c into itself.
$(BUILD)/tests/test-text: tools/text.c tools/text.h

$(BUILD)/tests/helpers/%: tests/helpers/%.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $<

# kidx-probe drives the library's index lookups (tests/hostile/index-map.sh, bench/).
$(BUILD)/tests/helpers/kidx-probe: tests/helpers/kidx-probe.c $(STATIC_LIB)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(STATIC_LIB) $(PKG_LIBS)

# Test fixtures: built from sources at test time, never committed.
FIXTURE_DIR := $(BUILD)/fixtures
-include tests/fixtures/fixtures.mk
-include tests/fixtures/signed.mk

check-unit: $(UNIT_BINS)

# `ksymcheck explain` points to rules.md where `make install` puts it.
$(BUILD)/tools/cmd-explain.o: ALL_CFLAGS += -DKSC_RULES_MD='"$(DOCDIR)/rules.md"'

# `make demo` and `make check` first install what is missing (scripts/install-deps.sh,
# apt), then build in a second make: the pkg-config flags above are read when make
# starts, so on a machine without the libraries a build in the same make would link with
# none of them. NO_DEPS=1 skips the install step.
INSTALL_DEPS = $(if $(filter 1,$(NO_DEPS)),@true,@scripts/install-deps.sh)
SUBMAKE = $(MAKE) --no-print-directory

check:
	$(INSTALL_DEPS) --test
	@$(SUBMAKE) check-run

check-run: deps-check $(TOOL) $(SHARED_LIB) $(PC_FILE) $(UNIT_BINS) $(HELPER_BINS) fixtures man
	@BUILD=$(BUILD) TOOL=$(TOOL) FIXTURES=$(FIXTURE_DIR) tests/run.sh

# The CLI tests' golden outputs (tests/expected/SUITE/): every test that compares whole
# outputs (t_expect in tests/lib.sh, KSC_REGEN in tables.sh and modset.sh) writes them
# anew; then review the change as a diff (git diff tests/expected) and commit it.
regen-expected: deps-check $(TOOL) $(SHARED_LIB) $(PC_FILE) $(HELPER_BINS) fixtures man
	@for t in $$(grep -l 't_expect\|KSC_REGEN' tests/cli/*.sh); do \
		echo "  REGEN   $$t"; \
		BUILD=$(BUILD) TOOL=$(TOOL) FIXTURES=$(FIXTURE_DIR) KSC_REGEN=1 KSC_REGEN_EXPECTED=1 \
			bash $$t > /dev/null 2>&1 || true; \
	done
	@git status --short -- tests/expected; git --no-pager diff --stat -- tests/expected

# The README's two commands in a fresh Debian 12 minbase root (debootstrap, cached outside
# git): what a new user meets on the first try. Needs root.
check-fresh:
	@scripts/check-fresh.sh

check-real: deps-check $(TOOL)
	@BUILD=$(BUILD) TOOL=$(TOOL) tests/run.sh --real

# The HTML reports in headless Chromium over the DevTools protocol (tests/browser/):
# screenshots in $(BUILD)/test-output/browser/.
check-browser: deps-check $(TOOL) fixtures
	@BUILD=$(BUILD) TOOL=$(TOOL) FIXTURES=$(FIXTURE_DIR) tests/browser/run.sh

demo:
	$(INSTALL_DEPS) --demo
	@$(SUBMAKE) demo-run

demo-run: deps-check $(TOOL) demo-fixtures
	@BUILD=$(BUILD) TOOL=$(TOOL) FIXTURES=$(FIXTURE_DIR) scripts/demo.sh

# libFuzzer targets: one per parser.
FUZZ_SRCS := $(wildcard fuzz/fuzz-*.c)
FUZZ_BINS := $(FUZZ_SRCS:fuzz/%.c=build-fuzz/%)
FUZZ_CFLAGS := -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -I. -Ilib $(PKG_CFLAGS) -D_GNU_SOURCE
fuzz: $(FUZZ_BINS)
build-fuzz/fuzz-%: fuzz/fuzz-%.c $(LIB_SRCS) lib/ksymcheck.h $(PUBLIC_PARTS) $(wildcard lib/*/*.h util/*.h)
	@mkdir -p build-fuzz
	@echo "  FUZZ    $@"
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -o $@ $< $(LIB_SRCS) $(PKG_LIBS)
fuzz-run: fuzz
	@scripts/fuzz-run.sh $(FUZZ_RUNS)

# Man pages from scdoc sources (Debian package scdoc): ksymcheck(1), libksymcheck(3).
man: $(MAN_PAGES)
$(BUILD)/%.1: doc/%.1.scd
	@mkdir -p $(dir $@)
	@echo "  SCDOC   $@"
	$(Q)scdoc < $< > $@.tmp && mv $@.tmp $@
$(BUILD)/%.3: doc/%.3.scd
	@mkdir -p $(dir $@)
	@echo "  SCDOC   $@"
	$(Q)scdoc < $< > $@.tmp && mv $@.tmp $@

bench: $(TOOL)
	@bench/read-tree.sh

# DESTDIR goes in front of every path; ksymcheck.pc gets the paths given to make install.
install: all man
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR)/ksymcheck \
		$(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3 \
		$(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(DKMSHOOKDIR) $(DESTDIR)$(DOCDIR) \
		$(DESTDIR)$(PKGDATADIR)
	install -m 0755 $(TOOL) $(DESTDIR)$(BINDIR)/ksymcheck
	install -m 0644 $(SHARED_LIB) $(DESTDIR)$(LIBDIR)/
	ln -sfn $(notdir $(SHARED_LIB)) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sfn $(SONAME) $(DESTDIR)$(LIBDIR)/libksymcheck.so
	install -m 0644 $(STATIC_LIB) $(DESTDIR)$(LIBDIR)/
	install -m 0644 lib/ksymcheck.h $(DESTDIR)$(INCLUDEDIR)/
	install -m 0644 $(PUBLIC_PARTS) $(DESTDIR)$(INCLUDEDIR)/ksymcheck/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
		-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(VERSION)|' \
		lib/ksymcheck.pc.in > $(BUILD)/ksymcheck.pc.install
	install -m 0644 $(BUILD)/ksymcheck.pc.install $(DESTDIR)$(PKGCONFIGDIR)/ksymcheck.pc
	install -m 0644 $(BUILD)/ksymcheck.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 0644 $(BUILD)/libksymcheck.3 $(DESTDIR)$(MANDIR)/man3/
	install -m 0644 completion/bash/ksymcheck $(DESTDIR)$(BASHCOMPDIR)/ksymcheck
	install -m 0755 contrib/dkms/ksymcheck-post-build $(DESTDIR)$(DKMSHOOKDIR)/
	install -m 0644 doc/rules.md $(DESTDIR)$(DOCDIR)/
	install -m 0644 doc/ksymcheck.schema.json $(DESTDIR)$(PKGDATADIR)/

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/ksymcheck $(DESTDIR)$(LIBDIR)/$(notdir $(SHARED_LIB)) \
		$(DESTDIR)$(LIBDIR)/$(SONAME) $(DESTDIR)$(LIBDIR)/libksymcheck.so \
		$(DESTDIR)$(LIBDIR)/libksymcheck.a $(DESTDIR)$(INCLUDEDIR)/ksymcheck.h \
		$(DESTDIR)$(PKGCONFIGDIR)/ksymcheck.pc $(DESTDIR)$(MANDIR)/man1/ksymcheck.1 \
		$(DESTDIR)$(MANDIR)/man3/libksymcheck.3 $(DESTDIR)$(BASHCOMPDIR)/ksymcheck \
		$(DESTDIR)$(DKMSHOOKDIR)/ksymcheck-post-build $(DESTDIR)$(DOCDIR)/rules.md \
		$(DESTDIR)$(PKGDATADIR)/ksymcheck.schema.json \
		$(addprefix $(DESTDIR)$(INCLUDEDIR)/ksymcheck/,$(notdir $(PUBLIC_PARTS)))
	rmdir $(DESTDIR)$(INCLUDEDIR)/ksymcheck 2>/dev/null || true
	rmdir $(DESTDIR)$(DKMSHOOKDIR) $(DESTDIR)$(PKGDATADIR) $(DESTDIR)$(DOCDIR) 2>/dev/null || true

# Packaging tests: Debian packages built in a copy of the tree, lintian, then installed
# and tried (scripts/check-dist.sh; needs root or sudo for the install part).
check-dist: fixtures
	@BUILD=$(BUILD) FIXTURES=$(FIXTURE_DIR) scripts/check-dist.sh

clean:
	rm -rf build build-san build-fuzz

-include $(LIB_OBJS:.o=.d) $(TOOL_OBJS:.o=.d)
