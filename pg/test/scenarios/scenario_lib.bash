# shellcheck shell=bash
# scenario_lib.bash — what every scenario under pg/test/scenarios shares:
# scripts/scenario.bash (TAP; q, the tests' one psql: quiet, unaligned,
# stopping at the first error, errors in the output; set_run_ahead), and
# fresh_db, wait_ready and need_faketime.  Sourced, not run (pg/test/run.sh runs
# only scenarios/*.sh).

# shellcheck source=../../../scripts/scenario.bash
. "$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)/scripts/scenario.bash"

# fresh_db DB: DB made anew (dropped first, if an earlier run left it)
# with chronoid created in it; the scenario bails out when it cannot be.
fresh_db() {
    "$PGBIN/dropdb" --if-exists "$1" >/dev/null 2>&1
    if ! "$PGBIN/createdb" "$1" || ! q -d "$1" -c "CREATE EXTENSION chronoid"; then
        bail "create database $1 and extension"
    fi
}

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

# Every process under libfaketime (0.9.10) shares one POSIX semaphore, and
# its stat() takes it to fake the file times.  A process killed with
# SIGKILL inside stat() never gives it back: every later stat() in the
# server waits forever, deaf to SIGTERM (sem_wait is retried on EINTR), so
# new backends hang and a fast shutdown is ignored.  The scenarios kill
# backends on purpose; no file time needs faking, so stat() stays real.
export NO_FAKE_STAT=1

# need_faketime [CASE]: sets lib to libfaketime's path, or skips the whole
# scenario (as CASE, default "all cases") when it is not installed.
need_faketime() {
    lib=$(faketime_lib) && return 0
    skip "${1:-all cases}" "libfaketime not installed (Debian package faketime)"
    tap_done
}
