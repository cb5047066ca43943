/*
 * ulid.c — the library of the pgx_ulid stand-in (see ulid.control): a
 * 16-byte ulid kept most significant byte first, its Crockford base32 text,
 * comparisons, a hash, generators and the casts.  Written for chronoid's
 * tests (the switch must carry every value over bit for bit); not
 * pgx_ulid's code.  gen_monotonic_ulid() is per backend here (pgx_ulid's
 * needs shared memory).
 */
#include "postgres.h"

#include "common/hashfn.h"
#include "fmgr.h"
#include "libpq/pqformat.h"
#include "utils/timestamp.h"
#include "utils/uuid.h"

PG_MODULE_MAGIC;

#define UNIX_TO_PG_US \
	((int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * SECS_PER_DAY * USECS_PER_SEC)

typedef struct
{
	uint8		b[16];
} ulid_t;

static const char b32[] = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

static int
b32_value(char c)
{
	if (c >= 'a' && c <= 'z')
		c -= 'a' - 'A';
	for (int i = 0; i < 32; i++)
		if (b32[i] == c)
			return i;
	return -1;
}

#define ARG_ULID(n) ((ulid_t *) PG_GETARG_POINTER(n))

PG_FUNCTION_INFO_V1(ulid_in_wrapper);
Datum
ulid_in_wrapper(PG_FUNCTION_ARGS)
{
	const char *s = PG_GETARG_CSTRING(0);
	ulid_t	   *u = palloc0(sizeof(ulid_t));

	if (strlen(s) != 26)
		ereport(ERROR, (errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
						errmsg("invalid input syntax for type ulid: \"%s\": invalid length", s)));
	/* 26 digits of 5 bits = 130 bits: the first digit carries 3. */
	for (int i = 0; i < 26; i++)
	{
		int			v = b32_value(s[i]);
		int			carry = v;

		if (v < 0 || (i == 0 && v > 7))
			ereport(ERROR, (errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
							errmsg("invalid input syntax for type ulid: \"%s\": invalid character", s)));
		for (int k = 15; k >= 0; k--)
		{
			int			x = (u->b[k] << 5) | carry;

			u->b[k] = (uint8) x;
			carry = x >> 8;
		}
	}
	PG_RETURN_POINTER(u);
}

PG_FUNCTION_INFO_V1(ulid_out_wrapper);
Datum
ulid_out_wrapper(PG_FUNCTION_ARGS)
{
	ulid_t		u = *ARG_ULID(0);
	char	   *s = palloc(27);

	for (int i = 25; i >= 0; i--)
	{
		int			rem = 0;

		/* u /= 32, the remainder is the digit */
		for (int k = 0; k < 16; k++)
		{
			int			x = (rem << 8) | u.b[k];

			u.b[k] = (uint8) (x >> 5);
			rem = x & 31;
		}
		s[i] = b32[rem];
	}
	s[26] = '\0';
	PG_RETURN_CSTRING(s);
}

PG_FUNCTION_INFO_V1(ulid_recv_wrapper);
Datum
ulid_recv_wrapper(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	ulid_t	   *u = palloc(sizeof(ulid_t));

	memcpy(u->b, pq_getmsgbytes(buf, 16), 16);
	PG_RETURN_POINTER(u);
}

PG_FUNCTION_INFO_V1(ulid_send_wrapper);
Datum
ulid_send_wrapper(PG_FUNCTION_ARGS)
{
	StringInfoData buf;

	pq_begintypsend(&buf);
	pq_sendbytes(&buf, (char *) ARG_ULID(0)->b, 16);
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

static int
ulid_compare(FunctionCallInfo fcinfo)
{
	return memcmp(ARG_ULID(0)->b, ARG_ULID(1)->b, 16);
}

#define ULID_CMP_FN(name, test) \
	PG_FUNCTION_INFO_V1(name); \
	Datum name(PG_FUNCTION_ARGS) { int c = ulid_compare(fcinfo); PG_RETURN_BOOL(test); }
ULID_CMP_FN(ulid_eq_wrapper, c == 0)
ULID_CMP_FN(ulid_ne_wrapper, c != 0)
ULID_CMP_FN(ulid_lt_wrapper, c < 0)
ULID_CMP_FN(ulid_le_wrapper, c <= 0)
ULID_CMP_FN(ulid_gt_wrapper, c > 0)
ULID_CMP_FN(ulid_ge_wrapper, c >= 0)

PG_FUNCTION_INFO_V1(ulid_cmp_wrapper);
Datum
ulid_cmp_wrapper(PG_FUNCTION_ARGS)
{
	int			c = ulid_compare(fcinfo);

	PG_RETURN_INT32(c < 0 ? -1 : c > 0);
}

PG_FUNCTION_INFO_V1(ulid_hash_wrapper);
Datum
ulid_hash_wrapper(PG_FUNCTION_ARGS)
{
	return hash_any(ARG_ULID(0)->b, 16);
}

static ulid_t *
ulid_at(int64 ms, bool random)
{
	ulid_t	   *u = palloc0(sizeof(ulid_t));

	if (random && !pg_strong_random(u->b + 6, 10))
		ereport(ERROR, (errmsg("could not generate random values")));
	for (int i = 0; i < 6; i++)
		u->b[i] = (uint8) (ms >> (40 - 8 * i));
	return u;
}

static int64
now_ms(void)
{
	return (GetCurrentTimestamp() + UNIX_TO_PG_US) / 1000;
}

PG_FUNCTION_INFO_V1(gen_ulid_wrapper);
Datum
gen_ulid_wrapper(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(ulid_at(now_ms(), true));
}

PG_FUNCTION_INFO_V1(gen_monotonic_ulid_wrapper);
Datum
gen_monotonic_ulid_wrapper(PG_FUNCTION_ARGS)
{
	static ulid_t last;
	static int64 last_ms = -1;
	int64		ms = now_ms();
	ulid_t	   *u;

	if (ms > last_ms)
	{
		u = ulid_at(ms, true);
		last_ms = ms;
	}
	else
	{
		u = palloc(sizeof(ulid_t));
		*u = last;
		for (int k = 15; k >= 6 && ++u->b[k] == 0; k--)
			;
	}
	last = *u;
	PG_RETURN_POINTER(u);
}

PG_FUNCTION_INFO_V1(ulid_from_uuid_wrapper);
Datum
ulid_from_uuid_wrapper(PG_FUNCTION_ARGS)
{
	ulid_t	   *u = palloc(sizeof(ulid_t));

	memcpy(u->b, PG_GETARG_UUID_P(0)->data, 16);
	PG_RETURN_POINTER(u);
}

PG_FUNCTION_INFO_V1(ulid_to_uuid_wrapper);
Datum
ulid_to_uuid_wrapper(PG_FUNCTION_ARGS)
{
	pg_uuid_t  *v = palloc(sizeof(pg_uuid_t));

	memcpy(v->data, ARG_ULID(0)->b, 16);
	PG_RETURN_UUID_P(v);
}

static int64
ulid_ms(const ulid_t *u)
{
	int64		ms = 0;

	for (int i = 0; i < 6; i++)
		ms = (ms << 8) | u->b[i];
	return ms;
}

PG_FUNCTION_INFO_V1(ulid_to_timestamp_wrapper);
Datum
ulid_to_timestamp_wrapper(PG_FUNCTION_ARGS)
{
	PG_RETURN_TIMESTAMP(ulid_ms(ARG_ULID(0)) * 1000 - UNIX_TO_PG_US);
}

PG_FUNCTION_INFO_V1(ulid_to_timestamptz_wrapper);
Datum
ulid_to_timestamptz_wrapper(PG_FUNCTION_ARGS)
{
	PG_RETURN_TIMESTAMPTZ(ulid_ms(ARG_ULID(0)) * 1000 - UNIX_TO_PG_US);
}

PG_FUNCTION_INFO_V1(timestamp_to_ulid_wrapper);
Datum
timestamp_to_ulid_wrapper(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(ulid_at((PG_GETARG_TIMESTAMP(0) + UNIX_TO_PG_US) / 1000, false));
}
