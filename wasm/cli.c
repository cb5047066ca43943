/*
 * cli.c — what the chronoid command needs from an OS and a WebAssembly
 * page has not, for the inspector page's build of the command (web/
 * inspector: `chronoid inspect --json`, `convert` and `gen` run in the
 * page, so that it answers, and fails, as the command does).  No host
 * claims (a Snowflake needs --no-claim, as the npm package's WebAssembly
 * build needs claim: false) and no other programs to run.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "chronoid.h"

/* Without claims, the generator is all there is: one process, one command. */
struct cid_claimed_snowflake
{
	cid_snowflake_gen gen;
};

int
cid_claimed_snowflake_open(cid_claimed_snowflake **out, const char *scope, uint64_t node,
						   const cid_layout *layout, const cid_snowflake_opts *opts, bool host,
						   const char *dir, long *holder_pid, char *err, size_t errlen)
{
	cid_claimed_snowflake *g;
	int			rc;

	(void) scope;
	(void) dir;
	*out = NULL;
	if (holder_pid != NULL)
		*holder_pid = 0;
	if (host)
	{
		if (err != NULL && errlen > 0)
			snprintf(err, errlen, "no host node claims in a page: pass --no-claim and a node number "
					 "that nothing else mints with");
		return CID_ECLAIM;
	}
	g = malloc(sizeof(*g));
	if (g == NULL)
		return CID_EINVAL;
	rc = cid_snowflake_init(&g->gen, layout, node, opts, NULL);
	if (rc != CID_OK)
	{
		free(g);
		if (err != NULL && errlen > 0)
			snprintf(err, errlen, "snowflake generator, node %llu: %s", (unsigned long long) node,
					 cid_strerror(rc));
		return rc;
	}
	*out = g;
	return CID_OK;
}

int
cid_claimed_snowflake_fill(cid_claimed_snowflake *g, uint64_t *ids, size_t n, size_t *done)
{
	return cid_snowflake_fill(&g->gen, ids, n, done);
}

void
cid_claimed_snowflake_close(cid_claimed_snowflake *g)
{
	free(g);
}

/* main.c runs chronoid-NAME for the database tools: none here. */
int
execv(const char *path, char *const argv[])
{
	(void) path;
	(void) argv;
	errno = ENOSYS;
	return -1;
}
