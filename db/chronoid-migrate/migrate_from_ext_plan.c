/*
 * migrate_from_ext_plan.c — the plan of "chronoid migrate from-extension":
 * every dependent found, then every statement with the lock it takes and
 * how long it should take, on stdout.  Printed by --plan and before the
 * switch itself.
 */
#include <stdio.h>
#include <string.h>

#include "migrate_from_ext_internal.h"
#include "pq_internal.h"

static const char *
flat(char *buf, size_t len, const char *s)
{
	cid_pq_one_line(buf, len, s);
	return buf;
}

void
fx_print_plan(PGresult *summary, PGresult *objects, PGresult *steps,
			  const fx_source *src)
{
	char		a[512];
	char		b[512];
	char		c[4096];
	const char *secs = PQgetvalue(summary, 0, 5);

	printf("chronoid migrate from-extension %s: database %s\n", src->arg,
		   flat(a, sizeof(a), PQgetvalue(summary, 0, 4)));
	printf("  extension %s %s in schema %s -> chronoid in schema %s\n",
		   PQgetvalue(summary, 0, 0), PQgetvalue(summary, 0, 1),
		   flat(a, sizeof(a), PQgetvalue(summary, 0, 2)),
		   flat(b, sizeof(b), PQgetvalue(summary, 0, 3)));

	printf("\nDependents found (%d):\n", PQntuples(objects));
	if (PQntuples(objects) == 0)
		printf("  none\n");
	for (int i = 0; i < PQntuples(objects); i++)
		printf("  %-11s %s: %s\n", PQgetvalue(objects, i, 0),
			   flat(a, sizeof(a), PQgetvalue(objects, i, 1)),
			   flat(c, sizeof(c), PQgetvalue(objects, i, 2)));

	printf("\nSteps, in one transaction (%d); every lock is held until COMMIT:\n",
		   PQntuples(steps));
	for (int i = 0; i < PQntuples(steps); i++)
	{
		printf("  %3d. %s\n", i + 1, flat(a, sizeof(a), PQgetvalue(steps, i, 0)));
		printf("       %s\n", flat(c, sizeof(c), PQgetvalue(steps, i, 1)));
		printf("       lock: %s; expected: %s\n", flat(a, sizeof(a), PQgetvalue(steps, i, 2)),
			   flat(b, sizeof(b), PQgetvalue(steps, i, 3)));
		if (strcmp(PQgetvalue(steps, i, 7), "t") == 0)
			printf("       as %s, the owner of %s (in a function of its own: its code never runs with your rights)\n",
				   flat(a, sizeof(a), PQgetvalue(steps, i, 6)), flat(b, sizeof(b), PQgetvalue(steps, i, 8)));
	}

	printf("\nExpected duration: ");
	if (strcmp(secs, "0") == 0)
		printf("under a second; the locks above are held that long.\n");
	else
		printf("about %s s (rewrites, index builds and foreign-key checks at about 50 MB/s; "
			   "the rest milliseconds); the locks above are held that long.\n", secs);
	printf("After it: recycle pooled connections that called %s's functions (they keep its "
		   "library loaded%s).\n", src->label,
		   strcmp(src->kind, "pgedge") == 0 ?
		   "; such a connection cannot load chronoid: both define snowflake.node" : "");
}
