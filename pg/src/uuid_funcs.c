/*
 * uuid_funcs.c — SQL functions over the uuid type: PostgreSQL 18's
 * uuidv7()/uuidv4()/uuid_extract_*(), pg_uuidv7's names, and the zero-tail
 * UUIDv7 range boundary.  All ID logic is the core's (include/chronoid.h).
 */
#include "chronoid_internal.h"
#include "preload_ids_internal.h"

#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"
#include "utils/uuid.h"

PG_FUNCTION_INFO_V1(chronoid_uuidv7);
PG_FUNCTION_INFO_V1(chronoid_uuidv7_shift);
PG_FUNCTION_INFO_V1(chronoid_uuidv4);
PG_FUNCTION_INFO_V1(chronoid_uuid_extract_timestamp);
PG_FUNCTION_INFO_V1(chronoid_uuid_extract_version);
PG_FUNCTION_INFO_V1(chronoid_uuid_v7_to_timestamptz);
PG_FUNCTION_INFO_V1(chronoid_uuid_timestamptz_to_v7);
PG_FUNCTION_INFO_V1(chronoid_uuid_timestamp_to_v7);
PG_FUNCTION_INFO_V1(chronoid_uuidv7_boundary_tz);
PG_FUNCTION_INFO_V1(chronoid_uuidv7_boundary);

/*
 * Without preload, one generator per backend: like PostgreSQL 18, UUIDv7s
 * strictly increase within a session (RFC 9562 section 6.2 method 3).
 * Initialised on first use, after fork, so nothing is inherited from the
 * postmaster.  When preloaded, the server-wide generator of preload_ids.c
 * is used instead, so they strictly increase across all sessions.
 */
static cid_uuidv7_gen session_v7;
static bool session_v7_ready = false;

static cid_uuidv7_gen *
session_v7_gen(void)
{
	if (!session_v7_ready)
	{
		int			rc = cid_uuidv7_init(&session_v7, cid_pg_env());

		if (rc < 0)
			cid_pg_report(rc, "could not initialise the UUIDv7 generator");
		session_v7_ready = true;
	}
	return &session_v7;
}

static Datum
uuid_datum(const cid_uuid *u)
{
	pg_uuid_t  *out = (pg_uuid_t *) palloc(sizeof(pg_uuid_t));

	StaticAssertStmt(sizeof(out->data) == sizeof(u->bytes),
					 "pg_uuid_t and cid_uuid differ in size");
	memcpy(out->data, u->bytes, sizeof(out->data));
	return UUIDPGetDatum(out);
}

static void
uuid_arg(cid_uuid *u, const pg_uuid_t *in)
{
	memcpy(u->bytes, in->data, sizeof(u->bytes));
}

static char *
uuid_text(const cid_uuid *u)
{
	char	   *s = palloc(CID_UUID_STRLEN + 1);

	cid_uuid_format(s, u);
	return s;
}

/*
 * One step of the shared (preloaded) or the session generator, with this
 * backend's clock reading now_ns and fresh random bytes for rand_b.
 */
static int
v7_next(int64_t now_ns, int64_t shift_us, cid_uuid *out)
{
	const cid_env *env = cid_pg_env();
	uint8_t		rand_b[8];

	if (env->random(env->ctx, rand_b, sizeof(rand_b)) < 0)
		return CID_ERANDOM;
	if (cid_pg_preload_ids_ready())
		return cid_pg_shared_uuidv7_next(now_ns, shift_us, rand_b, out);
	return cid_uuidv7_next_at(session_v7_gen(), now_ns, shift_us, rand_b, out);
}

void
cid_pg_uuidv7_next(cid_uuid *out)
{
	const cid_env *env = cid_pg_env();
	int64_t		now_ns = env->clock(env->ctx);
	int			rc = now_ns < 0 ? CID_ECLOCK : v7_next(now_ns, 0, out);

	if (rc < 0)
		cid_pg_report(rc, "could not generate a UUIDv7");
}

Datum
chronoid_uuidv7(PG_FUNCTION_ARGS)
{
	cid_uuid	u;

	cid_pg_uuidv7_next(&u);
	return uuid_datum(&u);
}

/*
 * 22008 with PostgreSQL 18's messages (18.6: "timestamp out of range for
 * UUID version 7", "interval out of range for UUID version 7" for an
 * infinite shift), which scripts written for core match on; the detail
 * names the shift.
 */
static _Noreturn void
shift_range_error(Interval *shift)
{
	const char *text = DatumGetCString(DirectFunctionCall1(interval_out,
														   IntervalPGetDatum(shift)));

#if PG_VERSION_NUM >= 170000
	if (INTERVAL_NOT_FINITE(shift))
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("interval out of range for UUID version 7"),
				 errdetail("UUID version 7 does not support infinite intervals; the shift was \"%s\".",
						   text)));
#endif
	ereport(ERROR,
			(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
			 errmsg("timestamp out of range for UUID version 7"),
			 errdetail("The shift \"%s\" puts the time outside 1970-01-01 00:00:00 "
					   "to 10889-08-02 05:31:50.655 UTC, the range of UUID version 7.",
					   text)));
	pg_unreachable();
}

#define TEN_THOUSAND_YEARS_DAYS INT64CONST(3652425)

/*
 * |v| > limit, for limit >= 0, without negating v: PostgreSQL 18 dropped
 * its Abs() macro, and -INT64_MIN would overflow anyway.
 */
static inline bool
magnitude_above(int64 v, int64 limit)
{
	return v > limit || v < -limit;
}

static bool
shift_too_far(const Interval *shift)
{
	int64		months = shift->month;
	int64		days = shift->day;
	int64		us = shift->time;
	bool		all_up = months >= 0 && days >= 0 && us >= 0;
	bool		all_down = months <= 0 && days <= 0 && us <= 0;

	if (!all_up && !all_down)
		return false;
	return magnitude_above(months, 120000) ||
		magnitude_above(days, TEN_THOUSAND_YEARS_DAYS) ||
		magnitude_above(us / USECS_PER_DAY, TEN_THOUSAND_YEARS_DAYS);
}

/*
 * now + shift with timestamptz arithmetic.  A shift whose parts pull in
 * opposite directions escapes shift_too_far(), and an intermediate step of
 * the arithmetic may then leave PostgreSQL's timestamp range: report that
 * as the shift being out of range, naming it, not as a bare "timestamp out
 * of range".  Any other error is re-thrown unchanged.
 */
static TimestampTz
shifted_time(TimestampTz now, Interval *shift)
{
	MemoryContext cxt = CurrentMemoryContext;
	volatile TimestampTz moved = 0;

	PG_TRY();
	{
		moved = DatumGetTimestampTz(DirectFunctionCall2(timestamptz_pl_interval,
														TimestampTzGetDatum(now),
														IntervalPGetDatum(shift)));
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		if (edata->sqlerrcode != ERRCODE_DATETIME_VALUE_OUT_OF_RANGE)
			PG_RE_THROW();
		FreeErrorData(edata);
		FlushErrorState();
		shift_range_error(shift);
	}
	PG_END_TRY();
	return moved;
}

/*
 * uuidv7(shift interval): as PostgreSQL 18, the shift is applied to the
 * current time with timestamptz + interval, so months and days follow the
 * calendar of the session's time zone.  The core then moves its clock
 * reading by the resulting number of microseconds.
 */
Datum
chronoid_uuidv7_shift(PG_FUNCTION_ARGS)
{
	Interval   *shift = PG_GETARG_INTERVAL_P(0);
	const cid_env *env = cid_pg_env();
	int64_t		now_ns;
	TimestampTz now;
	TimestampTz moved;
	cid_uuid	u;
	int			rc;

#if PG_VERSION_NUM >= 170000
	/* Infinite intervals exist from PostgreSQL 17 on. */
	if (INTERVAL_NOT_FINITE(shift))
		shift_range_error(shift);
#endif

	/*
	 * A shift that by itself spans more than 10000 years (all parts in the
	 * same direction) cannot land in 1970..10889: say so here, naming the
	 * shift, rather than let timestamp arithmetic fail with a bare
	 * "timestamp out of range".
	 */
	if (shift_too_far(shift))
		shift_range_error(shift);

	now_ns = env->clock(env->ctx);
	if (now_ns < 0)
		cid_pg_report(CID_ECLOCK, "could not generate a UUIDv7");
	now = cid_pg_unix_ms_to_ts(0) + now_ns / 1000;
	moved = shifted_time(now, shift);
	rc = TIMESTAMP_NOT_FINITE(moved) ? CID_ETIME_RANGE :
		v7_next(now_ns, (int64_t) (moved - now), &u);
	if (rc == CID_ETIME_RANGE)
		shift_range_error(shift);
	if (rc < 0)
		cid_pg_report(rc, "could not generate a UUIDv7");
	return uuid_datum(&u);
}

Datum
chronoid_uuidv4(PG_FUNCTION_ARGS)
{
	cid_uuid	u;
	int			rc = cid_uuidv4_new(&u, cid_pg_env());

	if (rc < 0)
		cid_pg_report(rc, "could not generate a UUIDv4");
	return uuid_datum(&u);
}

/* v1, v6 and v7 (RFC variant) carry a time; NULL for everything else. */
Datum
chronoid_uuid_extract_timestamp(PG_FUNCTION_ARGS)
{
	cid_uuid	u;
	int64_t		ms;

	uint64_t	ticks;

	uuid_arg(&u, PG_GETARG_UUID_P(0));
	if (cid_uuid_gregorian_ticks(&ticks, &u) == CID_OK)
	{
		/*
		 * Versions 1 and 6 hold 100-ns steps: to the microsecond, as
		 * PostgreSQL 18's own uuid_extract_timestamp() does for version 1
		 * (floor, before 1970 too).
		 */
		int64		steps = (int64) ticks - CID_UUID_GREGORIAN_OFFSET;
		int64		us = steps / 10 - (steps % 10 < 0 ? 1 : 0);

		PG_RETURN_TIMESTAMPTZ(cid_pg_unix_ms_to_ts(0) + us);
	}
	if (cid_uuid_unix_ms(&ms, &u) != CID_OK)
		PG_RETURN_NULL();
	PG_RETURN_TIMESTAMPTZ(cid_pg_unix_ms_to_ts(ms));
}

/* NULL for variants other than RFC 9562's (nil and max included). */
Datum
chronoid_uuid_extract_version(PG_FUNCTION_ARGS)
{
	cid_uuid	u;
	int			version;

	uuid_arg(&u, PG_GETARG_UUID_P(0));
	version = cid_uuid_version(&u);
	if (version < 0)
		PG_RETURN_NULL();
	PG_RETURN_INT16((int16) version);
}

/*
 * pg_uuidv7's decoder.  pg_uuidv7 reads the first 48 bits of any UUID;
 * here a UUID that is not a version 7 is an error rather than a made-up
 * time.  Serves both the timestamptz and the timestamp (UTC) forms.
 */
Datum
chronoid_uuid_v7_to_timestamptz(PG_FUNCTION_ARGS)
{
	cid_uuid	u;
	int64_t		ms;

	uuid_arg(&u, PG_GETARG_UUID_P(0));
	if (cid_uuid_version(&u) != 7 || cid_uuid_unix_ms(&ms, &u) != CID_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("uuid \"%s\" is not a version 7 UUID", uuid_text(&u)),
				 errhint("uuid_extract_timestamp() also reads versions 1 and 6 "
						 "and returns NULL for the others.")));
	PG_RETURN_TIMESTAMPTZ(cid_pg_unix_ms_to_ts(ms));
}

/* A v7 for ts: random tail (may draw randomness) or zero tail. */
static Datum
ts_to_v7(TimestampTz ts, bool with_tz, bool zero)
{
	int64		ms = cid_pg_ts_to_unix_ms(ts, with_tz, "a UUIDv7");
	uint8_t		rand[10];
	cid_uuid	u;
	int			rc;

	if (!zero)
	{
		rc = cid_random_bytes(rand, sizeof(rand));
		if (rc < 0)
			cid_pg_report(rc, "could not generate a UUIDv7");
	}
	rc = cid_uuidv7_from_ms(&u, ms, zero ? NULL : rand);
	if (rc == CID_ETIME_RANGE)
		cid_pg_ts_range_error(ts, with_tz, "a UUIDv7");
	if (rc < 0)
		cid_pg_report(rc, "could not build a UUIDv7");
	return uuid_datum(&u);
}

Datum
chronoid_uuid_timestamptz_to_v7(PG_FUNCTION_ARGS)
{
	return ts_to_v7(PG_GETARG_TIMESTAMPTZ(0), true, PG_GETARG_BOOL(1));
}

Datum
chronoid_uuid_timestamp_to_v7(PG_FUNCTION_ARGS)
{
	return ts_to_v7(PG_GETARG_TIMESTAMP(0), false, PG_GETARG_BOOL(1));
}

/* The smallest v7 of the millisecond: IMMUTABLE, for range predicates. */
Datum
chronoid_uuidv7_boundary_tz(PG_FUNCTION_ARGS)
{
	return ts_to_v7(PG_GETARG_TIMESTAMPTZ(0), true, true);
}

Datum
chronoid_uuidv7_boundary(PG_FUNCTION_ARGS)
{
	return ts_to_v7(PG_GETARG_TIMESTAMP(0), false, true);
}
