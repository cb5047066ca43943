# chronoid — top-level build.
#
#   make                 library (static + shared), the chronoid command and the
#                        pkg-config file (a C compiler is all they need); where
#                        libpq is, the database parts in db/; where the server
#                        dev files are, the PostgreSQL extension in pg/
#   make check           install what is missing, build, run every test
#   make check-matrix    the extension on PostgreSQL 15, 17 and 18
#   make demo            install what is missing, show the main job
#   make bench           benchmark table (docs/benchmarks.md)
#   make bench-node      the npm package against its npm peers (docs/benchmarks.md)
#   make bench-web       its WebAssembly build against them in Chromium (likewise)
#   make wasm            the npm package's WebAssembly build, node/lib/chronoid.wasm
#   make inspector       the ID inspector page, build/inspector/index.html
#   make node-addon      the npm package's addon, node/build/chronoid.node
#   make bench-pg        PostgreSQL extension benchmark (docs/benchmarks.md)
#   make bench-pk        primary-key kinds on PostgreSQL (docs/benchmarks.md)
#   make bench-block     block allocation against nextval() and UPDATE (docs/benchmarks.md)
#   make bench-migrate   chronoid migrate's backfill and writers' latency (docs/benchmarks.md)
#   make test-python     the Python package (python/): pip install, pytest, ASan, TSan
#   make bench-python    the Python package against uuid4 and pure Python (docs/benchmarks.md)
#   make install PREFIX=/usr/local   library, headers, pkg-config files, the
#                        command, its man page, the database tools
#   make install-ext     the PostgreSQL extension, where pg_config says
#   make dist            the release tarball build/chronoid-VERSION.tar.gz (and
#                        .sha256) from HEAD, VERSION the extension's
#
# Both honour DESTDIR, and check that every directory they write can be
# written before they copy anything.  CPPFLAGS, CFLAGS and LDFLAGS from the
# environment (dpkg-buildflags) are used as given.
#
# Variables: BUILD (output dir), SAN (e.g. address,undefined or thread),
# WERROR=1 (warnings as errors; CI sets it).

# The library's version has one home, CID_VERSION_MAJOR/MINOR/PATCH in the
# header (what cid_version() returns and chronoid --version prints); the
# extension's is pg/chronoid.control.
VERSION   := $(shell awk '$$1 ~ /^.define$$/ && $$2 ~ /^CID_VERSION_(MAJOR|MINOR|PATCH)$$/ \
               { v = v s $$3; s = "." } END { print v }' include/chronoid.h)
# 1: the generators' atomic fields became cid_atomic_word, so that the
# header compiles as C++; cid_ulid_gen's lock grew to an aligned 8-byte
# word, which moves its last field (docs/design.md, "ABI").
SOVERSION := 1
PREFIX    ?= /usr/local
LIBDIR    ?= $(PREFIX)/lib
INCDIR    ?= $(PREFIX)/include
BINDIR    ?= $(PREFIX)/bin
LIBEXECDIR ?= $(PREFIX)/libexec
MANDIR    ?= $(PREFIX)/share/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
DESTDIR   ?=
# Run after a root install into the live system (no DESTDIR), so that the
# new libchronoid.so.1 is in ld.so's cache at once; empty to skip.
LDCONFIG  ?= ldconfig

BUILD     ?= build
CC        ?= cc
CFLAGS    ?= -O2 -g
CPPFLAGS  ?=
LDFLAGS   ?=
SAN       ?=
WERROR    ?=
PG_CONFIG ?= pg_config

# -fvisibility=hidden: the shared libraries export only what the public
# headers mark CID_API (and their version scripts list); the unit tests that
# need internal functions link the static libraries.
CID_CFLAGS := -std=c11 -Wall -Wextra -Wmissing-prototypes -Wstrict-prototypes \
              -Iinclude -fPIC -pthread -fvisibility=hidden
ifneq ($(SAN),)
CID_CFLAGS += -fsanitize=$(SAN) -fno-omit-frame-pointer -fno-sanitize-recover=all
CID_LDFLAGS += -fsanitize=$(SAN)
endif
ifneq ($(WERROR),)
CID_CFLAGS += -Werror
endif
CID_LDFLAGS += -pthread

LIB_SRCS  := $(sort $(wildcard src/*.c))
LIB_OBJS  := $(LIB_SRCS:src/%.c=$(BUILD)/obj/src/%.o)
CLI_SRCS  := $(sort $(wildcard cli/*.c))
CLI_OBJS  := $(CLI_SRCS:cli/%.c=$(BUILD)/obj/cli/%.o)
# What the database tools share with the ID command: options, messages,
# buffered output.
CLI_COMMON_OBJS := $(addprefix $(BUILD)/obj/cli/,args.o diag.o output.o)
TEST_SRCS := $(sort $(wildcard tests/unit/test_*.c))
LEASE_TEST_SRCS := $(filter tests/unit/test_lease%,$(TEST_SRCS))
# Tests of db/ code: built where libpq's header is.
DB_TEST_SRCS    := $(LEASE_TEST_SRCS) $(filter tests/unit/test_bench_pk% tests/unit/test_migrate%,$(TEST_SRCS))
CORE_TEST_SRCS  := $(filter-out $(DB_TEST_SRCS),$(TEST_SRCS))

STATIC_LIB := $(BUILD)/libchronoid.a
SHARED_LIB := $(BUILD)/libchronoid.so.$(VERSION)
CLI_BIN    := $(BUILD)/chronoid
PC_FILE    := $(BUILD)/chronoid.pc

# ---------------------------------------------------------------------------
# db/: everything that talks to PostgreSQL, and so links libpq.  It builds
# only where libpq's header is (libpq-dev); the core library and the ID
# command never need it.
#   db/pq/                 the one libpq layer (pinned search_path, bounded waits)
#   db/lease/              libchronoid_lease (include/chronoid_lease.h), installed
#   db/chronoid-lease/     "chronoid lease", a program in LIBEXECDIR/chronoid
#   db/chronoid-bench-pk/  "chronoid bench-pk", likewise
#   db/chronoid-block/     "chronoid block", likewise
#   db/chronoid-migrate/   "chronoid migrate", likewise
# ---------------------------------------------------------------------------
PQ_INCDIR  := $(shell $(PG_CONFIG) --includedir 2>/dev/null)
HAVE_LIBPQ ?= $(shell for d in $(PQ_INCDIR) /usr/include/postgresql /usr/include; do \
                 test -f $$d/libpq-fe.h && { echo yes; break; }; done)
PQ_CFLAGS  := $(if $(PQ_INCDIR),-I$(PQ_INCDIR)) -I/usr/include/postgresql -Idb/pq

PQ_OBJS      := $(BUILD)/obj/db/pq/pq.o
LEASE_SRCS   := $(sort $(wildcard db/lease/*.c))
LEASE_OBJS   := $(LEASE_SRCS:db/lease/%.c=$(BUILD)/obj/db/lease/%.o) $(PQ_OBJS)
LEASE_STATIC := $(BUILD)/libchronoid_lease.a
LEASE_SHARED := $(BUILD)/libchronoid_lease.so.$(VERSION)
LEASE_PC     := $(BUILD)/chronoid-lease.pc
LEASE_MINTER := $(BUILD)/tests/lease_minter
# tests/scenarios/block.sh's driver of the block allocator
BLOCK_TAKER  := $(BUILD)/tests/block_taker
TOOLS        := lease bench-pk migrate block
TOOL_BINS    := $(TOOLS:%=$(BUILD)/chronoid-%)
LEASE_TOOL_OBJS := $(patsubst db/%.c,$(BUILD)/obj/db/%.o,$(sort $(wildcard db/chronoid-lease/*.c)))
BLOCK_TOOL_OBJS := $(patsubst db/%.c,$(BUILD)/obj/db/%.o,$(sort $(wildcard db/chronoid-block/*.c)))
BPK_TOOL_OBJS   := $(patsubst db/%.c,$(BUILD)/obj/db/%.o,$(sort $(wildcard db/chronoid-bench-pk/*.c)))
MIG_TOOL_OBJS   := $(patsubst db/%.c,$(BUILD)/obj/db/%.o,$(sort $(wildcard db/chronoid-migrate/*.c)))

# The public headers from C++ (tests/cxx): built where a C++ compiler is.
CXX       ?= c++
HAVE_CXX  ?= $(shell command -v $(CXX) >/dev/null 2>&1 && echo yes)

TEST_BINS := $(CORE_TEST_SRCS:tests/unit/%.c=$(BUILD)/tests/%) \
             $(if $(HAVE_LIBPQ),$(DB_TEST_SRCS:tests/unit/%.c=$(BUILD)/tests/%) $(LEASE_MINTER) $(BLOCK_TAKER)) \
             $(if $(HAVE_CXX),$(BUILD)/tests/test_cxx)

# The extension builds only where PGXS is really there: pg_config, and even
# pgxs.mk, come with Debian's client package; the server headers do not.
HAVE_PGXS := $(shell f=$$($(PG_CONFIG) --pgxs 2>/dev/null) && test -f "$$f" && \
               test -f "$$($(PG_CONFIG) --includedir-server)/postgres.h" && echo yes)

# The WebAssembly build (wasm/, docs/javascript.md): the core's sources
# less the parts that need an OS (the platform's clock and random source,
# host-wide node claims), with wasm/'s glue, by clang's wasm32-wasi target
# over Debian's wasi-libc and compiler-rt builtins; and the files of
# bind/ that need no OS (not the process's generators, fork handler,
# claims, random source or leases), so that the glue mints and words
# errors as the packages do.  Into node/lib/ for the npm package, so made
# on demand (make wasm, npm pack, the tests) rather than by `all`, which
# makes only the inspector page where they are.
WASM_CC      ?= clang-14
WASM_SYSROOT ?= /usr
HAVE_WASM    ?= $(shell test -f $(WASM_SYSROOT)/lib/wasm32-wasi/libc.a && \
                  f=$$($(WASM_CC) --target=wasm32-wasi -print-libgcc-file-name 2>/dev/null) && \
                  test -f "$$f" && echo yes)
WASM_SRCS    := $(filter-out src/platform.c src/random.c src/node_claim.c src/snowflake_claimed.c, \
                  $(LIB_SRCS)) $(addprefix bind/, batch_json.c errors.c kinds.c snowflake_opts.c text.c) \
                $(sort $(wildcard wasm/*.c))
WASM_OBJS    := $(WASM_SRCS:%.c=$(BUILD)/wasm/%.o)
# The module is compiled for the least size (-Oz) but for the text
# formatters and the JSON batch writer, where a text batch spends its time
# in the module: at -Os a UUID's text costs 10 ns instead of 16 (batches
# of 1000 in Chromium, the module alone) for 0.4 KB gzipped of the 40 KB
# budget; -O2 was 1 ns faster for twice the bytes.  Each object keeps its
# level through the link-time optimization.
WASM_FAST_SRCS := src/uuid.c src/ulid.c bind/batch_json.c
WASM_OUT     := node/lib/chronoid.wasm
# The inspector page (web/inspector/): the chronoid command itself as
# WebAssembly, so that the page answers and fails as the command does.
INSPECTOR_SRCS := $(filter-out src/platform.c src/random.c src/node_claim.c src/snowflake_claimed.c, \
                  $(LIB_SRCS)) wasm/platform.c wasm/cli.c $(CLI_SRCS)
INSPECTOR      := $(BUILD)/inspector/index.html

.PHONY: all lib cli db tests ext install uninstall check demo bench clean \
        setup test-unit wasm inspector FORCE

all: lib cli $(if $(HAVE_LIBPQ),db) $(if $(HAVE_PGXS),ext) $(if $(HAVE_WASM),inspector)

lib: $(STATIC_LIB) $(SHARED_LIB) $(PC_FILE)
cli: $(CLI_BIN)
db: $(LEASE_STATIC) $(LEASE_SHARED) $(LEASE_PC) $(TOOL_BINS)
tests: $(TEST_BINS)

$(BUILD)/obj/src/%.o: src/%.c include/chronoid.h $(wildcard src/*.h)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(CID_CFLAGS) -c $< -o $@

# main.c knows where the database tools are installed.
$(BUILD)/obj/cli/main.o: $(BUILD)/.dirs
$(BUILD)/obj/cli/%.o: cli/%.c include/chronoid.h $(wildcard cli/*.h)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(CID_CFLAGS) -Isrc -DCID_LIBEXECDIR='"$(LIBEXECDIR)/chronoid"' -c $< -o $@

$(BUILD)/obj/db/%.o: db/%.c include/chronoid.h include/chronoid_lease.h $(wildcard db/*/*.h cli/*.h)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(CID_CFLAGS) $(PQ_CFLAGS) -I$(<D) -Icli -Isrc -c $< -o $@

$(STATIC_LIB): $(LIB_OBJS)
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $^

# The soname comes from the Makefile (SOVERSION): relink when it changes.
# The version script names what is exported, under the interface version
# CHRONOID_1; -z defs refuses an undefined symbol at link time rather than
# at load time (not with a sanitizer: its runtime resolves at load).
LIB_MAP      := src/libchronoid.map
SO_NODEFS    := $(if $(SAN),,-Wl,-z,defs)
$(SHARED_LIB): $(LIB_OBJS) $(LIB_MAP) Makefile
	@mkdir -p $(@D)
	$(CC) -shared -Wl,-soname,libchronoid.so.$(SOVERSION) -Wl,--version-script=$(LIB_MAP) $(SO_NODEFS) \
	  $(CID_LDFLAGS) $(LDFLAGS) -o $@ $(LIB_OBJS)
	ln -sf libchronoid.so.$(VERSION) $(BUILD)/libchronoid.so.$(SOVERSION)
	ln -sf libchronoid.so.$(SOVERSION) $(BUILD)/libchronoid.so

# pkg-config has no licence field: the .pc files say it in a comment.
PC_LICENSE := \# chronoid is released under the PostgreSQL License (the LICENSE file)

# The pkg-config files and main.o name the install directories: rebuild
# them whenever they change (make; make install PREFIX=/opt/x).
$(BUILD)/.dirs: FORCE
	@mkdir -p $(@D)
	@echo '$(PREFIX) $(LIBDIR) $(INCDIR) $(LIBEXECDIR)' | cmp -s - $@ || \
	  echo '$(PREFIX) $(LIBDIR) $(INCDIR) $(LIBEXECDIR)' > $@

$(PC_FILE): Makefile $(BUILD)/.dirs
	@mkdir -p $(@D)
	printf '%s\n' '$(PC_LICENSE)' 'prefix=$(PREFIX)' 'libdir=$(LIBDIR)' 'includedir=$(INCDIR)' '' \
	  'Name: chronoid' 'Description: unique, time-sortable IDs (Snowflake, UUIDv7, ULID, UUIDv4)' \
	  'Version: $(VERSION)' 'Libs: -L$${libdir} -lchronoid' 'Libs.private: -pthread' \
	  'Cflags: -I$${includedir}' > $@

$(CLI_BIN): $(CLI_OBJS) $(STATIC_LIB)
	$(CC) $(CID_LDFLAGS) $(LDFLAGS) -o $@ $(CLI_OBJS) $(STATIC_LIB) -lm

$(LEASE_STATIC): $(LEASE_OBJS)
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $^

LEASE_MAP := db/lease/libchronoid_lease.map
$(LEASE_SHARED): $(LEASE_OBJS) $(SHARED_LIB) $(LEASE_MAP) Makefile
	$(CC) -shared -Wl,-soname,libchronoid_lease.so.$(SOVERSION) -Wl,--version-script=$(LEASE_MAP) \
	  $(SO_NODEFS) $(CID_LDFLAGS) $(LDFLAGS) -o $@ $(LEASE_OBJS) -L$(BUILD) -lchronoid -lpq
	ln -sf libchronoid_lease.so.$(VERSION) $(BUILD)/libchronoid_lease.so.$(SOVERSION)
	ln -sf libchronoid_lease.so.$(SOVERSION) $(BUILD)/libchronoid_lease.so

$(LEASE_PC): Makefile $(BUILD)/.dirs
	@mkdir -p $(@D)
	printf '%s\n' '$(PC_LICENSE)' 'prefix=$(PREFIX)' 'libdir=$(LIBDIR)' 'includedir=$(INCDIR)' '' \
	  'Name: chronoid-lease' 'Description: Snowflake node numbers leased from PostgreSQL (chronoid)' \
	  'Version: $(VERSION)' 'Requires: chronoid' 'Requires.private: libpq' \
	  'Libs: -L$${libdir} -lchronoid_lease' 'Libs.private: -lpq -pthread' \
	  'Cflags: -I$${includedir}' > $@

$(BUILD)/chronoid-lease: $(LEASE_TOOL_OBJS) $(CLI_COMMON_OBJS) $(LEASE_STATIC) $(STATIC_LIB)
	$(CC) $(CID_LDFLAGS) $(LDFLAGS) -o $@ $(LEASE_TOOL_OBJS) $(CLI_COMMON_OBJS) \
	  $(LEASE_STATIC) $(STATIC_LIB) -lpq -lm

$(BUILD)/chronoid-block: $(BLOCK_TOOL_OBJS) $(CLI_COMMON_OBJS) $(LEASE_STATIC) $(STATIC_LIB)
	$(CC) $(CID_LDFLAGS) $(LDFLAGS) -o $@ $(BLOCK_TOOL_OBJS) $(CLI_COMMON_OBJS) \
	  $(LEASE_STATIC) $(STATIC_LIB) -lpq -lm

$(BUILD)/chronoid-migrate: $(MIG_TOOL_OBJS) $(CLI_COMMON_OBJS) $(PQ_OBJS) $(STATIC_LIB)
	$(CC) $(CID_LDFLAGS) $(LDFLAGS) -o $@ $(MIG_TOOL_OBJS) $(CLI_COMMON_OBJS) $(PQ_OBJS) \
	  $(STATIC_LIB) -lpq -lm

$(BUILD)/chronoid-bench-pk: $(BPK_TOOL_OBJS) $(CLI_COMMON_OBJS) $(PQ_OBJS) $(STATIC_LIB)
	$(CC) $(CID_LDFLAGS) $(LDFLAGS) -o $@ $(BPK_TOOL_OBJS) $(CLI_COMMON_OBJS) $(PQ_OBJS) \
	  $(STATIC_LIB) -lpq -lm

# Lease tests see the lease internals and link libpq; the minter drives
# tests/scenarios/lease.sh.
$(BUILD)/tests/test_lease%: tests/unit/test_lease%.c tests/tap.h tests/testutil.h db/lease/lease_internal.h \
    $(LEASE_STATIC) $(STATIC_LIB)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(CID_CFLAGS) -Isrc -Idb/lease -Itests -o $@ $< \
	  $(LEASE_STATIC) $(STATIC_LIB) $(CID_LDFLAGS) $(LDFLAGS) -lpq -lm

# The commands' shared option values (cli/args.c and what it calls).
$(BUILD)/tests/test_cli_args: tests/unit/test_cli_args.c tests/tap.h tests/testutil.h $(CLI_COMMON_OBJS) $(STATIC_LIB)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(CID_CFLAGS) -Icli -Isrc -Itests -o $@ $< $(CLI_COMMON_OBJS) \
	  $(STATIC_LIB) $(CID_LDFLAGS) $(LDFLAGS) -lm

# bench-pk's pure formatting (no libpq call; its header needs libpq's).
BPK_FORMAT := db/chronoid-bench-pk/bench_pk_format.c
$(BUILD)/tests/test_bench_pk: tests/unit/test_bench_pk.c tests/tap.h tests/testutil.h $(BPK_FORMAT) \
    db/chronoid-bench-pk/bench_pk_internal.h $(STATIC_LIB)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(CID_CFLAGS) $(PQ_CFLAGS) -Isrc -Idb/chronoid-bench-pk -Itests -o $@ $< $(BPK_FORMAT) \
	  $(STATIC_LIB) $(CID_LDFLAGS) $(LDFLAGS) -lm

# migrate's pacing and formatting (no libpq call; its header needs libpq's).
MIG_PACE := db/chronoid-migrate/migrate_pace.c
$(BUILD)/tests/test_migrate_pace: tests/unit/test_migrate_pace.c tests/tap.h tests/testutil.h $(MIG_PACE) \
    db/chronoid-migrate/migrate_steps_internal.h db/chronoid-migrate/migrate_internal.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(CID_CFLAGS) $(PQ_CFLAGS) -Isrc -Idb/chronoid-migrate -Itests -o $@ $< $(MIG_PACE) \
	  $(CID_LDFLAGS) $(LDFLAGS)

$(LEASE_MINTER): tests/scenarios/lease_minter.c $(LEASE_STATIC) $(STATIC_LIB)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(CID_CFLAGS) -o $@ $< $(LEASE_STATIC) $(STATIC_LIB) $(CID_LDFLAGS) $(LDFLAGS) -lpq -lm

$(BLOCK_TAKER): tests/scenarios/block_taker.c $(LEASE_STATIC) $(STATIC_LIB)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(CID_CFLAGS) -o $@ $< $(LEASE_STATIC) $(STATIC_LIB) $(CID_LDFLAGS) $(LDFLAGS) -lpq -lm

$(BUILD)/tests/test_cxx: tests/cxx/test_cxx.cpp tests/cxx/c_layout.c include/chronoid.h include/chronoid_lease.h $(STATIC_LIB)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(CID_CFLAGS) -c tests/cxx/c_layout.c -o $(BUILD)/tests/c_layout.o
	$(CXX) $(CPPFLAGS) $(CXXFLAGS) -std=c++11 -Wall -Wextra -pedantic $(if $(WERROR),-Werror) -Iinclude \
	  $(if $(SAN),-fsanitize=$(SAN) -fno-omit-frame-pointer) -pthread -o $@ $< \
	  $(BUILD)/tests/c_layout.o $(STATIC_LIB) $(CID_LDFLAGS) $(LDFLAGS) -lm

# bind/, the language packages' shared half, with its test: built without
# the lease library, as a package is where libpq is missing.
BIND_SRCS := $(sort $(wildcard bind/*.c))
$(BUILD)/tests/test_bind: tests/unit/test_bind.c tests/tap.h tests/testutil.h $(BIND_SRCS) \
  bind/bind_internal.h $(STATIC_LIB)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(CID_CFLAGS) -Isrc -Itests -Ibind -o $@ $< $(BIND_SRCS) \
	  $(STATIC_LIB) $(CID_LDFLAGS) $(LDFLAGS) -lm

$(BUILD)/tests/%: tests/unit/%.c tests/tap.h tests/testutil.h $(STATIC_LIB)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(CID_CFLAGS) -Isrc -Itests -o $@ $< $(STATIC_LIB) $(CID_LDFLAGS) $(LDFLAGS) -lm

ext:
	$(MAKE) -C pg PG_CONFIG=$(PG_CONFIG)

$(BUILD)/chronoid.1: docs/chronoid.1 include/chronoid.h
	@mkdir -p $(@D)
	sed '/^\.TH /s/"chronoid"/"chronoid $(VERSION)"/' docs/chronoid.1 >$@

# Every directory `make install` writes, checked before anything is copied:
# a user without the rights gets one message and nothing half-installed.
INSTALL_DIRS := $(INCDIR) $(LIBDIR) $(PKGCONFIGDIR) $(BINDIR) $(MANDIR)/man1 \
                $(if $(HAVE_LIBPQ),$(LIBEXECDIR)/chronoid)

# The library, its header and the ID command need only a C compiler; the
# lease library and the database tools follow where libpq was found.  The
# extension is not part of it: it goes where the server's pg_config says,
# which PREFIX does not move (make install-ext).
install: lib cli $(if $(HAVE_LIBPQ),db) $(BUILD)/chronoid.1
	@scripts/install-preflight.sh --hint 'choose a writable PREFIX (or DESTDIR), or run as root' \
	  $(addprefix $(DESTDIR),$(INSTALL_DIRS))
	install -d $(addprefix $(DESTDIR),$(INSTALL_DIRS))
	install -m 644 include/chronoid.h $(if $(HAVE_LIBPQ),include/chronoid_lease.h) $(DESTDIR)$(INCDIR)/
	install -m 644 $(STATIC_LIB) $(if $(HAVE_LIBPQ),$(LEASE_STATIC)) $(DESTDIR)$(LIBDIR)/
	install -m 644 $(SHARED_LIB) $(if $(HAVE_LIBPQ),$(LEASE_SHARED)) $(DESTDIR)$(LIBDIR)/
	ln -sf libchronoid.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libchronoid.so.$(SOVERSION)
	ln -sf libchronoid.so.$(SOVERSION) $(DESTDIR)$(LIBDIR)/libchronoid.so
	$(if $(HAVE_LIBPQ),ln -sf libchronoid_lease.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libchronoid_lease.so.$(SOVERSION))
	$(if $(HAVE_LIBPQ),ln -sf libchronoid_lease.so.$(SOVERSION) $(DESTDIR)$(LIBDIR)/libchronoid_lease.so)
	install -m 644 $(PC_FILE) $(if $(HAVE_LIBPQ),$(LEASE_PC)) $(DESTDIR)$(PKGCONFIGDIR)/
	install -m 755 $(CLI_BIN) $(DESTDIR)$(BINDIR)/
	install -m 644 $(BUILD)/chronoid.1 $(DESTDIR)$(MANDIR)/man1/
	$(if $(HAVE_LIBPQ),install -m 755 $(TOOL_BINS) $(DESTDIR)$(LIBEXECDIR)/chronoid/)
	$(ldconfig_step)

# A root install into the live system refreshes ld.so's cache (a staged one,
# DESTDIR, leaves that to whoever installs it: a package's trigger).  When
# the library is still not found that way, say how to point the linker and
# the loader at it.
define ldconfig_step
@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" -eq 0 ] && [ -n "$(LDCONFIG)" ]; then \
	  echo "$(LDCONFIG)"; PATH="$$PATH:/sbin:/usr/sbin" $(LDCONFIG) || exit 1; fi; \
	if [ -z "$(DESTDIR)" ] && ! PATH="$$PATH:/sbin:/usr/sbin" ldconfig -p 2>/dev/null | \
	    grep -qF " => $(LIBDIR)/libchronoid.so.$(SOVERSION)"; then \
	  echo "note: $(LIBDIR) is not in the loader's search path; for programs built against it:"; \
	  echo "  export PKG_CONFIG_PATH=$(PKGCONFIGDIR) LD_LIBRARY_PATH=$(LIBDIR)"; fi
endef

# The PostgreSQL extension, into the server's directories (pg_config), or
# under DESTDIR; pg/Makefile checks they can be written first.
.PHONY: install-ext uninstall-ext
install-ext:
	$(MAKE) -C pg install PG_CONFIG=$(PG_CONFIG)
uninstall-ext:
	$(MAKE) -C pg uninstall PG_CONFIG=$(PG_CONFIG)

uninstall:
	rm -f $(DESTDIR)$(INCDIR)/chronoid.h $(DESTDIR)$(INCDIR)/chronoid_lease.h \
	      $(DESTDIR)$(LIBDIR)/libchronoid.* $(DESTDIR)$(LIBDIR)/libchronoid_lease.* \
	      $(DESTDIR)$(PKGCONFIGDIR)/chronoid.pc $(DESTDIR)$(PKGCONFIGDIR)/chronoid-lease.pc \
	      $(DESTDIR)$(BINDIR)/chronoid $(TOOLS:%=$(DESTDIR)$(LIBEXECDIR)/chronoid/chronoid-%) \
	      $(DESTDIR)$(MANDIR)/man1/chronoid.1
	-rmdir $(DESTDIR)$(LIBEXECDIR)/chronoid 2>/dev/null

# The release tarball: HEAD (committed files only) under chronoid-VERSION/.
# It is named after the extension's version, pg/chronoid.control's
# default_version, because PGXN distributes it as the extension; META.json
# must say the same (scripts/pgxn-meta-check.py, which also checks it
# against PGXN's Meta Spec), and a release without its LICENSE is refused.
# The checks read HEAD's files, staged under $(BUILD)/dist, not the
# working tree's.
.PHONY: dist
dist:
	@git rev-parse --verify -q HEAD >/dev/null || { echo "dist: needs a git checkout" >&2; exit 1; }
	@git diff --quiet HEAD 2>/dev/null || echo "dist: note: uncommitted changes are not in the tarball" >&2
	@set -e; v=$$(git show HEAD:pg/chronoid.control | sed -n "s/^default_version *= *'\(.*\)'/\1/p"); \
	  test -n "$$v" || { echo "dist: no default_version in HEAD's pg/chronoid.control" >&2; exit 1; }; \
	  d=chronoid-$$v; rm -rf $(BUILD)/dist; mkdir -p $(BUILD)/dist; \
	  git archive --format=tar --prefix=$$d/ HEAD | tar -xf - -C $(BUILD)/dist; \
	  test -f $(BUILD)/dist/$$d/LICENSE || { echo "dist: HEAD has no LICENSE; a release must carry its licence" >&2; exit 1; }; \
	  scripts/pgxn-meta-check.py $(BUILD)/dist/$$d; \
	  git archive --format=tar.gz --prefix=$$d/ -o $(BUILD)/$$d.tar.gz HEAD; \
	  (cd $(BUILD) && sha256sum $$d.tar.gz >$$d.tar.gz.sha256); \
	  rm -rf $(BUILD)/dist; echo "$(BUILD)/$$d.tar.gz"; cat $(BUILD)/$$d.tar.gz.sha256

setup:
	@scripts/setup.sh

# The whole suite; its last line on stdout is "N passed, N failed, N skipped".
check: setup
	@scripts/check.sh

demo: setup
	@scripts/demo.sh

bench: setup
	@$(MAKE) -s --no-print-directory $(BUILD)/bench/bench
	@$(BUILD)/bench/bench

$(BUILD)/bench/bench: bench/bench.c $(STATIC_LIB)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(CID_CFLAGS) -O2 -o $@ $< $(STATIC_LIB) $(CID_LDFLAGS) $(LDFLAGS) -luuid -lcrypto -lm

# -Oz and LTO: the module and its glue must stay small for pages to load
# (docs/javascript.md gives the size); no entry point, the glue's exports
# (which need no prototypes: nothing in C calls them, so no
# -Wmissing-prototypes; -Wbitwise-instead-of-logical is clang's alone).
wasm: $(WASM_OUT)
$(BUILD)/wasm/%.o: %.c $(wildcard include/*.h src/*.h wasm/*.h bind/*.h)
	@mkdir -p $(@D)
	$(WASM_CC) --target=wasm32-wasi --sysroot=$(WASM_SYSROOT) -std=c11 \
	    $(if $(filter $<,$(WASM_FAST_SRCS)),-Os,-Oz) -flto \
	    -Wall -Wextra -Wno-bitwise-instead-of-logical $(if $(WERROR),-Werror) \
	    -D_GNU_SOURCE -DCID_API= -Iinclude -Isrc -Ibind -c -o $@ $<
$(WASM_OUT): $(WASM_OBJS)
	$(WASM_CC) --target=wasm32-wasi --sysroot=$(WASM_SYSROOT) -flto -mexec-model=reactor \
	    -Wl,--gc-sections -Wl,--strip-all -Wl,--lto-O3 -o $@ $(WASM_OBJS)

# One self-contained file (the module inlined in base64), so that it opens
# from the disk as well as from any static server.
inspector: $(INSPECTOR)
$(BUILD)/inspector/chronoid-cli.wasm: $(INSPECTOR_SRCS) $(wildcard include/*.h src/*.h cli/*.h wasm/*.h)
	@mkdir -p $(@D)
	$(WASM_CC) --target=wasm32-wasi --sysroot=$(WASM_SYSROOT) -std=c11 -Oz \
	    -Wall -Wextra -Wno-bitwise-instead-of-logical $(if $(WERROR),-Werror) \
	    -D_GNU_SOURCE -DCID_API= -Iinclude -Isrc -Icli -include wasm/cli.h \
	    -Wl,--gc-sections -Wl,--strip-all -o $@ $(INSPECTOR_SRCS)
$(INSPECTOR): web/inspector/index.html web/inspector/cli.js web/inspector/inspector.js \
              web/inspector/build.sh $(BUILD)/inspector/chronoid-cli.wasm
	sh web/inspector/build.sh $(BUILD)/inspector/chronoid-cli.wasm $@

# The npm package (node/, docs/javascript.md): its addon, and its benchmark
# against the npm peers, which go into $(BUILD)/bench-node (bench/node/
# package.json), never into the package's dependencies.
.PHONY: node-addon bench-node
node-addon:
	@node node/scripts/build.js
bench-node: setup node-addon
	@mkdir -p $(BUILD)/bench-node && cp bench/node/package.json $(BUILD)/bench-node/
	@cd $(BUILD)/bench-node && npm install --no-audit --no-fund --no-package-lock --loglevel=error
	@node --expose-gc bench/node/bench.mjs $(BUILD)/bench-node

# The npm package's WebAssembly build against the same peers in headless
# Chromium (web/bench/: the page bundled by esbuild, docs/benchmarks.md).
.PHONY: bench-web
bench-web: setup wasm
	@node web/bench/run.mjs

# The extension against core nextval() and gen_random_uuid(), on a throwaway
# cluster, without and with preload (as root; BENCH_PG_QUICK=1 for a smoke run).
.PHONY: bench-pg
bench-pg: setup
	@bench/pg/run.sh

# Block allocation against nextval() per ID and the hand-written UPDATE
# allocator, 1, 4 and 16 clients, and next()'s latency through a 1 s pause
# of the server (docs/benchmarks.md; as root, about 2 minutes).
.PHONY: bench-block
bench-block: setup all $(BUILD)/bench_block
	@bench/block/run.sh

$(BUILD)/bench_block: bench/block/bench_block.c $(LEASE_STATIC) $(STATIC_LIB)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(CID_CFLAGS) $(PQ_CFLAGS) -o $@ $< $(LEASE_STATIC) $(STATIC_LIB) \
	  $(CID_LDFLAGS) $(LDFLAGS) -lpq -lm

# Primary-key kinds on a throwaway cluster, as in docs/benchmarks.md
# (about 6 minutes; BENCH_PK_ROWS and BENCH_PK_REPEAT to change the size).
BENCH_PK_ROWS   ?= 5000000
BENCH_PK_REPEAT ?= 3
.PHONY: bench-pk
bench-pk: setup all
	@$(if $(HAVE_PGXS),$(MAKE) -s --no-print-directory -C pg install PG_CONFIG=$(PG_CONFIG) >/dev/null &&) \
	CHRONOID_BIN=$(CLI_BIN) bench/pk/run.sh --rows $(BENCH_PK_ROWS) --clients 2 \
		--repeat $(BENCH_PK_REPEAT) --out $(BUILD)/bench-pk

# chronoid migrate's backfill on a throwaway cluster, alone and under
# writers, and the writers' latencies against a baseline (docs/benchmarks.md;
# as root, about 25 minutes at 5,000,000 rows and 3 repeats).
BENCH_MIGRATE_ROWS   ?= 5000000
BENCH_MIGRATE_REPEAT ?= 3
.PHONY: bench-migrate
bench-migrate: setup all
	@$(if $(HAVE_PGXS),$(MAKE) -s --no-print-directory -C pg install PG_CONFIG=$(PG_CONFIG) >/dev/null &&) \
	CHRONOID_BIN=$(CLI_BIN) BENCH_MIGRATE_ROWS=$(BENCH_MIGRATE_ROWS) BENCH_MIGRATE_REPEAT=$(BENCH_MIGRATE_REPEAT) \
		bench/migrate/run.sh

# The extension on PostgreSQL 15, 17 and 18 (docs/testing.md): builds the
# servers missing from the cache (scripts/pgbuild.sh, about 15 min each on
# 2 cores: 18, and 15 from source as pg_upgrade's old server),
# then the regression suites in both modes, the scenarios that depend on
# the server version and pg_upgrade from 15 (as root).
.PHONY: check-matrix
check-matrix: setup
	@scripts/check.sh matrix

# The inner loop (docs/testing.md): build, unit tests at a small scale, the
# CLI cases, the regression suites once (fresh install, no preload), and
# the scenarios or packages named in T, e.g. make test T="migrate upgrade".
# No setup: it runs on a machine make check has set up once.
.PHONY: test
test:
	@scripts/check.sh quick $(T)

# Unit tests alone, for a quick loop (the lease minter is a helper of
# tests/scenarios/lease.sh, not a test).
test-unit: tests
	@for t in $(filter $(BUILD)/tests/test_%,$(TEST_BINS)); do echo "# $$t"; $$t || exit 1; done

# The Python package against the standard library and hand-written
# generators, one process, one table (docs/benchmarks.md; about a minute).
PYTHON ?= /usr/bin/python3
.PHONY: bench-python
bench-python: setup
	@rm -rf $(BUILD)/python/bench-site python/chronoid.egg-info
	@$(PYTHON) -m pip install --quiet --root-user-action=ignore --no-build-isolation --no-index --no-deps \
	  --target $(BUILD)/python/bench-site ./python
	@PYTHONPATH=$(BUILD)/python/bench-site $(PYTHON) bench/python/bench.py

# The Python package alone (docs/python.md): what make check runs of it.
.PHONY: test-python
test-python: setup
	@export PYTHON=$(PYTHON) BUILD=$(BUILD); python/tests/run.sh && python/tests/run.sh asan && \
	  python/tests/run.sh tsan

clean:
	rm -rf build python/build python/build-san-* python/chronoid.egg-info python/chronoid/*.so
	$(if $(HAVE_PGXS),-$(MAKE) -C pg clean PG_CONFIG=$(PG_CONFIG))

# Fuzzing and static analysis (docs/testing.md).  fuzz: every libFuzzer
# target for FUZZ_SECONDS each (crashes in build/fuzz/artifacts); lint:
# cppcheck and clang-tidy (.clang-tidy), failing on any finding.
FUZZ_SECONDS ?= 300
.PHONY: fuzz lint
fuzz: setup
	@FUZZ_SECONDS=$(FUZZ_SECONDS) tests/fuzz/run.sh long
lint: setup
	@tests/lint/run.sh

# Long fault runs (docs/faults.md): 8 clients x SOAK_SECONDS per kind of
# key, then the crash and clock scenarios, without and with preload, on a
# throwaway cluster (as root), then chronoid migrate on a live table of
# 1,000,000 rows (tests/scenarios/migrate_live.sh: writers, kills, rollback,
# the replication-lag pause; SOAK_MIGRATE_ROWS), then the application state
# machine for 20,000 steps (tests/app/run.sh; SOAK_APP_STEPS).  Prints TAP
# and a figures table.
SOAK_SECONDS ?= 60
.PHONY: soak
soak: setup
	@SOAK_SECONDS=$(SOAK_SECONDS) pg/test/soak/run.sh

# chronoid across PostgreSQL nodes joined by logical replication: three
# writers and an aggregator, clock skew, the node registry (docs/cluster.md;
# as root, about 2 minutes).  Also part of `make check`.
.PHONY: check-cluster
check-cluster: setup
	@pg/test/cluster/run.sh
