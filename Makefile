# iopsample: `make` builds build/iopsample, `make check` runs every test,
# `make run` runs the bundled quickstart episode. Both install missing Debian
# packages first when run as root.

BUILD ?= build
CC ?= cc
CFLAGS ?= -O2 -g
override CFLAGS += -std=gnu11 -Wall -Wextra -Werror -MMD -MP -Icmd -Icollectors
LDFLAGS ?=

BUILD_PACKAGES := libyaml-dev libjansson-dev libzstd-dev libpfm4-dev pkg-config
# what the tests run besides iopsample: Debian's python3 (/usr/bin/python3) with
# jsonschema, zstd, procps (pgrep), perf stat (ground truth for perf_event)
TEST_PACKAGES := python3 python3-jsonschema zstd procps linux-perf

# Evaluated when a recipe runs, after the packages are installed.
PKG_CFLAGS = $(shell pkg-config --cflags yaml-0.1 jansson libzstd)
# Debian ships no pkg-config file for libpfm4.
PKG_LIBS = $(shell pkg-config --libs yaml-0.1 jansson libzstd) -lpfm

SRCS := $(wildcard cmd/*.c collectors/*.c)
SCHEMAS := $(wildcard schema/*.schema.json)
# the schemas, compiled in for `iopsample validate`
OBJS := $(SRCS:%.c=$(BUILD)/obj/%.o) $(BUILD)/obj/gen/schemas.o
LIB_OBJS := $(filter-out $(BUILD)/obj/cmd/main.o,$(OBJS))
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(wildcard tests/unit/test_*.c))
WORKLOADS := $(patsubst tests/workloads/%.c,$(BUILD)/workloads/%,$(wildcard tests/workloads/*.c))

.PHONY: all check run bench deps test-deps clean
all: $(BUILD)/iopsample

$(BUILD)/.build-deps:
	@tools/install-deps $(BUILD_PACKAGES)
	@mkdir -p $(@D) && touch $@

$(BUILD)/.test-deps:
	@tools/install-deps $(TEST_PACKAGES)
	@mkdir -p $(@D) && touch $@

deps: $(BUILD)/.build-deps
test-deps: $(BUILD)/.test-deps

$(BUILD)/obj/%.o: %.c | $(BUILD)/.build-deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -pthread $(PKG_CFLAGS) -c -o $@ $<

$(BUILD)/gen/schemas.c: $(SCHEMAS) tools/embed-schemas
	@mkdir -p $(@D)
	tools/embed-schemas $(SCHEMAS) >$@.tmp && mv $@.tmp $@

$(BUILD)/obj/gen/%.o: $(BUILD)/gen/%.c | $(BUILD)/.build-deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(PKG_CFLAGS) -c -o $@ $<

$(BUILD)/iopsample: $(OBJS)
	$(CC) $(LDFLAGS) -pthread -o $@ $^ $(PKG_LIBS)

$(BUILD)/tests/%: tests/unit/%.c tests/unit/testing.h $(LIB_OBJS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(PKG_CFLAGS) -Itests/unit -pthread -o $@ $< $(LIB_OBJS) $(LDFLAGS) $(PKG_LIBS)

$(BUILD)/workloads/%: tests/workloads/%.c | $(BUILD)/.build-deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -pthread -o $@ $< $(LDFLAGS)

# No dynamic loader reading libraries before main: its counts are its own.
$(BUILD)/workloads/sysio: LDFLAGS += -static

check: $(BUILD)/iopsample $(UNIT_BINS) $(WORKLOADS) $(BUILD)/.test-deps
	@tests/run $(BUILD)

run: $(BUILD)/iopsample
	$(BUILD)/iopsample run config/examples/quickstart.yaml --name quickstart-$$(date +%Y%m%d-%H%M%S)

# Not part of check: timings, reported as ratios measured side by side.
$(BUILD)/bench/%: bench/%.c | $(BUILD)/.build-deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $< $(LDFLAGS)

bench: $(BUILD)/iopsample $(BUILD)/bench/mix $(BUILD)/bench/tick_floor $(BUILD)/workloads/perfwork \
       $(BUILD)/.test-deps
	@tools/install-deps strace
	/usr/bin/python3 bench/syscall_io.py $(BUILD)
	/usr/bin/python3 bench/perf_event.py $(BUILD)
	/usr/bin/python3 bench/compression.py $(BUILD)

clean:
	rm -rf $(BUILD)

-include $(OBJS:.o=.d) $(UNIT_BINS:=.d) $(WORKLOADS:=.d)
