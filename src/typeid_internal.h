/*
 * typeid_internal.h — which text is read as a TypeID (not installed).
 * cid_inspect_id() and the command line decide the same way, here.
 */
#ifndef CID_TYPEID_INTERNAL_H
#define CID_TYPEID_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/*
 * A type prefix, '_', and 26 base32 characters.  A '_' is in no other form;
 * a '-' is in none of a TypeID's characters, and what a UUID typed with a
 * '_' for a hyphen still has: that stays a UUID, refused as one.  An empty
 * prefix leaves the ULID's 26 characters, which stay a ULID.
 */
static inline bool
cid_typeid_shaped(const char *s, size_t len)
{
	return len > 0 && memchr(s, '_', len) != NULL && memchr(s, '-', len) == NULL;
}

#endif							/* CID_TYPEID_INTERNAL_H */
