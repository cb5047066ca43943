/*
 * typeid.c — TypeIDs (github.com/jetify-com/typeid, spec 0.3.0): a type
 * prefix and a UUID in the ULID's base32 digits, written in lower case.
 * The digits themselves come from ulid.c (base32_internal.h); this file
 * holds only what TypeID adds: the prefix rules, the separator, the
 * strict lower-case alphabet.
 */
#include "chronoid.h"

#include <string.h>

#include "base32_internal.h"

static bool
is_prefix_letter(unsigned char c)
{
	return c >= 'a' && c <= 'z';
}

int
cid_typeid_prefix_check(const char *prefix, size_t len, size_t *errpos)
{
	size_t		bad;

	if (prefix == NULL && len > 0)
		return CID_EINVAL;
	if (len == 0)
		return CID_OK;
	/* the first character not allowed where it stands, left to right */
	for (bad = 0; bad < len && bad < CID_TYPEID_PREFIX_MAX; bad++)
	{
		unsigned char c = (unsigned char) prefix[bad];

		if (!is_prefix_letter(c) &&
			(c != '_' || bad == 0 || bad == len - 1))
			break;
	}
	if (bad == CID_TYPEID_PREFIX_MAX && len > CID_TYPEID_PREFIX_MAX)
	{
		if (errpos != NULL)
			*errpos = CID_TYPEID_PREFIX_MAX;
		return CID_ELENGTH;
	}
	if (bad < len)
	{
		if (errpos != NULL)
			*errpos = bad;
		return CID_ESYNTAX;
	}
	return CID_OK;
}

int
cid_typeid_format(char *out, size_t outlen, const char *prefix, size_t prefix_len,
				  const cid_uuid *uuid)
{
	char		digits[CID_TYPEID_SUFFIX_LEN];
	size_t		at = prefix_len > 0 ? prefix_len + 1 : 0;
	int			rc;

	if (out == NULL || uuid == NULL)
		return CID_EINVAL;
	rc = cid_typeid_prefix_check(prefix, prefix_len, NULL);
	if (rc != CID_OK)
		return rc;
	if (outlen < at + CID_TYPEID_SUFFIX_LEN + 1)
		return CID_EINVAL;
	cid_base32_format26(digits, uuid->bytes);

	/*
	 * The ULID digits are upper case; every one of them, digits '0'..'9'
	 * included, already has ASCII's 0x20 bit or gains it as the lower-case
	 * letter, so one OR per byte is the whole conversion.
	 */
	for (int i = 0; i < CID_TYPEID_SUFFIX_LEN; i++)
		digits[i] = (char) (digits[i] | 0x20);
	if (prefix_len > 0)
	{
		memcpy(out, prefix, prefix_len);
		out[prefix_len] = '_';
	}
	memcpy(out + at, digits, CID_TYPEID_SUFFIX_LEN);
	out[at + CID_TYPEID_SUFFIX_LEN] = '\0';
	return (int) (at + CID_TYPEID_SUFFIX_LEN);
}

/*
 * The suffix's first upper-case letter (the shared decoder reads both
 * cases, TypeID's spec only lower), or CID_TYPEID_SUFFIX_LEN.
 */
static size_t
first_upper(const char *s)
{
	size_t		i;

	for (i = 0; i < CID_TYPEID_SUFFIX_LEN; i++)
		if (s[i] >= 'A' && s[i] <= 'Z')
			break;
	return i;
}

static int
fail(int rc, size_t pos, size_t *errpos)
{
	if (errpos != NULL)
		*errpos = pos;
	return rc;
}

int
cid_typeid_parse(cid_uuid *out, size_t *prefix_len, const char *s, size_t len,
				 size_t *errpos)
{
	const char *sep = NULL;
	size_t		plen = 0;
	size_t		at;
	size_t		upper;
	cid_uuid	tmp;
	int			rc;

	if (out == NULL || (s == NULL && len > 0))
		return CID_EINVAL;
	if (len == 0)
		return fail(CID_ELENGTH, 0, errpos);
	for (size_t i = len; i > 0; i--)
		if (s[i - 1] == '_')
		{
			sep = s + i - 1;
			break;
		}
	if (sep != NULL)
	{
		plen = (size_t) (sep - s);
		if (plen == 0)
			return fail(CID_ESYNTAX, 0, errpos);
		rc = cid_typeid_prefix_check(s, plen, errpos);
		if (rc != CID_OK)
			return rc;
	}
	at = sep != NULL ? plen + 1 : 0;
	if (len - at != CID_TYPEID_SUFFIX_LEN)
		return fail(CID_ELENGTH, at, errpos);
	upper = first_upper(s + at);
	if (!cid_base32_parse26(tmp.bytes, s + at))
	{
		size_t		pos = at;

		rc = cid_base32_error26(s + at, at, &pos);
		if (upper < CID_TYPEID_SUFFIX_LEN && (rc != CID_ESYNTAX || at + upper < pos))
			return fail(CID_ESYNTAX, at + upper, errpos);
		return fail(rc, pos, errpos);
	}
	if (upper < CID_TYPEID_SUFFIX_LEN)
		return fail(CID_ESYNTAX, at + upper, errpos);
	*out = tmp;
	if (prefix_len != NULL)
		*prefix_len = plen;
	return CID_OK;
}

int
cid_typeid_next(cid_uuidv7_gen *gen, char *out, size_t outlen,
				const char *prefix, size_t prefix_len, cid_uuid *uuid)
{
	cid_uuid	u;
	size_t		at = prefix_len > 0 ? prefix_len + 1 : 0;
	int			rc;

	if (gen == NULL || out == NULL || outlen < at + CID_TYPEID_SUFFIX_LEN + 1)
		return CID_EINVAL;
	rc = cid_typeid_prefix_check(prefix, prefix_len, NULL);
	if (rc != CID_OK)
		return rc;
	rc = cid_uuidv7_next(gen, &u);
	if (rc != CID_OK)
		return rc;
	if (uuid != NULL)
		*uuid = u;
	return cid_typeid_format(out, outlen, prefix, prefix_len, &u);
}
