/*
 * block_taker.c — a test driver for tests/scenarios/block.sh: open a block
 * allocator on a sequence (PG* variables name the server), take values
 * with several threads, check that each thread's values increase, and
 * print them all, one per line.
 *
 *   block_taker SEQUENCE THREADS COUNT [TARGET_MS [INITIAL [PCT [RATE]]]]
 *   block_taker SEQUENCE fork
 *
 * Each of THREADS threads takes COUNT values, at most RATE per second and
 * thread when RATE > 0 (in bursts every millisecond).  Output: "ready"
 * once the allocator is open (on stderr, flushed, for the scenario to act
 * on), then the values, then on stderr "stats ISSUED BLOCKS FAILURES
 * WAITS MAXLAT_US".  Exit 0, 1 on a failure (message on stderr).  "fork":
 * a child process must get CID_EBLOCK_FORKED, the parent a value; prints
 * "fork ok".  BLOCK_TAKER_WAIT_MS sets wait_ms (default 10 s).
 */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "chronoid_lease.h"

static cid_block *blk;
static long long count;
static long long rate;
static int64_t *vals;
static int64_t maxlat_ns[64];
static int	failed;

static int64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void *
take(void *arg)
{
	long		t = (long) arg;
	int64_t    *mine = vals + t * count;
	int64_t		start = now_ns();

	for (long long i = 0; i < count; i++)
	{
		int64_t		t0;
		int			rc;

		/* paced: value i is due at start + i / rate seconds */
		if (rate > 0 && i % (rate / 1000 > 0 ? rate / 1000 : 1) == 0)
		{
			int64_t		due = start + (int64_t) (i * 1000000000LL / rate);
			struct timespec ts = {(time_t) (due / 1000000000), (long) (due % 1000000000)};

			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		}
		t0 = now_ns();
		rc = cid_block_next(blk, &mine[i]);
		t0 = now_ns() - t0;
		if (t0 > maxlat_ns[t])
			maxlat_ns[t] = t0;
		if (t0 > 50000000)
			fprintf(stderr, "slow: value %lld (%lld) took %lld ms at %lld ms\n", i, (long long) mine[i],
					(long long) (t0 / 1000000), (long long) ((now_ns() - start) / 1000000));
		if (rc != CID_OK)
		{
			char		err[256];

			cid_block_errmsg(blk, err, sizeof(err));
			fprintf(stderr, "thread %ld value %lld: %s (%s)\n", t, i, cid_lease_strerror(rc), err);
			failed = 1;
			return NULL;
		}
		if (i > 0 && mine[i] <= mine[i - 1])
		{
			fprintf(stderr, "thread %ld: %lld after %lld\n", t, (long long) mine[i],
					(long long) mine[i - 1]);
			failed = 1;
			return NULL;
		}
	}
	return NULL;
}

static int
fork_check(void)
{
	int64_t		id;
	pid_t		pid = fork();
	int			status;

	if (pid < 0)
		return 1;
	if (pid == 0)
		_exit(cid_block_next(blk, &id) == CID_EBLOCK_FORKED ? 0 : 1);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
	{
		fprintf(stderr, "the child did not get CID_EBLOCK_FORKED\n");
		return 1;
	}
	if (cid_block_next(blk, &id) != CID_OK)
	{
		fprintf(stderr, "the parent lost its allocator after fork()\n");
		return 1;
	}
	printf("fork ok\n");
	return 0;
}

int
main(int argc, char **argv)
{
	cid_block_opts opts;
	char		err[512];
	long		threads;
	pthread_t	tid[64];
	cid_block_stats st;
	int64_t		maxlat = 0;
	int			rc;

	if (argc < 3)
	{
		fprintf(stderr, "usage: block_taker SEQUENCE THREADS COUNT [TARGET_MS [INITIAL [PCT [RATE]]]]\n");
		return 2;
	}
	cid_block_opts_default(&opts);
	opts.sequence = argv[1];
	if (argc > 4)
		opts.target_ms = strtoll(argv[4], NULL, 10);
	if (argc > 5)
		opts.initial_size = strtoll(argv[5], NULL, 10);
	if (argc > 6)
		opts.prefetch_pct = atoi(argv[6]);
	rate = argc > 7 ? strtoll(argv[7], NULL, 10) : 0;
	opts.min_size = 1;
	/* by_name.sh: a refused reservation need not keep next() waiting 10 s */
	if (getenv("BLOCK_TAKER_WAIT_MS") != NULL)
		opts.wait_ms = strtoll(getenv("BLOCK_TAKER_WAIT_MS"), NULL, 10);
	rc = cid_block_open(&blk, &opts, err, sizeof(err));
	if (rc != CID_OK)
	{
		fprintf(stderr, "open: %s: %s\n", cid_lease_strerror(rc), err);
		return 1;
	}
	fprintf(stderr, "ready\n");
	fflush(stderr);
	if (strcmp(argv[2], "fork") == 0)
	{
		rc = fork_check();
		cid_block_free(blk);
		return rc;
	}
	threads = strtol(argv[2], NULL, 10);
	count = argc > 3 ? strtoll(argv[3], NULL, 10) : 0;
	if (threads < 1 || threads > 64 || count < 1)
		return 2;
	vals = calloc((size_t) (threads * count), sizeof(int64_t));
	if (vals == NULL)
		return 1;
	for (long t = 0; t < threads; t++)
		pthread_create(&tid[t], NULL, take, (void *) t);
	for (long t = 0; t < threads; t++)
	{
		pthread_join(tid[t], NULL);
		if (maxlat_ns[t] > maxlat)
			maxlat = maxlat_ns[t];
	}
	cid_block_get_stats(blk, &st);
	if (!failed)
		for (long long i = 0; i < threads * count; i++)
			printf("%lld\n", (long long) vals[i]);
	fprintf(stderr, "stats %llu %llu %llu %llu %lld\n", (unsigned long long) st.issued,
			(unsigned long long) st.blocks, (unsigned long long) st.failures,
			(unsigned long long) st.waits, (long long) (maxlat / 1000));
	cid_block_free(blk);
	free(vals);
	return failed;
}
