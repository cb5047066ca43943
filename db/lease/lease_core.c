/*
 * lease_core.c — the pure parts of libchronoid_lease: the fence (deadline
 * on the monotonic clock, fork invalidation), minting under it, the
 * generator seeded past the previous holder's IDs, and option parsing.
 * No I/O here; lease_pg.c talks to PostgreSQL.
 */
#define _GNU_SOURCE

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "atomic_internal.h"
#include "lease_internal.h"

/* ------------------------------------------------------------------------
 * Fork: a child must not mint under its parent's number
 * ------------------------------------------------------------------------ */

static _Atomic unsigned fork_gen;
static pthread_once_t fork_once = PTHREAD_ONCE_INIT;

static void
on_fork_child(void)
{
	atomic_fetch_add(&fork_gen, 1);
}

static void
register_atfork(void)
{
	(void) pthread_atfork(NULL, NULL, on_fork_child);
}

unsigned
cid_lease_fork_gen(void)
{
	(void) pthread_once(&fork_once, register_atfork);
	return atomic_load_explicit(&fork_gen, memory_order_relaxed);
}

/* ------------------------------------------------------------------------
 * Statuses, options
 * ------------------------------------------------------------------------ */

const char *
cid_lease_strerror(int status)
{
	switch (status)
	{
		case CID_ELEASE_DB:
			return "lease database error";
		case CID_ELEASE_FULL:
			return "no free node number in the range";
		case CID_ELEASE_EXPIRED:
			return "node lease expired";
		case CID_ELEASE_LOST:
			return "node lease lost (lapsed, released or taken on the server)";
		case CID_ELEASE_FORKED:
			return "node lease belongs to the parent process (after fork)";
		case CID_ELEASE_CLOCK:
			return "wall clock behind the previous holder's IDs";
		case CID_ELEASE_RELEASED:
			return "node lease released";
		case CID_EBLOCK_DB:
			return "the database gave no block of values";
		case CID_EBLOCK_EXHAUSTED:
			return "the sequence has no value left";
		case CID_EBLOCK_FORKED:
			return "block allocator belongs to the parent process (after fork)";
		default:
			return cid_strerror(status);
	}
}

void
cid_lease_opts_default(cid_lease_opts *opts)
{
	if (opts == NULL)
		return;
	memset(opts, 0, sizeof(*opts));
	opts->ttl_ms = 30000;
	opts->grace_ms = -1;
	opts->clock_wait_ms = -1;
}

int64_t
cid_lease_default_grace_ms(int64_t ttl_ms)
{
	return ttl_ms / 5 > 2000 ? ttl_ms / 5 : 2000;
}

bool
cid_lease_schema_ok(const char *schema, char *out)
{
	size_t		i;

	if (schema == NULL)
		schema = "chronoid";
	if (schema[0] == '\0' || strlen(schema) > CID_LEASE_SCHEMA_MAX ||
		(schema[0] >= '0' && schema[0] <= '9'))
		return false;
	/* Only names that need no quoting: the name goes into SQL text. */
	for (i = 0; schema[i] != '\0'; i++)
	{
		char		c = schema[i];

		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'))
			return false;
	}
	memcpy(out, schema, i + 1);
	return true;
}

/* ------------------------------------------------------------------------
 * The fence
 * ------------------------------------------------------------------------ */

int64_t
cid_lease_default_mono(void *ctx)
{
	struct timespec ts;

	(void) ctx;

	/*
	 * CLOCK_BOOTTIME where there is one: it keeps counting while the
	 * machine is suspended, CLOCK_MONOTONIC does not, and a lease must
	 * count a suspended process's time as gone like any other pause.
	 */
#ifdef CLOCK_BOOTTIME
	if (clock_gettime(CLOCK_BOOTTIME, &ts) == 0)
		return (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
#endif
	if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
		return -1;
	return (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t
cid_lease_mono_now(const cid_lease *lease)
{
	return lease->mono(lease->mono_ctx);
}

int
cid_lease_init_local(cid_lease *lease, uint64_t node, const cid_lease_opts *opts,
					 int64_t not_before_ms, int64_t start_ns)
{
	int			rc;

	rc = cid_snowflake_init(&lease->gen, opts->layout, node, opts->sf_opts, opts->env);
	if (rc < 0)
		return rc;

	/*
	 * The previous holder may have issued up to not_before_ms on its clock:
	 * the first ID comes from the next tick on, whatever this host's clock
	 * says (CID_ETIME_RANGE when that lies past the layout's time field).
	 */
	rc = cid_snowflake_start_after(&lease->gen, not_before_ms);
	if (rc < 0)
		return rc;
	lease->node = node;
	lease->not_before_ms = not_before_ms;
	lease->ttl_ms = opts->ttl_ms;
	lease->mono = opts->monotonic != NULL ? opts->monotonic : cid_lease_default_mono;
	lease->mono_ctx = opts->monotonic != NULL ? opts->mono_ctx : NULL;
	lease->fork_gen = cid_lease_fork_gen();
	atomic_init(&lease->fenced, 0);
	atomic_init(&lease->deadline_ns, start_ns + opts->ttl_ms * 1000000);
	return CID_OK;
}

void
cid_lease_extend(cid_lease *lease, int64_t t0_ns)
{
	int64_t		want = t0_ns + lease->ttl_ms * 1000000;
	int64_t		cur = atomic_load(&lease->deadline_ns);

	while (want > cur && atomic_load(&lease->fenced) == 0)
	{
		if (atomic_compare_exchange_weak(&lease->deadline_ns, &cur, want))
			break;
	}
}

void
cid_lease_fence(cid_lease *lease, int status)
{
	int			zero = 0;

	(void) atomic_compare_exchange_strong(&lease->fenced, &zero, status);
}

int
cid_lease_check_at(cid_lease *lease, int64_t now_ns)
{
	int			f;

	if (atomic_load_explicit(&fork_gen, memory_order_relaxed) != lease->fork_gen)
		return CID_ELEASE_FORKED;
	f = atomic_load_explicit(&lease->fenced, memory_order_acquire);
	if (f != 0)
		return f;
	if (now_ns < 0)
		return CID_ECLOCK;
	if (now_ns >= atomic_load_explicit(&lease->deadline_ns, memory_order_acquire))
	{
		/* Sticky: a renewal that lands later does not bring it back. */
		cid_lease_fence(lease, CID_ELEASE_EXPIRED);
		return atomic_load(&lease->fenced);
	}
	return CID_OK;
}

int
cid_lease_status(const cid_lease *lease)
{
	if (lease == NULL)
		return CID_EINVAL;
	/* The check may fence on expiry; the lease is logically unchanged. */
	return cid_lease_check_at((cid_lease *) lease, cid_lease_mono_now(lease));
}

int64_t
cid_lease_remaining_ns(const cid_lease *lease)
{
	int64_t		now;

	if (lease == NULL)
		return 0;
	now = cid_lease_mono_now(lease);
	if (cid_lease_check_at((cid_lease *) lease, now) != CID_OK)
		return 0;
	return atomic_load(&lease->deadline_ns) - now;
}

uint64_t
cid_lease_node(const cid_lease *lease)
{
	return lease != NULL ? lease->node : 0;
}

const char *
cid_lease_holder(const cid_lease *lease)
{
	return lease != NULL ? lease->holder : "";
}

int64_t
cid_lease_not_before_ms(const cid_lease *lease)
{
	return lease != NULL ? lease->not_before_ms : 0;
}

int64_t
cid_lease_last_ms(const cid_lease *lease)
{
	const cid_layout *l = &lease->gen.layout;
	uint64_t	state = cid_atomic_u64_load(&lease->gen.state, memory_order_seq_cst);
	int64_t		wall;
	int64_t		last = 0;

	wall = lease->gen.env.clock != NULL ? lease->gen.env.clock(lease->gen.env.ctx)
		: cid_platform_clock(NULL);
	wall = wall < 0 ? 0 : wall / 1000000;
	if (state != UINT64_MAX)
	{
		uint64_t	tick = state >> l->bits[CID_FIELD_SEQ];

		/* the end of the last tick issued: its IDs stand for all of it */
		last = l->epoch_ms + (int64_t) ((tick + 1) * l->tick_ms) - 1;
	}
	return wall > last ? wall : last;
}

/*
 * Minting: the fence is checked before (cheap refusal) and after the
 * generator read the clock.  The second check is what makes the fence
 * hold: the generator's clock reading happened before that monotonic
 * reading, so an ID that passes it was made before the deadline, even if
 * the thread was stopped (SIGSTOP, a VM pause) between the two.
 */
int
cid_lease_next(cid_lease *lease, uint64_t *id)
{
	uint64_t	v = 0;
	int			rc,
				fence;

	if (lease == NULL || id == NULL)
		return CID_EINVAL;
	fence = cid_lease_check_at(lease, cid_lease_mono_now(lease));
	if (fence != CID_OK)
		return fence;
	rc = cid_snowflake_next(&lease->gen, &v);
	if (rc < 0)
		return rc;
	fence = cid_lease_check_at(lease, cid_lease_mono_now(lease));
	if (fence != CID_OK)
		return fence;			/* the ID is burnt, never returned */
	*id = v;
	return rc;
}

int
cid_lease_fill(cid_lease *lease, uint64_t *ids, size_t n, size_t *done)
{
	int			rc,
				fence;
	size_t		got = 0;

	if (done != NULL)
		*done = 0;
	if (lease == NULL || (ids == NULL && n > 0))
		return CID_EINVAL;
	fence = cid_lease_check_at(lease, cid_lease_mono_now(lease));
	if (fence != CID_OK)
		return fence;
	rc = cid_snowflake_fill(&lease->gen, ids, n, &got);
	if (rc >= 0)
		got = n;
	fence = cid_lease_check_at(lease, cid_lease_mono_now(lease));
	if (fence != CID_OK)
		return fence;			/* the whole batch is burnt */
	if (done != NULL)
		*done = got;
	return rc;
}
