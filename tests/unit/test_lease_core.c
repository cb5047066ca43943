/*
 * test_lease_core.c — the pure parts of libchronoid_lease: the deadline on an injected monotonic clock (expiry,
 * stickiness, renewal only forward, the check after the clock read), the
 * generator seeded past the previous holder's IDs, and fork invalidation.
 */
#define _POSIX_C_SOURCE 200809L

#include <sys/wait.h>
#include <unistd.h>

#include "lease_internal.h"
#include "tap.h"

#define MS INT64_C(1000000)

/* Monotonic clock: returns now, then moves by step on every read. */
static int64_t mono_now;
static int64_t mono_step;

static int64_t
fake_mono(void *ctx)
{
	int64_t		v = mono_now;

	(void) ctx;
	mono_now += mono_step;
	return v;
}

/* Wall clock for the generator: fixed. */
static int64_t wall_ns;

static int64_t
fake_wall(void *ctx)
{
	(void) ctx;
	return wall_ns;
}

static const cid_env wall_env = {fake_wall, NULL, NULL, NULL};
static cid_layout pgedge;

/* A lease on node 17, ttl 3 s, started at mono 1 s, wall clock fixed. */
static void
setup(cid_lease *l, int64_t not_before_ms)
{
	cid_lease_opts o;

	memset(l, 0, sizeof(*l));
	cid_lease_opts_default(&o);
	o.ttl_ms = 3000;
	o.layout = &pgedge;
	o.env = &wall_env;
	o.monotonic = fake_mono;
	mono_now = 1000 * MS;
	mono_step = 0;
	wall_ns = INT64_C(1767225600000) * MS;	/* 2026-01-01 */
	EXPECT_EQ_INT(cid_lease_init_local(l, 17, &o, not_before_ms, mono_now), CID_OK);
}

static int64_t
id_ms(uint64_t id)
{
	cid_snowflake_parts p;

	EXPECT_EQ_INT(cid_snowflake_decode(&p, &pgedge, id), CID_OK);
	return p.unix_ms;
}

static void
test_default_grace(void)
{
	EXPECT_EQ_INT(cid_lease_default_grace_ms(3000), 2000);
	EXPECT_EQ_INT(cid_lease_default_grace_ms(10000), 2000);
	EXPECT_EQ_INT(cid_lease_default_grace_ms(30000), 6000);
	EXPECT_EQ_INT(cid_lease_default_grace_ms(60000), 12000);
}

static void
test_strerror(void)
{
	const int	st[] = {CID_ELEASE_DB, CID_ELEASE_FULL, CID_ELEASE_EXPIRED, CID_ELEASE_LOST,
	CID_ELEASE_FORKED, CID_ELEASE_CLOCK, CID_ELEASE_RELEASED};
	size_t		i,
				j;

	for (i = 0; i < sizeof(st) / sizeof(st[0]); i++)
	{
		EXPECT(strcmp(cid_lease_strerror(st[i]), cid_strerror(-9999)) != 0);
		for (j = 0; j < i; j++)
			EXPECT(strcmp(cid_lease_strerror(st[i]), cid_lease_strerror(st[j])) != 0);
	}
	EXPECT_STR(cid_lease_strerror(CID_EDRIFT), cid_strerror(CID_EDRIFT));
}

/* The deadline is start + ttl on the monotonic clock, and it is sticky. */
static void
test_deadline(void)
{
	cid_lease	l;
	uint64_t	id = 0;

	setup(&l, 0);
	EXPECT_EQ_INT(cid_lease_next(&l, &id), CID_OK);
	EXPECT_EQ_U64(id >> 12 & 1023, 17);
	EXPECT_EQ_INT(cid_lease_remaining_ns(&l), 3000 * MS);
	mono_now = 1000 * MS + 2999 * MS;
	EXPECT_EQ_INT(cid_lease_next(&l, &id), CID_OK);
	EXPECT_EQ_INT(cid_lease_remaining_ns(&l), 1 * MS);
	mono_now = 1000 * MS + 3000 * MS;
	id = 12345;
	EXPECT_EQ_INT(cid_lease_next(&l, &id), CID_ELEASE_EXPIRED);
	EXPECT_EQ_U64(id, 12345);
	EXPECT_EQ_INT(cid_lease_remaining_ns(&l), 0);
	/* A renewal that lands after expiry does not bring it back. */
	cid_lease_extend(&l, mono_now);
	mono_now = 1000 * MS;
	EXPECT_EQ_INT(cid_lease_next(&l, &id), CID_ELEASE_EXPIRED);
	EXPECT_EQ_INT(cid_lease_status(&l), CID_ELEASE_EXPIRED);
}

/* Renewal moves the deadline to t0 + ttl, never backwards. */
static void
test_extend(void)
{
	cid_lease	l;
	uint64_t	id;

	setup(&l, 0);
	cid_lease_extend(&l, 2000 * MS);	/* deadline 5 s */
	mono_now = 4999 * MS;
	EXPECT_EQ_INT(cid_lease_next(&l, &id), CID_OK);
	cid_lease_extend(&l, 1500 * MS);	/* older request: 4.5 s, ignored */
	EXPECT_EQ_INT(cid_lease_remaining_ns(&l), 1 * MS);
	mono_now = 5000 * MS;
	EXPECT_EQ_INT(cid_lease_next(&l, &id), CID_ELEASE_EXPIRED);
}

/*
 * The thread stops between the first check and the clock read (here: the
 * monotonic clock jumps 5 s on each read): the ID made is never returned.
 */
static void
test_check_after_mint(void)
{
	cid_lease	l;
	uint64_t	id = 777;
	uint64_t	ids[64];
	size_t		done = 99;

	setup(&l, 0);
	mono_now = 3999 * MS - 1;	/* first read just before the deadline */
	mono_step = 5000 * MS;
	EXPECT_EQ_INT(cid_lease_next(&l, &id), CID_ELEASE_EXPIRED);
	EXPECT_EQ_U64(id, 777);

	setup(&l, 0);
	mono_now = 3999 * MS - 1;
	mono_step = 5000 * MS;
	EXPECT_EQ_INT(cid_lease_fill(&l, ids, 64, &done), CID_ELEASE_EXPIRED);
	EXPECT_EQ_U64(done, 0);
}

static void
test_fill(void)
{
	cid_lease	l;
	uint64_t	ids[300];
	size_t		done = 0,
				i;

	setup(&l, 0);
	EXPECT(cid_lease_fill(&l, ids, 300, &done) >= 0);
	EXPECT_EQ_U64(done, 300);
	for (i = 0; i < 300; i++)
	{
		EXPECT_EQ_U64(ids[i] >> 12 & 1023, 17);
		if (i > 0)
			EXPECT(ids[i] > ids[i - 1]);
	}
}

/* The first reason wins; a lost lease stops at once, before its deadline. */
static void
test_fence(void)
{
	cid_lease	l;
	uint64_t	id;

	setup(&l, 0);
	cid_lease_fence(&l, CID_ELEASE_LOST);
	EXPECT_EQ_INT(cid_lease_next(&l, &id), CID_ELEASE_LOST);
	cid_lease_fence(&l, CID_ELEASE_RELEASED);
	mono_now = 10000 * MS;
	EXPECT_EQ_INT(cid_lease_next(&l, &id), CID_ELEASE_LOST);
	EXPECT_EQ_INT(cid_lease_remaining_ns(&l), 0);
}

/*
 * The previous holder's IDs reach not_before_ms: every new ID comes from a
 * later tick, even with this host's clock behind (run-ahead within the
 * drift bound; beyond it the generator refuses).
 */
static void
test_not_before(void)
{
	cid_lease	l;
	uint64_t	id = 0;
	int64_t		wall_ms = INT64_C(1767225600000);
	int			rc;

	setup(&l, wall_ms + 500);
	rc = cid_lease_next(&l, &id);
	EXPECT_EQ_INT(rc, CID_WCLOCK_BEHIND);
	EXPECT(id_ms(id) > wall_ms + 500);
	EXPECT(cid_lease_last_ms(&l) >= id_ms(id));
	EXPECT_EQ_INT(cid_lease_not_before_ms(&l), wall_ms + 500);

	setup(&l, wall_ms + 5000);
	EXPECT_EQ_INT(cid_lease_next(&l, &id), CID_EDRIFT);

	/* Past not_before: the clock's own tick. */
	setup(&l, wall_ms - 10);
	EXPECT_EQ_INT(cid_lease_next(&l, &id), CID_OK);
	EXPECT_EQ_INT(id_ms(id), wall_ms);
	EXPECT_EQ_INT(cid_lease_last_ms(&l), wall_ms);
}

/* A child after fork() must not mint under its parent's lease. */
static void
test_fork(void)
{
	cid_lease	l;
	uint64_t	id;
	pid_t		pid;
	int			status = 0;

	setup(&l, 0);
	EXPECT_EQ_INT(cid_lease_next(&l, &id), CID_OK);
	fflush(stdout);
	pid = fork();
	EXPECT(pid >= 0);
	if (pid == 0)
	{
		int			a = cid_lease_next(&l, &id);
		int			b = cid_lease_status(&l);
		uint64_t	ids[4];
		int			c = cid_lease_fill(&l, ids, 4, NULL);

		_exit(a == CID_ELEASE_FORKED && b == CID_ELEASE_FORKED &&
			  c == CID_ELEASE_FORKED ? 0 : 1);
	}
	EXPECT_EQ_INT(waitpid(pid, &status, 0), pid);
	EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* The parent keeps its lease. */
	EXPECT_EQ_INT(cid_lease_next(&l, &id), CID_OK);
}

int
main(void)
{
	if (cid_layout_preset(&pgedge, "pgedge") != CID_OK)
		return 1;
	TAP_CASE(test_default_grace);
	TAP_CASE(test_strerror);
	TAP_CASE(test_deadline);
	TAP_CASE(test_extend);
	TAP_CASE(test_check_after_mint);
	TAP_CASE(test_fill);
	TAP_CASE(test_fence);
	TAP_CASE(test_not_before);
	TAP_CASE(test_fork);
	return tap_done();
}
