/*
 * generators.c — the process's generators behind the module-level functions
 * and their fork rule, the same for every binding; the kinds they make are
 * kinds.c's, which needs no OS (the WebAssembly module compiles it too).
 */
#define _GNU_SOURCE

#include <pthread.h>
#include <stdlib.h>

#include "bind_internal.h"

cid_bind_gens cid_bind_gen;
uint64_t	cid_bind_fork_generation;

static pthread_once_t start_once = PTHREAD_ONCE_INIT;
static int	start_status = CID_OK;

/*
 * In the child of a fork: the random bytes are the core's business
 * (src/random.c discards the parent's buffer), the monotonic ULID's last
 * value is not: a child that went on from it would mint the parent's next
 * ULIDs, so it starts afresh (a new random start in the millisecond).
 * Its spin lock is reset too, in case another thread held it at the fork.
 */
static void
after_fork_child(void)
{
	cid_bind_fork_generation++;
	/* Cannot fail: gen is not NULL and env NULL is the platform's. */
	if (cid_ulid_init(&cid_bind_gen.ulid_mono, true, NULL) < 0)
		abort();
}

static void
start(void)
{
	int			rc;

	/* The ObjectId's process bytes are the first random bytes drawn. */
	cid_bind_random_start();
	rc = cid_bind_gens_init(&cid_bind_gen, NULL);
	if (rc == CID_OK && pthread_atfork(NULL, NULL, after_fork_child) != 0)
		rc = CID_EINVAL;
	start_status = rc;
}

int
cid_bind_start(void)
{
	pthread_once(&start_once, start);
	return start_status;
}
