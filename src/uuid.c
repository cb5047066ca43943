/*
 * uuid.c — RFC 9562 UUIDs: text parsing and formatting, version and
 * timestamp extraction, and building v4 and v7 values from given bytes.
 */
#include "chronoid.h"

#include <string.h>

#include "bytes_internal.h"
#include "hex_internal.h"

#define UUID_MAX_MS ((INT64_C(1) << 48) - 1)

/* Where byte i's two digits start in the canonical form. */
static const uint8_t digit_at36[16] = {0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34};

/*
 * The fast path of both text forms: the 32 digits as four words of eight
 * (the canonical form's 4-digit groups paired up), the hyphens compared.
 * False when anything is wrong; the caller then finds the first bad
 * character with syntax_error().
 */
static inline bool
parse_fast36(uint8_t *out, const char *s)
{
	const unsigned char *u = (const unsigned char *) s;

	/* RFC 9562 section 4: 8-4-4-4-12, hyphens at 8, 13, 18 and 23. */
	return cid_hex8(out, cid_load_le(s, 8)) &
		cid_hex8(out + 4, cid_load_le(s + 9, 4) | cid_load_le(s + 14, 4) << 32) &
		cid_hex8(out + 8, cid_load_le(s + 19, 4) | cid_load_le(s + 24, 4) << 32) &
		cid_hex8(out + 12, cid_load_le(s + 28, 8)) &
		(((u[8] ^ '-') | (u[13] ^ '-') | (u[18] ^ '-') | (u[23] ^ '-')) == 0);
}

static inline bool
parse_fast32(uint8_t *out, const char *s)
{
	return cid_hex8(out, cid_load_le(s, 8)) & cid_hex8(out + 4, cid_load_le(s + 8, 8)) &
		cid_hex8(out + 8, cid_load_le(s + 16, 8)) & cid_hex8(out + 12, cid_load_le(s + 24, 8));
}

/*
 * Where the fast path refused n characters at s (the canonical 8-4-4-4-12
 * form when n == 36, bare hex when n == 32): the first character that is
 * not what the form wants there, as CID_ESYNTAX.  base is s's offset in
 * the caller's text, so that *errpos indexes the caller's text.
 */
static int
syntax_error(const char *s, size_t n, size_t base, size_t *errpos)
{
	for (size_t i = 0; i < n; i++)
	{
		/* RFC 9562 section 4: hyphens sit after 8, 12, 16 and 20 digits. */
		bool		hyphen = n == 36 && (i == 8 || i == 13 || i == 18 || i == 23);

		if (hyphen ? s[i] != '-' : cid_hex_values[(unsigned char) s[i]] == 0)
		{
			if (errpos)
				*errpos = base + i;
			return CID_ESYNTAX;
		}
	}
	return CID_ESYNTAX;			/* not reached: the fast path found a fault */
}

/* Either form, n == 36 or 32. */
static inline int
parse_text(cid_uuid *out, const char *s, size_t n, size_t base, size_t *errpos)
{
	if (n == 36 ? parse_fast36(out->bytes, s) : parse_fast32(out->bytes, s))
		return CID_OK;
	return syntax_error(s, n, base, errpos);
}

int
cid_uuid_parse(cid_uuid *out, const char *s, size_t len, size_t *errpos)
{
	cid_uuid	tmp;
	int			rc;

	if (out == NULL || (s == NULL && len > 0))
		return CID_EINVAL;

	switch (len)
	{
		case 36:
		case 32:
			rc = parse_text(&tmp, s, len, 0, errpos);
			break;
		case 38:
		case 34:
			if (s[0] != '{')
			{
				if (errpos)
					*errpos = 0;
				return CID_ESYNTAX;
			}
			rc = parse_text(&tmp, s + 1, len - 2, 1, errpos);
			if (rc == CID_OK && s[len - 1] != '}')
			{
				if (errpos)
					*errpos = len - 1;
				rc = CID_ESYNTAX;
			}
			break;
		default:
			return CID_ELENGTH;
	}
	if (rc == CID_OK)
		*out = tmp;
	return rc;
}

/* The canonical text of b into out[0..36), RFC 9562 section 4: 8-4-4-4-12. */
static inline void
format36(char *out, const uint8_t *b)
{
	CID_UNROLL(16)
	for (int i = 0; i < 16; i++)
		memcpy(out + digit_at36[i], cid_hex_pairs + 2 * (size_t) b[i], 2);
	out[8] = out[13] = out[18] = out[23] = '-';
}

void
cid_uuid_format(char *out, const cid_uuid *uuid)
{
	format36(out, uuid->bytes);
	out[CID_UUID_STRLEN] = '\0';
}

/* The canonical form's fast path and error, for the batch parser. */
static bool
parse36(uint8_t *out, const char *s)
{
	return parse_fast36(out, s);
}

static int
error36(const char *s, size_t base, size_t *errpos)
{
	return syntax_error(s, CID_UUID_STRLEN, base, errpos);
}

size_t
cid_uuid_format_many(char *out, const cid_uuid *uuids, size_t n, char sep)
{
	return cid_format_many16(out, (const uint8_t *) uuids, n, sep, CID_UUID_STRLEN, format36);
}

int
cid_uuid_parse_many(cid_uuid *out, const char *s, size_t n, size_t stride,
					size_t *done, size_t *errpos)
{
	return cid_parse_many16((uint8_t *) out, s, n, stride, CID_UUID_STRLEN, done, errpos,
							parse36, error36);
}

int
cid_uuid_version(const cid_uuid *uuid)
{
	/*
	 * RFC 9562 section 4.1: the variant is the top bits of octet 8; 10xx is
	 * the RFC's own.  Section 4.2: the version is the top nibble of octet 6
	 * and means something only for that variant.
	 */
	if ((uuid->bytes[8] & 0xc0) != 0x80)
		return -1;
	return uuid->bytes[6] >> 4;
}

/* Floor division for a positive divisor. */
static int64_t
floor_div(int64_t a, int64_t b)
{
	int64_t		q = a / b;

	if (a % b != 0 && a < 0)
		q--;
	return q;
}

int
cid_uuid_gregorian_ticks(uint64_t *ticks, const cid_uuid *uuid)
{
	const uint8_t *b;

	if (ticks == NULL || uuid == NULL)
		return CID_EINVAL;
	b = uuid->bytes;
	switch (cid_uuid_version(uuid))
	{
		case 1:

			/*
			 * RFC 9562 section 5.1: time_low (32 bits), time_mid (16), then
			 * time_high (12) under the version nibble: the 60-bit count of
			 * 100 ns since 1582-10-15, least significant part first.
			 */
			*ticks = (cid_load_be_n(b + 6, 2) & 0x0fff) << 48 |
				cid_load_be_n(b + 4, 2) << 32 |
				cid_load_be_n(b, 4);
			return CID_OK;
		case 6:

			/*
			 * RFC 9562 section 5.6: the same count, most significant part
			 * first: time_high (32), time_mid (16), time_low (12).
			 */
			*ticks = cid_load_be_n(b, 4) << 28 |
				cid_load_be_n(b + 4, 2) << 12 |
				(cid_load_be_n(b + 6, 2) & 0x0fff);
			return CID_OK;
		default:
			return CID_ENOTIME;
	}
}

int
cid_uuid_unix_ms(int64_t *unix_ms, const cid_uuid *uuid)
{
	uint64_t	ts;

	if (cid_uuid_version(uuid) == 7)
	{
		/* RFC 9562 section 5.7: unix_ts_ms, 48 bits big-endian. */
		*unix_ms = (int64_t) cid_load_be_n(uuid->bytes, 6);
		return CID_OK;
	}
	if (cid_uuid_gregorian_ticks(&ts, uuid) != CID_OK)
		return CID_ENOTIME;
	/* ts < 2^60, so the difference cannot overflow. */
	*unix_ms = floor_div((int64_t) ts - CID_UUID_GREGORIAN_OFFSET, 10000);
	return CID_OK;
}

void
cid_uuidv4_from_bytes(cid_uuid *out, const uint8_t rand[16])
{
	/* rand may be out's own bytes (cid_uuidv4_fill): memmove */
	memmove(out->bytes, rand, 16);
	/* RFC 9562 section 5.4: version 4 in octet 6, variant 10 in octet 8. */
	out->bytes[6] = (uint8_t) ((out->bytes[6] & 0x0f) | 0x40);
	out->bytes[8] = (uint8_t) ((out->bytes[8] & 0x3f) | 0x80);
}

/* len bytes from env's random source (env NULL = platform). */
static int
env_random(const cid_env *env, void *buf, size_t len)
{
	int			rc;

	if (env != NULL && env->random != NULL)
		rc = env->random(env->ctx, buf, len);
	else
		rc = cid_random_bytes(buf, len);
	return rc < 0 ? CID_ERANDOM : CID_OK;
}

int
cid_uuidv4_new(cid_uuid *out, const cid_env *env)
{
	uint8_t		rand[16];
	int			rc;

	if (out == NULL)
		return CID_EINVAL;
	rc = env_random(env, rand, sizeof(rand));
	if (rc == CID_OK)
		cid_uuidv4_from_bytes(out, rand);
	return rc;
}

/* The random bytes go straight into out; each UUID then gets its version. */
int
cid_uuidv4_fill(cid_uuid *out, size_t n, const cid_env *env)
{
	int			rc;

	if (n == 0)
		return CID_OK;
	if (out == NULL || n > SIZE_MAX / sizeof(cid_uuid))
		return CID_EINVAL;
	rc = env_random(env, out, n * sizeof(cid_uuid));
	if (rc != CID_OK)
		return rc;
	for (size_t i = 0; i < n; i++)
		cid_uuidv4_from_bytes(&out[i], out[i].bytes);
	return CID_OK;
}

int
cid_uuidv7_from_ms(cid_uuid *out, int64_t unix_ms, const uint8_t *rand)
{
	static const uint8_t zero[10];

	if (out == NULL)
		return CID_EINVAL;
	if (unix_ms < 0 || unix_ms > UUID_MAX_MS)
		return CID_ETIME_RANGE;
	if (rand == NULL)
		rand = zero;

	/*
	 * RFC 9562 section 5.7: unix_ts_ms (48), ver (4), rand_a (12), var (2),
	 * rand_b (62).  rand[0..1] give rand_a, rand[2..9] give rand_b.
	 */
	for (int i = 0; i < 6; i++)
		out->bytes[i] = (uint8_t) ((uint64_t) unix_ms >> (40 - 8 * i));
	out->bytes[6] = (uint8_t) (0x70 | (rand[0] & 0x0f));
	out->bytes[7] = rand[1];
	out->bytes[8] = (uint8_t) (0x80 | (rand[2] & 0x3f));
	memcpy(out->bytes + 9, rand + 3, 7);
	return CID_OK;
}
