
-- Block allocation from a sequence (docs/block.md): n consecutive values
-- in one call, WAL-logged and flushed before they are returned, never
-- given back by a rollback.  Not SECURITY DEFINER: the caller needs USAGE
-- or UPDATE on the sequence for a block of one, as for nextval(), and
-- UPDATE for a larger one, as for setval().  A sequence that is a floor
-- of snowflakes (the extension's own, or one a column default or a view
-- passes to snowflake.nextval()) is refused.
CREATE FUNCTION @extschema@.nextval_block(seq pg_catalog.regclass, n pg_catalog.int8,
										  OUT first_id pg_catalog.int8, OUT last_id pg_catalog.int8)
RETURNS record
AS 'MODULE_PATHNAME', 'chronoid_nextval_block'
LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.nextval_block(pg_catalog.regclass, pg_catalog.int8) IS
	'reserve the next n values of a sequence (INCREMENT 1, NO CYCLE) at once: the block first_id..last_id, never rolled back; n > 1 needs UPDATE on the sequence';
