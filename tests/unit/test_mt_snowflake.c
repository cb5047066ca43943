/*
 * test_mt_snowflake.c — one Snowflake generator shared by four threads on
 * the real clock: every ID unique, each thread's IDs strictly increasing,
 * every timestamp inside the run (plus the allowed run-ahead).
 */
#include <pthread.h>

#include "chronoid.h"
#include "tap.h"

#define NTHREADS 4
#define BATCH 100

typedef struct worker
{
	cid_snowflake_gen *gen;
	uint64_t   *ids;			/* this thread's slice */
	size_t		n;
	bool		use_fill;
	size_t		errors;
	size_t		remarks;
	size_t		behind;			/* CID_WCLOCK_BEHIND among the remarks */
	int			first_error;
} worker;

static void *
work(void *arg)
{
	worker	   *w = arg;
	size_t		i = 0;

	while (i < w->n)
	{
		int			rc;
		size_t		want = w->n - i < BATCH ? w->n - i : BATCH;
		size_t		done = 0;

		if (w->use_fill)
		{
			rc = cid_snowflake_fill(w->gen, w->ids + i, want, &done);
			i += done;
		}
		else
		{
			rc = cid_snowflake_next(w->gen, &w->ids[i]);
			if (rc >= 0)
				i++;
		}
		if (rc < 0)
		{
			if (w->errors++ == 0)
				w->first_error = rc;
			if (w->errors > 1000)
				break;
		}
		else if (rc > 0)
		{
			w->remarks++;
			if (rc == CID_WCLOCK_BEHIND)
				w->behind++;
		}
	}
	w->n = i;
	return NULL;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *) a,
				y = *(const uint64_t *) b;

	return x < y ? -1 : x > y;
}

static size_t
scaled(size_t full)
{
	const char *s = getenv("CID_TEST_SCALE");

	if (s != NULL && strcmp(s, "small") == 0)
		return full / 50;
	return full;
}

/*
 * Generate total IDs on layout from NTHREADS threads and check them.  With
 * no_remarks, every call must return plain CID_OK: the sequence is too wide
 * to run out, so a remark could only come from a clock reading gone stale
 * while another thread issued (which is not a clock going back).  With
 * fill_too, every other thread uses cid_snowflake_fill(), the others
 * cid_snowflake_next(); without, all use cid_snowflake_next().
 */
static void
run(const char *layout_spec, const cid_snowflake_opts *opts, size_t total,
	bool no_remarks, bool fill_too)
{
	cid_layout	l;
	cid_snowflake_gen gen;
	worker		w[NTHREADS];
	pthread_t	th[NTHREADS];
	uint64_t   *ids;
	size_t		per = total / NTHREADS;
	int64_t		start_ms,
				end_ms,
				lo_ms,
				hi_ms,
				ahead_ms;
	size_t		not_increasing = 0,
				dup = 0,
				out_of_range = 0,
				bad_node = 0,
				errors = 0,
				remarks = 0,
				behind = 0;
	char		err[200];

	EXPECT_EQ_INT(cid_layout_resolve(&l, layout_spec, err, sizeof(err)), CID_OK);
	EXPECT_EQ_INT(cid_snowflake_init(&gen, &l, 2, opts, NULL), CID_OK);
	ids = malloc(per * NTHREADS * sizeof(uint64_t));
	EXPECT(ids != NULL);
	if (ids == NULL)
		return;

	start_ms = cid_platform_clock(NULL) / 1000000;
	for (int t = 0; t < NTHREADS; t++)
	{
		w[t].gen = &gen;
		w[t].ids = ids + (size_t) t * per;
		w[t].n = per;
		w[t].use_fill = fill_too && t % 2 == 1;
		w[t].errors = 0;
		w[t].remarks = 0;
		w[t].behind = 0;
		w[t].first_error = 0;
		EXPECT_EQ_INT(pthread_create(&th[t], NULL, work, &w[t]), 0);
	}
	for (int t = 0; t < NTHREADS; t++)
		pthread_join(th[t], NULL);
	end_ms = cid_platform_clock(NULL) / 1000000;

	for (int t = 0; t < NTHREADS; t++)
	{
		EXPECT_EQ_INT(w[t].n, per);
		if (w[t].errors)
			printf("#     thread %d: %zu errors, first %s\n", t, w[t].errors,
				   cid_strerror(w[t].first_error));
		errors += w[t].errors;
		remarks += w[t].remarks;
		behind += w[t].behind;
		for (size_t i = 1; i < w[t].n; i++)
			if (w[t].ids[i] <= w[t].ids[i - 1])
				not_increasing++;
	}
	EXPECT_EQ_INT(errors, 0);
	EXPECT_EQ_INT(not_increasing, 0);
	if (no_remarks)
		EXPECT_EQ_INT(remarks, 0);
	/* threads racing is never a clock behind (the real clock goes forward) */
	EXPECT_EQ_INT(behind, 0);

	/* the tick holding start_ms, to end_ms plus what the policies allow */
	lo_ms = start_ms - ((start_ms - l.epoch_ms) % (int64_t) l.tick_ms);
	ahead_ms = (int64_t) (gen.opts.max_borrow_ticks * l.tick_ms);
	if (gen.opts.max_drift_ms > ahead_ms)
		ahead_ms = gen.opts.max_drift_ms;
	hi_ms = end_ms + ahead_ms;
	for (size_t i = 0; i < per * NTHREADS; i++)
	{
		cid_snowflake_parts p;

		if (cid_snowflake_decode(&p, &l, ids[i]) != CID_OK ||
			p.unix_ms < lo_ms || p.unix_ms > hi_ms)
			out_of_range++;
		else if (p.node != 2)
			bad_node++;
	}
	EXPECT_EQ_INT(out_of_range, 0);
	EXPECT_EQ_INT(bad_node, 0);

	qsort(ids, per * NTHREADS, sizeof(uint64_t), cmp_u64);
	for (size_t i = 1; i < per * NTHREADS; i++)
		if (ids[i] == ids[i - 1])
			dup++;
	EXPECT_EQ_INT(dup, 0);
	printf("# %s: %zu ids in %lld ms, %zu with a remark\n", layout_spec,
		   per * NTHREADS, (long long) (end_ms - start_ms), remarks);
	free(ids);
}

/* A wide sequence and the borrow policy: the volume run. */
static void
test_mt_wide_sequence_borrow(void)
{
	cid_snowflake_opts o;

	cid_snowflake_opts_default(&o);
	o.on_exhausted = CID_EXHAUST_BORROW;
	run("time:41,node:2,seq:20;epoch=2023-01-01", &o, scaled(10000000), true, true);
}

/*
 * The pgEdge layout (4096 per ms) with the borrow policy, one call per ID
 * on every thread: the fetch-and-add path under contention, carrying into
 * borrowed ticks all the time, and the compare-and-swap for each new tick.
 */
static void
test_mt_pgedge_borrow_next(void)
{
	cid_snowflake_opts o;

	cid_snowflake_opts_default(&o);
	o.on_exhausted = CID_EXHAUST_BORROW;
	o.max_borrow_ticks = 100000;
	run("pgedge", &o, scaled(10000000), false, false);
}

/* The default pgEdge layout (4096 per ms) with the wait policy. */
static void
test_mt_pgedge_wait(void)
{
	cid_snowflake_opts o;

	cid_snowflake_opts_default(&o);
	o.on_exhausted = CID_EXHAUST_WAIT;
	o.on_behind = CID_BEHIND_WAIT;
	run("pgedge", &o, scaled(1000000), false, true);
}

/*
 * The fail policy: a thread whose clock reading is older than another
 * thread's last ID must not take that for a clock that went back.
 */
static void
test_mt_fail_policy_no_false_rollback(void)
{
	cid_snowflake_opts o;

	cid_snowflake_opts_default(&o);
	o.on_behind = CID_BEHIND_FAIL;
	run("time:41,node:2,seq:20;epoch=2023-01-01", &o, scaled(2000000), true, true);
}

int
main(void)
{
	TAP_CASE(test_mt_wide_sequence_borrow);
	TAP_CASE(test_mt_pgedge_borrow_next);
	TAP_CASE(test_mt_pgedge_wait);
	TAP_CASE(test_mt_fail_policy_no_false_rollback);
	return tap_done();
}
