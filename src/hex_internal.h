/*
 * hex_internal.h — hexadecimal text for the core's byte-string IDs (UUIDs,
 * ObjectIds): the two-digit table for formatting and the eight-digits-at-
 * once decoder for parsing, shared so that hex is written once (not
 * installed).
 */
#ifndef CID_HEX_INTERNAL_H
#define CID_HEX_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bytes_internal.h"

/*
 * The text of every byte value, two lower-case hex digits each: formatting
 * is one lookup and one 2-byte copy per byte, with no branch per character.
 */
static const char cid_hex_pairs[512] =
"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
"202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
"404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
"606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
"808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
"a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
"c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
"e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";

/*
 * Value plus one of each hex digit, both cases; 0 for any other byte.
 * Only the error path reads it (syntax_error in uuid.c, cid_hex_first_bad): the fast path tells digits
 * apart with word arithmetic (cid_hex8).
 */
static const uint8_t cid_hex_values[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5,
	['5'] = 6, ['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10,
	['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
	['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

#define ONES UINT64_C(0x0101010101010101)

/*
 * Eight hex digits, character i in byte i of x, to the four bytes they
 * spell, all eight at once in one word (SWAR): no lookup and no branch per
 * character.  A byte is a digit when it lies in '0'..'9', or in 'a'..'f'
 * once bit 5 is set (which folds 'A'..'F' onto them); adding 0x80 - lo to
 * every byte sets its top bit exactly when the byte is >= lo, and no byte
 * carries into the next as long as all are below 0x80, which is checked
 * too.  A digit's value is its low nibble, plus 9 for a letter.  False
 * when any character is not a hex digit (out is then unspecified).
 */
static inline bool
cid_hex8(uint8_t *out, uint64_t x)
{
	uint64_t	folded = x | ONES * 0x20;
	uint64_t	digit = (x + ONES * (0x80 - '0')) & ~(x + ONES * (0x80 - '9' - 1));
	uint64_t	letter = (folded + ONES * (0x80 - 'a')) & ~(folded + ONES * (0x80 - 'f' - 1));
	uint64_t	nib = (x & ONES * 0x0f) + ((letter >> 7) & ONES) * 9;
	uint64_t	t;

	/* byte j: nibble j above nibble j + 1; keep the even bytes, close up */
	t = (nib << 4 | nib >> 8) & UINT64_C(0x00ff00ff00ff00ff);
	t = (t | t >> 8) & UINT64_C(0x0000ffff0000ffff);
	t = t | t >> 16;
	cid_store_le32(out, t);
	return ((x & ONES * 0x80) | (~(digit | letter) & ONES * 0x80)) == 0;
}

/*
 * The index of the first of s[0..n) that is not a hex digit, or n when all
 * are: where a parser that the fast path refused reports the fault.
 */
static inline size_t
cid_hex_first_bad(const char *s, size_t n)
{
	size_t		i = 0;

	while (i < n && cid_hex_values[(unsigned char) s[i]] != 0)
		i++;
	return i;
}

#endif							/* CID_HEX_INTERNAL_H */
