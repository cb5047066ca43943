/*
 * kinds_funcs.c — SQL functions for the IDs already in people's databases:
 * MongoDB ObjectIds and KSUIDs as text (time, validity, generation, range
 * boundaries), UUID v1 <-> v6, the v6 generator and its range boundary,
 * and chronoid_inspect(), which tells any ID's kind, time and parts.  All ID
 * logic is the core's (include/chronoid.h).
 */
#include "chronoid_internal.h"
#include "typeid_internal.h"	/* cid_typeid_shaped: the core's rule */

#include "access/htup_details.h"
#include "common/int.h"
#include "fmgr.h"
#include "funcapi.h"
#include "mb/pg_wchar.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"
#include "utils/uuid.h"
#if PG_VERSION_NUM >= 160000
#include "varatt.h"
#endif

PG_FUNCTION_INFO_V1(chronoid_objectid_time);
PG_FUNCTION_INFO_V1(chronoid_ksuid_time);
PG_FUNCTION_INFO_V1(chronoid_objectid_is_valid);
PG_FUNCTION_INFO_V1(chronoid_ksuid_is_valid);
PG_FUNCTION_INFO_V1(chronoid_objectid_boundary_tz);
PG_FUNCTION_INFO_V1(chronoid_objectid_boundary);
PG_FUNCTION_INFO_V1(chronoid_ksuid_boundary_tz);
PG_FUNCTION_INFO_V1(chronoid_ksuid_boundary);
PG_FUNCTION_INFO_V1(chronoid_uuidv6_boundary_tz);
PG_FUNCTION_INFO_V1(chronoid_uuidv6_boundary);
PG_FUNCTION_INFO_V1(chronoid_objectid_generate);
PG_FUNCTION_INFO_V1(chronoid_ksuid_generate);
PG_FUNCTION_INFO_V1(chronoid_uuidv1_to_v6);
PG_FUNCTION_INFO_V1(chronoid_uuidv6_to_v1);
PG_FUNCTION_INFO_V1(chronoid_uuidv6);
PG_FUNCTION_INFO_V1(chronoid_inspect);

/*
 * What each text kind's parser accepts, for the messages: the type name
 * users know it by, its length and what a refused character is not.
 */
typedef struct text_kind
{
	const char *name;			/* with its article, as in "for an ObjectId" */
	int			length;			/* 0: the form has several */
	const char *rule;			/* after "Character "x" at position n " */
} text_kind;

static const text_kind objectid_kind = {"an ObjectId", CID_OBJECTID_STRLEN,
"is not one of the hexadecimal digits (0-9, a-f, A-F)"};
static const text_kind ksuid_kind = {"a KSUID", CID_KSUID_STRLEN,
"is not one of the base62 digits (0-9, A-Z, a-z)"};
/* chronoid_inspect()'s other forms, chosen by length as cid_inspect_id does */
static const text_kind uuid_kind = {"a UUID", 0,
"does not fit the form xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx of hexadecimal digits "
"(also without hyphens, or in braces)"};
static const text_kind ulid_kind = {"a ULID", CID_ULID_STRLEN,
"is not one of the Crockford base32 digits (0-9 and A-Z without I, L, O, U)"};
static const text_kind snowflake_kind = {"a snowflake", 0,
"is not one of the decimal digits"};

/*
 * ERROR for text a core parser refused (status rc, bad byte at pos), in
 * the shape of the ulid type's input errors: the value, then what is
 * wrong and where, positions and lengths in characters of the server
 * encoding.
 */
static _Noreturn void
text_kind_error(const text_kind *k, const char *s, size_t len, int rc, size_t pos)
{
	int			nchars = pg_mbstrlen_with_len(s, (int) len);
	int			charpos = 0;
	char	   *c;

	if (rc == CID_EOVERFLOW)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("value \"%s\" is out of range for %s", s, k->name),
				 k == &ksuid_kind ? errdetail("The largest KSUID is aWgEPTl1tmebfsQzFP4bxwgy80V.") :
				 k == &ulid_kind ? errdetail("The largest ULID is 7ZZZZZZZZZZZZZZZZZZZZZZZZZ.") :
				 errdetail("The largest snowflake is 9223372036854775807.")));
	if (k->length != 0 && nchars != k->length)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for %s: \"%s\": invalid length", k->name, s),
				 errdetail("Expected %d characters, not %d.", k->length, nchars)));
	if (rc == CID_ELENGTH)
	{
		/* the right count of characters, some multibyte: the first one */
		for (pos = 0; pos < len && !IS_HIGHBIT_SET(s[pos]); pos++)
			;
		rc = CID_ESYNTAX;
	}
	if (rc != CID_ESYNTAX || pos >= len)
		ereport(ERROR,
				(errcode(cid_pg_sqlstate(rc)),
				 errmsg("invalid input syntax for %s: \"%s\"", k->name, s),
				 errdetail("%s", cid_strerror(rc))));
	c = cid_pg_char_at(s, pos, &charpos);
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
			 errmsg("invalid input syntax for %s: \"%s\": invalid character", k->name, s),
			 errdetail("%s at position %d %s.", c, charpos, k->rule)));
	pg_unreachable();
}

Datum
chronoid_objectid_time(PG_FUNCTION_ARGS)
{
	char	   *s = text_to_cstring(PG_GETARG_TEXT_PP(0));
	size_t		len = strlen(s);
	size_t		pos = 0;
	cid_objectid o;
	int			rc = cid_objectid_parse(&o, s, len, &pos);

	if (rc != CID_OK)
		text_kind_error(&objectid_kind, s, len, rc, pos);
	PG_RETURN_TIMESTAMPTZ(cid_pg_unix_ms_to_ts(cid_objectid_unix_ms(&o)));
}

Datum
chronoid_ksuid_time(PG_FUNCTION_ARGS)
{
	char	   *s = text_to_cstring(PG_GETARG_TEXT_PP(0));
	size_t		len = strlen(s);
	size_t		pos = 0;
	cid_ksuid	k;
	int			rc = cid_ksuid_parse(&k, s, len, &pos);

	if (rc != CID_OK)
		text_kind_error(&ksuid_kind, s, len, rc, pos);
	PG_RETURN_TIMESTAMPTZ(cid_pg_unix_ms_to_ts(cid_ksuid_unix_ms(&k)));
}

/*
 * objectid_is_valid(text), ksuid_is_valid(text): the parsers' verdict
 * without the error, for CHECK constraints and filters.
 */
Datum
chronoid_objectid_is_valid(PG_FUNCTION_ARGS)
{
	text	   *t = PG_GETARG_TEXT_PP(0);
	cid_objectid o;

	PG_RETURN_BOOL(cid_objectid_parse(&o, VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t), NULL) == CID_OK);
}

Datum
chronoid_ksuid_is_valid(PG_FUNCTION_ARGS)
{
	text	   *t = PG_GETARG_TEXT_PP(0);
	cid_ksuid	k;

	PG_RETURN_BOOL(cid_ksuid_parse(&k, VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t), NULL) == CID_OK);
}

/*
 * The smallest ObjectId (KSUID) of the second holding ts, as text: zero
 * after the seconds, the core's range boundary.  Both write fixed-width
 * text whose byte order is the value's, so under the "C" collation
 * WHERE id >= objectid_boundary(t) is a time range on a text column.
 */
static Datum
text_boundary(TimestampTz ts, bool with_tz, bool ksuid)
{
	const char *target = ksuid ? "a KSUID" : "an ObjectId";
	int64		ms = cid_pg_ts_to_unix_ms(ts, with_tz, target);
	char		buf[CID_KSUID_STRLEN + 1];
	cid_objectid o;
	cid_ksuid	k;
	int			rc = ksuid ? cid_ksuid_from_ms(&k, ms, NULL) : cid_objectid_from_ms(&o, ms, NULL);

	if (rc == CID_ETIME_RANGE)
		cid_pg_ts_out_of_range(ts, with_tz, target, ksuid ?
							   "A KSUID's 32-bit seconds hold times from 2014-05-13 16:53:20 "
							   "to 2150-06-19 23:21:35 UTC." :
							   "An ObjectId's 32-bit seconds hold times from 1970-01-01 00:00:00 "
							   "to 2106-02-07 06:28:15 UTC.");
	if (rc < 0)
		cid_pg_report(rc, ksuid ? "could not build a KSUID" : "could not build an ObjectId");
	if (ksuid)
		cid_ksuid_format(buf, &k);
	else
		cid_objectid_format(buf, &o);
	return PointerGetDatum(cstring_to_text(buf));
}

Datum
chronoid_objectid_boundary_tz(PG_FUNCTION_ARGS)
{
	return text_boundary(PG_GETARG_TIMESTAMPTZ(0), true, false);
}

Datum
chronoid_objectid_boundary(PG_FUNCTION_ARGS)
{
	return text_boundary(PG_GETARG_TIMESTAMP(0), false, false);
}

Datum
chronoid_ksuid_boundary_tz(PG_FUNCTION_ARGS)
{
	return text_boundary(PG_GETARG_TIMESTAMPTZ(0), true, true);
}

Datum
chronoid_ksuid_boundary(PG_FUNCTION_ARGS)
{
	return text_boundary(PG_GETARG_TIMESTAMP(0), false, true);
}

/*
 * One ObjectId generator per backend, made on first use (after the fork
 * from the postmaster): its 5 process bytes are this backend's, as the
 * BSON ObjectID specification has them per process.
 */
static cid_objectid_gen session_oid;
static bool session_oid_ready = false;

Datum
chronoid_objectid_generate(PG_FUNCTION_ARGS)
{
	char		buf[CID_OBJECTID_STRLEN + 1];
	cid_objectid o;
	int			rc;

	if (!session_oid_ready)
	{
		rc = cid_objectid_init(&session_oid, cid_pg_env());
		if (rc < 0)
			cid_pg_report(rc, "could not initialise the ObjectId generator");
		session_oid_ready = true;
	}
	rc = cid_objectid_next(&session_oid, &o);
	if (rc < 0)
		cid_pg_report(rc, "could not generate an ObjectId");
	cid_objectid_format(buf, &o);
	PG_RETURN_TEXT_P(cstring_to_text(buf));
}

Datum
chronoid_ksuid_generate(PG_FUNCTION_ARGS)
{
	char		buf[CID_KSUID_STRLEN + 1];
	cid_ksuid	k;
	int			rc = cid_ksuid_new(&k, cid_pg_env());

	if (rc < 0)
		cid_pg_report(rc, "could not generate a KSUID");
	cid_ksuid_format(buf, &k);
	PG_RETURN_TEXT_P(cstring_to_text(buf));
}

/* The other version of a v1 (from = 1) or v6 UUID; ERROR for any other. */
static Datum
convert_uuid(FunctionCallInfo fcinfo, int from)
{
	pg_uuid_t  *in = PG_GETARG_UUID_P(0);
	pg_uuid_t  *out = (pg_uuid_t *) palloc(sizeof(pg_uuid_t));
	cid_uuid	u;
	int			version;

	memcpy(u.bytes, in->data, sizeof(u.bytes));
	version = cid_uuid_version(&u);
	if ((from == 1 ? cid_uuid_v1_to_v6(&u, &u) : cid_uuid_v6_to_v1(&u, &u)) != CID_OK)
	{
		char		text[CID_UUID_STRLEN + 1];

		memcpy(u.bytes, in->data, sizeof(u.bytes));
		cid_uuid_format(text, &u);
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("uuid \"%s\" is not a version %d UUID", text, from),
				 version >= 0 ? errdetail("It is version %d.", version) :
				 errdetail("It is not of the RFC 9562 variant."),
				 errhint("uuidv%d_to_v%d() takes version %d UUIDs.", from, 7 - from, from)));
	}
	memcpy(out->data, u.bytes, sizeof(u.bytes));
	PG_RETURN_UUID_P(out);
}

Datum
chronoid_uuidv1_to_v6(PG_FUNCTION_ARGS)
{
	return convert_uuid(fcinfo, 1);
}

Datum
chronoid_uuidv6_to_v1(PG_FUNCTION_ARGS)
{
	return convert_uuid(fcinfo, 6);
}

/*
 * The smallest v6 UUID of ts's microsecond: its first 100-ns tick
 * (RFC 9562 section 5.1: counted from 1582-10-15 00:00 UTC), clock
 * sequence and node zero, as cid_uuidv6_from_ticks() makes a range
 * boundary.  v6 UUIDs sort by time as bytes, so WHERE id >=
 * uuidv6_boundary(t) is a time range on a uuid column.
 */
static Datum
v6_boundary(TimestampTz ts, bool with_tz)
{
	int64		us = cid_pg_ts_to_unix_us(ts, with_tz, "a UUIDv6");
	int64		ticks;
	pg_uuid_t  *out;
	cid_uuid	u;

	/* int64 overflows only far beyond the 60-bit field, which ends in 5236 */
	if (pg_mul_s64_overflow(us, 10, &ticks) ||
		pg_add_s64_overflow(ticks, CID_UUID_GREGORIAN_OFFSET, &ticks) ||
		ticks < 0 || cid_uuidv6_from_ticks(&u, (uint64_t) ticks, NULL) != CID_OK)
		cid_pg_ts_out_of_range(ts, with_tz, "a UUIDv6",
							   "UUID version 6 holds times from 1582-10-15 00:00:00 "
							   "to 5236-03-31 21:21:00.684697 UTC.");
	out = (pg_uuid_t *) palloc(sizeof(pg_uuid_t));
	memcpy(out->data, u.bytes, sizeof(u.bytes));
	PG_RETURN_UUID_P(out);
}

Datum
chronoid_uuidv6_boundary_tz(PG_FUNCTION_ARGS)
{
	return v6_boundary(PG_GETARG_TIMESTAMPTZ(0), true);
}

Datum
chronoid_uuidv6_boundary(PG_FUNCTION_ARGS)
{
	return v6_boundary(PG_GETARG_TIMESTAMP(0), false);
}

/* One v6 generator per backend: strictly increasing within the session. */
static cid_uuidv6_gen session_v6;
static bool session_v6_ready = false;

Datum
chronoid_uuidv6(PG_FUNCTION_ARGS)
{
	pg_uuid_t  *out = (pg_uuid_t *) palloc(sizeof(pg_uuid_t));
	cid_uuid	u;
	int			rc;

	if (!session_v6_ready)
	{
		rc = cid_uuidv6_init(&session_v6, cid_pg_env());
		if (rc < 0)
			cid_pg_report(rc, "could not initialise the UUIDv6 generator");
		session_v6_ready = true;
	}
	rc = cid_uuidv6_next(&session_v6, &u);
	if (rc < 0)
		cid_pg_report(rc, "could not generate a UUIDv6");
	memcpy(out->data, u.bytes, sizeof(u.bytes));
	PG_RETURN_UUID_P(out);
}

/* What chronoid_inspect() reads, for text of no form. */
#define EXPECTED_FORMS "Expected a UUID (32, 34, 36 or 38 characters), a ULID (26), " \
	"an ObjectId (24), a KSUID (27), a TypeID (a prefix, \"_\" and 26) " \
	"or a snowflake (up to 20 decimal digits)."

/*
 * ERROR for text cid_inspect_id() refused: as the form it chose would
 * report it (a TypeID by the core's cid_typeid_shaped(); then by the
 * length, as its header says).  No form has a character outside ASCII,
 * so the first one is named whatever the length, which in bytes chose
 * the form.
 */
static _Noreturn void
inspect_error(const char *s, size_t len, int rc, size_t pos)
{
	const text_kind *k;
	size_t		hi;
	int			charpos = 0;

	if (rc != CID_EUNKNOWN && cid_typeid_shaped(s, len))
		cid_pg_typeid_error(s, len, rc, pos);
	for (hi = 0; hi < len && !IS_HIGHBIT_SET(s[hi]); hi++)
		;
	if (hi < len)
	{
		char	   *c = cid_pg_char_at(s, hi, &charpos);

		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for an id: \"%s\"", s),
				 errdetail("%s at position %d is in no ID's alphabet: "
						   "IDs are written in ASCII letters, digits, \"-\" and \"_\".",
						   c, charpos)));
	}
	if (rc == CID_EUNKNOWN)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for an id: \"%s\"", s),
				 errdetail_plural("It has %d character. " EXPECTED_FORMS,
								  "It has %d characters. " EXPECTED_FORMS,
								  (unsigned long) len, (int) len)));
	switch (len)
	{
		case CID_OBJECTID_STRLEN:
			k = &objectid_kind;
			break;
		case CID_KSUID_STRLEN:
			k = &ksuid_kind;
			break;
		case CID_ULID_STRLEN:
			k = &ulid_kind;
			break;
		case 32:
		case 34:
		case 36:
		case 38:
			k = &uuid_kind;
			break;
		default:
			k = &snowflake_kind;
			break;
	}
	text_kind_error(k, s, len, rc, pos);
}

/*
 * chronoid_inspect(text) -> (kind, version, created): what the text is by
 * its form (cid_inspect_id: a Snowflake under the default layout; a
 * TypeID's version is its UUID's) and its time, to the microsecond where
 * the ID holds it (UUID v1/v6).  A text of no known form, or one its
 * form's parser refuses, is an ERROR naming the character and position.
 */
Datum
chronoid_inspect(PG_FUNCTION_ARGS)
{
	char	   *s = text_to_cstring(PG_GETARG_TEXT_PP(0));
	size_t		len = strlen(s);
	size_t		pos = 0;
	cid_id_info info;
	TupleDesc	desc;
	Datum		values[6];
	bool		nulls[6] = {false, false, false, false, false, false};
	int			rc = cid_inspect_id(&info, sizeof(info), s, len, NULL, &pos);

	if (rc != CID_OK)
		inspect_error(s, len, rc, pos);
	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("chronoid_inspect() must return a record")));
	desc = BlessTupleDesc(desc);
	values[0] = CStringGetTextDatum(cid_kind_name(info.kind));
	if (info.version >= 0)
		values[1] = Int32GetDatum(info.version);
	else
		nulls[1] = true;
	if (info.has_time)
		values[2] = TimestampTzGetDatum(cid_pg_unix_ms_to_ts(info.unix_ms) +
										info.sub_ms_ns / 1000);
	else
		nulls[2] = true;
	if (info.kind == CID_KIND_TYPEID)
		values[3] = CStringGetTextDatum(info.prefix);
	else
		nulls[3] = true;
	/* at most 48 bits (a UUID v1/v6 node): int8 holds every one */
	if (info.has_node)
		values[4] = Int64GetDatum((int64) info.node);
	else
		nulls[4] = true;
	if (info.has_sequence)
		values[5] = Int64GetDatum((int64) info.sequence);
	else
		nulls[5] = true;
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(desc, values, nulls)));
}
