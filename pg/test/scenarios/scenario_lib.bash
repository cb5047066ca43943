# shellcheck shell=bash
# scenario_lib.bash — what every scenario under pg/test/scenarios shares:
# TAP output (scripts/tap.bash), q (psql, quiet, unaligned, stopping at
# the first error), wait_ready and set_run_ahead.  Sourced, not run
# (pg/test/run.sh runs only scenarios/*.sh).

# shellcheck source=../../../scripts/tap.bash
. "$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)/scripts/tap.bash"

q() { "$PGBIN/psql" -X -q -At -v ON_ERROR_STOP=1 "$@"; }

# wait_ready [TENTHS]: until the server accepts connections again (a
# crash restart), at most TENTHS tenths of a second (default 100); 1 when
# it never does.
wait_ready() {
    local _i
    for _i in $(seq 1 "${1:-100}"); do
        q -d postgres -c "SELECT 1" >/dev/null 2>&1 && return 0
        sleep 0.1
    done
    return 1
}

# set_run_ahead 'ALTER SYSTEM ...' SHOWN: change snowflake.max_run_ahead
# server-wide and wait until a new session shows SHOWN (a reload is
# asynchronous); 1 when it never does.  ALTER SYSTEM knows the setting
# only once the module is loaded in the session.
set_run_ahead() {
    q -d postgres -c "LOAD 'chronoid'" -c "ALTER SYSTEM ${1}" -c "SELECT pg_reload_conf()" >/dev/null
    for _ in $(seq 1 100); do
        [ "$(q -d postgres -c "LOAD 'chronoid'" -c "SHOW snowflake.max_run_ahead")" = "$2" ] && return 0
        sleep 0.1
    done
    return 1
}

# faketime_lib: the path of libfaketime (Debian package faketime) on
# stdout; 1 when it is not installed.
faketime_lib() {
    local f
    for f in /usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1 \
        /usr/lib/*/faketime/libfaketime.so.1 /usr/lib/faketime/libfaketime.so.1; do
        if [ -f "$f" ]; then echo "$f"; return 0; fi
    done
    return 1
}

# need_faketime [CASE]: sets lib to libfaketime's path, or skips the whole
# scenario (as CASE, default "all cases") when it is not installed.
need_faketime() {
    lib=$(faketime_lib) && return 0
    skip "${1:-all cases}" "libfaketime not installed (Debian package faketime)"
    tap_done
}
