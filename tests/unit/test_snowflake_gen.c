/*
 * test_snowflake_gen.c — the Snowflake generator, deterministically: a fake
 * clock that tests set and advance, and a fake sleep that moves it (no real
 * sleeping).  Covers every policy and its status codes, and fill().
 */
#include "atomic_internal.h"
#include "chronoid.h"
#include "tap.h"

#define NS_PER_MS INT64_C(1000000)

typedef struct fake
{
	int64_t		now_ns;			/* what the clock reads next */
	int64_t		step_ns;		/* added after every read */
	bool		sleep_moves;	/* sleeping advances the clock */
	int			reads;
	int			sleeps;
	int64_t		slept_ns;
	/* when set, the next read first issues on race_gen at race_ns */
	cid_snowflake_gen *race_gen;
	int64_t		race_ns;
	uint64_t	race_id;
} fake;

static int64_t
fake_clock(void *ctx)
{
	fake	   *f = ctx;
	int64_t		now = f->now_ns;

	f->reads++;
	f->now_ns += f->step_ns;
	if (f->race_gen != NULL)
	{
		/*
		 * Another thread reads a later clock and issues between this
		 * reading and the caller's atomic operation: this reading goes
		 * stale, and the clock reads race_ns from now on.
		 */
		cid_snowflake_gen *g = f->race_gen;

		f->race_gen = NULL;
		if (cid_snowflake_next_at(g, f->race_ns, &f->race_id) < 0)
			f->race_id = 0;
		f->now_ns = f->race_ns;
	}
	return now;
}

static void
fake_sleep(void *ctx, int64_t ns)
{
	fake	   *f = ctx;

	f->sleeps++;
	f->slept_ns += ns;
	if (f->sleep_moves)
		f->now_ns += ns;
}

static cid_layout
layout_of(const char *spec)
{
	cid_layout	l;
	char		err[200] = "";

	memset(&l, 0, sizeof(l));
	if (cid_layout_resolve(&l, spec, err, sizeof(err)) != CID_OK)
		printf("#     bad layout %s: %s\n", spec, err);
	return l;
}

/* A generator on layout with a fake env; opts may be NULL. */
static int
make_gen(cid_snowflake_gen *g, fake *f, const char *layout, uint64_t node,
		 const cid_snowflake_opts *opts)
{
	cid_layout	l = layout_of(layout);
	cid_env		env = {fake_clock, NULL, fake_sleep, f};

	memset(f, 0, sizeof(*f));
	f->sleep_moves = true;
	return cid_snowflake_init(g, &l, node, opts, &env);
}

static int64_t
ns_at(const cid_snowflake_gen *g, int64_t ms_after_epoch)
{
	return (g->layout.epoch_ms + ms_after_epoch) * NS_PER_MS;
}

static cid_snowflake_parts
parts_of(const cid_snowflake_gen *g, uint64_t id)
{
	cid_snowflake_parts p;

	memset(&p, 0xff, sizeof(p));
	if (cid_snowflake_decode(&p, &g->layout, id) != CID_OK)
		printf("#     id %llu does not decode\n", (unsigned long long) id);
	return p;
}

static void
test_init(void)
{
	cid_snowflake_gen g;
	cid_snowflake_opts o;
	cid_layout	bad = layout_of("pgedge");
	fake		f;

	EXPECT_EQ_INT(make_gen(&g, &f, "pgedge", 1024, NULL), CID_ENODE);
	EXPECT_EQ_INT(make_gen(&g, &f, "pgedge", 1023, NULL), CID_OK);
	EXPECT_EQ_INT(make_gen(&g, &f, "sonyflake", 65536, NULL), CID_ENODE);
	EXPECT_EQ_INT(make_gen(&g, &f, "time:53,seq:10", 1, NULL), CID_ENODE);
	EXPECT_EQ_INT(make_gen(&g, &f, "time:53,seq:10", 0, NULL), CID_OK);

	/* defaults: layout pgedge, the documented options */
	EXPECT_EQ_INT(cid_snowflake_init(&g, NULL, 5, NULL, NULL), CID_OK);
	EXPECT_STR(g.layout.name, "pgedge");
	EXPECT_EQ_INT(g.layout.shift[CID_FIELD_TIME], 22);
	EXPECT_EQ_INT(g.opts.on_behind, CID_BEHIND_RUN_AHEAD);
	EXPECT_EQ_INT(g.opts.max_drift_ms, 1000);
	EXPECT_EQ_INT(g.opts.max_wait_ms, 1000);
	EXPECT_EQ_INT(g.opts.on_exhausted, CID_EXHAUST_WAIT);
	EXPECT_EQ_U64(g.opts.max_borrow_ticks, 1000);
	EXPECT(g.env.clock == NULL && g.env.sleep == NULL);

	bad.bits[CID_FIELD_SEQ] = 11;
	EXPECT_EQ_INT(cid_snowflake_init(&g, &bad, 0, NULL, NULL), CID_ELAYOUT);
	cid_snowflake_opts_default(&o);
	o.max_drift_ms = -1;
	EXPECT_EQ_INT(cid_snowflake_init(&g, NULL, 0, &o, NULL), CID_EINVAL);
	cid_snowflake_opts_default(&o);
	o.on_behind = (cid_behind_policy) 7;
	EXPECT_EQ_INT(cid_snowflake_init(&g, NULL, 0, &o, NULL), CID_EINVAL);
	EXPECT_EQ_INT(cid_snowflake_init(NULL, NULL, 0, NULL, NULL), CID_EINVAL);
}

/* Nothing issued yet: the first ID at tick 0 is (0, node, 0). */
static void
test_first_id_at_tick_zero(void)
{
	cid_snowflake_gen g;
	fake		f;
	uint64_t	id = 1;

	EXPECT_EQ_INT(make_gen(&g, &f, "pgedge", 7, NULL), CID_OK);
	EXPECT_EQ_INT(cid_snowflake_next_at(&g, ns_at(&g, 0), &id), CID_OK);
	EXPECT_EQ_U64(id, UINT64_C(7) << 12);
	EXPECT_EQ_INT(cid_snowflake_next_at(&g, ns_at(&g, 0), &id), CID_OK);
	EXPECT_EQ_U64(id, (UINT64_C(7) << 12) | 1);

	/* the same through the driver and the fake clock */
	EXPECT_EQ_INT(make_gen(&g, &f, "pgedge", 0, NULL), CID_OK);
	f.now_ns = ns_at(&g, 0);
	EXPECT_EQ_INT(cid_snowflake_next(&g, &id), CID_OK);
	EXPECT_EQ_U64(id, 0);
	EXPECT_EQ_INT(f.reads, 1);
}

static void
test_increase_and_same_tick(void)
{
	cid_snowflake_gen g;
	fake		f;
	uint64_t	id = 0,
				prev = 0;
	cid_snowflake_parts p;

	EXPECT_EQ_INT(make_gen(&g, &f, "pgedge", 3, NULL), CID_OK);
	f.now_ns = ns_at(&g, 24950832257) + 123456;	/* sub-ms part is floored */
	EXPECT_EQ_INT(cid_snowflake_next(&g, &id), CID_OK);
	EXPECT_EQ_U64(id, (UINT64_C(24950832257) << 22) | (3 << 12));
	prev = id;
	for (int i = 1; i < 100; i++)
	{
		EXPECT_EQ_INT(cid_snowflake_next(&g, &id), CID_OK);
		EXPECT_EQ_U64(id, prev + 1);	/* same ms: the sequence steps */
		prev = id;
	}
	f.now_ns += NS_PER_MS;
	EXPECT_EQ_INT(cid_snowflake_next(&g, &id), CID_OK);
	p = parts_of(&g, id);
	EXPECT_EQ_U64(p.tick, UINT64_C(24950832258));
	EXPECT_EQ_U64(p.sequence, 0);	/* a new tick starts at 0 */
	EXPECT_EQ_U64(p.node, 3);
	EXPECT(id > prev);
	/* a jump forward */
	f.now_ns += 5000 * NS_PER_MS;
	EXPECT_EQ_INT(cid_snowflake_next(&g, &id), CID_OK);
	EXPECT_EQ_U64(parts_of(&g, id).tick, UINT64_C(24950837258));
}

/* 2-bit sequence: 4 IDs per tick. */
static void
test_exhaust_wait(void)
{
	cid_snowflake_gen g;
	fake		f;
	uint64_t	id = 0;
	cid_snowflake_parts p;

	EXPECT_EQ_INT(make_gen(&g, &f, "time:41,node:20,seq:2;epoch=2023-01-01", 9, NULL), CID_OK);
	for (int i = 0; i < 4; i++)
	{
		EXPECT_EQ_INT(cid_snowflake_next_at(&g, ns_at(&g, 1000) + 500, &id), CID_OK);
		EXPECT_EQ_U64(parts_of(&g, id).sequence, (uint64_t) i);
	}
	/* the pure step never waits */
	EXPECT_EQ_INT(cid_snowflake_next_at(&g, ns_at(&g, 1000) + 999999, &id), CID_EAGAIN);

	/* the driver waits until the next tick starts, exactly */
	f.now_ns = ns_at(&g, 1000) + 250000;
	EXPECT_EQ_INT(cid_snowflake_next(&g, &id), CID_OK);
	p = parts_of(&g, id);
	EXPECT_EQ_U64(p.tick, 1001);
	EXPECT_EQ_U64(p.sequence, 0);
	EXPECT_EQ_INT(f.sleeps, 1);
	EXPECT_EQ_INT(f.slept_ns, 750000);
}

/* A clock that never moves cannot hang the driver. */
static void
test_exhaust_wait_stuck_clock(void)
{
	cid_snowflake_gen g;
	cid_snowflake_opts o;
	fake		f;
	uint64_t	id = 0;

	cid_snowflake_opts_default(&o);
	o.max_wait_ms = 50;
	EXPECT_EQ_INT(make_gen(&g, &f, "time:41,node:20,seq:2", 0, &o), CID_OK);
	f.now_ns = ns_at(&g, 77);
	f.sleep_moves = false;
	for (int i = 0; i < 4; i++)
		EXPECT_EQ_INT(cid_snowflake_next(&g, &id), CID_OK);
	EXPECT_EQ_INT(cid_snowflake_next(&g, &id), CID_EWAIT_TIMEOUT);
	/* it asked for at most the budget: max_wait plus one tick */
	EXPECT(f.slept_ns <= 51 * NS_PER_MS);
	EXPECT(f.sleeps >= 1 && f.sleeps < 100);
}

static void
test_exhaust_borrow(void)
{
	cid_snowflake_gen g;
	cid_snowflake_opts o;
	fake		f;
	uint64_t	id = 0,
				prev = 0;
	int64_t		now;

	cid_snowflake_opts_default(&o);
	o.on_exhausted = CID_EXHAUST_BORROW;
	o.max_borrow_ticks = 2;
	EXPECT_EQ_INT(make_gen(&g, &f, "time:41,node:20,seq:2", 0, &o), CID_OK);
	now = ns_at(&g, 500);
	for (int i = 0; i < 12; i++)
	{
		int			rc = cid_snowflake_next_at(&g, now, &id);
		cid_snowflake_parts p = parts_of(&g, id);

		/* 4 on the clock's tick, then 4 on each of 2 borrowed ticks */
		EXPECT_EQ_INT(rc, i < 4 ? CID_OK : CID_WTICK_BORROWED);
		EXPECT_EQ_U64(p.tick, (uint64_t) (500 + i / 4));
		EXPECT_EQ_U64(p.sequence, (uint64_t) (i % 4));
		EXPECT(i == 0 || id > prev);
		prev = id;
	}
	/* the borrow bound */
	EXPECT_EQ_INT(cid_snowflake_next_at(&g, now, &id), CID_EEXHAUSTED);
	f.now_ns = now;
	EXPECT_EQ_INT(cid_snowflake_next(&g, &id), CID_EEXHAUSTED);
	EXPECT_EQ_INT(f.sleeps, 0);
	/* the clock reaches the first borrowed tick: one more tick to borrow */
	EXPECT_EQ_INT(cid_snowflake_next_at(&g, ns_at(&g, 501), &id), CID_WTICK_BORROWED);
	EXPECT_EQ_U64(parts_of(&g, id).tick, 503);
	EXPECT(id > prev);
	/* the clock passes the borrowed ticks: back to plain issue */
	EXPECT_EQ_INT(cid_snowflake_next_at(&g, ns_at(&g, 504), &id), CID_OK);
	EXPECT_EQ_U64(parts_of(&g, id).tick, 504);
}

static void
test_borrow_zero_ticks(void)
{
	cid_snowflake_gen g;
	cid_snowflake_opts o;
	fake		f;
	uint64_t	id;

	cid_snowflake_opts_default(&o);
	o.on_exhausted = CID_EXHAUST_BORROW;
	o.max_borrow_ticks = 0;
	EXPECT_EQ_INT(make_gen(&g, &f, "time:41,node:21,seq:1", 0, &o), CID_OK);
	EXPECT_EQ_INT(cid_snowflake_next_at(&g, ns_at(&g, 9), &id), CID_OK);
	EXPECT_EQ_INT(cid_snowflake_next_at(&g, ns_at(&g, 9), &id), CID_OK);
	EXPECT_EQ_INT(cid_snowflake_next_at(&g, ns_at(&g, 9), &id), CID_EEXHAUSTED);
}

static void
test_behind_run_ahead(void)
{
	cid_snowflake_gen g;
	fake		f;
	uint64_t	id = 0,
				prev = 0;
	cid_snowflake_parts p;

	/* defaults: run ahead up to 1000 ms */
	EXPECT_EQ_INT(make_gen(&g, &f, "pgedge", 2, NULL), CID_OK);
	EXPECT_EQ_INT(cid_snowflake_next_at(&g, ns_at(&g, 50000), &prev), CID_OK);
	EXPECT_EQ_INT(cid_snowflake_next_at(&g, ns_at(&g, 49500), &id), CID_WCLOCK_BEHIND);
	p = parts_of(&g, id);
	EXPECT_EQ_U64(p.tick, 50000);	/* stays on the last tick */
	EXPECT_EQ_U64(p.sequence, 1);
	EXPECT(id > prev);
	prev = id;
	/* exactly the allowed drift is still fine */
	EXPECT_EQ_INT(cid_snowflake_next_at(&g, ns_at(&g, 49000), &id), CID_WCLOCK_BEHIND);
	EXPECT(id > prev);
	/* beyond it */
	EXPECT_EQ_INT(cid_snowflake_next_at(&g, ns_at(&g, 48999), &id), CID_EDRIFT);
	f.now_ns = ns_at(&g, 40000);
	EXPECT_EQ_INT(cid_snowflake_next(&g, &id), CID_EDRIFT);
	/* the clock catches up: plain issue again */
	EXPECT_EQ_INT(cid_snowflake_next_at(&g, ns_at(&g, 50001), &id), CID_OK);
	EXPECT_EQ_U64(parts_of(&g, id).tick, 50001);
}

/* Running ahead when the last tick is full moves on to the next tick. */
static void
test_behind_run_ahead_rolls_tick(void)
{
	cid_snowflake_gen g;
	fake		f;
	uint64_t	id = 0;
	cid_snowflake_parts p;

	EXPECT_EQ_INT(make_gen(&g, &f, "time:41,node:21,seq:1", 0, NULL), CID_OK);
	EXPECT_EQ_INT(cid_snowflake_next_at(&g, ns_at(&g, 10), &id), CID_OK);
	EXPECT_EQ_INT(cid_snowflake_next_at(&g, ns_at(&g, 10), &id), CID_OK);
	EXPECT_EQ_INT(cid_snowflake_next_at(&g, ns_at(&g, 5), &id), CID_WCLOCK_BEHIND);
	p = parts_of(&g, id);
	EXPECT_EQ_U64(p.tick, 11);
	EXPECT_EQ_U64(p.sequence, 0);
}

static void
test_behind_wait(void)
{
	cid_snowflake_gen g;
	cid_snowflake_opts o;
	fake		f;
	uint64_t	id = 0,
				prev = 0;
	cid_snowflake_parts p;

	cid_snowflake_opts_default(&o);
	o.on_behind = CID_BEHIND_WAIT;
	o.max_wait_ms = 1000;
	EXPECT_EQ_INT(make_gen(&g, &f, "pgedge", 1, &o), CID_OK);
	EXPECT_EQ_INT(cid_snowflake_next_at(&g, ns_at(&g, 20000), &prev), CID_OK);
	EXPECT_EQ_INT(cid_snowflake_next_at(&g, ns_at(&g, 19700), &id), CID_EAGAIN);

	/* 300 ms behind: the driver sleeps until the clock is back */
	f.now_ns = ns_at(&g, 19700);
	EXPECT_EQ_INT(cid_snowflake_next(&g, &id), CID_OK);
	p = parts_of(&g, id);
	EXPECT(id > prev);
	EXPECT_EQ_U64(p.tick, 20000);
	EXPECT_EQ_U64(p.sequence, 1);
	EXPECT_EQ_INT(f.slept_ns, 300 * NS_PER_MS);
	EXPECT(f.now_ns >= ns_at(&g, 20000));

	/* 5 s behind: gives up after the allowed wait */
	f.now_ns = ns_at(&g, 15000);
	f.slept_ns = 0;
	EXPECT_EQ_INT(cid_snowflake_next(&g, &id), CID_EWAIT_TIMEOUT);
	EXPECT_EQ_INT(f.slept_ns, 1000 * NS_PER_MS);

	/* a clock that does not move while we sleep: still terminates */
	f.now_ns = ns_at(&g, 19990);
	f.sleep_moves = false;
	f.slept_ns = 0;
	f.sleeps = 0;
	EXPECT_EQ_INT(cid_snowflake_next(&g, &id), CID_EWAIT_TIMEOUT);
	EXPECT(f.slept_ns <= 1000 * NS_PER_MS);
	EXPECT(f.sleeps < 1000);
}

/* A clock that creeps forward during the wait is measured by its readings. */
static void
test_behind_wait_measured_on_clock(void)
{
	cid_snowflake_gen g;
	cid_snowflake_opts o;
	fake		f;
	uint64_t	id = 0;

	cid_snowflake_opts_default(&o);
	o.on_behind = CID_BEHIND_WAIT;
	o.max_wait_ms = 100;
	EXPECT_EQ_INT(make_gen(&g, &f, "pgedge", 1, &o), CID_OK);
	EXPECT_EQ_INT(cid_snowflake_next_at(&g, ns_at(&g, 20000), &id), CID_OK);
	/* sleeping does nothing, but each reading is 30 ms later */
	f.now_ns = ns_at(&g, 19000);
	f.sleep_moves = false;
	f.step_ns = 30 * NS_PER_MS;
	EXPECT_EQ_INT(cid_snowflake_next(&g, &id), CID_EWAIT_TIMEOUT);
	EXPECT(f.reads <= 6);
}

static void
test_behind_fail(void)
{
	cid_snowflake_gen g;
	cid_snowflake_opts o;
	fake		f;
	uint64_t	id = 0,
				prev = 0;

	cid_snowflake_opts_default(&o);
	o.on_behind = CID_BEHIND_FAIL;
	EXPECT_EQ_INT(make_gen(&g, &f, "pgedge", 1, &o), CID_OK);
	EXPECT_EQ_INT(cid_snowflake_next_at(&g, ns_at(&g, 20000), &prev), CID_OK);
	EXPECT_EQ_INT(cid_snowflake_next_at(&g, ns_at(&g, 19999), &id), CID_ECLOCK_BACKWARDS);
	f.now_ns = ns_at(&g, 19999);
	EXPECT_EQ_INT(cid_snowflake_next(&g, &id), CID_ECLOCK_BACKWARDS);
	EXPECT_EQ_INT(f.sleeps, 0);
	/* same tick is not "behind" */
	EXPECT_EQ_INT(cid_snowflake_next_at(&g, ns_at(&g, 20000), &id), CID_OK);
	EXPECT(id > prev);
}

static void
test_time_range(void)
{
	cid_snowflake_gen g;
	cid_snowflake_opts o;
	fake		f;
	uint64_t	id = 0;

	/* 4-bit time of 1 s ticks: 16 s from the epoch */
	cid_snowflake_opts_default(&o);
	o.max_drift_ms = 5000;
	EXPECT_EQ_INT(make_gen(&g, &f, "time:4,node:57,seq:2;tick=1000ms;epoch=2020-01-01", 0, &o), CID_OK);
	EXPECT_EQ_INT(cid_snowflake_next_at(&g, ns_at(&g, -1), &id), CID_ETIME_RANGE);
	EXPECT_EQ_INT(cid_snowflake_next_at(&g, ns_at(&g, 16000), &id), CID_ETIME_RANGE);
	f.now_ns = ns_at(&g, 16000);
	EXPECT_EQ_INT(cid_snowflake_next(&g, &id), CID_ETIME_RANGE);
	EXPECT_EQ_INT(cid_snowflake_next_at(&g, ns_at(&g, 15999), &id), CID_OK);
	EXPECT_EQ_U64(parts_of(&g, id).tick, 15);

	/* running ahead (clock in tick 14) past the field's end */
	for (int i = 0; i < 3; i++)
		EXPECT_EQ_INT(cid_snowflake_next_at(&g, ns_at(&g, 15999), &id), CID_OK);
	EXPECT_EQ_INT(cid_snowflake_next_at(&g, ns_at(&g, 14000), &id), CID_ETIME_RANGE);

	/* borrowing past it */
	cid_snowflake_opts_default(&o);
	o.on_exhausted = CID_EXHAUST_BORROW;
	EXPECT_EQ_INT(make_gen(&g, &f, "time:4,node:57,seq:2;tick=1000ms", 0, &o), CID_OK);
	for (int i = 0; i < 4; i++)
		EXPECT_EQ_INT(cid_snowflake_next_at(&g, ns_at(&g, 15500), &id), CID_OK);
	EXPECT_EQ_INT(cid_snowflake_next_at(&g, ns_at(&g, 15500), &id), CID_ETIME_RANGE);
}

/* time + seq = 64 bits: the all-ones position is never issued. */
static void
test_last_position_of_64bit_layout(void)
{
	cid_snowflake_gen g;
	fake		f;
	uint64_t	id = 0;
	int64_t		now;
	int			bad = 0;

	EXPECT_EQ_INT(make_gen(&g, &f, "time:43,seq:21", 0, NULL), CID_OK);
	now = ns_at(&g, (INT64_C(1) << 43) - 1);	/* the last tick */
	for (uint64_t i = 0; i < (UINT64_C(1) << 21) - 1; i++)
	{
		if (cid_snowflake_next_at(&g, now, &id) != CID_OK || id != (UINT64_MAX << 21 | i))
			bad++;
	}
	EXPECT_EQ_INT(bad, 0);
	EXPECT_EQ_U64(id, UINT64_MAX - 1);
	EXPECT_EQ_INT(cid_snowflake_next_at(&g, now, &id), CID_ETIME_RANGE);
}

static void
test_fill_contiguous(void)
{
	enum
	{
		N = 20000
	};
	static uint64_t ids[N];
	cid_snowflake_gen g;
	fake		f;
	size_t		done = 0;
	int			bad = 0;

	EXPECT_EQ_INT(make_gen(&g, &f, "pgedge", 77, NULL), CID_OK);
	f.now_ns = ns_at(&g, 123456);
	EXPECT_EQ_INT(cid_snowflake_fill(&g, ids, N, &done), CID_OK);
	EXPECT_EQ_INT(done, N);
	for (size_t i = 0; i < N; i++)
	{
		cid_snowflake_parts p = parts_of(&g, ids[i]);

		/* 4096 per tick, waiting for each next tick: all contiguous */
		if (p.tick != 123456 + i / 4096 || p.sequence != i % 4096 || p.node != 77)
			bad++;
		if (i > 0 && ids[i] <= ids[i - 1])
			bad++;
	}
	EXPECT_EQ_INT(bad, 0);
	/* one reservation per tick: 5 runs, 4 waits for the next tick */
	EXPECT_EQ_INT(f.reads, 9);
	EXPECT_EQ_INT(f.sleeps, 4);

	/* mixed with next(): still increasing */
	{
		uint64_t	one = 0;

		EXPECT_EQ_INT(cid_snowflake_next(&g, &one), CID_OK);
		EXPECT(one > ids[N - 1]);
		EXPECT_EQ_INT(cid_snowflake_fill(&g, ids, 10, NULL), CID_OK);
		EXPECT(ids[0] == one + 1);
	}
	EXPECT_EQ_INT(cid_snowflake_fill(&g, ids, 0, &done), CID_OK);
	EXPECT_EQ_INT(done, 0);
	EXPECT_EQ_INT(cid_snowflake_fill(&g, NULL, 1, &done), CID_EINVAL);
}

static void
test_fill_borrow_bound(void)
{
	static uint64_t ids[64];
	cid_snowflake_gen g;
	cid_snowflake_opts o;
	fake		f;
	size_t		done = 0;

	cid_snowflake_opts_default(&o);
	o.on_exhausted = CID_EXHAUST_BORROW;
	o.max_borrow_ticks = 3;
	EXPECT_EQ_INT(make_gen(&g, &f, "time:41,node:19,seq:3", 1, &o), CID_OK);
	f.now_ns = ns_at(&g, 1000);
	/* 8 per tick: the clock's tick plus 3 borrowed hold 32 */
	EXPECT_EQ_INT(cid_snowflake_fill(&g, ids, 16, &done), CID_WTICK_BORROWED);
	EXPECT_EQ_INT(done, 16);
	EXPECT_EQ_INT(cid_snowflake_fill(&g, ids + 16, 40, &done), CID_EEXHAUSTED);
	EXPECT_EQ_INT(done, 16);
	for (int i = 1; i < 32; i++)
		EXPECT(ids[i] > ids[i - 1]);
	EXPECT_EQ_U64(parts_of(&g, ids[31]).tick, 1003);
	EXPECT_EQ_U64(parts_of(&g, ids[31]).sequence, 7);
	EXPECT_EQ_INT(f.sleeps, 0);
}

static void
test_fill_first_remark(void)
{
	static uint64_t ids[8];
	cid_snowflake_gen g;
	fake		f;

	EXPECT_EQ_INT(make_gen(&g, &f, "pgedge", 1, NULL), CID_OK);
	EXPECT_EQ_INT(cid_snowflake_next_at(&g, ns_at(&g, 5000), &ids[0]), CID_OK);
	f.now_ns = ns_at(&g, 4990);
	EXPECT_EQ_INT(cid_snowflake_fill(&g, ids, 8, NULL), CID_WCLOCK_BEHIND);
	EXPECT_EQ_U64(parts_of(&g, ids[7]).sequence, 8);
}

static void
test_clock_failure(void)
{
	cid_snowflake_gen g;
	fake		f;
	uint64_t	id;

	EXPECT_EQ_INT(make_gen(&g, &f, "pgedge", 1, NULL), CID_OK);
	f.now_ns = -5;
	EXPECT_EQ_INT(cid_snowflake_next(&g, &id), CID_ECLOCK);
}

/*
 * Under the borrow policy cid_snowflake_next takes a fetch-and-add path;
 * the pure step always decides with a compare-and-swap.  Fed the same
 * clock readings, both must issue the same IDs with the same statuses:
 * same tick, borrowing, the borrow bound, a clock behind within and beyond
 * the borrow window (run-ahead, drift), a new tick.  Failed calls must not
 * use up positions, and the driver must read the clock once per call.
 */
static void
test_borrow_driver_matches_pure_step(void)
{
	/* clock readings (ms after the epoch) and how many calls at each */
	static const int64_t script[][2] = {
		{500, 6},				/* 4 on 500, then borrowing */
		{500, 4500},			/* borrow up to the bound, then beyond */
		{1590, 6},				/* clock behind, within the borrow window */
		{1700, 5},				/* a new tick, then borrowing */
		{300, 3},				/* beyond the window: run ahead */
		{100, 2},				/* beyond the drift */
		{1701, 3},
		{1702, 8}
	};
	cid_snowflake_gen drv,
				pure;
	cid_snowflake_opts o;
	fake		f,
				unused;
	int			calls = 0,
				mismatches = 0,
				seen_status[4] = {0, 0, 0, 0};
	bool		seen_exhausted = false,
				seen_drift = false;

	cid_snowflake_opts_default(&o);
	o.on_exhausted = CID_EXHAUST_BORROW;
	o.max_borrow_ticks = 1100;
	o.max_drift_ms = 1500;
	EXPECT_EQ_INT(make_gen(&drv, &f, "time:41,node:20,seq:2", 3, &o), CID_OK);
	EXPECT_EQ_INT(make_gen(&pure, &unused, "time:41,node:20,seq:2", 3, &o), CID_OK);
	for (size_t i = 0; i < sizeof(script) / sizeof(script[0]); i++)
		for (int64_t k = 0; k < script[i][1]; k++)
		{
			int64_t		ms = script[i][0];
			uint64_t	a = 0,
						b = 0;
			int			ra,
						rb;

			f.now_ns = ns_at(&drv, ms);
			ra = cid_snowflake_next(&drv, &a);
			rb = cid_snowflake_next_at(&pure, ns_at(&pure, ms), &b);
			calls++;
			if (ra != rb || (ra >= 0 && a != b))
			{
				if (mismatches < 5)
					printf("#     call %d (%lld ms): next %d %llu, next_at %d %llu\n",
						   calls, (long long) ms, ra, (unsigned long long) a,
						   rb, (unsigned long long) b);
				mismatches++;
			}
			if (ra >= 0 && ra < 4)
				seen_status[ra]++;
			seen_exhausted |= ra == CID_EEXHAUSTED;
			seen_drift |= ra == CID_EDRIFT;
		}
	EXPECT_EQ_INT(mismatches, 0);
	EXPECT_EQ_INT(f.reads, calls);
	EXPECT_EQ_INT(f.sleeps, 0);
	/* the script covers every outcome it claims to */
	EXPECT(seen_status[CID_OK] > 0);
	EXPECT(seen_status[CID_WTICK_BORROWED] > 0);
	EXPECT(seen_status[CID_WCLOCK_BEHIND] > 0);
	EXPECT(seen_exhausted);
	EXPECT(seen_drift);
}

/*
 * cid_snowflake_step() with the state kept outside the generator (as the
 * PostgreSQL extension keeps it in shared memory or on a sequence page)
 * decides exactly as cid_snowflake_next_at() over the same clock script,
 * every policy outcome included, and never touches gen->state.
 */
static void
test_pure_step_outside_state(void)
{
	static const int64_t script[][2] = {
		{500, 6}, {500, 4500}, {1590, 6}, {1700, 5}, {300, 3}, {100, 2},
		{1701, 3}, {1702, 8}
	};
	cid_snowflake_gen ref,
				ext;
	cid_snowflake_opts o;
	fake		f1,
				f2;
	uint64_t	last = CID_SNOWFLAKE_NONE;
	int			calls = 0,
				mismatches = 0;
	bool		seen[5] = {false, false, false, false, false};

	cid_snowflake_opts_default(&o);
	o.on_exhausted = CID_EXHAUST_BORROW;
	o.max_borrow_ticks = 1100;
	o.max_drift_ms = 1500;
	EXPECT_EQ_INT(make_gen(&ref, &f1, "time:41,node:20,seq:2", 3, &o), CID_OK);
	EXPECT_EQ_INT(make_gen(&ext, &f2, "time:41,node:20,seq:2", 3, &o), CID_OK);
	for (size_t i = 0; i < sizeof(script) / sizeof(script[0]); i++)
		for (int64_t k = 0; k < script[i][1]; k++)
		{
			int64_t		ns = ns_at(&ref, script[i][0]);
			uint64_t	a = 0,
						next = 0;
			int			ra = cid_snowflake_next_at(&ref, ns, &a);
			int			rb = cid_snowflake_step(&ext, last, ns, &next);
			uint64_t	b = 0;

			if (rb >= 0)
			{
				/* the caller's own "atomic operation": keep the position */
				last = next;
				b = (next >> 2) << 22 | (uint64_t) 3 << 2 | (next & 3);
			}
			calls++;
			if (ra != rb || (ra >= 0 && a != b))
			{
				if (mismatches < 5)
					printf("#     call %d: next_at %d %llu, step %d %llu\n",
						   calls, ra, (unsigned long long) a, rb,
						   (unsigned long long) b);
				mismatches++;
			}
			if (ra == CID_OK || ra == CID_WTICK_BORROWED || ra == CID_WCLOCK_BEHIND)
				seen[ra] = true;
			seen[3] |= ra == CID_EEXHAUSTED;
			seen[4] |= ra == CID_EDRIFT;
		}
	EXPECT_EQ_INT(mismatches, 0);
	EXPECT(seen[0] && seen[1] && seen[2] && seen[3] && seen[4]);
	EXPECT_EQ_U64(atomic_load(cid_atomic_u64(&ext.state)), CID_SNOWFLAKE_NONE);
	EXPECT_EQ_INT(f2.reads, 0);

	/* nothing issued yet: the clock's tick, sequence 0; bad arguments */
	{
		uint64_t	next = 1;

		EXPECT_EQ_INT(cid_snowflake_step(&ext, CID_SNOWFLAKE_NONE, ns_at(&ext, 0), &next), CID_OK);
		EXPECT_EQ_U64(next, 0);
		EXPECT_EQ_INT(cid_snowflake_step(&ext, 0, ns_at(&ext, -1), &next), CID_ETIME_RANGE);
		EXPECT_EQ_INT(cid_snowflake_step(NULL, 0, 0, &next), CID_EINVAL);
		EXPECT_EQ_INT(cid_snowflake_step(&ext, 0, 0, NULL), CID_EINVAL);
	}
}

/*
 * Calls that fail at the borrow bound issue nothing and use up nothing: a
 * retry loop must not push the state ahead, so once the clock moves on the
 * next ID is the very next position.
 */
static void
test_borrow_failures_burn_nothing(void)
{
	cid_snowflake_gen g;
	cid_snowflake_opts o;
	fake		f;
	uint64_t	id = 0;
	cid_snowflake_parts p;
	int			failed = 0;

	cid_snowflake_opts_default(&o);
	o.on_exhausted = CID_EXHAUST_BORROW;
	o.max_borrow_ticks = 1;
	EXPECT_EQ_INT(make_gen(&g, &f, "time:41,node:20,seq:2", 0, &o), CID_OK);
	f.now_ns = ns_at(&g, 500);
	for (int i = 0; i < 8; i++)
		EXPECT(cid_snowflake_next(&g, &id) >= 0);
	for (int i = 0; i < 1000; i++)
		failed += cid_snowflake_next(&g, &id) == CID_EEXHAUSTED;
	EXPECT_EQ_INT(failed, 1000);
	f.now_ns = ns_at(&g, 501);
	EXPECT_EQ_INT(cid_snowflake_next(&g, &id), CID_WTICK_BORROWED);
	p = parts_of(&g, id);
	EXPECT_EQ_U64(p.tick, 502);
	EXPECT_EQ_U64(p.sequence, 0);
}

/*
 * A stale reading: between this call's state load and its atomic
 * operation another thread reads a later clock and issues on the later
 * tick.  The clock did not go back, so the call must read the clock again
 * and issue plainly, not report a borrowed tick (borrow policy, the
 * fetch-and-add path) or a clock gone back (fail policy, the
 * compare-and-swap path).
 */
static void
test_stale_reading_is_not_behind(void)
{
	cid_snowflake_gen g;
	cid_snowflake_opts o;
	fake		f;
	uint64_t	id = 0;

	for (int pass = 0; pass < 2; pass++)
	{
		cid_snowflake_opts_default(&o);
		if (pass == 0)
			o.on_exhausted = CID_EXHAUST_BORROW;
		else
			o.on_behind = CID_BEHIND_FAIL;
		EXPECT_EQ_INT(make_gen(&g, &f, "time:41,node:10,seq:12", 1, &o), CID_OK);
		f.now_ns = ns_at(&g, 500);
		EXPECT_EQ_INT(cid_snowflake_next(&g, &id), CID_OK);
		EXPECT_EQ_INT(cid_snowflake_next(&g, &id), CID_OK);
		f.race_gen = &g;
		f.race_ns = ns_at(&g, 501);
		f.reads = 0;
		EXPECT_EQ_INT(cid_snowflake_next(&g, &id), CID_OK);
		EXPECT(f.race_id != 0);
		EXPECT_EQ_U64(parts_of(&g, f.race_id).tick, 501);
		EXPECT(id > f.race_id);
		EXPECT_EQ_U64(parts_of(&g, id).tick, 501);
		EXPECT_EQ_INT(f.reads, 2);
	}
}

/*
 * The borrow bound holds when another thread takes the last allowed
 * position between this call's state load and its atomic operation: the
 * position past the bound is not issued.
 */
static void
test_borrow_bound_under_race(void)
{
	cid_snowflake_gen g;
	cid_snowflake_opts o;
	fake		f;
	uint64_t	id = 0;

	cid_snowflake_opts_default(&o);
	o.on_exhausted = CID_EXHAUST_BORROW;
	o.max_borrow_ticks = 1;
	EXPECT_EQ_INT(make_gen(&g, &f, "time:41,node:20,seq:2", 0, &o), CID_OK);
	f.now_ns = ns_at(&g, 500);
	for (int i = 0; i < 7; i++)
		EXPECT(cid_snowflake_next(&g, &id) >= 0);
	/* one position left within the bound; the racer takes it */
	f.race_gen = &g;
	f.race_ns = ns_at(&g, 500);
	EXPECT_EQ_INT(cid_snowflake_next(&g, &id), CID_EEXHAUSTED);
	EXPECT_EQ_U64(parts_of(&g, f.race_id).tick, 501);
	EXPECT_EQ_U64(parts_of(&g, f.race_id).sequence, 3);
	/* the clock moves on: the bound moves with it */
	f.now_ns = ns_at(&g, 501);
	EXPECT_EQ_INT(cid_snowflake_next(&g, &id), CID_WTICK_BORROWED);
	EXPECT_EQ_U64(parts_of(&g, id).tick, 502);
	EXPECT(id > f.race_id);
}

int
main(void)
{
	TAP_CASE(test_init);
	TAP_CASE(test_first_id_at_tick_zero);
	TAP_CASE(test_increase_and_same_tick);
	TAP_CASE(test_exhaust_wait);
	TAP_CASE(test_exhaust_wait_stuck_clock);
	TAP_CASE(test_exhaust_borrow);
	TAP_CASE(test_borrow_zero_ticks);
	TAP_CASE(test_borrow_driver_matches_pure_step);
	TAP_CASE(test_borrow_failures_burn_nothing);
	TAP_CASE(test_pure_step_outside_state);
	TAP_CASE(test_borrow_bound_under_race);
	TAP_CASE(test_stale_reading_is_not_behind);
	TAP_CASE(test_behind_run_ahead);
	TAP_CASE(test_behind_run_ahead_rolls_tick);
	TAP_CASE(test_behind_wait);
	TAP_CASE(test_behind_wait_measured_on_clock);
	TAP_CASE(test_behind_fail);
	TAP_CASE(test_time_range);
	TAP_CASE(test_last_position_of_64bit_layout);
	TAP_CASE(test_fill_contiguous);
	TAP_CASE(test_fill_borrow_bound);
	TAP_CASE(test_fill_first_remark);
	TAP_CASE(test_clock_failure);
	return tap_done();
}
