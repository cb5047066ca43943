/*
 * snowflake_funcs.c — the snowflake part's settings (snowflake.node,
 * snowflake.max_run_ahead) and the decoders of the snowflake schema
 * (pgEdge snowflake 2.6 compatible).  snowflake.nextval() is in
 * snowflake_nextval.c.
 */
#include "snowflake_internal.h"

#include <string.h>

#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/guc.h"
#include "utils/timestamp.h"

PG_FUNCTION_INFO_V1(chronoid_snowflake_get_epoch);
PG_FUNCTION_INFO_V1(chronoid_snowflake_get_count);
PG_FUNCTION_INFO_V1(chronoid_snowflake_get_node);
PG_FUNCTION_INFO_V1(chronoid_snowflake_to_timestamp);
PG_FUNCTION_INFO_V1(chronoid_snowflake_from_timestamp);
PG_FUNCTION_INFO_V1(chronoid_snowflake_format);

/* snowflake.node; 0 (the boot value) means "not set". */
int			cid_sf_node = 0;

/* snowflake.max_run_ahead, in milliseconds. */
int			cid_sf_max_run_ahead = 1000;

/* The pgEdge 2.6 layout, filled once by cid_pg_snowflake_init(). */
cid_layout	cid_sf_layout;

/*
 * 0 is allowed only as the built-in default, so an unset node is visible
 * to nextval (which then refuses) while SET and postgresql.conf can only
 * give 1 .. 1023.
 */
static bool
snowflake_node_check(int *newval, void **extra, GucSource source)
{
	(void) extra;
	if (*newval == 0 && source != PGC_S_DEFAULT)
	{
		GUC_check_errdetail("snowflake.node must be between 1 and %d.",
							(int) cid_layout_max_node(&cid_sf_layout));
		return false;
	}
	return true;
}

void
cid_pg_snowflake_init(void)
{
	if (cid_layout_preset(&cid_sf_layout, "pgedge") != CID_OK)
		elog(ERROR, "chronoid: the pgedge snowflake layout is missing");

	/*
	 * PGC_SUSET: a node number is an identity; a role that could change it
	 * could mint IDs that collide with another node's.
	 */
	DefineCustomIntVariable("snowflake.node",
							"Node number embedded in every snowflake this server mints.",
							"Must be unique per node of a cluster (1 .. 1023); "
							"snowflake.nextval() refuses to run while it is unset.",
							&cid_sf_node,
							0,
							0,
							(int) cid_layout_max_node(&cid_sf_layout),
							PGC_SUSET,
							0,
							snowflake_node_check,
							NULL,
							NULL);

	/*
	 * PGC_SIGHUP: the bound also decides how far forward a sequence owner
	 * may setval() the next ID, so no session may widen it for itself.
	 */
	DefineCustomIntVariable("snowflake.max_run_ahead",
							"How far the time in a snowflake may run ahead of the clock under load.",
							"When more than 4096 IDs per millisecond are asked for, the counter "
							"carries into the time field; at this many milliseconds ahead "
							"snowflake.nextval() waits for the clock instead.",
							&cid_sf_max_run_ahead,
							1000,
							0,
							24 * 3600 * 1000,
							PGC_SIGHUP,
							GUC_UNIT_MS,
							NULL,
							NULL,
							NULL);

	cid_sf_shared_init();

#if PG_VERSION_NUM >= 150000
	MarkGUCPrefixReserved("snowflake");
#else
	EmitWarningsOnPlaceholders("snowflake");
#endif
}

/* ------------------------------------------------------------------------
 * Decoding
 * ------------------------------------------------------------------------ */

/*
 * Split a snowflake; a value the layout cannot produce (negative: bit 63
 * set) is an error naming it, never decoded into garbage.
 */
static void
sf_decode(cid_snowflake_parts *parts, int64 id)
{
	int			rc;

	if (id < 0)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("snowflake " INT64_FORMAT " is out of range", id),
				 errdetail("Snowflakes are non-negative bigints: bit 63 is always 0.")));
	rc = cid_snowflake_decode(parts, &cid_sf_layout, (uint64_t) id);
	if (rc < 0)
		ereport(ERROR,
				(errcode(cid_pg_sqlstate(rc)),
				 errmsg("snowflake " INT64_FORMAT " cannot be decoded: %s",
						id, cid_strerror(rc))));
}

Datum
chronoid_snowflake_get_epoch(PG_FUNCTION_ARGS)
{
	cid_snowflake_parts parts;
	char		buf[48];

	sf_decode(&parts, PG_GETARG_INT64(0));

	/* Unix seconds with exactly three decimals, as pgEdge prints them. */
	snprintf(buf, sizeof(buf), INT64_FORMAT ".%03d",
			 (int64) (parts.unix_ms / 1000), (int) (parts.unix_ms % 1000));
	PG_RETURN_DATUM(DirectFunctionCall3(numeric_in,
										CStringGetDatum(buf),
										ObjectIdGetDatum(InvalidOid),
										Int32GetDatum(-1)));
}

Datum
chronoid_snowflake_get_count(PG_FUNCTION_ARGS)
{
	cid_snowflake_parts parts;

	sf_decode(&parts, PG_GETARG_INT64(0));
	PG_RETURN_INT32((int32) parts.sequence);
}

Datum
chronoid_snowflake_get_node(PG_FUNCTION_ARGS)
{
	cid_snowflake_parts parts;

	sf_decode(&parts, PG_GETARG_INT64(0));
	PG_RETURN_INT32((int32) parts.node);
}

Datum
chronoid_snowflake_to_timestamp(PG_FUNCTION_ARGS)
{
	cid_snowflake_parts parts;

	sf_decode(&parts, PG_GETARG_INT64(0));
	PG_RETURN_TIMESTAMPTZ(cid_pg_unix_ms_to_ts(parts.unix_ms));
}

/* The smallest snowflake of the millisecond holding ts (any node). */
Datum
chronoid_snowflake_from_timestamp(PG_FUNCTION_ARGS)
{
	TimestampTz ts = PG_GETARG_TIMESTAMPTZ(0);
	int64		unix_ms;
	uint64_t	id;
	int			rc;

	unix_ms = cid_pg_ts_to_unix_ms(ts, true, "a snowflake");
	rc = cid_snowflake_min_at(&id, &cid_sf_layout, unix_ms);
	if (rc < 0)
	{
		char		lo[CID_TIME_STRLEN + 1] = "?";
		char		hi[CID_TIME_STRLEN + 1] = "?";

		if (cid_time_format(lo, cid_sf_layout.epoch_ms) != CID_OK ||
			cid_time_format(hi, cid_layout_max_ms(&cid_sf_layout)) != CID_OK)
		{
			strcpy(lo, "?");
			strcpy(hi, "?");
		}
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("timestamp with time zone \"%s\" is out of range for a snowflake",
						DatumGetCString(DirectFunctionCall1(timestamptz_out,
															TimestampTzGetDatum(ts)))),
				 errdetail("Snowflakes hold times from %s to %s.", lo, hi)));
	}
	PG_RETURN_INT64((int64) id);
}

/*
 * jsonb like pgEdge 2.6: the node under "id" (what pgEdge prints) and
 * under "node" (what its documentation names), "ts" as the timestamptz's
 * text in the session's DateStyle and TimeZone, and "count".
 */
Datum
chronoid_snowflake_format(PG_FUNCTION_ARGS)
{
	cid_snowflake_parts parts;
	char	   *ts;
	char	   *json;

	sf_decode(&parts, PG_GETARG_INT64(0));
	ts = DatumGetCString(DirectFunctionCall1(timestamptz_out,
											 TimestampTzGetDatum(cid_pg_unix_ms_to_ts(parts.unix_ms))));
	json = psprintf("{\"id\": %d, \"ts\": \"%s\", \"node\": %d, \"count\": %d}",
					(int) parts.node, ts, (int) parts.node, (int) parts.sequence);
	PG_RETURN_DATUM(DirectFunctionCall1(jsonb_in, CStringGetDatum(json)));
}

