# shellcheck shell=bash
# pgcluster.sh — a throwaway PostgreSQL cluster for tests, the demo and the
# benchmarks.  Source it from bash; it runs nothing by itself.
#
#   . scripts/pgcluster.sh
#   pgc_start "shared_preload_libraries = 'chronoid'"   # initdb + start
#   psql -c 'SELECT 1'                                   # PGHOST etc. are set
#   pgc_restart "snowflake.node = 7"                     # more settings
#   pgc_stop                                             # or just exit
#
# The cluster lives in a fresh temporary directory (mktemp -d) owned by the
# postgres OS user: the server runs as postgres (initdb refuses root; when
# the caller is not root it runs as the caller), listens on a Unix socket in
# that directory only (listen_addresses = ''), on a port no local server
# answers on.  On EXIT, INT or TERM the server is stopped and the directory
# removed, whatever happened.
#
# Functions:
#   pgc_mkdir                    only the temp dir (and the traps), e.g. for logs
#   pgc_init [conf lines...]     temp dir + initdb; the lines go to postgresql.conf
#   pgc_start [conf lines...]    pgc_init if needed, then start; waits until ready
#   pgc_restart [conf lines...]  append the lines, restart (later lines win)
#   pgc_stop                     stop (fast, else immediate), remove the dir
#   pgc_pgctl args...            pg_ctl on this cluster, as the server's user
#   pgc_atexit 'command'         run a command at exit, before the server stops
#   pgc_second NAME [conf...]    a second server beside the first (a logical
#                                subscriber): below
#   pgc_install [targets...]     this tree's extension into the server's dirs
# Exported after pgc_init: PGC_DIR (temp dir; after pgc_mkdir too), PGC_DATA, PGC_SOCK, PGC_LOG
# (server log), PGC_BIN (server binaries, from `pg_config --bindir`), PGC_PORT,
# and libpq's PGHOST, PGPORT, PGUSER=postgres, PGDATABASE (PGC_DATABASE, else
# postgres).
#
# Traps: pgc_mkdir (so pgc_init, pgc_start) sets traps on EXIT, INT and TERM.  A caller's EXIT trap set
# before pgc_init still runs (first); to add cleanup afterwards, use
# pgc_atexit instead of `trap ... EXIT`, which would replace this one.
# Source it in the shell that owns the cluster, not in a subshell: traps and
# variables do not travel back out of $(...).
# Settings: PG_CONFIG (default pg_config), PGC_TMPDIR (default /tmp),
# PGC_PREFIX (temp dir name prefix, default chronoid-pg), PGC_PORTS (ports to
# probe, default "5490 ... 5599"), CHRONOID_INITDB_TEMPLATE (below).
#
# CHRONOID_INITDB_TEMPLATE=DIR (make check sets it): pgc_init copies the
# new cluster from a template that initdb made once per server binaries,
# in DIR, instead of running initdb itself.  initdb costs more than a
# second of CPU here and make check makes dozens of clusters; a copy costs
# a few hundredths.  PostgreSQL's own suites do the same since version 17
# (INITDB_TEMPLATE).  Clusters copied from one template share its system
# identifier: never use one for a test where two servers must be told
# apart by it (the node registry's claims across servers).  Unset, or not
# a directory, every cluster gets its own initdb.

PGC_DIR=
_pgc_started=
_pgc_atexit=()
_pgc_prev_exit=

# _pgc_as_owner CMD...: run a command as the server's OS user.
_pgc_as_owner() {
    if [ "$(id -u)" -eq 0 ]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

_pgc_exit_trap() {
    local rc=$? cmd
    for cmd in "${_pgc_atexit[@]}"; do
        eval "$cmd" || true
    done
    pgc_stop
    if [ -n "$_pgc_prev_exit" ]; then
        eval "$_pgc_prev_exit" || true
    fi
    return "$rc"
}

_pgc_install_traps() {
    local prev
    # Keep a caller's EXIT trap: `trap -p EXIT` prints "trap -- 'cmd' EXIT".
    prev=$(trap -p EXIT)
    if [ -n "$prev" ] && [[ $prev != *_pgc_exit_trap* ]]; then
        prev=${prev#trap -- }
        prev=${prev% EXIT}
        eval "_pgc_prev_exit=$prev"
    fi
    trap _pgc_exit_trap EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
}

pgc_atexit() {
    _pgc_atexit+=("$1")
}

pgc_pgctl() {
    _pgc_as_owner "$PGC_BIN/pg_ctl" -D "$PGC_DATA" -l "$PGC_LOG" -w "$@"
}

# _pgc_conf LINES...: append settings to postgresql.conf.
_pgc_conf() {
    local line
    for line in "$@"; do
        printf '%s\n' "$line"
    done | _pgc_as_owner tee -a "$PGC_DATA/postgresql.conf" >/dev/null
}

# pgc_lock [FILE]: take FILE's lock (default /tmp/chronoid-pg.lock, the
# one every suite that installs the extension into the server's shared
# directories holds) and keep it until this shell exits.  Waits
# CHRONOID_PG_LOCK_WAIT seconds (1800): on a busy machine a failure that
# says why beats a suite killed by someone's timeout.  Status 1 when the
# lock never came, with PGC_LOCK_ERROR saying so.  Not in $(...): the
# lock would go with the subshell.
pgc_lock() {
    local file=${1:-/tmp/chronoid-pg.lock} fd
    PGC_LOCK_ERROR="could not open $file"
    exec {fd}>"$file" || return 1
    flock -w "${CHRONOID_PG_LOCK_WAIT:-1800}" "$fd" && return 0
    exec {fd}>&-
    PGC_LOCK_ERROR="waited ${CHRONOID_PG_LOCK_WAIT:-1800} s for $file"
    return 1
}

# pgc_installed_by_caller: make check installed the extension for
# PG_CONFIG's server before its jobs started (CHRONOID_PG_INSTALLED names
# that pg_config), so no suite installs it again.
pgc_installed_by_caller() {
    [ "${CHRONOID_PG_INSTALLED:-}" = "${PG_CONFIG:-pg_config}" ]
}

# pgc_install [TARGET...]: make -C pg install TARGET... for PG_CONFIG's
# server, quietly.  When the caller installed it (pgc_installed_by_caller)
# this only checks that the files are there, so that no suite rewrites
# chronoid.so while another job's servers are loading it.
pgc_install() {
    local pg_config=${PG_CONFIG:-pg_config}
    if pgc_installed_by_caller; then
        [ -f "$("$pg_config" --sharedir)/extension/chronoid.control" ] && return 0
        echo "pgcluster: CHRONOID_PG_INSTALLED=$pg_config, but its server has no chronoid.control" >&2
        return 1
    fi
    make -s --no-print-directory -C "$(dirname "${BASH_SOURCE[0]}")/../pg" PG_CONFIG="$pg_config" install "$@"
}

pgc_mkdir() {
    if [ -z "$PGC_DIR" ]; then
        PGC_DIR=$(mktemp -d "${PGC_TMPDIR:-/tmp}/${PGC_PREFIX:-chronoid-pg}.XXXXXX") || return 1
        chmod 755 "$PGC_DIR"
        export PGC_DIR
        _pgc_install_traps
    fi
}

# _pgc_initdb DATA: a new cluster in DATA, as the server's user: initdb,
# or a copy of CHRONOID_INITDB_TEMPLATE's for PGC_BIN (made on first use,
# under a lock, by the same initdb).
_pgc_initdb() {
    local data=$1 tmpl
    set -- -U postgres -A trust -E UTF8 --locale=C --no-sync
    if [ -z "${CHRONOID_INITDB_TEMPLATE:-}" ] || [ ! -d "$CHRONOID_INITDB_TEMPLATE" ]; then
        _pgc_as_owner "$PGC_BIN/initdb" -D "$data" "$@"
        return
    fi
    tmpl=$CHRONOID_INITDB_TEMPLATE/$(printf '%s' "$PGC_BIN" | tr -c 'A-Za-z0-9.\n' _)
    (
        flock 9 || exit 1
        [ -f "$tmpl/data/PG_VERSION" ] && exit 0
        rm -rf "$tmpl" && mkdir -p "$tmpl" || exit 1
        [ "$(id -u)" -eq 0 ] && chown postgres: "$tmpl"
        _pgc_as_owner "$PGC_BIN/initdb" -D "$tmpl/data" "$@"
    ) 9>>"$CHRONOID_INITDB_TEMPLATE/lock" || return 1
    echo "pgcluster: a copy of $tmpl/data (CHRONOID_INITDB_TEMPLATE)"
    _pgc_as_owner cp -a "$tmpl/data" "$data"
}

pgc_init() {
    local pg_config=${PG_CONFIG:-pg_config} p
    if [ -n "$PGC_DIR" ] && [ -d "$PGC_DIR/data" ]; then
        echo "pgcluster: a cluster already exists in $PGC_DIR" >&2
        return 1
    fi
    if [ "$(id -u)" -eq 0 ] && ! id postgres >/dev/null 2>&1; then
        echo "pgcluster: no postgres OS user to run the server as" >&2
        return 1
    fi
    PGC_BIN=$("$pg_config" --bindir) || return 1
    pgc_mkdir || return 1
    PGC_DATA=$PGC_DIR/data
    PGC_SOCK=$PGC_DIR/sock
    PGC_LOG=$PGC_DIR/server.log
    # The port only names the socket file, but stay clear of ports a local
    # server answers on, so that a stray PGHOST cannot reach the wrong one.
    PGC_PORT=
    for p in ${PGC_PORTS:-$(seq 5490 5599)}; do
        if ! "$PGC_BIN/pg_isready" -q -h localhost -p "$p" >/dev/null 2>&1 &&
            ! "$PGC_BIN/pg_isready" -q -h /var/run/postgresql -p "$p" >/dev/null 2>&1; then
            PGC_PORT=$p
            break
        fi
    done
    if [ -z "$PGC_PORT" ]; then
        echo "pgcluster: no free port in ${PGC_PORTS:-5490-5599}" >&2
        return 1
    fi
    mkdir -p "$PGC_SOCK"
    [ "$(id -u)" -eq 0 ] && chown -R postgres: "$PGC_DIR"
    if ! _pgc_initdb "$PGC_DATA" >"$PGC_DIR/initdb.log" 2>&1; then
        echo "pgcluster: initdb failed (log: $PGC_DIR/initdb.log):" >&2
        tail -n 20 "$PGC_DIR/initdb.log" >&2
        return 1
    fi
    # A throwaway cluster: no durability wanted.
    _pgc_conf "port = $PGC_PORT" "listen_addresses = ''" \
        "unix_socket_directories = '$PGC_SOCK'" "fsync = off" "$@"
    unset PGHOSTADDR PGSERVICE
    export PGC_DIR PGC_DATA PGC_SOCK PGC_LOG PGC_BIN PGC_PORT
    export PGHOST=$PGC_SOCK PGPORT=$PGC_PORT PGUSER=postgres
    export PGDATABASE=${PGC_DATABASE:-postgres}
}

pgc_start() {
    if [ -z "$PGC_DIR" ] || [ ! -d "$PGC_DIR/data" ]; then
        pgc_init "$@" || return 1
    elif [ $# -gt 0 ]; then
        _pgc_conf "$@"
    fi
    # Set before starting: a half-started server is stopped at exit too.
    _pgc_started=1
    if ! pgc_pgctl start >/dev/null 2>&1; then
        echo "pgcluster: the server did not start (log: $PGC_LOG):" >&2
        tail -n 20 "$PGC_LOG" >&2
        return 1
    fi
}

pgc_restart() {
    [ $# -gt 0 ] && _pgc_conf "$@"
    _pgc_started=1
    if ! pgc_pgctl restart >/dev/null 2>&1; then
        echo "pgcluster: the server did not restart (log: $PGC_LOG):" >&2
        tail -n 20 "$PGC_LOG" >&2
        return 1
    fi
}

pgc_stop() {
    if [ -n "$_pgc_started" ] && [ -f "$PGC_DATA/postmaster.pid" ]; then
        pgc_pgctl -m fast -t 30 stop >/dev/null 2>&1 ||
            pgc_pgctl -m immediate stop >/dev/null 2>&1
    fi
    _pgc_started=
    if [ -n "$PGC_DIR" ]; then
        rm -rf "$PGC_DIR"
        PGC_DIR=
    fi
    return 0
}

# pgc_second NAME [conf lines...]: a second server beside this one (pgc_start
# first), private to the caller: its own initdb (not a copy of the template:
# it is another system) in $PGC_DIR/NAME, listening only on its own socket
# directory under the same port number, stopped at exit with the first.
# Sets PGC2_DATA, PGC2_SOCK and PGC2_LOG; q -h "$PGC2_SOCK" reaches it.
pgc_second() {
    local name=$1
    shift
    PGC2_DATA=$PGC_DIR/$name/data
    PGC2_SOCK=$PGC_DIR/$name/sock
    PGC2_LOG=$PGC_DIR/$name/server.log
    mkdir -p "$PGC2_SOCK" || return 1
    chmod 700 "$PGC_DIR/$name"
    [ "$(id -u)" -eq 0 ] && chown -R postgres: "$PGC_DIR/$name"
    if ! _pgc_as_owner "$PGC_BIN/initdb" -D "$PGC2_DATA" -U postgres -A trust -E UTF8 --locale=C \
        --no-sync >"$PGC_DIR/$name/initdb.log" 2>&1; then
        echo "pgcluster: initdb of $name failed (log: $PGC_DIR/$name/initdb.log)" >&2
        return 1
    fi
    printf '%s\n' "port = $PGC_PORT" "listen_addresses = ''" "unix_socket_directories = '$PGC2_SOCK'" \
        "fsync = off" "$@" | _pgc_as_owner tee -a "$PGC2_DATA/postgresql.conf" >/dev/null
    export PGC2_DATA PGC2_SOCK PGC2_LOG
    pgc_atexit '_pgc_as_owner "$PGC_BIN/pg_ctl" -D "$PGC2_DATA" -m immediate -w stop >/dev/null 2>&1'
    if ! _pgc_as_owner "$PGC_BIN/pg_ctl" -D "$PGC2_DATA" -l "$PGC2_LOG" -w start >/dev/null 2>&1; then
        echo "pgcluster: $name did not start (log: $PGC2_LOG):" >&2
        tail -n 5 "$PGC2_LOG" >&2
        return 1
    fi
}
