# shellcheck shell=bash
# scenario.bash — the opening that every tests/scenarios/*.sh shares,
# sourced (never run) from the repository root:
#
#   cd "$(dirname "$0")/../.."
#   . scripts/scenario.bash
#   scenario_needs server extension chronoid-migrate
#   . scripts/pgcluster.sh && pgc_start ... || bail "..."
#
# It brings TAP (scripts/tap.bash), UTC and the C locale, BUILD (default
# build/) and bin (its chronoid), and two helpers:
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
#   q [SQL | PSQL-ARGS...]   psql -XAtq with ON_ERROR_STOP, errors in the
#                            output: one argument is the SQL to run; more
#                            are psql's own (q -d db -c "..."); none reads
#                            the SQL from standard input.

. scripts/tap.bash
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
    if [ $# -eq 1 ]; then
        psql -XAtq -v ON_ERROR_STOP=1 -c "$1" 2>&1
    else
        psql -XAtq -v ON_ERROR_STOP=1 "$@" 2>&1
    fi
}
