/*
 * scope_internal.h — what a claim scope may be (not installed): shared by
 * the node claims (src/node_claim.c), which name files after it, and the
 * WebAssembly glue (wasm/glue.c), which has no claims but keys its
 * generators by scope and must refuse what the addon refuses.
 */
#ifndef CID_SCOPE_INTERNAL_H
#define CID_SCOPE_INTERNAL_H

#include <stdbool.h>
#include <string.h>

#include "chronoid.h"

/*
 * 1 to CID_CLAIM_SCOPE_MAX characters of [A-Za-z0-9_.-], not starting
 * with '.': a file name in the claim directory, never a path.
 */
static inline bool
cid_scope_ok(const char *scope)
{
	size_t		n = strlen(scope);

	if (n == 0 || n > CID_CLAIM_SCOPE_MAX || scope[0] == '.')
		return false;
	for (size_t i = 0; i < n; i++)
	{
		char		c = scope[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-'))
			return false;
	}
	return true;
}

#endif							/* CID_SCOPE_INTERNAL_H */
