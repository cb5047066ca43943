/*
 * test_mt_random.c — the per-thread random buffers under threads: no two
 * threads hand out the same bytes, and short-lived threads (whose buffers
 * are freed at exit) keep working.
 */
#define _POSIX_C_SOURCE 200809L

#include "chronoid.h"
#include "tap.h"
#include "testutil.h"

#define NTHREADS 4

typedef struct draw_arg
{
	tu_rec16   *out;
	size_t		n;
	int			failed;
} draw_arg;

static void *
draw(void *p)
{
	draw_arg   *a = p;

	for (size_t i = 0; i < a->n; i++)
		if (cid_random_bytes(a->out[i], 16) != CID_OK)
			a->failed++;
	return NULL;
}

/* The volume: full, or a sixteenth of it under CID_TEST_SCALE=small. */
static size_t
scale(size_t full)
{
	return tu_scale(full, full / 16);
}

static void
test_threads_draw_distinct_bytes(void)
{
	size_t		per = scale(64 * 1024);
	tu_rec16   *all = calloc(per * NTHREADS, sizeof(tu_rec16));
	draw_arg	args[NTHREADS];
	pthread_t	t[NTHREADS];
	int			failed = 0;

	EXPECT(all != NULL);
	if (all == NULL)
		return;
	for (int i = 0; i < NTHREADS; i++)
	{
		args[i].out = all + per * (size_t) i;
		args[i].n = per;
		args[i].failed = 0;
		EXPECT_EQ_INT(pthread_create(&t[i], NULL, draw, &args[i]), 0);
	}
	for (int i = 0; i < NTHREADS; i++)
	{
		pthread_join(t[i], NULL);
		failed += args[i].failed;
	}
	EXPECT_EQ_INT(failed, 0);
	qsort(all, per * NTHREADS, sizeof(tu_rec16), tu_cmp_rec16);
	EXPECT_EQ_U64(tu_count_adjacent_equal(all, per * NTHREADS, 16), 0);
	free(all);
}

static void
test_short_lived_threads(void)
{
	size_t		nthreads = scale(2000);
	tu_rec16   *all = calloc(nthreads * 4, sizeof(tu_rec16));
	int			failed = 0;

	EXPECT(all != NULL);
	if (all == NULL)
		return;

	/*
	 * Each thread maps a buffer, draws a little and exits, which unmaps
	 * it; thousands of them must neither fail nor run out of mappings.
	 */
	for (size_t i = 0; i < nthreads; i++)
	{
		draw_arg	a = {all + 4 * i, 4, 0};
		pthread_t	t;

		if (pthread_create(&t, NULL, draw, &a) != 0)
		{
			failed++;
			break;
		}
		pthread_join(t, NULL);
		failed += a.failed;
	}
	EXPECT_EQ_INT(failed, 0);
	qsort(all, nthreads * 4, sizeof(tu_rec16), tu_cmp_rec16);
	EXPECT_EQ_U64(tu_count_adjacent_equal(all, nthreads * 4, 16), 0);
	free(all);
}

int
main(void)
{
	TAP_CASE(test_threads_draw_distinct_bytes);
	TAP_CASE(test_short_lived_threads);
	return tap_done();
}
