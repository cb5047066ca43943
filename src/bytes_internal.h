/*
 * bytes_internal.h — big-endian 64-bit loads and stores and a loop
 * unrolling hint, for the text and generator hot paths (not installed).
 * UUIDs and ULIDs are big-endian 128-bit values; reading one as two words
 * with one load each, instead of eight byte loads and shifts, is most of
 * what makes batch text cheap.
 */
#ifndef CID_BYTES_INTERNAL_H
#define CID_BYTES_INTERNAL_H

#include <stdint.h>
#include <string.h>

#if defined(__GNUC__) && defined(__BYTE_ORDER__) && \
	__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
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

#endif							/* CID_BYTES_INTERNAL_H */
