/*
 * bytes_internal.h — big-endian 64-bit loads and stores, a loop unrolling
 * hint, and the batch text loops shared by UUIDs and ULIDs, for the text
 * and generator hot paths (not installed).  UUIDs and ULIDs are big-endian
 * 128-bit values; reading one as two words with one load each, instead of
 * eight byte loads and shifts, is most of what makes batch text cheap.
 */
#ifndef CID_BYTES_INTERNAL_H
#define CID_BYTES_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "chronoid.h"

/*
 * Word loads and stores with a byte swap on little-endian GCC and Clang;
 * the portable byte loops elsewhere, or when CID_PORTABLE_BYTES is defined
 * (to test them on a little-endian machine).
 */
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && \
	__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && !defined(CID_PORTABLE_BYTES)
#define CID_BSWAP_LE 1
#endif

/* The big-endian 64-bit value at p (any alignment). */
static inline uint64_t
cid_load_be64(const uint8_t *p)
{
#ifdef CID_BSWAP_LE
	uint64_t	v;

	memcpy(&v, p, 8);
	return __builtin_bswap64(v);
#else
	uint64_t	v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
#endif
}

/* The big-endian unsigned integer of the n (<= 8) bytes at p. */
static inline uint64_t
cid_load_be_n(const uint8_t *p, int n)
{
	uint64_t	v = 0;

	for (int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

/* Store v big-endian at p (any alignment). */
static inline void
cid_store_be64(uint8_t *p, uint64_t v)
{
#ifdef CID_BSWAP_LE
	v = __builtin_bswap64(v);
	memcpy(p, &v, 8);
#else
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t) (v >> (56 - 8 * i));
#endif
}

/*
 * The n (4 or 8) bytes at p as a little-endian word: byte i in bits 8i ..
 * 8i + 7, so that a word of text holds character i in its byte i.
 */
static inline uint64_t
cid_load_le(const char *p, int n)
{
#ifdef CID_BSWAP_LE
	uint64_t	v8;
	uint32_t	v4;

	if (n == 8)
	{
		memcpy(&v8, p, 8);
		return v8;
	}
	memcpy(&v4, p, 4);
	return v4;
#else
	uint64_t	v = 0;

	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | (unsigned char) p[i];
	return v;
#endif
}

/* Store the low 32 bits of v little-endian at p. */
static inline void
cid_store_le32(uint8_t *p, uint64_t v)
{
#ifdef CID_BSWAP_LE
	uint32_t	v4 = (uint32_t) v;

	memcpy(p, &v4, 4);
#else
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t) (v >> (8 * i));
#endif
}

/*
 * Unroll the next loop completely (its trip count is a small constant):
 * every shift and table index becomes an immediate.  GCC (8 and later)
 * and Clang take this spelling; others ignore it.
 */
#if defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 8)
#define CID_UNROLL(n) _Pragma(CID_UNROLL_STR_(GCC unroll n))
#define CID_UNROLL_STR_(x) #x
#else
#define CID_UNROLL(n)
#endif

/*
 * Batch text over 16-byte IDs (cid_uuid_format_many, cid_ulid_format_many
 * and the parsers): one ID's text is width characters, written or read by
 * the format's own functions, which are static inline where they are
 * defined and so get inlined here through the constant pointer.
 */
typedef void (*cid_format16_fn) (char *out, const uint8_t *id);
typedef bool (*cid_parse16_fn) (uint8_t *out, const char *s);
typedef int (*cid_parse16_error_fn) (const char *s, size_t base, size_t *errpos);

/* n texts at stride width + 1, each followed by sep; the bytes written. */
static inline size_t
cid_format_many16(char *out, const uint8_t *ids, size_t n, char sep, size_t width,
				  cid_format16_fn format)
{
	for (size_t i = 0; i < n; i++)
	{
		format(out + i * (width + 1), ids + 16 * i);
		out[i * (width + 1) + width] = sep;
	}
	return n * (width + 1);
}

/*
 * n texts of width characters, stride apart, into ids; the first that
 * parse refuses gets error's status and position (from s).
 */
static inline int
cid_parse_many16(uint8_t *ids, const char *s, size_t n, size_t stride, size_t width,
				 size_t *done, size_t *errpos, cid_parse16_fn parse,
				 cid_parse16_error_fn error)
{
	if (done != NULL)
		*done = 0;
	if (n == 0)
		return CID_OK;
	if (ids == NULL || s == NULL || stride < width || n - 1 > SIZE_MAX / stride)
		return CID_EINVAL;
	for (size_t i = 0; i < n; i++)
	{
		if (!parse(ids + 16 * i, s + i * stride))
		{
			if (done != NULL)
				*done = i;
			return error(s + i * stride, i * stride, errpos);
		}
	}
	if (done != NULL)
		*done = n;
	return CID_OK;
}

#endif							/* CID_BYTES_INTERNAL_H */
