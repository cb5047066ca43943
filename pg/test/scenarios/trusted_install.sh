#!/usr/bin/env bash
# trusted_install.sh — chronoid is a trusted extension (pg/chronoid.control,
# docs/postgresql.md "Who may install it"): a database owner who is not a
# superuser may create, update and drop it, and gains nothing by it.  The
# members belong to the bootstrap superuser; the owner cannot set
# snowflake.node, reach the registry's writers, change or remove a claim,
# move the mark's guard or alter a member; objects the owner planted first (schema snowflake, a
# look-alike in the target schema, temporary tables named like the
# extension's) make the install fail or are ignored, never used.  TAP on
# stdout; run by pg/test/run.sh (PGHOST, PGPORT, PGBIN set).
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=scenario_lib.bash
. "$(dirname "$0")/scenario_lib.bash"

: "${PGBIN:?}"
db=sf_trusted
owner=sf_trusted_owner
unset PGOPTIONS

# as_owner SQL...: one session of the database owner (psql -c each),
# stdout and stderr, SQLSTATEs shown.
as_owner() {
    local args=() s
    for s in "$@"; do args+=(-c "$s"); done
    "$PGBIN/psql" -X -q -At -U "$owner" -d "$db" -v VERBOSITY=verbose "${args[@]}" 2>&1
}
# refused WHAT SQL...: ok when the owner's session ends in a permission
# error (42501) or the given SQLSTATE (WANT, default 42501).
refused() {
    local what=$1 want=${WANT:-42501} out
    shift
    out=$(as_owner "$@")
    if grep -q "ERROR:  $want" <<<"$out"; then ok "the owner may not $what"
    else not_ok "the owner may not $what" "got: $(head -c 300 <<<"$out")"; fi
}
owned_db() {   # $db anew, owned by $owner, without chronoid
    "$PGBIN/dropdb" --if-exists "$db" >/dev/null 2>&1
    "$PGBIN/createdb" -O "$owner" "$db"
}
cleanup() {
    "$PGBIN/dropdb" --if-exists "$db" >/dev/null 2>&1
    q -d postgres -c "DROP ROLE IF EXISTS $owner" >/dev/null 2>&1
}
trap cleanup EXIT
cleanup
q -d postgres -c "CREATE ROLE $owner LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE" >/dev/null ||
    bail "role $owner"
owned_db || bail "database $db"

# 1. The owner installs it; the members are the bootstrap superuser's.
out=$(as_owner "CREATE EXTENSION chronoid")
if [ -z "$out" ]; then ok "a database owner who is not a superuser creates the extension"
else not_ok "a database owner who is not a superuser creates the extension" "$out"; fi
check "  ... the extension is the owner's" \
    "$(q -d "$db" -c "SELECT extowner::regrole FROM pg_extension WHERE extname = 'chronoid'")" "$owner"
check "  ... every member belongs to the bootstrap superuser" \
    "$(q -d "$db" -c "SELECT count(*) FROM pg_depend d
                        JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'chronoid'
                        LEFT JOIN pg_proc p ON d.classid = 'pg_proc'::regclass AND p.oid = d.objid
                        LEFT JOIN pg_class c ON d.classid = 'pg_class'::regclass AND c.oid = d.objid
                        LEFT JOIN pg_type t ON d.classid = 'pg_type'::regclass AND t.oid = d.objid
                        LEFT JOIN pg_namespace n ON d.classid = 'pg_namespace'::regclass AND n.oid = d.objid
                       WHERE d.deptype = 'e'
                         AND coalesce(p.proowner, c.relowner, t.typowner, n.nspowner, 10) <> 10")" 0
check "  ... and it mints" \
    "$(q -d "$db" -c "SET snowflake.node = 5" -c "SELECT snowflake.get_node(snowflake.nextval()) = 5 AND uuid_extract_version(uuidv7()) = 7 AND gen_ulid() IS NOT NULL")"

# 2. What the owner still may not do.
refused "set snowflake.node" "SELECT gen_ulid() IS NOT NULL" "SET snowflake.node = 9"
# Before the module is loaded SET makes a placeholder, which loading drops.
out=$(as_owner "SET snowflake.node = 9" "SELECT snowflake.nextval()")
if grep -q 'ERROR:  55000: snowflake.node is not set' <<<"$out"; then
    ok "the owner's snowflake.node set before the module loaded is dropped, not used"
else
    not_ok "the owner's snowflake.node set before the module loaded is dropped, not used" "$out"
fi
refused "set snowflake.node for the database" "ALTER DATABASE $db SET snowflake.node = 9"
refused "register a node number" "SELECT snowflake.register_node(9, true)"
refused "claim a node number" "SELECT snowflake.claim_node(9, 1, 'x')"
refused "release a node number" "SELECT snowflake.release_node(1)"
refused "write the node registry" "DELETE FROM snowflake.node_registry"
# The mark: the owner may set it since 0.7.0 (its restore), and the ID
# space goes forward only (snowflake_dump.sh); its guard is out of reach.
refused "move the mark's guard" "SELECT setval('snowflake.node_mark_guard', 1)"
refused "take a value of the mark's guard" "SELECT nextval('snowflake.node_mark_guard')"
refused "change a claim of the node registry" "UPDATE snowflake.node_registry SET node = 9"
refused "make check_node() run as someone else" "ALTER FUNCTION snowflake.check_node() SECURITY INVOKER"
refused "replace a member function" \
    "CREATE OR REPLACE FUNCTION snowflake.check_node() RETURNS bool LANGUAGE sql AS 'SELECT true'"
refused "drop a member on its own" "DROP FUNCTION snowflake.check_node()"
refused "take a member out of the extension" "ALTER EXTENSION chronoid DROP FUNCTION snowflake.check_node()"

# 3. Updating and dropping are the owner's.
out=$(as_owner "DROP EXTENSION chronoid" "CREATE EXTENSION chronoid VERSION '0.1.0'" "ALTER EXTENSION chronoid UPDATE" \
               "SELECT extversion FROM pg_extension WHERE extname = 'chronoid'")
check "the owner installs 0.1.0 and updates it" "$out" \
    "$(sed -n "s/^default_version *= *'\(.*\)'/\1/p" "$(dirname "$0")/../../chronoid.control")"
out=$(as_owner "DROP EXTENSION chronoid" "SELECT count(*) FROM pg_namespace WHERE nspname = 'snowflake'")
check "the owner drops it, schema snowflake with it" "$out" 0

# 4. Objects the owner planted before installing: the install fails, or
# does not use them.
# install_fails WHAT SQLSTATE SQL...: in a fresh database the owner's SQL
# (ending in CREATE EXTENSION) fails with SQLSTATE, and nothing is installed.
install_fails() {
    local what=$1 want=$2 out
    shift 2
    owned_db
    out=$(as_owner "$@")
    if grep -q "ERROR:  $want" <<<"$out"; then ok "$what: the install fails"
    else not_ok "$what: the install fails" "$out"; fi
    check "  ... nothing installed" "$(q -d "$db" -c "SELECT count(*) FROM pg_extension WHERE extname = 'chronoid'")" 0
}
install_fails "a schema snowflake the owner made first" 42P06 "CREATE SCHEMA snowflake" \
    "CREATE FUNCTION snowflake.register_node(int, bool) RETURNS bool LANGUAGE sql AS 'SELECT true'" \
    "CREATE EXTENSION chronoid"
install_fails "a look-alike in the target schema" 42723 "CREATE SCHEMA ids" \
    "CREATE FUNCTION ids.gen_ulid() RETURNS text LANGUAGE sql AS 'SELECT 1::text'" \
    "CREATE EXTENSION chronoid SCHEMA ids"

owned_db
out=$(as_owner "CREATE TEMP TABLE node_registry (node int, sysid int8, name text, claimed_at timestamptz)" \
               "CREATE TEMP SEQUENCE node_mark" "CREATE TEMP SEQUENCE id_seq" \
               "CREATE EXTENSION chronoid" \
               "SELECT count(*) FROM pg_extension WHERE extname = 'chronoid'")
check "temporary tables named like the extension's: installed into its schema" "$out" 1
check "  ... its registry and mark are the real ones" \
    "$(q -d "$db" -c "SELECT 'snowflake.node_registry'::regclass::oid IN (SELECT objid FROM pg_depend WHERE refobjid = (SELECT oid FROM pg_extension WHERE extname = 'chronoid'))
                        AND 'snowflake.node_mark'::regclass::oid IN (SELECT objid FROM pg_depend WHERE refobjid = (SELECT oid FROM pg_extension WHERE extname = 'chronoid'))")"
tap_done
