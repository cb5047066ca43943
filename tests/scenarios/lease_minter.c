/*
 * minter.c — a test driver for tests/scenarios/lease.sh: lease a node
 * number (PG* variables name the server), mint snowflakes through
 * cid_lease_next() one every few ms and print each with its timestamp,
 * until the lease stops it; then try to renew and report both statuses.
 *
 *   minter TTL_MS GRACE_MS LO-HI [INTERVAL_MS [COUNT]]
 *
 * Output lines: "node N HOLDER", "id ID MS" per ID, and at the end
 * "stopped STATUS_NAME", "renew STATUS_NAME" (the library's renewal) and
 * "server renew STATUS_NAME" (renewal by token, decided by the server); exit 3 when the lease
 * stopped it, 0 after COUNT IDs (then the lease is released), 1 on error.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "chronoid_lease.h"

int
main(int argc, char **argv)
{
	cid_lease_opts opts;
	cid_lease  *lease;
	cid_layout	layout;
	char		err[512];
	long		interval_ms = 5;
	long long	count = -1;
	long long	n = 0;
	int			rc;

	if (argc < 4)
	{
		fprintf(stderr, "usage: minter TTL_MS GRACE_MS LO-HI [INTERVAL_MS [COUNT]]\n");
		return 2;
	}
	cid_lease_opts_default(&opts);
	opts.ttl_ms = strtoll(argv[1], NULL, 10);
	opts.grace_ms = strtoll(argv[2], NULL, 10);
	{
		unsigned long long lo,
					hi;
		char		end;

		if (sscanf(argv[3], "%llu-%llu%c", &lo, &hi, &end) != 2 || lo > hi)
			lo = hi = 0;
		opts.lo = lo;
		opts.hi = hi;
	}
	if (opts.hi == 0)
	{
		fprintf(stderr, "minter: bad range\n");
		return 2;
	}
	if (argc > 4)
		interval_ms = strtol(argv[4], NULL, 10);
	if (argc > 5)
		count = strtoll(argv[5], NULL, 10);
	if (cid_layout_preset(&layout, "pgedge") != CID_OK)
		return 1;
	opts.layout = &layout;
	setvbuf(stdout, NULL, _IOLBF, 0);

	rc = cid_lease_acquire(&lease, &opts, err, sizeof(err));
	if (rc < 0)
	{
		fprintf(stderr, "minter: %s: %s\n", cid_lease_strerror(rc), err);
		return 1;
	}
	printf("node %llu %s\n", (unsigned long long) cid_lease_node(lease),
		   cid_lease_holder(lease));
	for (;;)
	{
		uint64_t	id;
		cid_snowflake_parts p;
		struct timespec ts = {interval_ms / 1000, (interval_ms % 1000) * 1000000};

		if (count >= 0 && n >= count)
		{
			rc = cid_lease_release(lease, err, sizeof(err));
			printf("released %s\n", cid_lease_strerror(rc));
			return rc < 0 ? 1 : 0;
		}
		rc = cid_lease_next(lease, &id);
		if (rc < 0)
			break;
		if (cid_snowflake_decode(&p, &layout, id) != CID_OK)
			return 1;
		printf("id %llu %lld\n", (unsigned long long) id, (long long) p.unix_ms);
		n++;
		if (interval_ms > 0)
			nanosleep(&ts, NULL);
	}
	printf("stopped %s\n", cid_lease_strerror(rc));
	rc = cid_lease_renew(lease, err, sizeof(err));
	printf("renew %s\n", cid_lease_strerror(rc));
	cid_lease_errmsg(lease, err, sizeof(err));
	printf("renewer said: %s\n", err);
	/* What the server says to this holder now: it must not revive it. */
	rc = cid_lease_renew_token(&opts, cid_lease_node(lease), cid_lease_holder(lease),
							   NULL, err, sizeof(err));
	printf("server renew %s\n", cid_lease_strerror(rc));
	cid_lease_free(lease);
	return 3;
}
