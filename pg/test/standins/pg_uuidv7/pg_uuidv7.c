/*
 * pg_uuidv7.c — the library of the pg_uuidv7 stand-in (see
 * pg_uuidv7.control): version 7 UUIDs from the clock and random bits, and
 * their millisecond both ways, enough for the switch's tests to tell the
 * stand-in's IDs from chronoid's.  Written for chronoid's tests; not
 * pg_uuidv7's code.
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/timestamp.h"
#include "utils/uuid.h"

PG_MODULE_MAGIC;

/* Microseconds between 1970-01-01 and PostgreSQL's epoch, 2000-01-01. */
#define UNIX_TO_PG_US \
	((int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * SECS_PER_DAY * USECS_PER_SEC)

static pg_uuid_t *
v7_from_ms(int64 ms, bool zero)
{
	pg_uuid_t  *u = palloc(sizeof(pg_uuid_t));

	if (zero)
		memset(u->data, 0, UUID_LEN);
	else if (!pg_strong_random(u->data, UUID_LEN))
		ereport(ERROR, (errmsg("could not generate random values")));
	for (int i = 0; i < 6; i++)
		u->data[i] = (uint8) (ms >> (40 - 8 * i));
	u->data[6] = (u->data[6] & 0x0f) | 0x70;
	u->data[8] = (u->data[8] & 0x3f) | 0x80;
	return u;
}

static int64
v7_ms(pg_uuid_t *u)
{
	int64		ms = 0;

	for (int i = 0; i < 6; i++)
		ms = (ms << 8) | u->data[i];
	return ms;
}

PG_FUNCTION_INFO_V1(uuid_generate_v7);
Datum
uuid_generate_v7(PG_FUNCTION_ARGS)
{
	int64		us = GetCurrentTimestamp() + UNIX_TO_PG_US;

	PG_RETURN_UUID_P(v7_from_ms(us / 1000, false));
}

PG_FUNCTION_INFO_V1(uuid_v7_to_timestamptz);
Datum
uuid_v7_to_timestamptz(PG_FUNCTION_ARGS)
{
	PG_RETURN_TIMESTAMPTZ(v7_ms(PG_GETARG_UUID_P(0)) * 1000 - UNIX_TO_PG_US);
}

PG_FUNCTION_INFO_V1(uuid_v7_to_timestamp);
Datum
uuid_v7_to_timestamp(PG_FUNCTION_ARGS)
{
	PG_RETURN_TIMESTAMP(v7_ms(PG_GETARG_UUID_P(0)) * 1000 - UNIX_TO_PG_US);
}

PG_FUNCTION_INFO_V1(uuid_timestamptz_to_v7);
Datum
uuid_timestamptz_to_v7(PG_FUNCTION_ARGS)
{
	int64		us = PG_GETARG_TIMESTAMPTZ(0) + UNIX_TO_PG_US;

	PG_RETURN_UUID_P(v7_from_ms(us / 1000, PG_GETARG_BOOL(1)));
}

PG_FUNCTION_INFO_V1(uuid_timestamp_to_v7);
Datum
uuid_timestamp_to_v7(PG_FUNCTION_ARGS)
{
	int64		us = PG_GETARG_TIMESTAMP(0) + UNIX_TO_PG_US;

	PG_RETURN_UUID_P(v7_from_ms(us / 1000, PG_GETARG_BOOL(1)));
}
