/*
 * ulid_type.c — the ulid base type: 16 bytes by reference (48-bit ms
 * big-endian, then 80 random bits, as the ULID spec's binary layout), so
 * memcmp order is time order.  Text I/O is the core's Crockford codec.
 */
#include "chronoid_internal.h"
#include "preload_ids_internal.h"

#include "common/hashfn.h"
#include "fmgr.h"
#include "libpq/pqformat.h"
#include "mb/pg_wchar.h"
#include "utils/builtins.h"
#include "utils/sortsupport.h"
#include "utils/timestamp.h"
#include "utils/uuid.h"
#if PG_VERSION_NUM >= 160000
/* SET_VARSIZE moved out of postgres.h into varatt.h in 16. */
#include "varatt.h"
#endif

#define ULID_LEN 16

PG_FUNCTION_INFO_V1(chronoid_ulid_in);
PG_FUNCTION_INFO_V1(chronoid_ulid_out);
PG_FUNCTION_INFO_V1(chronoid_ulid_recv);
PG_FUNCTION_INFO_V1(chronoid_ulid_send);
PG_FUNCTION_INFO_V1(chronoid_ulid_eq);
PG_FUNCTION_INFO_V1(chronoid_ulid_ne);
PG_FUNCTION_INFO_V1(chronoid_ulid_lt);
PG_FUNCTION_INFO_V1(chronoid_ulid_le);
PG_FUNCTION_INFO_V1(chronoid_ulid_gt);
PG_FUNCTION_INFO_V1(chronoid_ulid_ge);
PG_FUNCTION_INFO_V1(chronoid_ulid_cmp);
PG_FUNCTION_INFO_V1(chronoid_ulid_sortsupport);
PG_FUNCTION_INFO_V1(chronoid_ulid_hash);
PG_FUNCTION_INFO_V1(chronoid_ulid_hash_extended);
PG_FUNCTION_INFO_V1(chronoid_ulid_to_uuid);
PG_FUNCTION_INFO_V1(chronoid_uuid_to_ulid);
PG_FUNCTION_INFO_V1(chronoid_ulid_to_timestamptz);
PG_FUNCTION_INFO_V1(chronoid_timestamptz_to_ulid);
PG_FUNCTION_INFO_V1(chronoid_timestamp_to_ulid);
PG_FUNCTION_INFO_V1(chronoid_ulid_to_bytea);
PG_FUNCTION_INFO_V1(chronoid_bytea_to_ulid);
PG_FUNCTION_INFO_V1(chronoid_gen_ulid);
PG_FUNCTION_INFO_V1(chronoid_gen_monotonic_ulid);

#define ULID_P(n) ((const cid_ulid *) PG_GETARG_POINTER(n))

/*
 * Text input reports bad input as a soft error where the server has them
 * (16+), so pg_input_is_valid() and COPY ... ON_ERROR work; before 16 it
 * is an ordinary ERROR.
 */
#if PG_VERSION_NUM >= 160000
#define ULID_INPUT_ERROR(fcinfo, ...) \
	ereturn((fcinfo)->context, (Datum) 0, __VA_ARGS__)
#else
#define ULID_INPUT_ERROR(fcinfo, ...) \
	do { ereport(ERROR, __VA_ARGS__); return (Datum) 0; } while (0)
#endif

static Datum
ulid_datum(const cid_ulid *u)
{
	cid_ulid   *out = (cid_ulid *) palloc(sizeof(cid_ulid));

	StaticAssertStmt(sizeof(cid_ulid) == ULID_LEN, "cid_ulid is not 16 bytes");
	*out = *u;
	return PointerGetDatum(out);
}

/*
 * Lengths and positions in messages count characters of the server
 * encoding, as a user counts them ("...FAé" is 26 characters, 27 bytes);
 * the core parser works on bytes, which for 26 ASCII characters are the
 * same.
 */
Datum
chronoid_ulid_in(PG_FUNCTION_ARGS)
{
	char	   *s = PG_GETARG_CSTRING(0);
	size_t		len = strlen(s);
	size_t		pos = 0;
	cid_ulid	u;
	int			rc = cid_ulid_parse(&u, s, len, &pos);
	int			nchars;

	if (rc == CID_OK)
		return ulid_datum(&u);
	if (rc == CID_EOVERFLOW)
		ULID_INPUT_ERROR(fcinfo,
						 (errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
						  errmsg("value \"%s\" is out of range for type ulid", s),
						  errdetail("The largest ULID is 7ZZZZZZZZZZZZZZZZZZZZZZZZZ "
									"(the first character is at most 7).")));
	/*
	 * The length first, in characters.  The messages end as pgx_ulid's do
	 * (": invalid length", ": invalid character"), which scripts written
	 * for it match on; the detail says where and what.
	 */
	nchars = pg_mbstrlen_with_len(s, (int) len);
	if (nchars != CID_ULID_STRLEN)
		ULID_INPUT_ERROR(fcinfo,
						 (errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
						  errmsg("invalid input syntax for type ulid: \"%s\": invalid length", s),
						  errdetail("A ULID has %d characters, not %d.",
									CID_ULID_STRLEN, nchars)));
	if (rc == CID_ELENGTH)
	{
		/* 26 characters, some of them multibyte: report the first one */
		for (pos = 0; pos < len && !IS_HIGHBIT_SET(s[pos]); pos++)
			;
		rc = CID_ESYNTAX;
	}
	if (rc == CID_ESYNTAX && pos < len)
	{
		int			charpos;
		char	   *what = cid_pg_char_at(s, pos, &charpos);

		ULID_INPUT_ERROR(fcinfo,
						 (errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
						  errmsg("invalid input syntax for type ulid: \"%s\": invalid character", s),
						  errdetail("%s at position %d is not in the "
									"Crockford base32 alphabet "
									"(0-9 and A-Z without I, L, O, U).",
									what, charpos)));
	}
	ULID_INPUT_ERROR(fcinfo,
					 (errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
					  errmsg("invalid input syntax for type ulid: \"%s\"", s),
					  errdetail("%s", cid_strerror(rc))));
}

Datum
chronoid_ulid_out(PG_FUNCTION_ARGS)
{
	char	   *s = palloc(CID_ULID_STRLEN + 1);

	cid_ulid_format(s, ULID_P(0));
	PG_RETURN_CSTRING(s);
}

/*
 * Binary format: the 16 bytes as stored, like uuid's.  The buffer holds
 * exactly one value (a Bind parameter or one binary COPY field), so any
 * other length is bad data, reported as such with its length rather than
 * as the protocol violation pq_getmsgbytes() would raise.
 */
Datum
chronoid_ulid_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	cid_ulid   *u = (cid_ulid *) palloc(sizeof(cid_ulid));

	if (buf->len - buf->cursor != ULID_LEN)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("invalid length for type ulid: %d bytes",
						buf->len - buf->cursor),
				 errdetail("A ULID is exactly 16 bytes.")));
	memcpy(u->bytes, pq_getmsgbytes(buf, ULID_LEN), ULID_LEN);
	PG_RETURN_POINTER(u);
}

Datum
chronoid_ulid_send(PG_FUNCTION_ARGS)
{
	StringInfoData buf;

	pq_begintypsend(&buf);
	pq_sendbytes(&buf, (const char *) ULID_P(0)->bytes, ULID_LEN);
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

/* Big-endian time first: byte order is time order (ULID spec, Sorting). */
static int
ulid_cmp_bytes(const cid_ulid *a, const cid_ulid *b)
{
	return memcmp(a->bytes, b->bytes, ULID_LEN);
}

Datum
chronoid_ulid_eq(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(ulid_cmp_bytes(ULID_P(0), ULID_P(1)) == 0);
}

Datum
chronoid_ulid_ne(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(ulid_cmp_bytes(ULID_P(0), ULID_P(1)) != 0);
}

Datum
chronoid_ulid_lt(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(ulid_cmp_bytes(ULID_P(0), ULID_P(1)) < 0);
}

Datum
chronoid_ulid_le(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(ulid_cmp_bytes(ULID_P(0), ULID_P(1)) <= 0);
}

Datum
chronoid_ulid_gt(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(ulid_cmp_bytes(ULID_P(0), ULID_P(1)) > 0);
}

Datum
chronoid_ulid_ge(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(ulid_cmp_bytes(ULID_P(0), ULID_P(1)) >= 0);
}

Datum
chronoid_ulid_cmp(PG_FUNCTION_ARGS)
{
	int			c = ulid_cmp_bytes(ULID_P(0), ULID_P(1));

	PG_RETURN_INT32(c < 0 ? -1 : (c > 0 ? 1 : 0));
}

/* Sorts and index builds call this directly, without the fmgr layer. */
static int
ulid_fast_cmp(Datum x, Datum y, SortSupport ssup)
{
	(void) ssup;
	return ulid_cmp_bytes((const cid_ulid *) DatumGetPointer(x),
						  (const cid_ulid *) DatumGetPointer(y));
}

Datum
chronoid_ulid_sortsupport(PG_FUNCTION_ARGS)
{
	SortSupport ssup = (SortSupport) PG_GETARG_POINTER(0);

	ssup->comparator = ulid_fast_cmp;
	PG_RETURN_VOID();
}

Datum
chronoid_ulid_hash(PG_FUNCTION_ARGS)
{
	return hash_any(ULID_P(0)->bytes, ULID_LEN);
}

/* Seeded 64-bit hash: hash partitioning and hash index builds. */
Datum
chronoid_ulid_hash_extended(PG_FUNCTION_ARGS)
{
	return hash_any_extended(ULID_P(0)->bytes, ULID_LEN, PG_GETARG_INT64(1));
}

Datum
chronoid_ulid_to_uuid(PG_FUNCTION_ARGS)
{
	pg_uuid_t  *out = (pg_uuid_t *) palloc(sizeof(pg_uuid_t));
	cid_uuid	u;

	cid_ulid_to_uuid(&u, ULID_P(0));
	memcpy(out->data, u.bytes, UUID_LEN);
	PG_RETURN_UUID_P(out);
}

Datum
chronoid_uuid_to_ulid(PG_FUNCTION_ARGS)
{
	cid_uuid	u;
	cid_ulid	l;

	memcpy(u.bytes, PG_GETARG_UUID_P(0)->data, UUID_LEN);
	cid_ulid_from_uuid(&l, &u);
	return ulid_datum(&l);
}

/* Serves both ulid::timestamptz and ulid::timestamp (read as UTC). */
Datum
chronoid_ulid_to_timestamptz(PG_FUNCTION_ARGS)
{
	PG_RETURN_TIMESTAMPTZ(cid_pg_unix_ms_to_ts(cid_ulid_unix_ms(ULID_P(0))));
}

/* Zero random part: the smallest ULID of that millisecond. */
static Datum
ts_to_ulid(TimestampTz ts, bool with_tz)
{
	int64		ms = cid_pg_ts_to_unix_ms(ts, with_tz, "type ulid");
	cid_ulid	u;
	int			rc = cid_ulid_from_ms(&u, ms, NULL);

	if (rc == CID_ETIME_RANGE)
		cid_pg_ts_range_error(ts, with_tz, "type ulid");
	if (rc < 0)
		cid_pg_report(rc, "could not build a ULID");
	return ulid_datum(&u);
}

/*
 * The casts from a time are declared AS ASSIGNMENT with the three-argument
 * form of these functions, so that an assignment (pgx_ulid's casts are
 * implicit: INSERT ... VALUES (now()) works there) reaches this refusal,
 * which can say what to write instead; core's error for a missing cast
 * cannot.  An explicit cast converts.  Called by name, one argument.
 */
static void
refuse_time_assignment(FunctionCallInfo fcinfo, const char *from)
{
	if (PG_NARGS() < 3 || PG_GETARG_BOOL(2))
		return;
	ereport(ERROR,
			(errcode(ERRCODE_DATATYPE_MISMATCH),
			 errmsg("a %s is not assigned to a ulid without an explicit cast", from),
			 errdetail("A time converts to the smallest ULID of its millisecond, "
					   "the same value for every row of that millisecond."),
			 errhint("For a new key use gen_ulid() or gen_monotonic_ulid(); "
					 "for a range boundary cast explicitly, e.g. now()::ulid.")));
}

Datum
chronoid_timestamptz_to_ulid(PG_FUNCTION_ARGS)
{
	refuse_time_assignment(fcinfo, "timestamp with time zone");
	return ts_to_ulid(PG_GETARG_TIMESTAMPTZ(0), true);
}

Datum
chronoid_timestamp_to_ulid(PG_FUNCTION_ARGS)
{
	refuse_time_assignment(fcinfo, "timestamp without time zone");
	return ts_to_ulid(PG_GETARG_TIMESTAMP(0), false);
}

Datum
chronoid_ulid_to_bytea(PG_FUNCTION_ARGS)
{
	bytea	   *out = (bytea *) palloc(VARHDRSZ + ULID_LEN);

	SET_VARSIZE(out, VARHDRSZ + ULID_LEN);
	memcpy(VARDATA(out), ULID_P(0)->bytes, ULID_LEN);
	PG_RETURN_BYTEA_P(out);
}

Datum
chronoid_bytea_to_ulid(PG_FUNCTION_ARGS)
{
	bytea	   *in = PG_GETARG_BYTEA_PP(0);
	cid_ulid	u;

	if (VARSIZE_ANY_EXHDR(in) != ULID_LEN)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("invalid length for type ulid: %zu bytes",
						(size_t) VARSIZE_ANY_EXHDR(in)),
				 errdetail("A ULID is exactly 16 bytes.")));
	memcpy(u.bytes, VARDATA_ANY(in), ULID_LEN);
	return ulid_datum(&u);
}

/*
 * Per-backend generators, set up on first use (after fork).  The plain one
 * draws fresh randomness each time; the monotonic one increments the last
 * random part within a millisecond (ULID spec, Monotonicity).  When
 * preloaded, gen_monotonic_ulid() uses the server-wide generator of
 * preload_ids.c instead, so its ULIDs increase across all sessions; the
 * plain one needs no shared state.
 */
static cid_ulid_gen plain_gen;
static cid_ulid_gen mono_gen;
static bool plain_ready = false;
static bool mono_ready = false;

static Datum
generate(cid_ulid_gen *gen, bool *ready, bool monotonic)
{
	cid_ulid	u;
	int			rc;

	if (!*ready)
	{
		rc = cid_ulid_init(gen, monotonic, cid_pg_env());
		if (rc < 0)
			cid_pg_report(rc, "could not initialise the ULID generator");
		*ready = true;
	}
	rc = cid_ulid_next(gen, &u);
	if (rc < 0)
		cid_pg_report(rc, "could not generate a ULID");
	return ulid_datum(&u);
}

Datum
chronoid_gen_ulid(PG_FUNCTION_ARGS)
{
	return generate(&plain_gen, &plain_ready, false);
}

/* The server-wide monotonic generator (preloaded mode). */
static Datum
generate_shared(void)
{
	const cid_env *env = cid_pg_env();
	int64_t		now_ns = env->clock(env->ctx);
	uint8_t		rand[10];
	cid_ulid	u;
	int			rc;

	if (now_ns < 0)
		cid_pg_report(CID_ECLOCK, "could not generate a ULID");
	if (env->random(env->ctx, rand, sizeof(rand)) < 0)
		cid_pg_report(CID_ERANDOM, "could not generate a ULID");
	rc = cid_pg_shared_ulid_next(now_ns / 1000000, rand, &u);
	if (rc < 0)
		cid_pg_report(rc, "could not generate a ULID");
	return ulid_datum(&u);
}

Datum
chronoid_gen_monotonic_ulid(PG_FUNCTION_ARGS)
{
	if (cid_pg_preload_ids_ready())
		return generate_shared();
	return generate(&mono_gen, &mono_ready, true);
}
