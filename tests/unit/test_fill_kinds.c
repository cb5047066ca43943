/*
 * test_fill_kinds.c — cid_objectid_fill, cid_uuidv6_fill and cid_ksuid_fill
 * with an injected clock and random source: a batch is what as many single
 * calls make with the clock standing still (byte for byte, from the same
 * streams), at every edge the single calls have: n = 0 and 1, bad
 * arguments, a clock that fails, stalls or goes back between batches or
 * behind a batch that ran ahead, the ObjectId counter wrapping inside a
 * batch, the v6 time field running out inside one, a failing random
 * source, a fork; then the invariants on randomized runs: UUIDv6 strictly
 * increasing over 100,000 IDs from batches and single calls, no ObjectId
 * or KSUID twice.
 */
#define _POSIX_C_SOURCE 200809L

#include <sys/wait.h>
#include <unistd.h>

#include "atomic_internal.h"
#include "chronoid.h"
#include "tap.h"
#include "testutil.h"

#define NS_PER_S INT64_C(1000000000)
/* 2022-02-22T19:22:22Z, RFC 9562's example instant */
#define T0_NS (INT64_C(1645557742) * NS_PER_S)
#define V6_TICKS_LIMIT (UINT64_C(1) << 60)

static int
cmp12(const void *a, const void *b)
{
	return memcmp(a, b, 12);
}

static int
cmp20(const void *a, const void *b)
{
	return memcmp(a, b, 20);
}

/* Neighbours in recs[0..n) (size bytes each) that are equal or out of order. */
static size_t
count_not_increasing(const void *recs, size_t n, size_t size)
{
	const uint8_t *p = recs;
	size_t		bad = 0;

	for (size_t i = 1; i < n; i++)
		if (memcmp(p + size * (i - 1), p + size * i, size) >= 0)
			bad++;
	return bad;
}

/* ------------------------------------------------------------------------
 * ObjectId
 * ------------------------------------------------------------------------ */

static uint32_t
counter_of(const cid_objectid *o)
{
	return (uint32_t) o->bytes[9] << 16 | (uint32_t) o->bytes[10] << 8 | o->bytes[11];
}

static uint32_t
seconds_of(const cid_objectid *o)
{
	return (uint32_t) o->bytes[0] << 24 | (uint32_t) o->bytes[1] << 16 |
		(uint32_t) o->bytes[2] << 8 | o->bytes[3];
}

static void
test_objectid_arguments(void)
{
	tu_fake		f = {.now_ns = -5, .next_byte = 0x10};	/* a clock that fails */
	cid_env		env = {tu_fake_clock, tu_fake_random, NULL, &f};
	cid_objectid_gen gen;
	cid_objectid o[2];
	uint64_t	state;
	size_t		done = 99;

	EXPECT_EQ_INT(cid_objectid_init(&gen, &env), CID_OK);
	state = atomic_load(cid_atomic_u64(&gen.state));
	/* n = 0 reads nothing, not even the failing clock */
	EXPECT_EQ_INT(cid_objectid_fill(&gen, o, 0, &done), CID_OK);
	EXPECT_EQ_U64(done, 0);
	EXPECT_EQ_INT(cid_objectid_fill(&gen, NULL, 0, NULL), CID_OK);
	done = 99;
	EXPECT_EQ_INT(cid_objectid_fill(NULL, o, 2, &done), CID_EINVAL);
	EXPECT_EQ_U64(done, 0);
	EXPECT_EQ_INT(cid_objectid_fill(&gen, NULL, 2, &done), CID_EINVAL);
	EXPECT_EQ_INT(cid_objectid_fill(&gen, o, SIZE_MAX / 12 + 1, &done), CID_EINVAL);
	EXPECT_EQ_INT(cid_objectid_fill(&gen, o, SIZE_MAX, &done), CID_EINVAL);
	EXPECT_EQ_INT(cid_objectid_fill(&gen, o, 2, &done), CID_ECLOCK);
	EXPECT_EQ_U64(done, 0);
	/* past 2106: nothing issued, the counter untouched */
	f.now_ns = INT64_C(4294967296) * NS_PER_S;
	EXPECT_EQ_INT(cid_objectid_fill(&gen, o, 2, &done), CID_ETIME_RANGE);
	EXPECT_EQ_U64(done, 0);
	EXPECT_EQ_U64(atomic_load(cid_atomic_u64(&gen.state)), state);
	/* the last second there is */
	f.now_ns -= 1;
	EXPECT_EQ_INT(cid_objectid_fill(&gen, o, 1, &done), CID_OK);
	EXPECT_EQ_U64(done, 1);
	EXPECT_EQ_U64(seconds_of(&o[0]), UINT32_MAX);
	/* only init's draw */
	EXPECT_EQ_U64(f.random_calls, 1);
}

static int
oid_fill(void *gen, uint8_t *out, size_t n, size_t *done)
{
	return cid_objectid_fill(gen, (cid_objectid *) (void *) out, n, done);
}

static int
oid_single(void *gen, uint8_t *out)
{
	return cid_objectid_next(gen, (cid_objectid *) (void *) out);
}

/* The reading's seconds, and the counter one past the one before. */
static bool
oid_valid(const uint8_t *id, const uint8_t *prev, int64_t reading)
{
	const cid_objectid *o = (const cid_objectid *) (const void *) id;

	return seconds_of(o) == (uint32_t) (reading / NS_PER_S) &&
		(prev == NULL ||
		 counter_of(o) == ((counter_of((const cid_objectid *) (const void *) prev) + 1) & 0xffffff));
}

/*
 * Through a stalled clock, a second back and a second ahead: the same
 * bytes, the same state after, no random bytes after init.
 */
static void
test_objectid_same_as_single_calls(void)
{
	static const int64_t readings[] = {
		T0_NS + 5, T0_NS + 900, T0_NS - NS_PER_S, T0_NS + 3 * NS_PER_S, T0_NS,
	};
	static const size_t sizes[] = {1, 7, 300, 5000, 2};
	tu_fake		fa = {.next_byte = 0x40},
				fb = {.next_byte = 0x40};
	cid_env		ea = {tu_fake_clock, tu_fake_random, NULL, &fa},
				eb = {tu_fake_clock, tu_fake_random, NULL, &fb};
	cid_objectid_gen a,
				b;
	tu_batch_run run = {sizeof(cid_objectid), oid_fill, oid_single, &a, &b, &fa, &fb, oid_valid};

	EXPECT_EQ_INT(cid_objectid_init(&a, &ea), CID_OK);
	EXPECT_EQ_INT(cid_objectid_init(&b, &eb), CID_OK);
	EXPECT_EQ_U64(tu_batch_vs_single(&run, readings, sizes, 5), 0);
	EXPECT_EQ_U64(fa.random_calls, 1);
	EXPECT_EQ_U64(fb.random_calls, 1);
	EXPECT_EQ_U64(atomic_load(cid_atomic_u64(&a.state)), atomic_load(cid_atomic_u64(&b.state)));
}

/* The counter wraps from 0xffffff to 0 inside a batch; the process bytes stay. */
static void
test_objectid_counter_wraps(void)
{
	tu_fake		f = {.now_ns = 7 * NS_PER_S, .next_byte = 0xf9};
	cid_env		env = {tu_fake_clock, tu_fake_random, NULL, &f};
	cid_objectid_gen gen;
	cid_objectid o[5];
	char		t[CID_OBJECTID_STRLEN + 1];
	size_t		done = 0;

	/* process bytes f9 fa fb fc fd; the counter set to 0xfffffd */
	EXPECT_EQ_INT(cid_objectid_init(&gen, &env), CID_OK);
	atomic_store(cid_atomic_u64(&gen.state), UINT64_C(0xf9fafbfcfdfffffd));
	EXPECT_EQ_INT(cid_objectid_fill(&gen, o, 5, &done), CID_OK);
	EXPECT_EQ_U64(done, 5);
	cid_objectid_format(t, &o[0]);
	EXPECT_STR(t, "00000007" "f9fafbfcfd" "fffffe");
	cid_objectid_format(t, &o[1]);
	EXPECT_STR(t, "00000007" "f9fafbfcfd" "ffffff");
	cid_objectid_format(t, &o[2]);
	EXPECT_STR(t, "00000007" "f9fafbfcfd" "000000");
	cid_objectid_format(t, &o[4]);
	EXPECT_STR(t, "00000007" "f9fafbfcfd" "000002");
	/* a single call goes on from the batch */
	EXPECT_EQ_INT(cid_objectid_next(&gen, &o[0]), CID_OK);
	cid_objectid_format(t, &o[0]);
	EXPECT_STR(t, "00000007" "f9fafbfcfd" "000003");
}

/*
 * The spec's fork rule holds for a batch: the child's first batch has new
 * process bytes (the platform's random source), the parent keeps its own.
 */
static void
test_objectid_fork(void)
{
	cid_objectid_gen gen;
	cid_objectid parent[3],
				child[3];
	int			fds[2];
	pid_t		pid;
	int			status = 0;
	size_t		done = 0;

	EXPECT_EQ_INT(cid_objectid_init(&gen, NULL), CID_OK);
	EXPECT_EQ_INT(cid_objectid_fill(&gen, parent, 3, &done), CID_OK);
	EXPECT_EQ_INT(pipe(fds), 0);
	pid = fork();
	if (pid == 0)
	{
		int			ok = cid_objectid_fill(&gen, child, 3, NULL) == CID_OK &&
			write(fds[1], child, sizeof(child)) == (ssize_t) sizeof(child);

		_exit(ok ? 0 : 1);
	}
	EXPECT(pid > 0);
	close(fds[1]);
	EXPECT_EQ_INT(read(fds[0], child, sizeof(child)), (int) sizeof(child));
	close(fds[0]);
	EXPECT_EQ_INT(waitpid(pid, &status, 0), pid);
	EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	EXPECT(memcmp(parent[0].bytes + 4, child[0].bytes + 4, 5) != 0);
	EXPECT(memcmp(child[0].bytes + 4, child[2].bytes + 4, 5) == 0);
	EXPECT_EQ_U64(counter_of(&child[1]), (counter_of(&child[0]) + 1) & 0xffffff);
	EXPECT_EQ_INT(cid_objectid_fill(&gen, child, 1, &done), CID_OK);
	EXPECT(memcmp(parent[0].bytes + 4, child[0].bytes + 4, 5) == 0);
	EXPECT_EQ_U64(counter_of(&child[0]), (counter_of(&parent[2]) + 1) & 0xffffff);
}

/*
 * Batches of random sizes and single calls on the platform's clock and
 * random source, fewer than 2^24 in all: no ObjectId twice, each counter
 * one past the one before.
 */
static void
test_objectid_randomized_unique(void)
{
	size_t		total = tu_scale(2000000, 100000);
	cid_objectid *all = malloc(total * sizeof(cid_objectid));
	cid_objectid_gen gen;
	uint64_t	rng = 0x9e3779b97f4a7c15u;
	size_t		k = 0,
				steps = 0,
				same = 0;

	EXPECT(all != NULL);
	if (all == NULL)
		return;
	EXPECT_EQ_INT(cid_objectid_init(&gen, NULL), CID_OK);
	while (k < total)
	{
		uint64_t	r = tu_rng_next(&rng);
		size_t		n = (size_t) (r >> 20) % 3000 + 1,
					done = 0;

		if (n > total - k)
			n = total - k;
		if (r % 3 == 0)
			EXPECT_EQ_INT(cid_objectid_next(&gen, &all[k++]), CID_OK);
		else
		{
			EXPECT_EQ_INT(cid_objectid_fill(&gen, all + k, n, &done), CID_OK);
			k += done;
		}
	}
	for (size_t i = 1; i < total; i++)
		if (counter_of(&all[i]) != ((counter_of(&all[i - 1]) + 1) & 0xffffff))
			steps++;
	EXPECT_EQ_U64(steps, 0);
	qsort(all, total, sizeof(cid_objectid), cmp12);
	for (size_t i = 1; i < total; i++)
		if (memcmp(all[i - 1].bytes, all[i].bytes, 12) == 0)
			same++;
	EXPECT_EQ_U64(same, 0);
	free(all);
}

/* ------------------------------------------------------------------------
 * UUIDv6
 * ------------------------------------------------------------------------ */

static uint64_t
ticks_of(const cid_uuid *u)
{
	uint64_t	t = 0;

	if (cid_uuid_gregorian_ticks(&t, u) != CID_OK)
		printf("#     not a v6 UUID\n");
	return t;
}

/* The tick of a Unix ns reading. */
static uint64_t
tick_at(int64_t ns)
{
	return (uint64_t) (ns / 100) + (uint64_t) CID_UUID_GREGORIAN_OFFSET;
}

static void
test_v6_arguments(void)
{
	tu_fake		f = {.now_ns = -5};
	cid_env		env = {tu_fake_clock, tu_fake_random, NULL, &f};
	cid_uuidv6_gen gen;
	cid_uuid	u[2];
	size_t		done = 99;

	EXPECT_EQ_INT(cid_uuidv6_init(&gen, &env), CID_OK);
	EXPECT_EQ_INT(cid_uuidv6_fill(&gen, u, 0, &done), CID_OK);
	EXPECT_EQ_U64(done, 0);
	EXPECT_EQ_INT(cid_uuidv6_fill(&gen, NULL, 0, NULL), CID_OK);
	done = 99;
	EXPECT_EQ_INT(cid_uuidv6_fill(NULL, u, 2, &done), CID_EINVAL);
	EXPECT_EQ_U64(done, 0);
	EXPECT_EQ_INT(cid_uuidv6_fill(&gen, NULL, 2, &done), CID_EINVAL);
	EXPECT_EQ_INT(cid_uuidv6_fill(&gen, u, SIZE_MAX / 16 + 1, &done), CID_EINVAL);
	EXPECT_EQ_INT(cid_uuidv6_fill(&gen, u, 2, &done), CID_ECLOCK);
	EXPECT_EQ_U64(done, 0);
	EXPECT_EQ_U64(f.random_calls, 0);
	/* a failing random source: nothing issued, nothing reserved */
	f.now_ns = T0_NS;
	f.fail_random = true;
	done = 99;
	EXPECT_EQ_INT(cid_uuidv6_fill(&gen, u, 2, &done), CID_ERANDOM);
	EXPECT_EQ_U64(done, 0);
	EXPECT_EQ_U64(atomic_load(cid_atomic_u64(&gen.state)), 0);
	f.fail_random = false;
	EXPECT_EQ_INT(cid_uuidv6_fill(&gen, u, 1, &done), CID_OK);
	EXPECT_EQ_U64(done, 1);
	EXPECT_EQ_U64(ticks_of(&u[0]), tick_at(T0_NS));
	EXPECT_EQ_INT(cid_uuid_version(&u[0]), 6);
}

static int
v6_fill(void *gen, uint8_t *out, size_t n, size_t *done)
{
	return cid_uuidv6_fill(gen, (cid_uuid *) (void *) out, n, done);
}

static int
v6_single(void *gen, uint8_t *out)
{
	return cid_uuidv6_next(gen, (cid_uuid *) (void *) out);
}

/*
 * Version 6 with a multicast node, above the one before, and the tick
 * the clock's own or, when that is not past the one before, the next.
 */
static bool
v6_valid(const uint8_t *id, const uint8_t *prev, int64_t reading)
{
	const cid_uuid *u = (const cid_uuid *) (const void *) id;
	uint64_t	want = tick_at(reading);

	if (prev != NULL && ticks_of((const cid_uuid *) (const void *) prev) >= want)
		want = ticks_of((const cid_uuid *) (const void *) prev) + 1;
	return cid_uuid_version(u) == 6 && (u->bytes[10] & 1) == 1 && ticks_of(u) == want &&
		(prev == NULL || memcmp(prev, id, 16) < 0);
}

/*
 * Through a stalled clock, one that goes back, one that lands inside the
 * ticks a big batch ran ahead, and one that passes them: the same bytes,
 * one random request per batch.
 */
static void
test_v6_same_as_single_calls(void)
{
	static const int64_t readings[] = {
		T0_NS + 12345,
		T0_NS + 12345,			/* stalled */
		T0_NS - NS_PER_S,		/* a second back */
		T0_NS + 12345 + 100 * 3000,	/* inside the run ahead of the 5000 */
		T0_NS + NS_PER_S,		/* past everything */
	};
	static const size_t sizes[] = {1, 7, 5000, 300, 2};
	tu_fake		fa = {.next_byte = 0x10},
				fb = {.next_byte = 0x10};
	cid_env		ea = {tu_fake_clock, tu_fake_random, NULL, &fa},
				eb = {tu_fake_clock, tu_fake_random, NULL, &fb};
	cid_uuidv6_gen a,
				b;
	tu_batch_run run = {sizeof(cid_uuid), v6_fill, v6_single, &a, &b, &fa, &fb, v6_valid};

	EXPECT_EQ_INT(cid_uuidv6_init(&a, &ea), CID_OK);
	EXPECT_EQ_INT(cid_uuidv6_init(&b, &eb), CID_OK);
	EXPECT_EQ_U64(tu_batch_vs_single(&run, readings, sizes, 5), 0);
	EXPECT_EQ_U64(fa.random_calls, 5);
	EXPECT_EQ_U64(fb.random_calls, 1 + 7 + 5000 + 300 + 2);
	EXPECT_EQ_U64(atomic_load(cid_atomic_u64(&a.state)), atomic_load(cid_atomic_u64(&b.state)));
	/* the last batch is the clock's own ticks again */
	EXPECT_EQ_U64(atomic_load(cid_atomic_u64(&a.state)), tick_at(T0_NS + NS_PER_S) + 1);
}

/* The 60-bit field runs out inside a batch: what fits is issued. */
static void
test_v6_field_runs_out(void)
{
	tu_fake		f = {.now_ns = T0_NS};
	cid_env		env = {tu_fake_clock, tu_fake_random, NULL, &f};
	cid_uuidv6_gen gen;
	cid_uuid	u[5];
	size_t		done = 0;

	EXPECT_EQ_INT(cid_uuidv6_init(&gen, &env), CID_OK);
	atomic_store(cid_atomic_u64(&gen.state), V6_TICKS_LIMIT - 3);
	EXPECT_EQ_INT(cid_uuidv6_fill(&gen, u, 5, &done), CID_ETIME_RANGE);
	EXPECT_EQ_U64(done, 2);
	EXPECT_EQ_U64(ticks_of(&u[0]), V6_TICKS_LIMIT - 2);
	EXPECT_EQ_U64(ticks_of(&u[1]), V6_TICKS_LIMIT - 1);
	EXPECT_EQ_U64(atomic_load(cid_atomic_u64(&gen.state)), V6_TICKS_LIMIT - 1);
	/* nothing left: no UUID at all, as for a single call */
	EXPECT_EQ_INT(cid_uuidv6_fill(&gen, u, 5, &done), CID_ETIME_RANGE);
	EXPECT_EQ_U64(done, 0);
	EXPECT_EQ_INT(cid_uuidv6_next(&gen, &u[0]), CID_ETIME_RANGE);
	EXPECT_EQ_U64(atomic_load(cid_atomic_u64(&gen.state)), V6_TICKS_LIMIT - 1);
}

/*
 * 100,000 UUIDv6s from batches of random sizes and single calls mixed, on
 * a fake clock that walks forward, stalls and jumps back at random: one
 * strictly increasing run; then the same on the platform's clock.
 */
static void
test_v6_mixed_increasing(void)
{
	size_t		total = 100000;
	cid_uuid   *all = malloc(total * sizeof(cid_uuid));
	uint64_t	rng = 0x2545f4914f6cdd1du;

	EXPECT(all != NULL);
	if (all == NULL)
		return;
	for (int platform = 0; platform <= 1; platform++)
	{
		tu_fake		f = {.now_ns = T0_NS};
		cid_env		env = {tu_fake_clock, tu_fake_random, NULL, &f};
		cid_uuidv6_gen gen;
		size_t		k = 0,
					singles = 0;

		EXPECT_EQ_INT(cid_uuidv6_init(&gen, platform ? NULL : &env), CID_OK);
		while (k < total)
		{
			uint64_t	r = tu_rng_next(&rng);
			size_t		n = (size_t) (r >> 24) % 200 + 1,
						done = 0;

			/* forward up to 50 us, stalled, or back up to 10 ms */
			switch (r % 4)
			{
				case 0:
					f.now_ns -= (int64_t) ((r >> 8) % 10000000);
					break;
				case 1:
					break;
				default:
					f.now_ns += (int64_t) ((r >> 8) % 50000);
			}
			if (n > total - k)
				n = total - k;
			if (r % 5 == 0)
			{
				EXPECT_EQ_INT(cid_uuidv6_next(&gen, &all[k++]), CID_OK);
				singles++;
			}
			else
			{
				EXPECT_EQ_INT(cid_uuidv6_fill(&gen, all + k, n, &done), CID_OK);
				EXPECT_EQ_U64(done, n);
				k += done;
			}
		}
		printf("# %s clock: %zu UUIDs, %zu single calls\n", platform ? "platform" : "fake", k,
			   singles);
		EXPECT(singles > 100);
		EXPECT_EQ_U64(count_not_increasing(all, total, 16), 0);
		EXPECT_EQ_U64(ticks_of(&all[total - 1]), atomic_load(cid_atomic_u64(&gen.state)));
	}
	free(all);
}

/* ------------------------------------------------------------------------
 * KSUID
 * ------------------------------------------------------------------------ */

static void
test_ksuid_arguments(void)
{
	tu_fake		f = {.now_ns = -1};
	cid_env		env = {tu_fake_clock, tu_fake_random, NULL, &f};
	cid_ksuid	k[2];

	EXPECT_EQ_INT(cid_ksuid_fill(k, 0, &env), CID_OK);
	EXPECT_EQ_INT(cid_ksuid_fill(NULL, 0, &env), CID_OK);
	EXPECT_EQ_INT(cid_ksuid_fill(NULL, 0, NULL), CID_OK);
	EXPECT_EQ_INT(cid_ksuid_fill(NULL, 2, &env), CID_EINVAL);
	EXPECT_EQ_INT(cid_ksuid_fill(k, SIZE_MAX / 20 + 1, &env), CID_EINVAL);
	EXPECT_EQ_INT(cid_ksuid_fill(k, SIZE_MAX, NULL), CID_EINVAL);
	EXPECT_EQ_INT(cid_ksuid_fill(k, 2, &env), CID_ECLOCK);
	/* before the KSUID epoch: refused before the random source is asked */
	f.now_ns = INT64_C(1399999999) * NS_PER_S;
	EXPECT_EQ_INT(cid_ksuid_fill(k, 2, &env), CID_ETIME_RANGE);
	/* and after its last second */
	f.now_ns = (INT64_C(0x100000000) + CID_KSUID_EPOCH_S) * NS_PER_S;
	EXPECT_EQ_INT(cid_ksuid_fill(k, 2, &env), CID_ETIME_RANGE);
	EXPECT_EQ_U64(f.random_calls, 0);
	f.now_ns -= 1;
	EXPECT_EQ_INT(cid_ksuid_fill(k, 2, &env), CID_OK);
	EXPECT_EQ_INT(cid_ksuid_unix_ms(&k[1]), (INT64_C(0xffffffff) + CID_KSUID_EPOCH_S) * 1000);
	f.fail_random = true;
	EXPECT_EQ_INT(cid_ksuid_fill(k, 2, &env), CID_ERANDOM);
}

static int
ksuid_fill(void *env, uint8_t *out, size_t n, size_t *done)
{
	int			rc = cid_ksuid_fill((cid_ksuid *) (void *) out, n, env);

	*done = rc == CID_OK ? n : 0;
	return rc;
}

static int
ksuid_single(void *env, uint8_t *out)
{
	return cid_ksuid_new((cid_ksuid *) (void *) out, env);
}

static bool
ksuid_valid(const uint8_t *id, const uint8_t *prev, int64_t reading)
{
	(void) prev;
	return cid_ksuid_unix_ms((const cid_ksuid *) (const void *) id) ==
		reading / NS_PER_S * 1000;
}

/*
 * The batch is the single calls' KSUIDs, byte for byte, in one random
 * request, the clock moving on and back between batches; a batch of one
 * is the reference's known answer that test_ksuid checks.
 */
static void
test_ksuid_same_as_single_calls(void)
{
	static const int64_t readings[] = {
		INT64_C(1507608047) * NS_PER_S + 123,
		INT64_C(1507608050) * NS_PER_S,
		INT64_C(1507608045) * NS_PER_S + 999999999,
		INT64_C(1507608048) * NS_PER_S,
		INT64_C(1507608051) * NS_PER_S,
	};
	static const size_t sizes[] = {1, 2, 13, 1000, 1};
	tu_fake		fa = {.next_byte = 0},
				fb = {.next_byte = 0};
	cid_env		ea = {tu_fake_clock, tu_fake_random, NULL, &fa},
				eb = {tu_fake_clock, tu_fake_random, NULL, &fb};
	tu_batch_run run = {sizeof(cid_ksuid), ksuid_fill, ksuid_single, &ea, &eb, &fa, &fb,
	ksuid_valid};
	cid_ksuid	k;

	EXPECT_EQ_U64(tu_batch_vs_single(&run, readings, sizes, 5), 0);
	EXPECT_EQ_U64(fa.random_calls, 5);
	EXPECT_EQ_U64(fb.random_calls, 1 + 2 + 13 + 1000 + 1);
	/* a batch of one: time 0x0669f7ef, payload 00 01 .. 0f from the fake */
	fa.now_ns = readings[0];
	fa.next_byte = 0;
	EXPECT_EQ_INT(cid_ksuid_fill(&k, 1, &ea), CID_OK);
	EXPECT_EQ_INT(memcmp(k.bytes, "\x06\x69\xf7\xef\x00\x01\x02\x03\x04\x05\x06\x07"
						 "\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f", 20), 0);
}

/*
 * A big batch on the platform's clock and source: one second throughout
 * (one clock reading), no payload twice.
 */
static void
test_ksuid_randomized_unique(void)
{
	size_t		n = tu_scale((size_t) 1 << 20, (size_t) 1 << 16);
	cid_ksuid  *k = malloc(n * sizeof(cid_ksuid));
	size_t		same = 0,
				other_second = 0;
	int64_t		before = cid_platform_clock(NULL) / NS_PER_S * 1000;

	EXPECT(k != NULL);
	if (k == NULL)
		return;
	EXPECT_EQ_INT(cid_ksuid_fill(k, n, NULL), CID_OK);
	for (size_t i = 0; i < n; i++)
		if (cid_ksuid_unix_ms(&k[i]) != cid_ksuid_unix_ms(&k[0]))
			other_second++;
	EXPECT_EQ_U64(other_second, 0);
	EXPECT(cid_ksuid_unix_ms(&k[0]) >= before);
	qsort(k, n, sizeof(cid_ksuid), cmp20);
	for (size_t i = 1; i < n; i++)
		if (memcmp(k[i - 1].bytes + 4, k[i].bytes + 4, 16) == 0)
			same++;
	/* 128 random bits: a repeat among 2^20 has odds of about 2^-89 */
	EXPECT_EQ_U64(same, 0);
	free(k);
}

int
main(void)
{
	TAP_CASE(test_objectid_arguments);
	TAP_CASE(test_objectid_same_as_single_calls);
	TAP_CASE(test_objectid_counter_wraps);
	TAP_CASE(test_objectid_fork);
	TAP_CASE(test_objectid_randomized_unique);
	TAP_CASE(test_v6_arguments);
	TAP_CASE(test_v6_same_as_single_calls);
	TAP_CASE(test_v6_field_runs_out);
	TAP_CASE(test_v6_mixed_increasing);
	TAP_CASE(test_ksuid_arguments);
	TAP_CASE(test_ksuid_same_as_single_calls);
	TAP_CASE(test_ksuid_randomized_unique);
	return tap_done();
}
