/*
 * test_mt_ulid.c — one monotonic ULID generator shared by four threads on
 * the real clock and random source: every ULID unique, each thread's
 * sequence strictly increasing, every timestamp inside the run's window.
 */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>

#include "chronoid.h"
#include "tap.h"

#define NTHREADS 4
#define NS_PER_MS INT64_C(1000000)

typedef struct
{
	uint64_t	hi;
	uint64_t	lo;
} u128;

struct worker
{
	cid_ulid_gen *gen;
	u128	   *out;
	size_t		n;
	size_t		errors;			/* calls that did not return CID_OK */
	size_t		not_increasing;	/* out[i] <= out[i - 1] */
};

static size_t
total_ids(void)
{
	const char *scale = getenv("CID_TEST_SCALE");

	if (scale != NULL && strcmp(scale, "small") == 0)
		return 200000;
	return 10000000;
}

static u128
to_u128(const cid_ulid *u)
{
	u128		v = {0, 0};

	for (int i = 0; i < 8; i++)
	{
		v.hi = v.hi << 8 | u->bytes[i];
		v.lo = v.lo << 8 | u->bytes[8 + i];
	}
	return v;
}

static int
cmp_u128(const void *a, const void *b)
{
	const u128 *x = a;
	const u128 *y = b;

	if (x->hi != y->hi)
		return x->hi < y->hi ? -1 : 1;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return 0;
}

static void *
run(void *arg)
{
	struct worker *w = arg;

	for (size_t i = 0; i < w->n; i++)
	{
		cid_ulid	u;

		if (cid_ulid_next(w->gen, &u) != CID_OK)
		{
			w->errors++;
			memset(&u, 0, sizeof(u));
		}
		w->out[i] = to_u128(&u);
		if (i > 0 && cmp_u128(&w->out[i - 1], &w->out[i]) >= 0)
			w->not_increasing++;
	}
	return NULL;
}

static void
test_four_threads_share_one_generator(void)
{
	size_t		total = total_ids();
	size_t		per = total / NTHREADS;
	u128	   *all = malloc(per * NTHREADS * sizeof(u128));
	cid_ulid_gen gen;
	struct worker w[NTHREADS];
	pthread_t	tid[NTHREADS];
	int64_t		start_ms,
				end_ms,
				min_ms = INT64_MAX,
				max_ms = INT64_MIN,
				allowed_ms;
	cid_ulid	last;
	u128		last_v;
	size_t		errors = 0,
				not_increasing = 0,
				dup_full = 0,
				outside = 0;

	EXPECT(all != NULL);
	if (all == NULL)
		return;
	EXPECT_EQ_INT(cid_ulid_init(&gen, true, NULL), CID_OK);

	start_ms = cid_platform_clock(NULL) / NS_PER_MS;
	for (int t = 0; t < NTHREADS; t++)
	{
		w[t] = (struct worker) {&gen, all + t * per, per, 0, 0};
		EXPECT_EQ_INT(pthread_create(&tid[t], NULL, run, &w[t]), 0);
	}
	for (int t = 0; t < NTHREADS; t++)
	{
		EXPECT_EQ_INT(pthread_join(tid[t], NULL), 0);
		errors += w[t].errors;
		not_increasing += w[t].not_increasing;
	}
	end_ms = cid_platform_clock(NULL) / NS_PER_MS;

	/*
	 * The window.  A monotonic ULID takes the clock's ms or keeps the last
	 * ULID's ms, which came from an earlier clock reading; it never moves
	 * ahead of the clock.  So no run-ahead is allowed: every ms lies
	 * between the readings taken before and after the run (as long as the
	 * system clock is not stepped back meanwhile).
	 */
	allowed_ms = 0;
	for (size_t i = 0; i < per * NTHREADS; i++)
	{
		int64_t		ms = (int64_t) (all[i].hi >> 16);

		if (ms < start_ms || ms > end_ms + allowed_ms)
			outside++;
		if (ms < min_ms)
			min_ms = ms;
		if (ms > max_ms)
			max_ms = ms;
	}
	printf("# %zu ULIDs in %" PRId64 " ms; embedded ms %" PRId64 "..%" PRId64
		   " (run-ahead %" PRId64 " ms, allowed %" PRId64 ")\n",
		   per * NTHREADS, end_ms - start_ms, min_ms - start_ms, max_ms - start_ms,
		   max_ms > end_ms ? max_ms - end_ms : 0, allowed_ms);

	qsort(all, per * NTHREADS, sizeof(u128), cmp_u128);
	for (size_t i = 1; i < per * NTHREADS; i++)
		if (cmp_u128(&all[i - 1], &all[i]) == 0)
			dup_full++;

	EXPECT_EQ_INT(errors, 0);
	EXPECT_EQ_INT(not_increasing, 0);
	EXPECT_EQ_INT(outside, 0);
	EXPECT_EQ_INT(dup_full, 0);
	/* the shared state ends at the largest ULID handed out */
	memcpy(last.bytes, gen.last, 16);
	last_v = to_u128(&last);
	EXPECT_EQ_INT(cmp_u128(&all[per * NTHREADS - 1], &last_v), 0);
	free(all);
}

int
main(void)
{
	TAP_CASE(test_four_threads_share_one_generator);
	return tap_done();
}
