/*
 * typeid_funcs.c — TypeIDs in SQL as functions between text and uuid:
 * the column stores the uuid (16 bytes, uuid's own btree, hash and sort
 * support, time order for UUIDv7s) and the prefix, fixed per column, is
 * not stored at all; docs/postgresql.md says why this is not a type.
 * Parsing, writing and the prefix rules are the core's cid_typeid_*.
 */
#include "chronoid_internal.h"

#include "fmgr.h"
#include "mb/pg_wchar.h"
#include "utils/builtins.h"
#include "utils/uuid.h"
#if PG_VERSION_NUM >= 160000
#include "varatt.h"
#endif

PG_FUNCTION_INFO_V1(chronoid_typeid_to_uuid);
PG_FUNCTION_INFO_V1(chronoid_uuid_to_typeid);
PG_FUNCTION_INFO_V1(chronoid_typeid_generate);
PG_FUNCTION_INFO_V1(chronoid_typeid_prefix);
PG_FUNCTION_INFO_V1(chronoid_typeid_is_valid);

#define PREFIX_RULE "A TypeID prefix is at most 63 characters of a-z and \"_\", " \
	"starting and ending with a letter."

/*
 * ERROR for a refused TypeID text: the value as the user gave it, the
 * core's status and byte position; where the suffix starts tells a prefix
 * problem from a suffix one.
 */
void
cid_pg_typeid_error(const char *s, size_t len, int rc, size_t pos)
{
	size_t		at = 0;
	int			charpos = 0;
	int			suffix_chars;
	char	   *c;

	for (size_t i = len; i > 0; i--)
		if (s[i - 1] == '_')
		{
			at = i;
			break;
		}
	if (rc == CID_EOVERFLOW)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("value \"%s\" is out of range for a TypeID", s),
				 errdetail("The suffix starts with \"%c\" at position %d; it starts with 0-7, "
						   "the largest being 7zzzzzzzzzzzzzzzzzzzzzzzzz.",
						   s[pos], pg_mbstrlen_with_len(s, (int) pos) + 1)));
	if (rc == CID_ELENGTH && len > 0 && pos < at)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for a TypeID: \"%s\"", s),
				 errdetail("The prefix has %d characters. " PREFIX_RULE,
						   pg_mbstrlen_with_len(s, (int) at - 1))));
	if (rc == CID_ELENGTH)
	{
		suffix_chars = pg_mbstrlen_with_len(s + at, (int) (len - at));
		if (suffix_chars != CID_TYPEID_SUFFIX_LEN)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
					 errmsg("invalid input syntax for a TypeID: \"%s\"", s),
					 errdetail("The suffix after the last \"_\" has %d characters, not %d.",
							   suffix_chars, CID_TYPEID_SUFFIX_LEN)));
		/* 26 characters in more bytes: the first multibyte one is wrong */
		for (pos = at; pos < len && !IS_HIGHBIT_SET(s[pos]); pos++)
			;
		rc = CID_ESYNTAX;
	}
	if (rc != CID_ESYNTAX || pos >= len)
		cid_pg_report(rc, "could not read a TypeID");
	c = cid_pg_char_at(s, pos, &charpos);
	if (pos < at)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for a TypeID: \"%s\"", s),
				 errdetail("%s at position %d is not allowed there. " PREFIX_RULE,
						   c, charpos)));
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
			 errmsg("invalid input syntax for a TypeID: \"%s\"", s),
			 errdetail("%s at position %d is not a TypeID suffix digit "
					   "(0-9 and a-z without i, l, o, u; lower case only).",
					   c, charpos)));
	pg_unreachable();
}

/* The prefix argument of uuid_to_typeid(), typeid_generate(), ...: ERROR if bad. */
static void
check_prefix(const char *p, size_t len)
{
	size_t		pos = 0;
	int			charpos = 0;
	char	   *c;
	int			rc = cid_typeid_prefix_check(p, len, &pos);

	if (rc == CID_OK)
		return;
	if (rc == CID_ELENGTH)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid TypeID prefix \"%s\"", p),
				 errdetail("It has %d characters. " PREFIX_RULE,
						   pg_mbstrlen_with_len(p, (int) len))));
	if (rc != CID_ESYNTAX)
		cid_pg_report(rc, "could not check a TypeID prefix");
	c = cid_pg_char_at(p, pos, &charpos);
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid TypeID prefix \"%s\"", p),
			 errdetail("%s at position %d is not allowed there. " PREFIX_RULE,
					   c, charpos)));
}

/* Parse a text argument; ERROR naming the character and position if bad. */
static void
parse_arg(text *t, cid_uuid *u, char **s, size_t *prefix_len)
{
	size_t		pos = 0;
	int			rc;

	*s = text_to_cstring(t);
	rc = cid_typeid_parse(u, prefix_len, *s, strlen(*s), &pos);
	if (rc != CID_OK)
		cid_pg_typeid_error(*s, strlen(*s), rc, pos);
}

static Datum
uuid_datum(const cid_uuid *u)
{
	pg_uuid_t  *out = (pg_uuid_t *) palloc(sizeof(pg_uuid_t));

	memcpy(out->data, u->bytes, sizeof(out->data));
	return UUIDPGetDatum(out);
}

static Datum
typeid_datum(const char *prefix, size_t prefix_len, const cid_uuid *u)
{
	char		buf[CID_TYPEID_STRLEN_MAX + 1];
	int			n;

	check_prefix(prefix, prefix_len);
	n = cid_typeid_format(buf, sizeof(buf), prefix, prefix_len, u);
	if (n < 0)
		cid_pg_report(n, "could not write a TypeID");
	return PointerGetDatum(cstring_to_text_with_len(buf, n));
}

/*
 * typeid_to_uuid(typeid text) and typeid_to_uuid(typeid text,
 * expected_prefix text): the UUID, any prefix, or only the one expected
 * (22023 otherwise: a user_ ID handed where an order_ one belongs).
 */
Datum
chronoid_typeid_to_uuid(PG_FUNCTION_ARGS)
{
	cid_uuid	u;
	char	   *s;
	size_t		plen = 0;

	parse_arg(PG_GETARG_TEXT_PP(0), &u, &s, &plen);
	if (PG_NARGS() > 1)
	{
		char	   *want = text_to_cstring(PG_GETARG_TEXT_PP(1));

		check_prefix(want, strlen(want));
		if (strlen(want) != plen || memcmp(want, s, plen) != 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("TypeID \"%s\" has prefix \"%.*s\", not \"%s\"",
							s, (int) plen, s, want)));
	}
	return uuid_datum(&u);
}

/* uuid_to_typeid(prefix text, id uuid) */
Datum
chronoid_uuid_to_typeid(PG_FUNCTION_ARGS)
{
	char	   *prefix = text_to_cstring(PG_GETARG_TEXT_PP(0));
	pg_uuid_t  *in = PG_GETARG_UUID_P(1);
	cid_uuid	u;

	memcpy(u.bytes, in->data, sizeof(u.bytes));
	return typeid_datum(prefix, strlen(prefix), &u);
}

/*
 * typeid_generate(prefix text): a fresh UUIDv7 from uuidv7()'s generator
 * (so ordered with everything uuidv7() issues) under the prefix, which is
 * checked first so that a bad one draws nothing.
 */
Datum
chronoid_typeid_generate(PG_FUNCTION_ARGS)
{
	char	   *prefix = text_to_cstring(PG_GETARG_TEXT_PP(0));
	cid_uuid	u;

	check_prefix(prefix, strlen(prefix));
	cid_pg_uuidv7_next(&u);
	return typeid_datum(prefix, strlen(prefix), &u);
}

/* typeid_prefix(typeid text): the prefix of a valid TypeID ('' for none). */
Datum
chronoid_typeid_prefix(PG_FUNCTION_ARGS)
{
	cid_uuid	u;
	char	   *s;
	size_t		plen = 0;

	parse_arg(PG_GETARG_TEXT_PP(0), &u, &s, &plen);
	PG_RETURN_TEXT_P(cstring_to_text_with_len(s, (int) plen));
}

/*
 * typeid_is_valid(typeid text [, expected_prefix text]): the test without
 * the error, for CHECK constraints and filters.
 */
Datum
chronoid_typeid_is_valid(PG_FUNCTION_ARGS)
{
	text	   *t = PG_GETARG_TEXT_PP(0);
	const char *s = VARDATA_ANY(t);
	size_t		len = VARSIZE_ANY_EXHDR(t);
	size_t		plen = 0;
	cid_uuid	u;

	if (cid_typeid_parse(&u, &plen, s, len, NULL) != CID_OK)
		PG_RETURN_BOOL(false);
	if (PG_NARGS() > 1)
	{
		text	   *w = PG_GETARG_TEXT_PP(1);

		PG_RETURN_BOOL(VARSIZE_ANY_EXHDR(w) == plen && memcmp(VARDATA_ANY(w), s, plen) == 0);
	}
	PG_RETURN_BOOL(true);
}
