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

q() {
    local psql=psql
    if [ -n "${PGC_BIN:-}" ]; then psql=$PGC_BIN/psql; elif [ -n "${PGBIN:-}" ]; then psql=$PGBIN/psql; fi
    [ $# -eq 1 ] && set -- -c "$1"
    PGOPTIONS=${Q_PGOPTIONS-${PGOPTIONS-}} "$psql" -XAtq -v ON_ERROR_STOP=1 "$@" 2>&1
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
