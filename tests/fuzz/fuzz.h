/*
 * fuzz.h — shared pieces of chronoid's libFuzzer targets: the entry point's
 * prototype, the invariant check, and the layouts the targets vary over.
 */
#ifndef CID_FUZZ_H
#define CID_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "chronoid.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * A violated invariant is a finding: stop at once so that libFuzzer saves
 * the input.  __builtin_trap works in every build, NDEBUG or not.
 */
#define FUZZ_CHECK(cond) \
	do { if (!(cond)) __builtin_trap(); } while (0)

/*
 * libFuzzer hands over its own buffer; the parsers get a heap copy of
 * exactly len bytes with no NUL after it, so that ASan sees any read past
 * len.  malloc(0) may return NULL: give it one byte then, never read.
 */
static inline char *
fuzz_copy(const uint8_t *data, size_t size)
{
	char	   *s = malloc(size > 0 ? size : 1);

	FUZZ_CHECK(s != NULL);
	if (size > 0)
		memcpy(s, data, size);
	return s;
}

/*
 * The layouts a target picks from with one input byte: every preset, and
 * two specs the presets do not cover (reserved bits on a 64-bit layout; a
 * 64-bit layout with a wide time field and tick > 1 ms).
 */
static const char *const fuzz_layout_specs[] = {
	"pgedge", "twitter", "sonyflake", "instagram", "discord",
	"time:42,seq:12,reserved:10;epoch=2025-01-01",
	"time:50,node:3,seq:8,reserved:3;epoch=1970-01-01;tick=7ms",
};

#define FUZZ_NLAYOUTS (sizeof(fuzz_layout_specs) / sizeof(fuzz_layout_specs[0]))

/* Layout number (byte % FUZZ_NLAYOUTS); a failure here is a finding. */
static inline void
fuzz_layout(cid_layout *out, uint8_t byte)
{
	int			rc = cid_layout_resolve(out, fuzz_layout_specs[byte % FUZZ_NLAYOUTS],
										NULL, 0);

	FUZZ_CHECK(rc == CID_OK);
}

/*
 * A digit of Crockford base32 as ULIDs (upper case, a = 'A') and TypeIDs
 * (lower case, a = 'a') write it: 0-9 and the letters but I, L, O, U.
 */
static inline bool
fuzz_is_base32(char c, char a)
{
	int			k = c - a;

	return (c >= '0' && c <= '9') ||
		(k >= 0 && k < 26 && k != 'i' - 'a' && k != 'l' - 'a' && k != 'o' - 'a' && k != 'u' - 'a');
}

#endif							/* CID_FUZZ_H */
