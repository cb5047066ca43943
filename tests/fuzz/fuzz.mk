# fuzz.mk — build chronoid's libFuzzer targets (tests/fuzz/run.sh calls
# this; see docs/testing.md).  Library and CLI objects are compiled with
# coverage instrumentation and ASan+UBSan, each target is linked with
# libFuzzer's main.  Run from the top of the tree:
#   make -f tests/fuzz/fuzz.mk FUZZ_BUILD=build/fuzz

FUZZ_BUILD ?= build/fuzz
FUZZ_CC    ?= clang
SANS       := -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_FLAGS := -std=c11 -O1 -g -fno-omit-frame-pointer $(SANS) \
              -Wall -Wextra -Wmissing-prototypes -Wstrict-prototypes \
              -Iinclude -Isrc -Icli -Itests/fuzz -pthread
PG_CONFIG  ?= pg_config
PQ_CFLAGS  := -I$(shell $(PG_CONFIG) --includedir 2>/dev/null || echo /usr/include/postgresql)

FUZZ_TARGETS := uuid ulid snowflake layout time inspect cli_inspect

LIB_SRCS := $(sort $(wildcard src/*.c))
LIB_OBJS := $(LIB_SRCS:src/%.c=$(FUZZ_BUILD)/obj/src/%.o)
# The lease library (libpq): the CLI's lease command links it.
LEASE_SRCS := $(sort $(wildcard src/lease/*.c))
LEASE_OBJS := $(LEASE_SRCS:src/lease/%.c=$(FUZZ_BUILD)/obj/src/lease/%.o)
# Every CLI file but main.c, which holds main(); cli_main.o below is main.c
# with its main() renamed, for the command table and message helpers it
# defines.  bench-pk needs libpq, as in the top Makefile.
CLI_SRCS := $(filter-out cli/main.c,$(sort $(wildcard cli/*.c)))
CLI_OBJS := $(CLI_SRCS:cli/%.c=$(FUZZ_BUILD)/obj/cli/%.o) $(FUZZ_BUILD)/obj/cli/cli_main.o
BINS     := $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz_%)

.PHONY: all
all: $(BINS)

$(FUZZ_BUILD)/obj/src/%.o: src/%.c include/chronoid.h $(wildcard src/*.h)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(FUZZ_BUILD)/obj/src/lease/%.o: src/lease/%.c include/chronoid.h include/chronoid_lease.h $(wildcard src/lease/*.h)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) $(PQ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(FUZZ_BUILD)/obj/cli/%.o: cli/%.c include/chronoid.h $(wildcard cli/*.h)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) $(PQ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(FUZZ_BUILD)/obj/cli/cli_main.o: cli/main.c include/chronoid.h $(wildcard cli/*.h)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -Wno-missing-prototypes -Dmain=cli_main_unused \
	  -fsanitize=fuzzer-no-link -c $< -o $@

$(FUZZ_BUILD)/fuzz_cli_inspect: tests/fuzz/fuzz_cli_inspect.c tests/fuzz/fuzz.h $(LIB_OBJS) $(LEASE_OBJS) $(CLI_OBJS)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $< $(CLI_OBJS) $(LEASE_OBJS) $(LIB_OBJS) -lpq -lm

$(FUZZ_BUILD)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(LIB_OBJS)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $< $(LIB_OBJS) -lm
