/*
 * ksuid.c — KSUIDs (segmentio/ksuid): 20 bytes, 32-bit seconds since
 * 2014-05-13T16:53:20Z and a 128-bit random payload, written as 27 base62
 * digits; the table-driven base62 codec, time, and fresh KSUIDs, one or a
 * batch (fill).
 */
#define _POSIX_C_SOURCE 200809L

#include "chronoid.h"

#include <string.h>

#include "env_internal.h"

#define KSUID_BYTES 20
#define PAYLOAD_BYTES 16
#define LIMBS (KSUID_BYTES / 4)	/* the value as 32-bit limbs, most
								 * significant first */
#define MS_PER_S 1000
#define NS_PER_MS INT64_C(1000000)
#define SECONDS_MAX INT64_C(0xffffffff)

/* The batch stages payloads in out: see cid_ksuid_fill. */
_Static_assert(sizeof(cid_ksuid) == KSUID_BYTES && _Alignof(cid_ksuid) == 1,
			   "cid_ksuid must be its 20 bytes");

/* 62^5, the largest power of 62 below 2^32: five digits per division. */
#define B62_POW5 UINT32_C(916132832)
#define B62_CHUNK 5

/*
 * The reference's alphabet: digits, upper case, lower case, in ASCII
 * order, so that the text sorts as the bytes do.
 */
static const char b62_digits[62] =
"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/* Digit value plus one of each accepted character; 0 for any other byte. */
static const uint8_t b62_values[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6, ['6'] = 7,
	['7'] = 8, ['8'] = 9, ['9'] = 10,
	['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
	['G'] = 17, ['H'] = 18, ['I'] = 19, ['J'] = 20, ['K'] = 21, ['L'] = 22,
	['M'] = 23, ['N'] = 24, ['O'] = 25, ['P'] = 26, ['Q'] = 27, ['R'] = 28,
	['S'] = 29, ['T'] = 30, ['U'] = 31, ['V'] = 32, ['W'] = 33, ['X'] = 34,
	['Y'] = 35, ['Z'] = 36,
	['a'] = 37, ['b'] = 38, ['c'] = 39, ['d'] = 40, ['e'] = 41, ['f'] = 42,
	['g'] = 43, ['h'] = 44, ['i'] = 45, ['j'] = 46, ['k'] = 47, ['l'] = 48,
	['m'] = 49, ['n'] = 50, ['o'] = 51, ['p'] = 52, ['q'] = 53, ['r'] = 54,
	['s'] = 55, ['t'] = 56, ['u'] = 57, ['v'] = 58, ['w'] = 59, ['x'] = 60,
	['y'] = 61, ['z'] = 62,
};

int
cid_ksuid_parse(cid_ksuid *out, const char *s, size_t len, size_t *errpos)
{
	uint32_t	limb[LIMBS] = {0};

	if (out == NULL || (s == NULL && len > 0))
		return CID_EINVAL;
	if (len != CID_KSUID_STRLEN)
		return CID_ELENGTH;
	for (size_t i = 0; i < len; i++)
	{
		uint64_t	carry = b62_values[(unsigned char) s[i]];

		if (carry-- == 0)
		{
			if (errpos)
				*errpos = i;
			return CID_ESYNTAX;
		}
		/* value = value * 62 + digit, limb by limb from the least */
		for (int k = LIMBS - 1; k >= 0; k--)
		{
			uint64_t	t = (uint64_t) limb[k] * 62 + carry;

			limb[k] = (uint32_t) t;
			carry = t >> 32;
		}
		if (carry != 0)
		{
			/* 27 digits reach 62^27 > 2^160: the reference refuses more */
			if (errpos)
				*errpos = 0;
			return CID_EOVERFLOW;
		}
	}
	for (size_t k = 0; k < LIMBS; k++)
		for (size_t j = 0; j < 4; j++)
			out->bytes[4 * k + j] = (uint8_t) (limb[k] >> (24 - 8 * j));
	return CID_OK;
}

void
cid_ksuid_format(char *out, const cid_ksuid *ksuid)
{
	uint32_t	limb[LIMBS];
	int			pos = CID_KSUID_STRLEN;

	for (size_t k = 0; k < LIMBS; k++)
	{
		const uint8_t *p = ksuid->bytes + 4 * k;

		limb[k] = (uint32_t) p[0] << 24 | (uint32_t) p[1] << 16 | (uint32_t) p[2] << 8 | p[3];
	}
	/*
	 * Divide by 62^5 and write the remainder's five digits, right to left,
	 * until all 27 places are written: 2^160 < 62^27, so the quotient is
	 * 0 by then and the left places get their zero padding from it.
	 */
	while (pos > 0)
	{
		uint64_t	rem = 0;
		uint32_t	r;

		for (int k = 0; k < LIMBS; k++)
		{
			uint64_t	cur = rem << 32 | limb[k];

			limb[k] = (uint32_t) (cur / B62_POW5);
			rem = cur % B62_POW5;
		}
		r = (uint32_t) rem;
		for (int j = 0; j < B62_CHUNK && pos > 0; j++)
		{
			out[--pos] = b62_digits[r % 62];
			r /= 62;
		}
	}
	out[CID_KSUID_STRLEN] = '\0';
}

int64_t
cid_ksuid_unix_ms(const cid_ksuid *ksuid)
{
	const uint8_t *b = ksuid->bytes;
	uint32_t	s = (uint32_t) b[0] << 24 | (uint32_t) b[1] << 16 | (uint32_t) b[2] << 8 | b[3];

	return ((int64_t) s + CID_KSUID_EPOCH_S) * MS_PER_S;
}

/* Seconds since the KSUID epoch of unix_ms, or CID_ETIME_RANGE outside 32 bits. */
static int
seconds_of(int64_t unix_ms, uint32_t *s)
{
	int64_t		since;

	if (unix_ms < CID_KSUID_EPOCH_S * MS_PER_S)
		return CID_ETIME_RANGE;
	since = unix_ms / MS_PER_S - CID_KSUID_EPOCH_S;
	if (since > SECONDS_MAX)
		return CID_ETIME_RANGE;
	*s = (uint32_t) since;
	return CID_OK;
}

/*
 * The KSUID of seconds s and payload (16 bytes) into b; payload may
 * overlap b's own payload bytes or lie past them (the batch stages its
 * random bytes there), hence memmove after the 4 time bytes.
 */
static void
build(uint8_t *b, uint32_t s, const uint8_t *payload)
{
	for (int i = 0; i < 4; i++)
		b[i] = (uint8_t) (s >> (24 - 8 * i));
	memmove(b + 4, payload, PAYLOAD_BYTES);
}

int
cid_ksuid_from_ms(cid_ksuid *out, int64_t unix_ms, const uint8_t *payload)
{
	static const uint8_t zero[PAYLOAD_BYTES];
	uint32_t	s;
	int			rc;

	if (out == NULL)
		return CID_EINVAL;
	rc = seconds_of(unix_ms, &s);
	if (rc == CID_OK)
		build(out->bytes, s, payload != NULL ? payload : zero);
	return rc;
}

/*
 * The batch, and the single call as a batch of one.  The payloads are
 * drawn in one request into the back of out (KSUID i's at byte 4 * n +
 * 16 * i), then the KSUIDs written front to back over them: KSUID i ends
 * at byte 20 * i + 20, never past the first unread byte, 4 * n + 16 *
 * (i + 1), and its 4 time bytes end before its own payload starts.  For
 * n = 1 the payload is drawn in place.
 */
int
cid_ksuid_fill(cid_ksuid *out, size_t n, const cid_env *env)
{
	cid_env		e;
	uint8_t    *payload;
	int64_t		now_ns;
	uint32_t	s;
	int			rc;

	cid_env_copy(&e, env);
	rc = cid_fill_start(&e, out, n, sizeof(cid_ksuid), NULL, &now_ns);
	if (rc != CID_OK || n == 0)
		return rc;
	rc = seconds_of(now_ns / NS_PER_MS, &s);
	if (rc != CID_OK)
		return rc;
	payload = (uint8_t *) out + 4 * n;
	rc = cid_env_random(&e, payload, PAYLOAD_BYTES * n);
	if (rc != CID_OK)
		return rc;
	for (size_t i = 0; i < n; i++)
		build(out[i].bytes, s, payload + PAYLOAD_BYTES * i);
	return CID_OK;
}

int
cid_ksuid_new(cid_ksuid *out, const cid_env *env)
{
	return cid_ksuid_fill(out, 1, env);
}
