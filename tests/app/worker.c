/*
 * worker.c — the C face of the application state machine
 * (tests/app/statemachine.py): a process that claims node numbers and
 * mints Snowflakes through libchronoid as an application would, driven by
 * commands on stdin, one per line, answering on stdout.  `worker claim`
 * uses the claim itself (acquire, start after the mark, cover every ID
 * before it leaves); `worker shared` the process's shared generator of a
 * number (cid_claimed_snowflake, what the Node and Python faces use).
 *
 *   open H SCOPE NODE CLAIM   claim (CLAIM 1: host-wide, 0: in-process)
 *   mint H K                  K IDs, each written before the next is made
 *   batch H N                 N IDs with one fill
 *   close H                   release the claim
 *   fork                      a child tries the inherited claims, exits
 *   exit                      release everything and end
 *
 * Every ID is one write(2) of "id H VALUE\n" (atomic on a pipe), made
 * after cid_node_claim_cover() said it may leave; every command ends with
 * "r STATUS [DETAIL]".  No stdio buffering: a fork must not copy a buffer.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "chronoid.h"

#define MAX_HANDLES 64
#define MAX_BATCH 4096

typedef struct handle
{
	bool		open;
	bool		host;
	char		scope[CID_CLAIM_SCOPE_MAX + 1];
	uint64_t	node;
	cid_node_claim *claim;		/* claim mode */
	cid_snowflake_gen gen;
	cid_claimed_snowflake *shared;	/* shared mode */
} handle;

static handle handles[MAX_HANDLES];
static bool shared_mode;

/* One line, one write: a reader never sees half of it. */
static void
say(const char *fmt,...)
{
	char		buf[512];
	va_list		ap;
	int			n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int) sizeof(buf) - 2)
		n = (int) sizeof(buf) - 2;
	buf[n++] = '\n';
	if (write(STDOUT_FILENO, buf, (size_t) n) != n)
		_exit(3);
}

/* The status word the driver's model expects for a library status. */
static const char *
word(int rc)
{
	switch (rc)
	{
		case CID_ENODE_HELD:
			return "held";
		case CID_ECLAIM:
			return "eclaim";
		case CID_EFORKED:
			return "forked";
		default:
			return "err";
	}
}

/* The code the npm package gives the same status, for one vocabulary. */
static const char *
code(int rc)
{
	static char other[32];

	switch (rc)
	{
		case CID_ENODE_HELD:
			return "CHRONOID_ENODE_HELD";
		case CID_ECLAIM:
			return "CHRONOID_ECLAIM";
		case CID_EFORKED:
			return "CHRONOID_EFORKED";
		case CID_EDRIFT:
			return "CHRONOID_EDRIFT";
		case CID_EWAIT_TIMEOUT:
			return "CHRONOID_EWAIT_TIMEOUT";
		case CID_ETIME_RANGE:
			return "CHRONOID_ETIME_RANGE";
		default:
			snprintf(other, sizeof(other), "CHRONOID_E%d", rc);
			return other;
	}
}

static handle *
get(int h, bool want_open)
{
	if (h < 0 || h >= MAX_HANDLES || handles[h].open != want_open)
	{
		say("r bad handle %d", h);
		return NULL;
	}
	return &handles[h];
}

static void
do_open(int h, const char *scope, uint64_t node, int host)
{
	handle	   *x = get(h, false);
	char		err[512];
	long		holder = 0;
	int			rc;

	if (x == NULL)
		return;
	if (shared_mode)
		rc = cid_claimed_snowflake_open(&x->shared, scope, node, NULL, NULL, host != 0, NULL,
										&holder, err, sizeof(err));
	else
		rc = host ? cid_node_claim_acquire(&x->claim, scope, node, NULL, &holder, err, sizeof(err))
			: cid_node_claim_local(&x->claim, scope, node, err, sizeof(err));
	if (rc != CID_OK)
	{
		say("r %s %s %ld %s", word(rc), code(rc), holder, err);
		return;
	}
	if (shared_mode)
		rc = CID_OK;
	else
		rc = cid_snowflake_init(&x->gen, NULL, node, NULL, NULL);
	if (rc == CID_OK && !shared_mode)
		rc = cid_node_claim_start(x->claim, &x->gen);
	if (rc != CID_OK)
	{
		cid_node_claim_release(x->claim);
		say("r err %s 0 init or start", code(rc));
		return;
	}
	x->open = true;
	x->host = host != 0;
	x->node = node;
	snprintf(x->scope, sizeof(x->scope), "%s", scope);
	say("r ok");
}

/* One ID, covered by the claim's mark before it may leave. */
static int
next_id(handle *x, uint64_t *id)
{
	int			rc;

	if (shared_mode)
		return cid_claimed_snowflake_next(x->shared, id);
	rc = cid_snowflake_next(&x->gen, id);
	return rc < 0 ? rc : cid_node_claim_cover(x->claim, &x->gen);
}

static int
fill_ids(handle *x, uint64_t *ids, size_t n)
{
	size_t		done = 0;
	int			rc;

	if (shared_mode)
		return cid_claimed_snowflake_fill(x->shared, ids, n, &done);
	rc = cid_snowflake_fill(&x->gen, ids, n, &done);
	return rc < 0 ? rc : cid_node_claim_cover(x->claim, &x->gen);
}

/* Mint k IDs one by one (one fill of k when fill): cover, then write. */
static void
do_mint(int h, long k, bool fill)
{
	static uint64_t ids[MAX_BATCH];
	handle	   *x = get(h, true);
	int			rc;

	if (x == NULL)
		return;
	if (k < 1 || k > MAX_BATCH)
	{
		say("r bad count %ld", k);
		return;
	}
	if (fill)
	{
		rc = fill_ids(x, ids, (size_t) k);
		if (rc < 0)
		{
			say("r %s %s", word(rc), code(rc));
			return;
		}
		for (long i = 0; i < k; i++)
			say("id %d %" PRIu64, h, ids[i]);
		say("r ok");
		return;
	}
	for (long i = 0; i < k; i++)
	{
		uint64_t	id;

		rc = next_id(x, &id);
		if (rc < 0)
		{
			say("r %s %s", word(rc), code(rc));
			return;
		}
		say("id %d %" PRIu64, h, id);
	}
	say("r ok");
}

static void
do_close(int h)
{
	handle	   *x = get(h, true);

	if (x == NULL)
		return;
	if (shared_mode)
		cid_claimed_snowflake_close(x->shared);
	else
		cid_node_claim_release(x->claim);
	x->open = false;
	x->claim = NULL;
	x->shared = NULL;
	say("r ok");
}

/*
 * fork(): the child holds nothing of its parent's.  It tries each open
 * handle: an ID it makes must not be covered ("fmint H forked"), and a
 * claim of the same number must be refused while the parent lives
 * ("fclaim H held").  Any ID it could cover is written, as a minted one:
 * the driver's ledger then sees the parent's next one repeat it.
 */
static void
do_fork(void)
{
	pid_t		pid = fork();
	int			st = 0;

	if (pid < 0)
	{
		say("r err fork %s", strerror(errno));
		return;
	}
	if (pid == 0)
	{
		for (int h = 0; h < MAX_HANDLES; h++)
		{
			handle	   *x = &handles[h];
			cid_node_claim *c = NULL;
			char		err[512];
			uint64_t	id;
			int			rc;

			if (!x->open)
				continue;
			rc = next_id(x, &id);
			if (rc >= 0)
			{
				say("id %d %" PRIu64, h, id);
				say("fmint %d ok", h);
			}
			else
				say("fmint %d %s", h, word(rc));
			if (shared_mode)
			{
				/* A face that drives the generator itself (a wait without
				 * its language's lock) and ends with the cover. */
				rc = cid_snowflake_next(cid_claimed_snowflake_gen(x->shared), &id);
				rc = cid_claimed_snowflake_cover(x->shared, rc);
				if (rc >= 0)
				{
					say("id %d %" PRIu64, h, id);
					say("fmint %d ok", h);
				}
				else
					say("fmint %d %s", h, word(rc));
			}
			if (!x->host)
				continue;
			if (shared_mode)
			{
				cid_claimed_snowflake *g = NULL;

				rc = cid_claimed_snowflake_open(&g, x->scope, x->node, NULL, NULL, true, NULL,
												NULL, err, sizeof(err));
				if (rc == CID_OK)
					cid_claimed_snowflake_close(g);
			}
			else
			{
				rc = cid_node_claim_acquire(&c, x->scope, x->node, NULL, NULL, err, sizeof(err));
				if (rc == CID_OK)
					cid_node_claim_release(c);
			}
			say("fclaim %d %s", h, rc == CID_OK ? "ok" : word(rc));
		}
		_exit(0);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
	{
		say("r err child %d ended with status %d", (int) pid, st);
		return;
	}
	say("r ok %d", (int) pid);
}

int
main(int argc, char **argv)
{
	char		line[512];
	FILE	   *in = stdin;

	if (argc != 2 || (strcmp(argv[1], "claim") != 0 && strcmp(argv[1], "shared") != 0))
	{
		fprintf(stderr, "usage: worker claim|shared\n");
		return 2;
	}
	shared_mode = strcmp(argv[1], "shared") == 0;
	setvbuf(stdout, NULL, _IONBF, 0);
	while (fgets(line, sizeof(line), in) != NULL)
	{
		char		cmd[16],
					scope[CID_CLAIM_SCOPE_MAX + 1];
		int			h,
					host;
		uint64_t	node;
		long		k;

		if (sscanf(line, "%15s", cmd) != 1)
			continue;
		if (strcmp(cmd, "open") == 0 &&
			sscanf(line, "open %d %64s %" SCNu64 " %d", &h, scope, &node, &host) == 4)
			do_open(h, scope, node, host);
		else if (strcmp(cmd, "mint") == 0 && sscanf(line, "mint %d %ld", &h, &k) == 2)
			do_mint(h, k, false);
		else if (strcmp(cmd, "batch") == 0 && sscanf(line, "batch %d %ld", &h, &k) == 2)
			do_mint(h, k, true);
		else if (strcmp(cmd, "close") == 0 && sscanf(line, "close %d", &h) == 1)
			do_close(h);
		else if (strcmp(cmd, "fork") == 0)
			do_fork();
		else if (strcmp(cmd, "exit") == 0)
			break;
		else
			say("r bad command %s", cmd);
	}
	for (int h = 0; h < MAX_HANDLES; h++)
		if (handles[h].open && shared_mode)
			cid_claimed_snowflake_close(handles[h].shared);
		else if (handles[h].open)
			cid_node_claim_release(handles[h].claim);
	say("r ok");
	return 0;
}
