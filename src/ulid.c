/*
 * ulid.c — ULIDs (https://github.com/ulid/spec): Crockford base32 text,
 * conversion to and from UUID bits, and the plain and monotonic generators
 * (one at a time or a batch per pass through the lock: fill).
 */
#define _POSIX_C_SOURCE 200809L

#include "chronoid.h"

#include <string.h>

#include "atomic_internal.h"
#include "base32_internal.h"
#include "bytes_internal.h"
#include "env_internal.h"

#define ULID_MAX_MS ((INT64_C(1) << 48) - 1)
#define ULID_RAND_LEN 10
#define NS_PER_MS INT64_C(1000000)

/* The batch stages random bytes in out: see cid_ulid_fill. */
_Static_assert(sizeof(cid_ulid) == 16 && _Alignof(cid_ulid) == 1, "cid_ulid must be its 16 bytes");

/* Internal status of ulid_step: the step needs fresh random bytes. */
#define NEED_RANDOM 1000

/*
 * The spec's alphabet, Crockford's base32 without I, L, O and U, taken two
 * digits at a time: entry v is the text of the 10-bit value v, so a ULID's
 * 26 digits take 13 lookups.
 */
static const char b32_pairs[2048] =
"000102030405060708090A0B0C0D0E0F0G0H0J0K0M0N0P0Q0R0S0T0V0W0X0Y0Z"
"101112131415161718191A1B1C1D1E1F1G1H1J1K1M1N1P1Q1R1S1T1V1W1X1Y1Z"
"202122232425262728292A2B2C2D2E2F2G2H2J2K2M2N2P2Q2R2S2T2V2W2X2Y2Z"
"303132333435363738393A3B3C3D3E3F3G3H3J3K3M3N3P3Q3R3S3T3V3W3X3Y3Z"
"404142434445464748494A4B4C4D4E4F4G4H4J4K4M4N4P4Q4R4S4T4V4W4X4Y4Z"
"505152535455565758595A5B5C5D5E5F5G5H5J5K5M5N5P5Q5R5S5T5V5W5X5Y5Z"
"606162636465666768696A6B6C6D6E6F6G6H6J6K6M6N6P6Q6R6S6T6V6W6X6Y6Z"
"707172737475767778797A7B7C7D7E7F7G7H7J7K7M7N7P7Q7R7S7T7V7W7X7Y7Z"
"808182838485868788898A8B8C8D8E8F8G8H8J8K8M8N8P8Q8R8S8T8V8W8X8Y8Z"
"909192939495969798999A9B9C9D9E9F9G9H9J9K9M9N9P9Q9R9S9T9V9W9X9Y9Z"
"A0A1A2A3A4A5A6A7A8A9AAABACADAEAFAGAHAJAKAMANAPAQARASATAVAWAXAYAZ"
"B0B1B2B3B4B5B6B7B8B9BABBBCBDBEBFBGBHBJBKBMBNBPBQBRBSBTBVBWBXBYBZ"
"C0C1C2C3C4C5C6C7C8C9CACBCCCDCECFCGCHCJCKCMCNCPCQCRCSCTCVCWCXCYCZ"
"D0D1D2D3D4D5D6D7D8D9DADBDCDDDEDFDGDHDJDKDMDNDPDQDRDSDTDVDWDXDYDZ"
"E0E1E2E3E4E5E6E7E8E9EAEBECEDEEEFEGEHEJEKEMENEPEQERESETEVEWEXEYEZ"
"F0F1F2F3F4F5F6F7F8F9FAFBFCFDFEFFFGFHFJFKFMFNFPFQFRFSFTFVFWFXFYFZ"
"G0G1G2G3G4G5G6G7G8G9GAGBGCGDGEGFGGGHGJGKGMGNGPGQGRGSGTGVGWGXGYGZ"
"H0H1H2H3H4H5H6H7H8H9HAHBHCHDHEHFHGHHHJHKHMHNHPHQHRHSHTHVHWHXHYHZ"
"J0J1J2J3J4J5J6J7J8J9JAJBJCJDJEJFJGJHJJJKJMJNJPJQJRJSJTJVJWJXJYJZ"
"K0K1K2K3K4K5K6K7K8K9KAKBKCKDKEKFKGKHKJKKKMKNKPKQKRKSKTKVKWKXKYKZ"
"M0M1M2M3M4M5M6M7M8M9MAMBMCMDMEMFMGMHMJMKMMMNMPMQMRMSMTMVMWMXMYMZ"
"N0N1N2N3N4N5N6N7N8N9NANBNCNDNENFNGNHNJNKNMNNNPNQNRNSNTNVNWNXNYNZ"
"P0P1P2P3P4P5P6P7P8P9PAPBPCPDPEPFPGPHPJPKPMPNPPPQPRPSPTPVPWPXPYPZ"
"Q0Q1Q2Q3Q4Q5Q6Q7Q8Q9QAQBQCQDQEQFQGQHQJQKQMQNQPQQQRQSQTQVQWQXQYQZ"
"R0R1R2R3R4R5R6R7R8R9RARBRCRDRERFRGRHRJRKRMRNRPRQRRRSRTRVRWRXRYRZ"
"S0S1S2S3S4S5S6S7S8S9SASBSCSDSESFSGSHSJSKSMSNSPSQSRSSSTSVSWSXSYSZ"
"T0T1T2T3T4T5T6T7T8T9TATBTCTDTETFTGTHTJTKTMTNTPTQTRTSTTTVTWTXTYTZ"
"V0V1V2V3V4V5V6V7V8V9VAVBVCVDVEVFVGVHVJVKVMVNVPVQVRVSVTVVVWVXVYVZ"
"W0W1W2W3W4W5W6W7W8W9WAWBWCWDWEWFWGWHWJWKWMWNWPWQWRWSWTWVWWWXWYWZ"
"X0X1X2X3X4X5X6X7X8X9XAXBXCXDXEXFXGXHXJXKXMXNXPXQXRXSXTXVXWXXXYXZ"
"Y0Y1Y2Y3Y4Y5Y6Y7Y8Y9YAYBYCYDYEYFYGYHYJYKYMYNYPYQYRYSYTYVYWYXYYYZ"
"Z0Z1Z2Z3Z4Z5Z6Z7Z8Z9ZAZBZCZDZEZFZGZHZJZKZMZNZPZQZRZSZTZVZWZXZYZZ";

/*
 * Digit value plus one for each accepted character (0 = not a digit).
 * Both cases decode; Crockford's aliases (I, L -> 1, O -> 0) are not
 * accepted, as the ULID spec's reference decoders reject them.
 */
static const uint8_t b32_values[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5,
	['5'] = 6, ['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10,
	['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15,
	['F'] = 16, ['G'] = 17, ['H'] = 18, ['J'] = 19, ['K'] = 20,
	['M'] = 21, ['N'] = 22, ['P'] = 23, ['Q'] = 24, ['R'] = 25,
	['S'] = 26, ['T'] = 27, ['V'] = 28, ['W'] = 29, ['X'] = 30,
	['Y'] = 31, ['Z'] = 32,
	['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15,
	['f'] = 16, ['g'] = 17, ['h'] = 18, ['j'] = 19, ['k'] = 20,
	['m'] = 21, ['n'] = 22, ['p'] = 23, ['q'] = 24, ['r'] = 25,
	['s'] = 26, ['t'] = 27, ['v'] = 28, ['w'] = 29, ['x'] = 30,
	['y'] = 31, ['z'] = 32,
};

/*
 * The ULID spec's text is the 128-bit value in base32, most significant
 * digit first: 26 digits hold 130 bits, so the first digit carries only
 * the top 3 bits (hence its 0..7 limit).  Digits 2k and 2k + 1 together
 * are the 10 bits from 120 - 10k up: pairs 0..5 lie in the high word,
 * 7..12 in the low one, and pair 6 (bits 69..60) straddles them.  Each
 * pair is a fixed shift and a lookup, unrolled into straight code with no
 * branch per character.
 */
static inline void
format26(char *out, const uint8_t *b)
{
	uint64_t	hi = cid_load_be64(b);
	uint64_t	lo = cid_load_be64(b + 8);

	CID_UNROLL(6)
	for (int k = 0; k < 6; k++)
		memcpy(out + 2 * (size_t) k, b32_pairs + 2 * ((hi >> (56 - 10 * k)) & 1023), 2);
	memcpy(out + 12, b32_pairs + 2 * ((lo >> 60 | hi << 4) & 1023), 2);
	CID_UNROLL(6)
	for (int k = 7; k < 13; k++)
		memcpy(out + 2 * (size_t) k, b32_pairs + 2 * ((lo >> (120 - 10 * k)) & 1023), 2);
}

void
cid_ulid_format(char *out, const cid_ulid *ulid)
{
	format26(out, ulid->bytes);
	out[CID_ULID_STRLEN] = '\0';
}

size_t
cid_ulid_format_many(char *out, const cid_ulid *ulids, size_t n, char sep)
{
	return cid_format_many16(out, (const uint8_t *) ulids, n, sep, CID_ULID_STRLEN, format26);
}

/*
 * The inverse of format26: each digit's value (by table) shifted into
 * place, all independent of each other.  The values are ORed into one
 * word as well, which is above 31 when any character is not a digit;
 * false then, or when the first digit is above 7 (a 129th bit).
 */
static inline bool
parse_fast(uint8_t *out, const char *s)
{
	const unsigned char *u = (const unsigned char *) s;
	uint64_t	hi = 0;
	uint64_t	lo = 0;
	unsigned	bad = 0;
	unsigned	v[CID_ULID_STRLEN];

	CID_UNROLL(26)
	for (int i = 0; i < CID_ULID_STRLEN; i++)
	{
		v[i] = b32_values[u[i]] - 1u;
		bad |= v[i];
	}
	CID_UNROLL(13)
	for (int i = 0; i < 13; i++)
		hi |= (uint64_t) v[i] << (5 * (25 - i) - 64);
	hi |= (uint64_t) v[13] >> 4;
	lo |= (uint64_t) v[13] << 60;
	CID_UNROLL(12)
	for (int i = 14; i < 26; i++)
		lo |= (uint64_t) v[i] << (5 * (25 - i));
	cid_store_be64(out, hi);
	cid_store_be64(out + 8, lo);
	return bad <= 31 && v[0] <= 7;
}

/*
 * Where the fast path refused 26 characters at s: the first one outside
 * the alphabet (CID_ESYNTAX), else the first digit's overflow.  base is
 * s's offset in the caller's text, for *errpos.
 */
static int
parse_error(const char *s, size_t base, size_t *errpos)
{
	size_t		i;

	for (i = 0; i < CID_ULID_STRLEN; i++)
		if (b32_values[(unsigned char) s[i]] == 0)
			break;
	if (errpos)
		*errpos = base + (i < CID_ULID_STRLEN ? i : 0);
	return i < CID_ULID_STRLEN ? CID_ESYNTAX : CID_EOVERFLOW;
}

int
cid_ulid_parse(cid_ulid *out, const char *s, size_t len, size_t *errpos)
{
	cid_ulid	tmp;

	if (out == NULL || (s == NULL && len > 0))
		return CID_EINVAL;
	if (len != CID_ULID_STRLEN)
		return CID_ELENGTH;
	if (!parse_fast(tmp.bytes, s))
		return parse_error(s, 0, errpos);
	*out = tmp;
	return CID_OK;
}

int
cid_ulid_parse_many(cid_ulid *out, const char *s, size_t n, size_t stride,
					size_t *done, size_t *errpos)
{
	return cid_parse_many16((uint8_t *) out, s, n, stride, CID_ULID_STRLEN, done, errpos,
							parse_fast, parse_error);
}

/* The out-of-line entries other kinds' text shares (base32_internal.h). */
void
cid_base32_format26(char *out, const uint8_t *b)
{
	format26(out, b);
}

bool
cid_base32_parse26(uint8_t *out, const char *s)
{
	return parse_fast(out, s);
}

int
cid_base32_error26(const char *s, size_t base, size_t *errpos)
{
	return parse_error(s, base, errpos);
}

/* Spec: the first 48 bits are the big-endian Unix time in ms. */
static inline int64_t
bytes_ms(const uint8_t *b)
{
	return (int64_t) (cid_load_be64(b) >> 16);
}

int64_t
cid_ulid_unix_ms(const cid_ulid *ulid)
{
	return bytes_ms(ulid->bytes);
}

/* ms into the first 48 bits, rand (or zeros) into the last 80. */
static void
build(uint8_t *b, int64_t unix_ms, const uint8_t *rand)
{
	for (int i = 0; i < 6; i++)
		b[i] = (uint8_t) ((uint64_t) unix_ms >> (40 - 8 * i));
	if (rand != NULL)
		memcpy(b + 6, rand, ULID_RAND_LEN);
	else
		memset(b + 6, 0, ULID_RAND_LEN);
}

int
cid_ulid_from_ms(cid_ulid *out, int64_t unix_ms, const uint8_t *rand)
{
	if (out == NULL)
		return CID_EINVAL;
	if (unix_ms < 0 || unix_ms > ULID_MAX_MS)
		return CID_ETIME_RANGE;
	build(out->bytes, unix_ms, rand);
	return CID_OK;
}

void
cid_ulid_to_uuid(cid_uuid *out, const cid_ulid *ulid)
{
	memcpy(out->bytes, ulid->bytes, 16);
}

void
cid_ulid_from_uuid(cid_ulid *out, const cid_uuid *uuid)
{
	memcpy(out->bytes, uuid->bytes, 16);
}

int
cid_ulid_init(cid_ulid_gen *gen, bool monotonic, const cid_env *env)
{
	if (gen == NULL)
		return CID_EINVAL;
	cid_env_copy(&gen->env, env);
	gen->monotonic = monotonic;
	atomic_init(cid_atomic_u64(&gen->lock), 0);
	memset(gen->last, 0, sizeof(gen->last));
	return CID_OK;
}

/*
 * Spin-wait hint: lets a sibling hyperthread run and saves power while the
 * lock holder finishes its few instructions.
 */
static inline void
cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

/* True when all 16 bytes are zero: the state of a fresh generator. */
static inline bool
all_zero(const uint8_t *b)
{
	return (cid_load_be64(b) | cid_load_be64(b + 8)) == 0;
}

/*
 * The 80-bit random part of a ULID as a 16-bit high and a 64-bit low
 * word, big-endian as the spec lays it out, and back.
 */
typedef struct rand80
{
	uint64_t	hi;				/* bytes 6..7 */
	uint64_t	lo;				/* bytes 8..15 */
} rand80;

static inline rand80
rand80_load(const uint8_t *b)
{
	rand80		r = {(uint64_t) b[6] << 8 | b[7], cid_load_be64(b + 8)};

	return r;
}

static inline void
rand80_store(uint8_t *b, rand80 r)
{
	b[6] = (uint8_t) (r.hi >> 8);
	b[7] = (uint8_t) r.hi;
	cid_store_be64(b + 8, r.lo);
}

/* r + k; the caller knows it fits 80 bits. */
static inline rand80
rand80_add(rand80 r, uint64_t k)
{
	uint64_t	lo = r.lo + k;

	r.hi += lo < r.lo;
	r.lo = lo;
	return r;
}

/*
 * Monotonic mode: reserve up to want consecutive ULIDs for clock ms now_ms
 * under the spin lock; the first goes to first, their number to *count.
 * rand may be NULL: then NEED_RANDOM when a new millisecond needs fresh
 * random bytes (nothing changes), so that callers fetch them outside the
 * lock and only when the millisecond moves on.  CID_EMONOTONIC_OVERFLOW
 * when the random part is used up (*count says how many fit, maybe 0).
 */
static int
mono_reserve(cid_ulid_gen *gen, int64_t now_ms, const uint8_t *rand, uint64_t want,
			 uint8_t *first, uint64_t *count)
{
	rand80		r;
	int			rc = CID_OK;

	*count = 0;

	/*
	 * The 128-bit state has no lock-free compare-exchange in portable C11,
	 * so a spin lock guards it (docs/uuid-ulid.md).  The section only
	 * compares and copies a few bytes: the clock and random source are read
	 * before it.
	 */
	while (atomic_exchange_explicit(cid_atomic_u64(&gen->lock), 1, memory_order_acquire))
		cpu_relax();

	if (now_ms > bytes_ms(gen->last) || all_zero(gen->last))
	{
		if (rand == NULL)
			rc = NEED_RANDOM;
		else
			build(first, now_ms, rand);
	}
	else
	{
		/*
		 * Spec, monotonicity: in the same millisecond, the random part of
		 * the previous ULID plus one.  A clock behind the last ULID is
		 * treated alike: the last ms is kept, so order still holds.  All
		 * 80 bits at 1 means the increment would carry into the time:
		 * fail and leave the state as it is.
		 */
		r = rand80_load(gen->last);
		if (r.hi == 0xffff && r.lo == UINT64_MAX)
			rc = CID_EMONOTONIC_OVERFLOW;
		else
		{
			memcpy(first, gen->last, 16);
			rand80_store(first, rand80_add(r, 1));
		}
	}
	if (rc == CID_OK)
	{
		/*
		 * Values from first up to 2^80 - 1: more than any want unless the
		 * high word is full, then 2^64 - lo.
		 */
		r = rand80_load(first);
		*count = want;
		if (r.hi == 0xffff && want - 1 > ~r.lo)
		{
			*count = ~r.lo + 1;
			rc = CID_EMONOTONIC_OVERFLOW;
		}
		memcpy(gen->last, first, 16);
		rand80_store(gen->last, rand80_add(r, *count - 1));
	}

	atomic_store_explicit(cid_atomic_u64(&gen->lock), 0, memory_order_release);
	return rc;
}

/*
 * One step.  rand may be NULL: then NEED_RANDOM when the step would have
 * used it (nothing changes).
 */
static int
ulid_step(cid_ulid_gen *gen, int64_t now_ms, const uint8_t *rand, cid_ulid *out)
{
	uint64_t	count;

	if (now_ms < 0 || now_ms > ULID_MAX_MS)
		return CID_ETIME_RANGE;
	if (!gen->monotonic)
	{
		/* Spec default: fresh randomness every time, no shared state. */
		if (rand == NULL)
			return NEED_RANDOM;
		build(out->bytes, now_ms, rand);
		return CID_OK;
	}
	return mono_reserve(gen, now_ms, rand, 1, out->bytes, &count);
}

int
cid_ulid_next_at(cid_ulid_gen *gen, int64_t now_ms, const uint8_t rand[10],
				 cid_ulid *out)
{
	int			rc;

	if (gen == NULL || out == NULL)
		return CID_EINVAL;
	rc = ulid_step(gen, now_ms, rand, out);
	return rc == NEED_RANDOM ? CID_EINVAL : rc;
}

int
cid_ulid_next(cid_ulid_gen *gen, cid_ulid *out)
{
	int64_t		now;
	uint8_t		rand[ULID_RAND_LEN];
	int			rc;

	if (gen == NULL || out == NULL)
		return CID_EINVAL;
	rc = cid_env_now(&gen->env, &now);
	if (rc != CID_OK)
		return rc;
	now /= NS_PER_MS;

	/*
	 * Try without random bytes first: a monotonic generator inside one
	 * millisecond only increments.  When the step needs fresh bytes, get
	 * them outside the lock and step again (the state may have moved on
	 * meanwhile; the second step decides afresh).
	 */
	rc = ulid_step(gen, now, NULL, out);
	if (rc != NEED_RANDOM)
		return rc;
	rc = cid_env_random(&gen->env, rand, sizeof(rand));
	if (rc != CID_OK)
		return rc;
	return ulid_step(gen, now, rand, out);
}

/*
 * Plain batch: n * 10 random bytes drawn in one request into the back of
 * out (ULID i's at byte 6 * n + 10 * i), then the ULIDs written front to
 * back over them.  ULID i ends at byte 16 * i + 16, never past the first
 * unread byte, 6 * n + 10 * (i + 1); its own bytes are copied out before
 * it is written.
 */
static int
fill_plain(cid_ulid_gen *gen, int64_t now_ms, cid_ulid *out, size_t n)
{
	uint8_t    *rand = (uint8_t *) out + 6 * n;
	int			rc = cid_env_random(&gen->env, rand, ULID_RAND_LEN * n);

	if (rc != CID_OK)
		return rc;
	for (size_t i = 0; i < n; i++)
	{
		uint8_t		r[ULID_RAND_LEN];

		memcpy(r, rand + ULID_RAND_LEN * i, ULID_RAND_LEN);
		build(out[i].bytes, now_ms, r);
	}
	return CID_OK;
}

/* Monotonic batch: one reservation, then first, first + 1, ... outside the lock. */
static int
fill_monotonic(cid_ulid_gen *gen, int64_t now_ms, cid_ulid *out, size_t n, size_t *done)
{
	uint8_t		first[16];
	uint8_t		rand[ULID_RAND_LEN];
	uint64_t	count;
	rand80		r;
	int			rc;

	rc = mono_reserve(gen, now_ms, NULL, n, first, &count);
	if (rc == NEED_RANDOM)
	{
		rc = cid_env_random(&gen->env, rand, sizeof(rand));
		if (rc != CID_OK)
			return rc;
		rc = mono_reserve(gen, now_ms, rand, n, first, &count);
	}
	if (count == 0)
		return rc;				/* first was not set */
	r = rand80_load(first);
	for (uint64_t i = 0; i < count; i++)
	{
		memcpy(out[i].bytes, first, 6);
		rand80_store(out[i].bytes, r);
		r = rand80_add(r, 1);
	}
	*done = (size_t) count;
	return rc;
}

int
cid_ulid_fill(cid_ulid_gen *gen, cid_ulid *out, size_t n, size_t *done)
{
	size_t		got = 0;
	int64_t		now;
	int			rc;

	rc = cid_fill_start(gen ? &gen->env : NULL, out, n, 16, done, &now);
	if (rc != CID_OK || n == 0)
		return rc;
	now /= NS_PER_MS;
	if (now > ULID_MAX_MS)
		return CID_ETIME_RANGE;
	if (gen->monotonic)
		rc = fill_monotonic(gen, now, out, n, &got);
	else
	{
		rc = fill_plain(gen, now, out, n);
		if (rc == CID_OK)
			got = n;
	}
	if (done != NULL)
		*done = got;
	return rc;
}
