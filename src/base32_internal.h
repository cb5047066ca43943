/*
 * base32_internal.h — the 26-digit Crockford base32 text of 128 bits, as
 * ULIDs and TypeIDs both write it (not installed).  Its one home is
 * ulid.c, where the ULID hot paths inline it; TypeID (typeid.c) calls
 * these out-of-line entries instead of holding a second encoder.
 */
#ifndef CID_BASE32_INTERNAL_H
#define CID_BASE32_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* 26 upper-case digits of the 16 bytes at b (no NUL). */
void		cid_base32_format26(char *out, const uint8_t *b);

/*
 * The 16 bytes of 26 digits at s, either case; false (out unspecified)
 * when a character is outside the alphabet or the first digit is above 7.
 */
bool		cid_base32_parse26(uint8_t *out, const char *s);

/*
 * Why cid_base32_parse26 refused s: CID_ESYNTAX with *errpos (when not
 * NULL) at base plus the first character outside the alphabet, else
 * CID_EOVERFLOW with *errpos at base.
 */
int			cid_base32_error26(const char *s, size_t base, size_t *errpos);

#endif							/* CID_BASE32_INTERNAL_H */
