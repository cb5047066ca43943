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

FUZZ_TARGETS := uuid ulid typeid snowflake layout time inspect cli_inspect
# The IDs already in databases (issue 27).
FUZZ_TARGETS += objectid ksuid
# The record in a node claim's lock file (issue 33).
FUZZ_TARGETS += claim_record

LIB_SRCS := $(sort $(wildcard src/*.c))
LIB_OBJS := $(LIB_SRCS:src/%.c=$(FUZZ_BUILD)/obj/src/%.o)
# Every CLI file but main.c, which holds only the command table and main().
CLI_SRCS := $(filter-out cli/main.c,$(sort $(wildcard cli/*.c)))
CLI_OBJS := $(CLI_SRCS:cli/%.c=$(FUZZ_BUILD)/obj/cli/%.o)
BINS     := $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz_%)

.PHONY: all
all: $(BINS)

$(FUZZ_BUILD)/obj/src/%.o: src/%.c include/chronoid.h $(wildcard src/*.h)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(FUZZ_BUILD)/obj/cli/%.o: cli/%.c include/chronoid.h $(wildcard cli/*.h)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(FUZZ_BUILD)/fuzz_cli_inspect: tests/fuzz/fuzz_cli_inspect.c tests/fuzz/fuzz.h $(LIB_OBJS) $(CLI_OBJS)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $< $(CLI_OBJS) $(LIB_OBJS) -lm

# It includes src/node_claim.c, whose parser is private: not its object too.
$(FUZZ_BUILD)/fuzz_claim_record: tests/fuzz/fuzz_claim_record.c tests/fuzz/fuzz.h src/node_claim.c $(LIB_OBJS)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $< $(filter-out %/node_claim.o,$(LIB_OBJS)) -lm

$(FUZZ_BUILD)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(LIB_OBJS)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $< $(LIB_OBJS) -lm
