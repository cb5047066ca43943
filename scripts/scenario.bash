# shellcheck shell=bash
# scenario.bash — the opening that every bash test script with a server
# shares, sourced (never run): each tests/scenarios/*.sh, from the
# repository root,
#
#   cd "$(dirname "$0")/../.."
#   . scripts/scenario.bash
#   scenario_needs server extension chronoid-migrate
#   . scripts/pgcluster.sh && pgc_start ... || bail "..."
#
# and, by its own path, pg/test/scenarios/scenario_lib.bash, pg/test/cluster
# and pg/test/pg_upgrade.sh.  It brings TAP (scripts/tap.bash), UTC and the
# C locale, BUILD (default build/) and bin (its chronoid), and two helpers:
#
#   scenario_needs WHAT...   skip the whole script (TAP "1..0 # SKIP") when
#                            something it cannot make is missing, and build
#                            or install what it can:
#                              server     PostgreSQL's initdb (PG_CONFIG's)
#                              pgbench    pgbench beside it
#                              pgxs       the server's development files
#                              root       running as root
#                              extension  chronoid installed into that server
#                                         (make -C pg install when missing)
#                              NAME       a make target under $BUILD
#                                         (chronoid-migrate, tests/lease_minter),
#                                         built with the CLI when missing
#   q [SQL | PSQL-ARGS...]   the one psql of the tests: -XAtq with
#                            ON_ERROR_STOP, errors (and notices) in the
#                            output; one argument is the SQL to run; more
#                            are psql's own (q -d db -c "..."); none reads
#                            the SQL from standard input.  The cluster's own
#                            psql (PGC_BIN, set by scripts/pgcluster.sh;
#                            PGBIN under pg/test/run.sh), else PATH's.
#                            Q_PGOPTIONS, when set, is q's PGOPTIONS (and
#                            only q's: migrate_privilege.sh pins the
#                            search_path of its own queries, never the
#                            tool's).
#   qs_open [PSQL-ARGS...]   a persistent session for the many small
#   qs SQL                   read-only checks a script makes: every q
#   qs_close                 starts a psql and a server backend (about
#                            0.1 s of CPU on a small machine), and a loop
#                            that checks after each step pays that each
#                            time; qs pays it once.  qs_open starts one
#                            psql (q's binary, -XAtq, Q_PGOPTIONS, the
#                            args as q's: qs_open -d postgres) on two
#                            FIFOs, ON_ERROR_STOP off, and no child of
#                            the script (a bare `wait` does not wait for
#                            it; pipelines and subshells may call qs).
#                            qs SQL prints what q SQL prints (the rows,
#                            -At; an error's text) and returns non-zero
#                            when the SQL failed, 2 when the session is
#                            gone (a server restart ends it: open it
#                            again) or gave no answer in QS_TIMEOUT
#                            seconds (300; then it is closed).
#                            qs_close ends it; qs_open closes
#                            the one before (one session at a time), and
#                            exit closes it (pgc_atexit, before the server
#                            stops).  Limits: one statement per call (a
#                            trailing ; or none, both fine; after an error
#                            in a list the rest still runs, unlike q); the
#                            SQL goes through psql's lexer as a script
#                            line would (a backslash outside quotes is a
#                            meta-command, :name a variable); the session
#                            lives on between calls, so no BEGIN, SET or
#                            temporary table: only queries that a fresh
#                            session would answer the same (autocommit,
#                            read committed: each call sees what others
#                            committed before it); small results (read a
#                            byte at a time); one caller at a time (a
#                            background job's calls and the script's
#                            would interleave on the one pipe); never on
#                            a database the script drops while the
#                            session is open (dropdb refuses while it is
#                            connected).
#
# and, for the scenarios that need them:
#
#   standin NAME             build and install pg/test/standins/NAME
#                            (pgedge, pg_uuidv7, pgx_ulid: look-alikes of
#                            the extensions `chronoid migrate from-extension`
#                            replaces) into PG_CONFIG's server, removed
#                            again at exit, holding /tmp/chronoid-standins.lock
#                            (CHRONOID_STANDINS_LOCK) from the first until
#                            then, waiting CHRONOID_PG_LOCK_WAIT seconds
#                            (1800) for it; source scripts/pgcluster.sh and
#                            call pgc_mkdir first (its make output goes to
#                            $PGC_DIR/standin_NAME.log; status 1 on failure)
#   set_run_ahead 'ALTER SYSTEM ...' SHOWN
#                            change snowflake.max_run_ahead server-wide and
#                            wait until a new session shows SHOWN (a reload
#                            is asynchronous); 1 when it never does

_scenario_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=tap.bash
. "$_scenario_root/scripts/tap.bash"
export TZ=UTC LC_ALL=C
BUILD=${BUILD:-build}
bin=$PWD/$BUILD/chronoid

scenario_needs() {
    local what pg_config=${PG_CONFIG:-pg_config} targets=()
    for what in "$@"; do
        case $what in
            server)
                command -v "$pg_config" >/dev/null 2>&1 && [ -x "$("$pg_config" --bindir)/initdb" ] ||
                    skip_all "PostgreSQL server binaries not installed" ;;
            pgbench)
                [ -x "$("$pg_config" --bindir)/pgbench" ] || skip_all "pgbench not installed" ;;
            pgxs)
                [ -f "$("$pg_config" --pgxs 2>/dev/null)" ] ||
                    skip_all "PostgreSQL server development files not installed" ;;
            root)
                [ "$(id -u)" -eq 0 ] || skip_all "must run as root (the server runs as postgres; roles are created)" ;;
            extension)
                [ -f "$("$pg_config" --sharedir)/extension/chronoid.control" ] ||
                    make -s --no-print-directory -C pg PG_CONFIG="$pg_config" install >/dev/null 2>&1 ||
                    bail "install the extension (make -C pg install)" ;;
            *)
                [ -x "$PWD/$BUILD/$what" ] || targets+=("$BUILD/$what") ;;
        esac
    done
    if [ ! -x "$bin" ] || [ ${#targets[@]} -gt 0 ]; then
        make -s --no-print-directory BUILD="$BUILD" cli "${targets[@]}" >/dev/null 2>&1 ||
            bail "build $bin ${targets[*]}"
    fi
}

# _q_psql: the psql of q and qs, in _psql.
_q_psql() {
    _psql=psql
    if [ -n "${PGC_BIN:-}" ]; then _psql=$PGC_BIN/psql; elif [ -n "${PGBIN:-}" ]; then _psql=$PGBIN/psql; fi
}

q() {
    local _psql
    _q_psql
    [ $# -eq 1 ] && set -- -c "$1"
    PGOPTIONS=${Q_PGOPTIONS-${PGOPTIONS-}} "$_psql" -XAtq -v ON_ERROR_STOP=1 "$@" 2>&1
}

# slot_caught_up SLOT [psql options...]: true once the logical slot SLOT
# has confirmed everything the server (q with the options) had written when
# asked, within 30 s: a subscriber has then applied every change before.
slot_caught_up() {
    local slot=$1 lsn
    shift
    lsn=$(q "$@" -c "SELECT pg_current_wal_lsn()") || return 1
    for _ in $(seq 300); do
        [ "$(q "$@" -c "SELECT count(*) FROM pg_replication_slots
                        WHERE slot_name = '$slot' AND confirmed_flush_lsn >= '$lsn'")" = 1 ] && return 0
        sleep 0.1
    done
    return 1
}

_qs_pid='' _qs_in='' _qs_out='' _qs_mark='' _qs_atexit=''
qs_open() {
    local _psql dir rw got
    qs_close
    _q_psql
    if ! dir=$(mktemp -d "${TMPDIR:-/tmp}/chronoid-qs.XXXXXX") || ! mkfifo "$dir/in" "$dir/out"; then
        echo "qs_open: no FIFOs in ${TMPDIR:-/tmp}"
        return 1
    fi
    # psql on two FIFOs rather than a coprocess: bash closes a coprocess's
    # pipes in pipelines and ( ) subshells, and a script's bare `wait`
    # would wait for it.  Started from a subshell that ends at once, psql
    # is no child of the script.  Opening "in" read-write never blocks;
    # opening "out" waits for psql to open it, after "in"; then "in"
    # write-only, so that a write to a psql that died fails at once.
    exec {rw}<>"$dir/in"
    (
        PGOPTIONS=${Q_PGOPTIONS-${PGOPTIONS-}} "$_psql" -XAtq -v ON_ERROR_STOP=0 "$@" <"$dir/in" >"$dir/out" 2>&1 &
        echo $! >"$dir/pid"
    )
    exec {_qs_out}<"$dir/out" {_qs_in}>"$dir/in" {rw}>&-
    read -r _qs_pid <"$dir/pid"
    rm -rf "$dir"
    # Ends each answer; no row of a check looks like it.  Not from
    # $RANDOM: a script may have seeded it for its own draws.
    _qs_mark="@@qs:$$:${EPOCHREALTIME/[.,]/}@@"
    if [ -z "$_qs_atexit" ] && declare -F pgc_atexit >/dev/null; then
        pgc_atexit qs_close
        _qs_atexit=1
    fi
    got=$(qs "SELECT 'qs ready'") && [ "$got" = "qs ready" ] && return 0
    printf 'qs_open: the session did not start: %s\n' "$got"
    qs_close
    return 1
}

qs() {
    local sql=${1-} line st
    if [ $# -ne 1 ]; then
        echo "qs: one argument, the SQL (got $#)"
        return 2
    fi
    if [ -z "$_qs_pid" ] || ! kill -0 "$_qs_pid" 2>/dev/null; then
        echo "qs: no session (qs_open starts one; a server restart ends it)"
        return 2
    fi
    # Without its last ;: psql sends a lone ; as an empty query, which
    # clears :ERROR.  The ; goes on a line of its own, after a trailing
    # comment.  LAST_ERROR_SQLSTATE keeps an error of an earlier statement
    # of the same call, which :ERROR forgets.
    while [[ $sql == *[[:space:]\;] ]]; do sql=${sql%?}; done
    # A psql that has died must fail the write, not end the script (SIGPIPE).
    trap '' PIPE
    printf '\\set LAST_ERROR_SQLSTATE 00000\n%s\n;\n\\echo %s :ERROR :LAST_ERROR_SQLSTATE\n' "$sql" "$_qs_mark" 2>/dev/null 1>&"$_qs_in"
    st=$?
    trap - PIPE
    if [ $st -eq 0 ]; then
        while :; do
            IFS= read -r -t "${QS_TIMEOUT:-300}" -u "$_qs_out" line || { st=$?; break; }
            if [[ $line == "$_qs_mark "* ]]; then
                [ "${line#"$_qs_mark "}" = "false 00000" ]
                return
            fi
            printf '%s\n' "$line"
        done
        [ -n "$line" ] && printf '%s\n' "$line"
    fi
    if [ "$st" -gt 128 ]; then
        echo "qs: no answer in ${QS_TIMEOUT:-300} s; session closed"
    else
        echo "qs: the session ended (its psql exited; a server restart ends it)"
    fi
    qs_close
    return 2
}

# qs_close: psql is ended by its pid, not by the end of its input: a
# child the script started meanwhile may hold a copy of that pipe.
qs_close() {
    [ -n "$_qs_pid" ] || return 0
    exec {_qs_in}>&- {_qs_out}<&-
    kill "$_qs_pid" 2>/dev/null
    _qs_pid='' _qs_in='' _qs_out=''
    return 0
}

_standins=()
standin() {
    local s=$1 dir=$_scenario_root/pg/test/standins/$1 pg_config=${PG_CONFIG:-pg_config}
    # The stand-ins' files are the server's, shared by every cluster on
    # the machine, and built in one source folder: one script at a time
    # uses them, from its first stand-in until it has removed them at
    # exit (the lock goes with the process).
    if [ ${#_standins[@]} -eq 0 ]; then
        pgc_lock "${CHRONOID_STANDINS_LOCK:-/tmp/chronoid-standins.lock}" || {
            echo "$PGC_LOCK_ERROR" >"$PGC_DIR/standin_$s.log"
            return 1
        }
    fi
    if [[ " ${_standins[*]} " != *" $s "* ]]; then
        _standins+=("$s")
        pgc_atexit "make -s -C '$dir' PG_CONFIG='$pg_config' uninstall >/dev/null 2>&1; make -s -C '$dir' clean >/dev/null 2>&1"
    fi
    make -s -C "$dir" PG_CONFIG="$pg_config" install >"$PGC_DIR/standin_$s.log" 2>&1
}

# ALTER SYSTEM knows snowflake.max_run_ahead only once the module is
# loaded in the session.
set_run_ahead() {
    q -d postgres -c "LOAD 'chronoid'" -c "ALTER SYSTEM ${1}" -c "SELECT pg_reload_conf()" >/dev/null
    for _ in $(seq 1 100); do
        [ "$(q -d postgres -c "LOAD 'chronoid'" -c "SHOW snowflake.max_run_ahead")" = "$2" ] && return 0
        sleep 0.1
    done
    return 1
}
