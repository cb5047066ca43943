
-- Block allocation from a sequence (docs/block.md): n consecutive values
-- in one call, WAL-logged and flushed before they are returned, never
-- given back by a rollback.  Not SECURITY DEFINER: the caller needs USAGE
-- or UPDATE on the sequence, as for nextval().
CREATE FUNCTION @extschema@.nextval_block(seq pg_catalog.regclass, n pg_catalog.int8,
										  OUT first_id pg_catalog.int8, OUT last_id pg_catalog.int8)
RETURNS record
AS 'MODULE_PATHNAME', 'chronoid_nextval_block'
LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.nextval_block(pg_catalog.regclass, pg_catalog.int8) IS
	'reserve the next n values of a sequence (INCREMENT 1, NO CYCLE) at once: the block first_id..last_id, never rolled back';
