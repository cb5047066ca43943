/*
 * compat_symbols.c — C symbols that earlier install scripts name.  The rule
 * for a SQL function's symbol (chronoid_internal.h) came in 0.3.0; the
 * scripts of 0.1.0 and 0.2.0, which stay installable (CREATE EXTENSION
 * chronoid VERSION '0.1.0', then ALTER EXTENSION ... UPDATE), name the
 * snowflake functions by their older symbols, and a database not yet
 * updated runs them.  Each one here is the current function under its old
 * name; chronoid--0.2.0--0.3.0.sql re-points the functions.
 */
#include "postgres.h"

#include "fmgr.h"

#define CID_OLD_SYMBOL(old, current) \
	extern PGDLLEXPORT Datum current(PG_FUNCTION_ARGS); \
	PG_FUNCTION_INFO_V1(old); \
	Datum \
	old(PG_FUNCTION_ARGS) \
	{ \
		return current(fcinfo); \
	}

CID_OLD_SYMBOL(snowflake_nextval, chronoid_snowflake_nextval)
CID_OLD_SYMBOL(snowflake_currval, chronoid_snowflake_currval)
CID_OLD_SYMBOL(snowflake_get_epoch, chronoid_snowflake_get_epoch)
CID_OLD_SYMBOL(snowflake_get_count, chronoid_snowflake_get_count)
CID_OLD_SYMBOL(snowflake_get_node, chronoid_snowflake_get_node)
CID_OLD_SYMBOL(snowflake_to_timestamp, chronoid_snowflake_to_timestamp)
CID_OLD_SYMBOL(snowflake_from_timestamp, chronoid_snowflake_from_timestamp)
CID_OLD_SYMBOL(snowflake_format, chronoid_snowflake_format)
CID_OLD_SYMBOL(snowflake_check_node, chronoid_snowflake_check_node)
