#!/usr/bin/env bash
# core_names.sh — PostgreSQL 18's core names uuidv7(), uuidv4(),
# uuid_extract_timestamp() and uuid_extract_version() (17 has the last
# two) next to chronoid's functions of the same names.  An application
# written for 18's core names runs unchanged on every version with
# chronoid, and on 18 without it; which function each name reaches on
# each version; CREATE EXTENSION beside core's functions; what differs
# (a version 6 UUID's time).  TAP on stdout; run by pg/test/run.sh
# (PGHOST, PGPORT, PGBIN set), on every server of the matrix.
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=scenario_lib.bash
. "$(dirname "$0")/scenario_lib.bash"

: "${PGBIN:?}"
export PGOPTIONS="-c client_min_messages=warning"
with=cn_with_chronoid
without=cn_without_chronoid
ver=$(q -d postgres -c "SHOW server_version_num")
major=$((ver / 10000))

for d in "$with" "$without"; do
    "$PGBIN/dropdb" --if-exists "$d" >/dev/null 2>&1
    "$PGBIN/createdb" "$d" || bail "createdb $d"
done

# CREATE EXTENSION next to core's functions of the same names (18: four
# of them; 17: two): the extension's go into its own schema.
if out=$(q -d "$with" -c "CREATE EXTENSION chronoid" 2>&1); then
    ok "PostgreSQL $major: CREATE EXTENSION chronoid"
else
    not_ok "PostgreSQL $major: CREATE EXTENSION chronoid"
    diag <<<"$out"
    tap_done
fi

# The application: written for PostgreSQL 18's core functions, no
# chronoid name in it.  Prints t when every property holds.
app() {
    q -d "$1" <<'SQL'
CREATE TABLE app_events (id uuid PRIMARY KEY DEFAULT uuidv7(),
                         token uuid NOT NULL DEFAULT uuidv4(), n int NOT NULL);
INSERT INTO app_events (n) SELECT g FROM generate_series(1, 1000) g;
SELECT count(*) = 1000
       -- RFC 9562: version 7 and 4, variant 10
       AND bool_and(uuid_extract_version(id) = 7 AND uuid_extract_version(token) = 4)
       AND bool_and(substr(id::text, 20, 1) IN ('8', '9', 'a', 'b'))
       AND bool_and(substr(token::text, 20, 1) IN ('8', '9', 'a', 'b'))
       AND bool_and(uuid_extract_timestamp(id) BETWEEN now() - interval '1 minute'
                                                   AND now() + interval '1 minute')
       AND count(DISTINCT token) = 1000
       -- one session: each UUIDv7 above the one before (18's guarantee)
       AND bool_and(prev IS NULL OR prev < id)
  FROM (SELECT id, token, lag(id) OVER (ORDER BY n) AS prev FROM app_events) t;
SELECT uuid_extract_timestamp('017f22e2-79b0-7cc3-98c4-dc0c0c07398f')
         = '2022-02-22 19:22:22.00+00'
       AND abs(extract(epoch FROM uuid_extract_timestamp(uuidv7(interval '-1 hour'))
                                  - (now() - interval '1 hour'))) < 60
       AND uuid_extract_version(uuidv4()) = 4;
DROP TABLE app_events;
SQL
}

if out=$(app "$with" 2>&1) && [ "$out" = $'t\nt' ]; then
    ok "PostgreSQL $major, chronoid: an application written for 18's uuidv7()/uuidv4() runs"
else
    not_ok "PostgreSQL $major, chronoid: an application written for 18's uuidv7()/uuidv4() runs"
    diag <<<"$out"
fi
out=$(app "$without" 2>&1)
if [ "$major" -ge 18 ]; then
    if [ "$out" = $'t\nt' ]; then
        ok "PostgreSQL $major, no chronoid: the same application runs on core's functions"
    else
        not_ok "PostgreSQL $major, no chronoid: the same application runs on core's functions"
        diag <<<"$out"
    fi
else
    # Before 18 the application needs the extension: a clear error.
    if grep -q 'function uuidv7() does not exist' <<<"$out"; then
        ok "PostgreSQL $major, no chronoid: uuidv7() does not exist"
    else
        not_ok "PostgreSQL $major, no chronoid: uuidv7() does not exist"
        diag <<<"$out"
    fi
fi

# Which function each name reaches with chronoid installed: pg_catalog is
# searched first, so core's where it has the name (17: uuid_extract_*;
# 18: also uuidv7, uuidv4), the extension's elsewhere.
resolves() {
    q -d "$with" -c "SELECT n.nspname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
                      WHERE p.oid = to_regprocedure('$1')"
}
for sig in 'uuidv7()' 'uuidv7(interval)' 'uuidv4()' 'uuid_extract_timestamp(uuid)' \
    'uuid_extract_version(uuid)' 'chronoid_uuidv7()' 'chronoid_uuid_extract_timestamp(uuid)'; do
    case $sig in
        chronoid_*) want=public ;;
        uuid_extract_*) want=$([ "$major" -ge 17 ] && echo pg_catalog || echo public) ;;
        *) want=$([ "$major" -ge 18 ] && echo pg_catalog || echo public) ;;
    esac
    got=$(resolves "$sig" 2>&1)
    if [ "$got" = "$want" ]; then
        ok "PostgreSQL $major, chronoid: $sig is $want's"
    else
        not_ok "PostgreSQL $major, chronoid: $sig is $want's"
        diag <<<"got: $got"
    fi
done

# The extension's members keep their names on every version (so the same
# install script serves 13 to 18, and chronoid_* reach them on 18).
n=$(q -d "$with" -c "SELECT count(*) FROM pg_depend d JOIN pg_proc p ON p.oid = d.objid
                      JOIN pg_extension e ON e.oid = d.refobjid
                     WHERE d.deptype = 'e' AND e.extname = 'chronoid'
                       AND p.proname IN ('uuidv7', 'uuidv4', 'uuid_extract_timestamp',
                                         'uuid_extract_version')")
if [ "$n" = 5 ]; then
    ok "PostgreSQL $major, chronoid: its uuidv7() x2, uuidv4(), uuid_extract_*() are members"
else
    not_ok "PostgreSQL $major, chronoid: its uuidv7() x2, uuidv4(), uuid_extract_*() are members"
    diag <<<"members found: $n"
fi

# What a user sees differ: a version 6 UUID (RFC 9562 A.5).  Core's
# uuid_extract_timestamp() (17+) reads versions 1 and 7 only; chronoid's
# reads 6 too, under its own name on 17+.
v6=1ec9414c-232a-6b00-b3c8-9f6bdeced846
got=$(q -d "$with" -c "SELECT coalesce(uuid_extract_timestamp('$v6')::text, 'null'),
                              chronoid_uuid_extract_timestamp('$v6')")
if [ "$major" -ge 17 ]; then want="null|2022-02-22 19:22:22+00"; else want="2022-02-22 19:22:22+00|2022-02-22 19:22:22+00"; fi
if [ "$got" = "$want" ]; then
    ok "PostgreSQL $major: a version 6 UUID's time: uuid_extract_timestamp | chronoid_ = $want"
else
    not_ok "PostgreSQL $major: a version 6 UUID's time: uuid_extract_timestamp | chronoid_ = $want"
    diag <<<"got: $got"
fi

# A shift out of UUIDv7's range is 22008 whichever function answers.
for d in "$with" "$without"; do
    [ "$d" = "$without" ] && [ "$major" -lt 18 ] && continue
    out=$(q -d "$d" -c "DO \$\$ BEGIN PERFORM uuidv7(interval '9000 years');
                          RAISE EXCEPTION 'no error';
                        EXCEPTION WHEN datetime_field_overflow THEN NULL; END \$\$" 2>&1)
    if [ -z "$out" ]; then
        ok "PostgreSQL $major, $d: uuidv7(interval '9000 years') is 22008"
    else
        not_ok "PostgreSQL $major, $d: uuidv7(interval '9000 years') is 22008"
        diag <<<"$out"
    fi
done

for d in "$with" "$without"; do "$PGBIN/dropdb" --if-exists "$d" >/dev/null 2>&1; done
tap_done
