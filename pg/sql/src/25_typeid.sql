
-- ---------------------------------------------------------------------
-- TypeIDs (spec 0.3.0): functions between text and uuid.  The column is a
-- uuid (its prefix is the column's, so not stored per row); the text is
-- uuid_to_typeid() of it, in a view or a generated column.
-- docs/postgresql.md says why this is not a type.
-- ---------------------------------------------------------------------

CREATE FUNCTION @extschema@.typeid_to_uuid(typeid pg_catalog.text)
RETURNS pg_catalog.uuid
AS 'MODULE_PATHNAME', 'chronoid_typeid_to_uuid'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.typeid_to_uuid(pg_catalog.text) IS
'the UUID of a TypeID of any prefix; error naming the character and position for bad text';

CREATE FUNCTION @extschema@.typeid_to_uuid(typeid pg_catalog.text, expected_prefix pg_catalog.text)
RETURNS pg_catalog.uuid
AS 'MODULE_PATHNAME', 'chronoid_typeid_to_uuid'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.typeid_to_uuid(pg_catalog.text, pg_catalog.text) IS
'the UUID of a TypeID whose prefix must be expected_prefix (22023 otherwise)';

CREATE FUNCTION @extschema@.uuid_to_typeid(prefix pg_catalog.text, id pg_catalog.uuid)
RETURNS pg_catalog.text
AS 'MODULE_PATHNAME', 'chronoid_uuid_to_typeid'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.uuid_to_typeid(pg_catalog.text, pg_catalog.uuid) IS
'the TypeID text of a UUID under a prefix (empty: the bare 26 digits)';

CREATE FUNCTION @extschema@.typeid_generate(prefix pg_catalog.text DEFAULT '')
RETURNS pg_catalog.text
AS 'MODULE_PATHNAME', 'chronoid_typeid_generate'
LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.typeid_generate(pg_catalog.text) IS
'a new TypeID: a UUIDv7 from uuidv7()''s generator under the prefix';

CREATE FUNCTION @extschema@.typeid_prefix(typeid pg_catalog.text)
RETURNS pg_catalog.text
AS 'MODULE_PATHNAME', 'chronoid_typeid_prefix'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.typeid_prefix(pg_catalog.text) IS
'the prefix of a TypeID (empty for none); error for bad text';

CREATE FUNCTION @extschema@.typeid_is_valid(typeid pg_catalog.text)
RETURNS pg_catalog.bool
AS 'MODULE_PATHNAME', 'chronoid_typeid_is_valid'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.typeid_is_valid(pg_catalog.text) IS
'whether the text is a TypeID (spec 0.3.0), without raising an error';

CREATE FUNCTION @extschema@.typeid_is_valid(typeid pg_catalog.text, expected_prefix pg_catalog.text)
RETURNS pg_catalog.bool
AS 'MODULE_PATHNAME', 'chronoid_typeid_is_valid'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.typeid_is_valid(pg_catalog.text, pg_catalog.text) IS
'whether the text is a TypeID with prefix expected_prefix, without raising an error';
