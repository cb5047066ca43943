/*
 * uuid.c — RFC 9562 UUIDs: text parsing and formatting, version and
 * timestamp extraction, and building v4 and v7 values from given bytes.
 */
#include "chronoid.h"

#include <string.h>

/* 100-ns intervals from 1582-10-15 (the Gregorian reform) to 1970-01-01. */
#define GREGORIAN_OFFSET_100NS INT64_C(0x01B21DD213814000)

#define UUID_MAX_MS ((INT64_C(1) << 48) - 1)

static const char hex_digits[] = "0123456789abcdef";

/* Value of one hex digit, or -1. */
static int
hex_value(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * Decode n characters at s, which must be the canonical 8-4-4-4-12 form
 * (n == 36) or bare hex (n == 32).  base is s's offset in the caller's
 * text, so that *errpos indexes the caller's text.
 */
static int
parse_body(cid_uuid *out, const char *s, size_t n, size_t base, size_t *errpos)
{
	int			nibble = 0;

	for (size_t i = 0; i < n; i++)
	{
		bool		ok;

		/* RFC 9562 section 4: hyphens sit after 8, 12, 16 and 20 digits. */
		if (n == 36 && (i == 8 || i == 13 || i == 18 || i == 23))
			ok = s[i] == '-';
		else
		{
			int			v = hex_value((unsigned char) s[i]);

			ok = v >= 0;
			if (ok && nibble % 2 == 0)
				out->bytes[nibble / 2] = (uint8_t) (v << 4);
			else if (ok)
				out->bytes[nibble / 2] |= (uint8_t) v;
			nibble++;
		}
		if (!ok)
		{
			if (errpos)
				*errpos = base + i;
			return CID_ESYNTAX;
		}
	}
	return CID_OK;
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
			rc = parse_body(&tmp, s, len, 0, errpos);
			break;
		case 38:
		case 34:
			if (s[0] != '{')
			{
				if (errpos)
					*errpos = 0;
				return CID_ESYNTAX;
			}
			rc = parse_body(&tmp, s + 1, len - 2, 1, errpos);
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

void
cid_uuid_format(char *out, const cid_uuid *uuid)
{
	char	   *p = out;

	for (int i = 0; i < 16; i++)
	{
		if (i == 4 || i == 6 || i == 8 || i == 10)
			*p++ = '-';
		*p++ = hex_digits[uuid->bytes[i] >> 4];
		*p++ = hex_digits[uuid->bytes[i] & 0x0f];
	}
	*p = '\0';
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

/* Big-endian unsigned integer of n bytes at p. */
static uint64_t
load_be(const uint8_t *p, int n)
{
	uint64_t	v = 0;

	for (int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
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
cid_uuid_unix_ms(int64_t *unix_ms, const cid_uuid *uuid)
{
	const uint8_t *b = uuid->bytes;
	uint64_t	ts;

	switch (cid_uuid_version(uuid))
	{
		case 1:

			/*
			 * RFC 9562 section 5.1: time_low (32 bits), time_mid (16), then
			 * time_high (12) under the version nibble: the 60-bit count of
			 * 100 ns since 1582-10-15, least significant part first.
			 */
			ts = (load_be(b + 6, 2) & 0x0fff) << 48 |
				load_be(b + 4, 2) << 32 |
				load_be(b, 4);
			break;
		case 6:

			/*
			 * RFC 9562 section 5.6: the same count, most significant part
			 * first: time_high (32), time_mid (16), time_low (12).
			 */
			ts = load_be(b, 4) << 28 |
				load_be(b + 4, 2) << 12 |
				(load_be(b + 6, 2) & 0x0fff);
			break;
		case 7:
			/* RFC 9562 section 5.7: unix_ts_ms, 48 bits big-endian. */
			*unix_ms = (int64_t) load_be(b, 6);
			return CID_OK;
		default:
			return CID_ENOTIME;
	}
	/* ts < 2^60, so the difference cannot overflow. */
	*unix_ms = floor_div((int64_t) ts - GREGORIAN_OFFSET_100NS, 10000);
	return CID_OK;
}

void
cid_uuidv4_from_bytes(cid_uuid *out, const uint8_t rand[16])
{
	memcpy(out->bytes, rand, 16);
	/* RFC 9562 section 5.4: version 4 in octet 6, variant 10 in octet 8. */
	out->bytes[6] = (uint8_t) ((out->bytes[6] & 0x0f) | 0x40);
	out->bytes[8] = (uint8_t) ((out->bytes[8] & 0x3f) | 0x80);
}

int
cid_uuidv4_new(cid_uuid *out, const cid_env *env)
{
	uint8_t		rand[16];
	cid_random_fn fill = cid_platform_random;
	void	   *ctx = NULL;

	if (out == NULL)
		return CID_EINVAL;
	if (env != NULL)
	{
		if (env->random != NULL)
			fill = env->random;
		ctx = env->ctx;
	}
	if (fill(ctx, rand, sizeof(rand)) < 0)
		return CID_ERANDOM;
	cid_uuidv4_from_bytes(out, rand);
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
