/*
 * claim.c — which node a package's Snowflake generator claims, and what a
 * refusal says: the same policy in every language (a number held by
 * another process is never shared; a range gives the lowest free one).
 */
#include <stdio.h>
#include <string.h>

#include "bind_internal.h"

/* What a held number's message advises (a duplicate is never the answer). */
#define HELD_ADVICE ": give every process its own node number (or a lease), or another claim scope"

int
cid_bind_claim(cid_claimed_snowflake **out, uint64_t *node, const char *scope, uint64_t first,
			   uint64_t last, const cid_layout *layout, const cid_snowflake_opts *opts, bool host,
			   const char *dir, long *holder, char *err, size_t errlen)
{
	char		why[512];

	*holder = 0;
	for (uint64_t n = first;; n++)
	{
		int			st;

		why[0] = '\0';
		st = cid_claimed_snowflake_open(out, scope, n, layout, opts, host, dir, holder, why,
										sizeof(why));
		if (st == CID_OK)
		{
			*node = n;
			return CID_OK;
		}
		if (st == CID_EINVAL)
		{
			/* A bad scope or directory: the number has nothing to do with it. */
			snprintf(err, errlen, "%s", why);
			return st;
		}
		if (st != CID_ENODE_HELD)
		{
			snprintf(err, errlen, "node %llu: %s", (unsigned long long) n, why);
			return st;
		}
		if (n == last)
		{
			if (first == last)
				snprintf(err, errlen, "%s%s", why,
						 strstr(why, " is held by ") != NULL ? HELD_ADVICE : "");
			else
			{
				*holder = 0;
				snprintf(err, errlen, "every node %llu..%llu of layout %s is claimed in scope %s (%s)",
						 (unsigned long long) first, (unsigned long long) last, layout->name,
						 scope != NULL ? scope : "default", dir != NULL ? dir : cid_node_claim_dir());
			}
			return st;
		}
	}
}
