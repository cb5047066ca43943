/*
 * pg_env.c — the environment the core generators run in inside a backend:
 * pg_strong_random() behind the core's buffered, fork-safe random layer,
 * CLOCK_REALTIME, an interruptible sleep; plus error and time helpers.
 */
#include "chronoid_internal.h"

#include <time.h>

#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "port.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"

/* Microseconds from the Unix epoch to PostgreSQL's (2000-01-01). */
#define CID_PG_EPOCH_US \
	((int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * SECS_PER_DAY * USECS_PER_SEC)

/*
 * Raw source for src/random.c.  It asks for large blocks and serves
 * generators from its buffer, so the strong source (OpenSSL or
 * /dev/urandom, whatever PostgreSQL was built with) is called rarely.
 */
static int
pg_raw_random(void *buf, size_t len)
{
	return pg_strong_random(buf, len) ? 0 : -1;
}

/*
 * Read CLOCK_REALTIME directly, as PostgreSQL 18's uuidv7() does:
 * GetCurrentTimestamp() has only microseconds, and the sub-millisecond
 * fraction of a UUIDv7 wants nanoseconds.
 */
static int64_t
pg_clock(void *ctx)
{
	struct timespec ts;

	(void) ctx;
	if (clock_gettime(CLOCK_REALTIME, &ts) != 0)
		return -1;
	return (int64_t) ts.tv_sec * INT64CONST(1000000000) + ts.tv_nsec;
}

/* Waiting generators stay cancellable (statement_timeout, Ctrl-C). */
static void
pg_sleep_ns(void *ctx, int64_t ns)
{
	long		us;

	(void) ctx;
	CHECK_FOR_INTERRUPTS();
	us = (long) (ns / 1000);
	pg_usleep(us > 0 ? us : 1);
	CHECK_FOR_INTERRUPTS();
}

static const cid_env pg_env = {
	.clock = pg_clock,
	.random = cid_platform_random,
	.sleep = pg_sleep_ns,
	.ctx = NULL
};

void
cid_pg_env_init(void)
{
	cid_random_set_source(pg_raw_random);
}

const cid_env *
cid_pg_env(void)
{
	return &pg_env;
}

int
cid_pg_sqlstate(int status)
{
	switch (status)
	{
		case CID_ETIME_RANGE:
			return ERRCODE_DATETIME_VALUE_OUT_OF_RANGE;
		case CID_EOVERFLOW:
		case CID_EMONOTONIC_OVERFLOW:
			return ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE;
		case CID_ESYNTAX:
		case CID_ELENGTH:
		case CID_EUNKNOWN:
			return ERRCODE_INVALID_TEXT_REPRESENTATION;
		case CID_EINVAL:
		case CID_ENODE:
		case CID_ELAYOUT:
		case CID_ENOTIME:
			return ERRCODE_INVALID_PARAMETER_VALUE;
		case CID_ECLOCK:
		case CID_ERANDOM:
			return ERRCODE_SYSTEM_ERROR;
		case CID_ECLOCK_BACKWARDS:
		case CID_EDRIFT:
		case CID_EWAIT_TIMEOUT:
		case CID_EEXHAUSTED:
		case CID_EAGAIN:
			return ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE;
		default:
			return ERRCODE_INTERNAL_ERROR;
	}
}

void
cid_pg_report(int status, const char *what)
{
	ereport(ERROR,
			(errcode(cid_pg_sqlstate(status)),
			 errmsg("%s: %s", what, cid_strerror(status))));
	pg_unreachable();
}

char *
cid_pg_char_at(const char *s, size_t pos, int *charpos)
{
	unsigned char c = (unsigned char) s[pos];

	*charpos = pg_mbstrlen_with_len(s, (int) pos) + 1;
	if (IS_HIGHBIT_SET(c))
		return psprintf("Character \"%.*s\"", pg_mblen(s + pos), s + pos);
	if (c < 0x20 || c == 0x7f)
		return psprintf("Byte 0x%02X", c);
	return psprintf("Character \"%c\"", c);
}

/* The value as PostgreSQL prints it (DateStyle, TimeZone). */
static char *
ts_text(TimestampTz ts, bool with_tz)
{
	if (with_tz)
		return DatumGetCString(DirectFunctionCall1(timestamptz_out,
												   TimestampTzGetDatum(ts)));
	return DatumGetCString(DirectFunctionCall1(timestamp_out,
											   TimestampGetDatum(ts)));
}

void
cid_pg_ts_range_error(TimestampTz ts, bool with_tz, const char *target)
{
	cid_pg_ts_out_of_range(ts, with_tz, target,
						   "The 48-bit millisecond field holds times from "
						   "1970-01-01 00:00:00 to 10889-08-02 05:31:50.655 UTC.");
}

void
cid_pg_ts_out_of_range(TimestampTz ts, bool with_tz, const char *target, const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
			 errmsg("%s \"%s\" is out of range for %s",
					with_tz ? "timestamp with time zone" : "timestamp",
					ts_text(ts, with_tz), target),
			 errdetail("%s", detail)));
	pg_unreachable();
}

int64
cid_pg_ts_to_unix_us(TimestampTz ts, bool with_tz, const char *target)
{
	if (TIMESTAMP_NOT_FINITE(ts))
		cid_pg_ts_out_of_range(ts, with_tz, target,
							   "Only finite timestamps can be converted.");
	/* No overflow: PostgreSQL timestamps end in 294277, far below 2^63 µs. */
	return ts + CID_PG_EPOCH_US;
}

int64
cid_pg_ts_to_unix_ms(TimestampTz ts, bool with_tz, const char *target)
{
	int64		us = cid_pg_ts_to_unix_us(ts, with_tz, target);
	int64		ms = us / 1000;

	if (us % 1000 < 0)
		ms--;					/* C truncates toward zero; we want floor */
	return ms;
}

TimestampTz
cid_pg_unix_ms_to_ts(int64 unix_ms)
{
	return unix_ms * 1000 - CID_PG_EPOCH_US;
}
