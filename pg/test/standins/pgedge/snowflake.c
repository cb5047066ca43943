/*
 * snowflake.c — the library of the pgEdge snowflake stand-in (see
 * snowflake.control): snowflake.node defined as pgEdge 2.6 defines it, so
 * that a backend that loaded it cannot load chronoid (both define the
 * setting), and snowflake.nextval() minting as pgEdge's does where the
 * switch can see it: pgEdge's bit layout, and the last ID kept as the
 * sequence's value.  Single-session behaviour only; not a generator.
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/guc.h"
#include "utils/numeric.h"
#include "utils/timestamp.h"

PG_MODULE_MAGIC;

#define PGEDGE_EPOCH_MS	INT64CONST(1672531200000)	/* 2023-01-01 */

static int	standin_node = 0;

void		_PG_init(void);

void
_PG_init(void)
{
	DefineCustomIntVariable("snowflake.node", "Unique id of current node.", NULL,
							&standin_node, 0, 0, 1023, PGC_SUSET, 0,
							NULL, NULL, NULL);
}

PG_FUNCTION_INFO_V1(snowflake_nextval);
Datum
snowflake_nextval(PG_FUNCTION_ARGS)
{
	Oid			seq = PG_GETARG_OID(0);
	Datum		lastd;
	int64		last = -1;
	int64		now_ms;
	int64		ms;
	int64		count;
	int64		id;
	LOCAL_FCINFO(lfc, 1);

	if (standin_node == 0)
		ereport(ERROR,
				(errcode(ERRCODE_CONFIG_FILE_ERROR),
				 errmsg("value for snowflake.node is not set")));
	InitFunctionCallInfoData(*lfc, NULL, 1, InvalidOid, NULL, NULL);
	lfc->args[0].value = ObjectIdGetDatum(seq);
	lfc->args[0].isnull = false;
	lastd = pg_sequence_last_value(lfc);
	if (!lfc->isnull)
		last = DatumGetInt64(lastd);
	now_ms = GetCurrentTimestamp() / 1000 +
		(int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * SECS_PER_DAY * 1000 -
		PGEDGE_EPOCH_MS;
	if (last < 0 || now_ms > (last >> 22))
	{
		ms = now_ms;
		count = 0;
	}
	else
	{
		ms = last >> 22;
		count = (last & 0xFFF) + 1;
		if (count > 0xFFF)
		{
			count = 0;
			ms++;
		}
	}
	id = (ms << 22) | ((int64) standin_node << 12) | count;
	DirectFunctionCall2(setval_oid, ObjectIdGetDatum(seq), Int64GetDatum(id));
	PG_RETURN_INT64(id);
}

PG_FUNCTION_INFO_V1(snowflake_currval);
Datum
snowflake_currval(PG_FUNCTION_ARGS)
{
	return currval_oid(fcinfo);
}

PG_FUNCTION_INFO_V1(snowflake_get_epoch);
Datum
snowflake_get_epoch(PG_FUNCTION_ARGS)
{
	int64		ms = (PG_GETARG_INT64(0) >> 22) + PGEDGE_EPOCH_MS;

	PG_RETURN_NUMERIC(int64_div_fast_to_numeric(ms, 3));
}

PG_FUNCTION_INFO_V1(snowflake_get_count);
Datum
snowflake_get_count(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32((int32) (PG_GETARG_INT64(0) & 0xFFF));
}

PG_FUNCTION_INFO_V1(snowflake_get_node);
Datum
snowflake_get_node(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32((int32) ((PG_GETARG_INT64(0) >> 12) & 0x3FF));
}
