# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# iopsample: `make` builds build/iopsample, `make check` runs the tests (all
# but the long tier: the kernel matrix, the 1000-episode load, block_io's
# 100 000 dirty files and the Debian packages, which `make check-all` adds,
# as CI runs them), `make run` runs the bundled
# quickstart episode and prints its verdict. Both install missing Debian
# packages first when run as root.
#
# `make asan` runs the units and the e2e tests that hold memory to check
# (tests/run's ASAN_E2E) against an ASan+UBSan build (build/asan),
# `make valgrind` the unit tests and one episode per source under memcheck,
# `make fuzz` the config loader's fuzzer (FUZZ_SECONDS, default 600; check
# runs it for FUZZ_CHECK_SECONDS).

BUILD ?= build
# absolute, whoever names it how: the compiler's dependency files name
# their object as the rule did, and a file written for build/x.o is no
# rule for /abs/build/x.o (tests/e2e/install.sh calls make with an
# absolute BUILD; a header changed after it then rebuilt nothing)
override BUILD := $(abspath $(BUILD))
CC ?= cc
CFLAGS ?= -O2 -g
override CFLAGS += -std=gnu11 -Wall -Wextra -Werror -MMD -MP
LDFLAGS ?=
# Instruments iopsample and the unit tests, never the test workloads: their
# own counts are the tests' ground truth.
SANITIZE ?=

# libbpf, clang and bpftool: the eBPF sources' kernel side and its loader;
# jsmn: the verdict's fast pick of a row's few leaves (reader/row_pick.c);
# libmnl: taskstats' generic netlink; PCRE2: JSON Schema's "pattern"
# (reader/ecma_regex.c); curl, where uPlot is not in the tree (a checkout)
BUILD_PACKAGES := libyaml-dev libjansson-dev libzstd-dev libpfm4-dev libbpf-dev clang bpftool \
	libmnl-dev libpcre2-dev libjsmn-dev pkg-config python3-setuptools \
	$(if $(wildcard vendor/uplot-*.tgz),,curl)
# what make deb needs besides the build's: debhelper, Python's helper and
# pybuild's plugin for a pyproject.toml package, lintian
DEB_TOOLS := debhelper dh-python pybuild-plugin-pyproject python3-all python3-wheel lintian dpkg-dev
# what the tests run besides iopsample: Debian's python3 (/usr/bin/python3) with
# jsonschema and pandas (export's tables), zstd, procps (pgrep), perf stat
# (ground truth for perf_event), valgrind, clang with its libFuzzer, the
# JSON-Schema-Test-Suite (reader/json_schema.c against the official cases),
# mkfs.ext4 (a filesystem on a loop device: where sync(2) writes back),
# fio (ground truth for syscall_io's aio and io_uring), and Dask with zstandard
# (docs/recipes/dask_export.py run on a LocalCluster against export), and
# QEMU with busybox-static and cpio (the kernel matrix: Debian's kernels
# booted with this build, tests/e2e/kernels.sh), libfuse3 (tests/workloads/slowdisk:
# a disk whose requests stay in flight, under a loop device), and what the
# Python package's tests run: pytest, IPython, a Jupyter kernel (ipykernel)
# that nbclient drives through docs/notebooks/quickstart.ipynb, matplotlib,
# and venv with Debian's wheel of wheel (pip install ./python into a fresh one,
# offline, with setuptools' backend), PyTorch (the
# verdict's training loop on this CPU, tests/workloads/torch_phases.py),
# fusepy (tests/e2e/lib/slowfuse.py: a FUSE daemon that answers slowly, for
# the waits), iproute2's tc (netem in the kernel matrix's NFS guest), nfs-common's
# mountstats (nfsiostat's figures of the guest's NFS mount: the net source's judge),
# dmsetup (the kernel matrix's dm-linear; its mdadm is fetched: tests/e2e/kernels.sh), and
# make deb's tools (the package built offline, lintian), and what Darshan's
# source release builds with (tests/darshan/build: the access pattern's judge)
TEST_PACKAGES := python3 python3-jsonschema python3-pandas zstd procps linux-perf valgrind \
	libclang-rt-14-dev chromium json-schema-test-suite e2fsprogs fio python3-distributed python3-zstandard \
	qemu-system-x86 busybox-static cpio xz-utils libfuse3-dev strace liburing-dev man-db bpftrace \
	python3-pytest python3-ipython python3-ipykernel python3-nbclient python3-nbformat python3-matplotlib \
	python3-venv python3-wheel-whl python3-torch autoconf automake libtool zlib1g-dev stress-ng sqlite3 python3-fusepy iproute2 nfs-common libnl-genl-3-200 libglib2.0-0 dmsetup \
	$(DEB_TOOLS)

# Evaluated when a recipe runs, after the packages are installed.
PKG_CFLAGS = $(shell pkg-config --cflags yaml-0.1 jansson libzstd libbpf libmnl libpcre2-8)
# Debian ships no pkg-config file for libpfm4.
PKG_LIBS = $(shell pkg-config --libs yaml-0.1 jansson libzstd libbpf libmnl libpcre2-8) -lpfm -lm

# The house, by layer (docs/guide.md's "Where things are"). Each layer sees only
# the headers of the layers below it: its objects are compiled with those
# include paths alone, and tests/e2e/layers.sh checks the #include lines.
#   lib/         the base library every layer uses
#   collectors/  the sources, a folder each, and their shared plumbing (common/)
#   engine/      the episode engine: what `iopsample run` does
#   reader/      the reading side the reading commands share
#   cmd/         the command line: main.c and one file per command
# version.h, generated (tools/version), is seen as lib's own
LIB_INC := -Ilib -I$(BUILD)/gen/version
COLLECTORS_INC := $(LIB_INC) -Icollectors -I$(BUILD)/gen
ENGINE_INC := $(COLLECTORS_INC) -Iengine
READER_INC := $(LIB_INC) -Ireader
ALL_INC := $(ENGINE_INC) -Ireader -Icmd
$(BUILD)/obj/lib/%.o: LAYER_INC := $(LIB_INC)
$(BUILD)/obj/collectors/%.o: LAYER_INC := $(COLLECTORS_INC)
$(BUILD)/obj/engine/%.o: LAYER_INC := $(ENGINE_INC)
$(BUILD)/obj/reader/%.o: LAYER_INC := $(READER_INC)
$(BUILD)/obj/gen/schemas.o: LAYER_INC := $(READER_INC)
$(BUILD)/obj/cmd/%.o: LAYER_INC := $(ALL_INC)

SRCS := $(filter-out %.bpf.c,$(wildcard lib/*.c collectors/*.c collectors/*/*.c collectors/*/*/*.c \
	engine/*.c reader/*.c cmd/*.c))
SCHEMAS := $(wildcard schema/*.schema.json)
# the schemas, compiled in for `iopsample validate`
OBJS := $(SRCS:%.c=$(BUILD)/obj/%.o) $(BUILD)/obj/gen/schemas.o $(BUILD)/obj/gen/report_assets.o
LIB_OBJS := $(filter-out $(BUILD)/obj/cmd/main.o,$(OBJS))
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(wildcard tests/unit/test_*.c))
WORKLOADS := $(patsubst tests/workloads/%.c,$(BUILD)/workloads/%,$(wildcard tests/workloads/*.c)) \
	$(BUILD)/workloads/darwork-static
# test doubles the tests load in place of a library: NVML's (IOPSAMPLE_TEST_NVML)
FIXTURE_LIBS := $(BUILD)/fixtures/libfake_nvml.so

.PHONY: all check check-all check-gpu run bench deps test-deps clean asan valgrind fuzz fuzzer install uninstall deb
all: $(BUILD)/iopsample

# What installs missing Debian packages; a package build (debian/rules)
# sets it to true: there Build-Depends is dpkg's to check, not apt's to fetch.
INSTALL_DEPS ?= tools/install-deps
$(BUILD)/.build-deps:
	@$(INSTALL_DEPS) $(BUILD_PACKAGES)
	@mkdir -p $(@D) && touch $@

# after the build's: two apt-get at once (make -j) would fight over dpkg's lock
$(BUILD)/.test-deps: | $(BUILD)/.build-deps
	@$(INSTALL_DEPS) $(TEST_PACKAGES)
	@mkdir -p $(@D) && touch $@

deps: $(BUILD)/.build-deps
test-deps: $(BUILD)/.test-deps

$(BUILD)/obj/%.o: %.c | $(BUILD)/.build-deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LAYER_INC) $(SANITIZE) -pthread $(PKG_CFLAGS) -c -o $@ $<

# The version: `git describe` in a checkout (VERSION-gHASH while the
# history has no tag), else VERSION. Rewritten only when it changes.
VERSION_STRING = $(shell tools/version)
.PHONY: FORCE
$(BUILD)/gen/version/version.h: FORCE
	@mkdir -p $(@D)
	@printf '/* Generated by the Makefile from tools/version: do not edit. */\n#define IOPSAMPLE_VERSION "%s"\n' \
		"$(VERSION_STRING)" >$@.tmp && { cmp -s $@.tmp $@ && rm $@.tmp || mv $@.tmp $@; }
$(OBJS): | $(BUILD)/gen/version/version.h

$(BUILD)/gen/schemas.c: $(SCHEMAS) tools/embed-schemas
	@mkdir -p $(@D)
	tools/embed-schemas $(SCHEMAS) >$@.tmp && mv $@.tmp $@

# `iopsample report`'s page: uPlot (the chart library; README's Dependencies
# says why), npm's release tarball at a pinned version, checked against the
# registry's own sha512 each time it is unpacked, and report.js and
# report.css, linked in whole. A source tarball (`make dist`) carries it as
# vendor/uplot-VERSION.tgz; a git checkout fetches it once, into BUILD.
UPLOT_VERSION := 1.6.32
UPLOT_SHA512 := 2883159c6ebccefbb95d751b0b82d010f9e1c0ec41b8bc96d401eda66e882935c89a46cb824332fa369b8cb8122cc6ac36e186cd09bf7a9ded3a4c93c6989023
UPLOT_TGZ := $(or $(wildcard vendor/uplot-$(UPLOT_VERSION).tgz),$(BUILD)/vendor/uplot-$(UPLOT_VERSION).tgz)
UPLOT := $(BUILD)/vendor/uplot-$(UPLOT_VERSION)
UPLOT_FILES := $(UPLOT)/dist/uPlot.iife.min.js $(UPLOT)/dist/uPlot.min.css $(UPLOT)/LICENSE
$(BUILD)/vendor/uplot-$(UPLOT_VERSION).tgz: | $(BUILD)/.build-deps
	@mkdir -p $(@D)
	curl -fsSL --retry 3 -o $@.tmp https://registry.npmjs.org/uplot/-/uplot-$(UPLOT_VERSION).tgz
	echo "$(UPLOT_SHA512)  $@.tmp" | sha512sum -c --quiet
	mv $@.tmp $@
# one recipe makes all three (a grouped target: make -j runs it once, and
# waits for it); extracted with the time of extraction, newer than the rule
$(UPLOT_FILES) &: $(UPLOT_TGZ)
	@mkdir -p $(UPLOT)
	echo "$(UPLOT_SHA512)  $<" | sha512sum -c --quiet
	tar -xzmf $< -C $(UPLOT) --strip-components=1 package/dist/uPlot.iife.min.js \
		package/dist/uPlot.min.css package/LICENSE
REPORT_ASSETS := $(UPLOT_FILES) cmd/report/report.js cmd/report/report.css
$(BUILD)/gen/report_assets.S: tools/embed-assets $(REPORT_ASSETS)
	@mkdir -p $(@D)
	tools/embed-assets report_uplot_js=$(UPLOT)/dist/uPlot.iife.min.js \
		report_uplot_css=$(UPLOT)/dist/uPlot.min.css report_uplot_license=$(UPLOT)/LICENSE \
		report_js=cmd/report/report.js report_css=cmd/report/report.css >$@.tmp && mv $@.tmp $@
$(BUILD)/obj/gen/report_assets.o: $(BUILD)/gen/report_assets.S $(REPORT_ASSETS)
	@mkdir -p $(@D)
	$(CC) -c -o $@ $<

$(BUILD)/obj/gen/%.o: $(BUILD)/gen/%.c | $(BUILD)/.build-deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LAYER_INC) $(SANITIZE) $(PKG_CFLAGS) -c -o $@ $<

# The kernel side of a source, collectors/<source>/<source>.bpf.c, compiled
# for the BPF target (CO-RE: field offsets are relocated at load against the
# running kernel's BTF, collectors/common/ebpf/kernel.bpf.h), and the skeleton that
# embeds it, build/gen/<source>.skel.h, which its user side includes.
BPF_SRCS := $(wildcard collectors/*/*.bpf.c)
SKELS := $(patsubst %.bpf.c,$(BUILD)/gen/%.skel.h,$(notdir $(BPF_SRCS)))
BPF_ARCH := $(shell uname -m | sed 's/x86_64/x86/; s/aarch64/arm64/')
BPF_CFLAGS = -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$(BPF_ARCH) \
	-I/usr/include/$(shell gcc -print-multiarch) -Icollectors \
	-Wall -Wextra -Wno-unused-parameter -Werror -MMD -MP

$(BUILD)/bpf/%.bpf.o: collectors/*/%.bpf.c | $(BUILD)/.build-deps
	@mkdir -p $(@D)
	clang $(BPF_CFLAGS) -c -o $@ $<

# kept: an intermediate would be deleted, and announced, after make check's tally
.SECONDARY: $(SKELS:$(BUILD)/gen/%.skel.h=$(BUILD)/bpf/%.bpf.o)
$(BUILD)/gen/%.skel.h: $(BUILD)/bpf/%.bpf.o
	@mkdir -p $(@D)
	bpftool gen skeleton $< name $*_bpf >$@.tmp && mv $@.tmp $@

# Before any compile: the dependency files name the skeleton after the first.
$(OBJS): | $(SKELS)

$(BUILD)/iopsample: $(OBJS)
	$(CC) $(LDFLAGS) $(SANITIZE) -pthread -o $@ $^ $(PKG_LIBS)

$(BUILD)/tests/%: tests/unit/%.c tests/unit/testing.h $(LIB_OBJS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ALL_INC) $(SANITIZE) $(PKG_CFLAGS) -Itests/unit -pthread -o $@ $< $(LIB_OBJS) $(LDFLAGS) $(PKG_LIBS)

$(BUILD)/workloads/%: tests/workloads/%.c | $(BUILD)/.build-deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -pthread -o $@ $< $(LDFLAGS)

# Never sanitized: dlopen'd into iopsample, the double is not under test.
$(BUILD)/fixtures/lib%.so: tests/fixtures/%.c collectors/gpu/nvml.h | $(BUILD)/.build-deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -shared -fPIC -Icollectors -Ilib -o $@ $<

# No dynamic loader reading libraries before main: its counts are its own.
$(BUILD)/workloads/sysio $(BUILD)/workloads/reuse $(BUILD)/workloads/netio \
	$(BUILD)/workloads/blkwork $(BUILD)/workloads/metawork $(BUILD)/workloads/patwork: LDFLAGS += -static
# darwork twice: linked dynamically, for Darshan's LD_PRELOAD to see its
# calls; statically, for iopsample to see no loader's reads besides them
$(BUILD)/workloads/darwork-static: tests/workloads/darwork.c | $(BUILD)/.build-deps
	$(CC) $(CFLAGS) -static -o $@ $<
# io_uring through liburing (a test package)
$(BUILD)/workloads/patwork: LDFLAGS += -luring
$(BUILD)/workloads/patwork: | $(BUILD)/.test-deps

# Darshan 3.5.0 from ../shared/vendor, once per machine, outside the tree
# (tests/darshan/build): beside the build under make -j, not after it
.PHONY: darshan
darshan: | $(BUILD)/.test-deps
	@tests/darshan/build >/dev/null || echo "darshan: not built (tests/e2e/darshan.sh says why)"

# a FUSE filesystem: libfuse3 is a test package
$(BUILD)/workloads/slowdisk: CFLAGS += $(shell pkg-config --cflags fuse3)
$(BUILD)/workloads/slowdisk: LDFLAGS += $(shell pkg-config --libs fuse3)
$(BUILD)/workloads/slowdisk: | $(BUILD)/.test-deps

# The tools users hold, from the npm registry at pinned versions, for the
# tests: ajv, a stock JSON Schema validator of another language than
# python3-jsonschema, and DuckDB (its Node API ships the engine), which runs
# docs/at-scale.md's recipe. One install, so that two never race.
AJV_VERSION := 8.17.1
DUCKDB_NODE_VERSION := 1.5.6-r.1
NODE_TOOLS := $(BUILD)/node/.installed-ajv-$(AJV_VERSION)-duckdb-$(DUCKDB_NODE_VERSION)
$(NODE_TOOLS):
	npm install --prefix $(BUILD)/node --no-audit --no-fund --loglevel=error \
		ajv@$(AJV_VERSION) @duckdb/node-api@$(DUCKDB_NODE_VERSION)
	@touch $@

check: $(BUILD)/iopsample $(UNIT_BINS) $(WORKLOADS) $(FIXTURE_LIBS) $(BUILD)/.test-deps $(NODE_TOOLS) fuzzer darshan
	@FUZZ_SECONDS=$(FUZZ_CHECK_SECONDS) tests/run $(BUILD)

# check and the long tier: the kernel matrix (QEMU), the 1000-episode
# load, block_io's 100 000 dirty files and the Debian packages (make deb).
# .ci/run runs this.
check-all: $(BUILD)/iopsample $(UNIT_BINS) $(WORKLOADS) $(FIXTURE_LIBS) $(BUILD)/.test-deps $(NODE_TOOLS) fuzzer darshan
	@FUZZ_SECONDS=$(FUZZ_CHECK_SECONDS) IOPSAMPLE_TIER=all tests/run $(BUILD)

# The gpu source against a GPU doing known work (PyTorch): where no NVIDIA
# driver or no PyTorch with CUDA is, it says so and skips. check runs it too.
check-gpu: $(BUILD)/iopsample
	@tests/gpu/check.sh $(BUILD)

# ---- sanitizers, memcheck, fuzzing --------------------------------------

# handle_segv=0: a test's kill -SEGV must look like a crash, not a report
ASAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
asan: $(BUILD)/.build-deps $(BUILD)/.test-deps
	@$(MAKE) --no-print-directory BUILD=$(BUILD)/asan SANITIZE="$(ASAN_FLAGS)" \
		$(BUILD)/asan/iopsample asan-units asan-workloads asan-fixtures \
		$(BUILD)/asan/node/.installed-ajv-$(AJV_VERSION)-duckdb-$(DUCKDB_NODE_VERSION)
	@IOPSAMPLE_ASAN=1 ASAN_OPTIONS=detect_leaks=1:handle_segv=0 UBSAN_OPTIONS=print_stacktrace=1 \
		tests/run $(BUILD)/asan
.PHONY: asan-units asan-workloads asan-fixtures
asan-units: $(UNIT_BINS)
asan-workloads: $(WORKLOADS)
asan-fixtures: $(FIXTURE_LIBS)

valgrind: $(BUILD)/iopsample $(UNIT_BINS) $(WORKLOADS) $(FIXTURE_LIBS) $(BUILD)/.test-deps
	@MEMCHECK=1 tests/run $(BUILD)

# libFuzzer wants clang; the objects it fuzzes get a tree of their own
# (build/fuzz), where the rule below links the fuzzer.
FUZZ_SECONDS ?= 600
FUZZ_CHECK_SECONDS ?= 20
FUZZER := $(BUILD)/fuzz/fuzz_config
fuzzer: $(BUILD)/.build-deps $(BUILD)/.test-deps
	@$(MAKE) --no-print-directory BUILD=$(BUILD)/fuzz CC=clang CFLAGS="-O1 -g" \
		SANITIZE="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all" $(FUZZER)
$(BUILD)/fuzz_config: tests/fuzz/fuzz_config.c $(LIB_OBJS)
	$(CC) $(CFLAGS) $(ALL_INC) -fsanitize=fuzzer,address,undefined $(PKG_CFLAGS) -pthread \
		-o $@ $< $(LIB_OBJS) $(PKG_LIBS)

fuzz: fuzzer
	tests/fuzz/run $(FUZZER) $(FUZZ_SECONDS)

run: $(BUILD)/iopsample
	@name=quickstart-$$(date +%Y%m%d-%H%M%S) && \
		$(BUILD)/iopsample run config/examples/quickstart.yaml --name $$name && \
		$(BUILD)/iopsample summary episodes/$$name | sed -n '/^verdict/,/^  over the episode/p' && \
		echo "every window: $(BUILD)/iopsample verdict episodes/$$name; all of it: $(BUILD)/iopsample summary episodes/$$name"

# Not part of check: timings, reported as ratios measured side by side.
$(BUILD)/bench/%: bench/%.c | $(BUILD)/.build-deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $< $(LDFLAGS) $(PKG_LIBS)

bench: $(BUILD)/iopsample $(FIXTURE_LIBS) $(BUILD)/bench/mix $(BUILD)/bench/scale_floor $(BUILD)/workloads/perfwork \
       $(BUILD)/workloads/blkwork $(BUILD)/workloads/iowork $(BUILD)/.test-deps
	@tools/install-deps strace bpftrace time
	/usr/bin/python3 bench/syscall_io.py $(BUILD)
	/usr/bin/python3 bench/block_io.py $(BUILD)
	/usr/bin/python3 bench/perf_event.py $(BUILD)
	/usr/bin/python3 bench/compression.py $(BUILD)
	/usr/bin/python3 bench/export.py $(BUILD)
	/usr/bin/python3 bench/compare.py $(BUILD)
	/usr/bin/python3 bench/report.py $(BUILD)
	/usr/bin/python3 bench/verdict.py $(BUILD)
	/usr/bin/python3 bench/long.py $(BUILD)
	/usr/bin/python3 bench/scale.py $(BUILD)
	/usr/bin/python3 bench/dask_export.py $(BUILD)
	/usr/bin/python3 bench/python.py $(BUILD)

# `make install` puts what a user runs and reads under PREFIX (in DESTDIR,
# for a package); `make uninstall` takes the same files away.
PREFIX ?= /usr/local
BINDIR := $(PREFIX)/bin
SHAREDIR := $(PREFIX)/share/iopsample
DOCDIR := $(PREFIX)/share/doc/iopsample
MANDIR := $(PREFIX)/share/man
COMPLETIONDIR := $(PREFIX)/share/bash-completion/completions
# The Python package (python/iopsample), where Debian's python3 finds it:
# PREFIX/lib/python3/dist-packages for /usr (a package's place), else
# PREFIX/lib/python3.X/dist-packages (/usr/local's, which Debian's python3.X
# reads; a plain python3 folder there is read by none). PYTHONDIR overrides.
PYTHON_VERSION = $(shell /usr/bin/python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)
PYTHONDIR ?= $(if $(filter /usr,$(PREFIX)),$(PREFIX)/lib/python3/dist-packages,$(PREFIX)/lib/python$(PYTHON_VERSION)/dist-packages)
PYTHON_MODULES := __init__ _version binary display episode errors frames magic runner
# the package's version: its one source, which the binary's release must match
PY_VERSION := $(shell sed -n 's/^__version__ = "\(.*\)"$$/\1/p' python/iopsample/_version.py)
DIST_INFO := iopsample-$(PY_VERSION).dist-info
# no: install leaves the Python package to another (debian/rules: pybuild)
PYTHON_PACKAGE ?= yes
SCHEMA_NAMES := envelope manifest compare verdict proc_io syscall_io perf_event block_io diskstats \
	taskstats cgroup gpu waits offcpu net

# Every file install writes, one a line: MODE FILE-IN-THE-TREE PATH (under
# DESTDIR). Named one by one: a file is installed only once it is named
# here (an untracked file beside them is not), and uninstall removes
# exactly these, under the same PREFIX and DESTDIR.
define INSTALL_LIST
755 $(BUILD)/iopsample $(BINDIR)/iopsample
644 man/iopsample.1 $(MANDIR)/man1/iopsample.1
644 man/iopsample-episode.5 $(MANDIR)/man5/iopsample-episode.5
644 completion/iopsample.bash $(COMPLETIONDIR)/iopsample
$(foreach n,$(SCHEMA_NAMES),644 schema/$(n).schema.json $(SHAREDIR)/schema/$(n).schema.json
)644 config/examples/quickstart.yaml $(SHAREDIR)/examples/quickstart.yaml
644 config/examples/readback.yaml $(SHAREDIR)/examples/readback.yaml
$(foreach f,README.md docs/guide.md docs/data-model.md docs/at-scale.md docs/benchmarks.md,644 $(f) $(DOCDIR)/$(notdir $(f))
)644 docs/images/report.png $(DOCDIR)/images/report.png
644 docs/images/verdict-report.png $(DOCDIR)/images/verdict-report.png
644 docs/recipes/dask_export.py $(DOCDIR)/recipes/dask_export.py
644 docs/notebooks/quickstart.ipynb $(DOCDIR)/notebooks/quickstart.ipynb
$(if $(filter yes,$(PYTHON_PACKAGE)),$(foreach m,$(PYTHON_MODULES),644 python/iopsample/$(m).py $(PYTHONDIR)/iopsample/$(m).py
)$(foreach f,METADATA INSTALLER RECORD,644 $(BUILD)/python/$(DIST_INFO)/$(f) $(PYTHONDIR)/$(DIST_INFO)/$(f)
))
endef
# the folders that are iopsample's alone, deepest first: uninstall removes
# them once empty (Python's bytecode of the modules above is taken with them)
INSTALL_OWN_DIRS := $(SHAREDIR)/schema $(SHAREDIR)/examples $(SHAREDIR) $(DOCDIR)/images \
	$(DOCDIR)/recipes $(DOCDIR)/notebooks $(DOCDIR) $(PYTHONDIR)/iopsample/__pycache__ \
	$(PYTHONDIR)/iopsample $(PYTHONDIR)/$(DIST_INFO)

.PHONY: install-list
install-list:
	$(shell mkdir -p $(BUILD))$(file >$(BUILD)/install.list,$(INSTALL_LIST))
	@:

# The package's dist-info, so that pip and importlib.metadata know what
# install put in place: METADATA from setuptools' own backend (the one pip
# builds with, from pyproject.toml), run on a copy so that nothing is
# written into the tree; RECORD names the files installed.
$(BUILD)/python/$(DIST_INFO)/METADATA: python/pyproject.toml python/README.md python/iopsample/_version.py \
		| $(BUILD)/.build-deps
	rm -rf $(BUILD)/python && mkdir -p $(BUILD)/python/src $(BUILD)/python/meta
	cp -r python/pyproject.toml python/README.md python/iopsample $(BUILD)/python/src/
	cd $(BUILD)/python/src && /usr/bin/python3 -c 'import sys, setuptools.build_meta as b; \
		b.prepare_metadata_for_build_wheel(sys.argv[1])' ../meta >../meta.log 2>&1 || { cat ../meta.log; exit 1; }
	mv $(BUILD)/python/meta/$(DIST_INFO) $(BUILD)/python/$(DIST_INFO)
	printf 'make\n' >$(BUILD)/python/$(DIST_INFO)/INSTALLER
	{ $(foreach m,$(PYTHON_MODULES),echo 'iopsample/$(m).py,,';) \
	  for f in METADATA INSTALLER RECORD; do echo "$(DIST_INFO)/$$f,,"; done; } >$(BUILD)/python/$(DIST_INFO)/RECORD

install: $(BUILD)/iopsample install-list $(if $(filter yes,$(PYTHON_PACKAGE)),$(BUILD)/python/$(DIST_INFO)/METADATA)
	@while read -r mode file path; do \
		[ -n "$$mode" ] || continue; \
		echo "install -D -m $$mode $$file $(DESTDIR)$$path"; \
		install -D -m "$$mode" "$$file" "$(DESTDIR)$$path" || exit 1; \
	done <$(BUILD)/install.list

uninstall: install-list
	@while read -r mode file path; do \
		[ -n "$$mode" ] || continue; \
		rm -f "$(DESTDIR)$$path" || exit 1; \
		case $$path in *.py) n=$${path##*/}; rm -f "$(DESTDIR)$${path%/*}/__pycache__/$${n%.py}".*.pyc ;; esac; \
	done <$(BUILD)/install.list
	@for d in $(addprefix $(DESTDIR),$(INSTALL_OWN_DIRS)); do \
		[ ! -d "$$d" ] || rmdir "$$d" 2>/dev/null || echo "uninstall: $$d is not empty; left" >&2; \
	done

# `make dist`: the source tarball an offline build starts from (a Debian
# build daemon's, Policy 4.9), iopsample_VERSION.orig.tar.gz: the files git
# tracks (where this is no checkout, all but build/) and uPlot's release
# tarball, checked against UPLOT_SHA512, as vendor/, which the build then
# unpacks instead of fetching. Reproducible: sorted, owned by root, dated
# by the last commit.
RELEASE := $(shell cat VERSION)
DIST := $(BUILD)/iopsample_$(RELEASE).orig.tar.gz
SOURCE_FILES = if [ "$$(git rev-parse --show-toplevel 2>/dev/null)" = "$(CURDIR)" ]; then git ls-files -z; \
	else find . -path ./build -prune -o -path ./.git -prune -o -type f -print0 | sed -z 's|^\./||'; fi
.PHONY: dist
dist: $(DIST)
$(DIST): $(UPLOT_TGZ) FORCE
	rm -rf $(BUILD)/dist && mkdir -p $(BUILD)/dist/iopsample-$(RELEASE)/vendor
	{ $(SOURCE_FILES); } | tar --null -T - -cf - | tar -xf - -C $(BUILD)/dist/iopsample-$(RELEASE)
	echo "$(UPLOT_SHA512)  $(UPLOT_TGZ)" | sha512sum -c --quiet
	cp $(UPLOT_TGZ) $(BUILD)/dist/iopsample-$(RELEASE)/vendor/
	tar -C $(BUILD)/dist --sort=name --owner=0 --group=0 --numeric-owner --format=gnu \
		--mtime=@$$(git log -1 --format=%ct 2>/dev/null || stat -c %Y VERSION) \
		-cf - iopsample-$(RELEASE) | gzip -9n >$@.tmp && mv $@.tmp $@
	rm -rf $(BUILD)/dist
	@echo "$@: $$(tar -tzf $@ | grep -vc '/$$') files"

# The Debian packages, iopsample and python3-iopsample, built from that
# tarball as a build daemon builds them: dpkg-buildpackage in the unpacked
# tree (in a network namespace with no network, as root), then lintian.
NO_NETWORK := $(if $(filter 0,$(shell id -u)),unshare -n)
# and with the system's tools alone, as a build daemon's chroot has them: a
# python3 of a user's own first on PATH is not the one pybuild builds for
DEB_PATH := /usr/sbin:/usr/bin:/sbin:/bin
.PHONY: deb-deps
deb-deps: | $(BUILD)/.build-deps
	@$(INSTALL_DEPS) $(DEB_TOOLS)
# In an environment of its own, as a build daemon's: none of this make's
# variables reaches the package's (a BUILD= given here, exported and in
# MAKEFLAGS, had it link this checkout's objects and overwrite its binary);
# its jobs are dpkg-buildpackage's (-J).
deb: $(DIST) | deb-deps
	rm -rf $(BUILD)/deb && mkdir -p $(BUILD)/deb
	cp $(DIST) $(BUILD)/deb/ && tar -xzf $(DIST) -C $(BUILD)/deb
	cd $(BUILD)/deb/iopsample-$(RELEASE) && $(NO_NETWORK) env -i PATH=$(DEB_PATH) HOME="$$HOME" LC_ALL=C.UTF-8 \
		$${DEB_BUILD_OPTIONS:+DEB_BUILD_OPTIONS="$$DEB_BUILD_OPTIONS"} dpkg-buildpackage -us -uc -b -J$(shell nproc) \
		>../build.log 2>&1 || \
		{ tail -20 ../build.log; exit 1; }
	lintian --fail-on error,warning $(BUILD)/deb/iopsample_*.deb $(BUILD)/deb/python3-iopsample_*.deb

clean:
	rm -rf $(BUILD)

-include $(OBJS:.o=.d) $(UNIT_BINS:=.d) $(WORKLOADS:=.d) $(FIXTURE_LIBS:.so=.d) $(SKELS:$(BUILD)/gen/%.skel.h=$(BUILD)/bpf/%.bpf.d)
