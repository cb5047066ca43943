/*
 * test_mt_fill.c — four threads race on one UUIDv7 generator, then on one
 * monotonic ULID generator, on the real clock and random source, mixing
 * batches of every size from 1 to 512 (cid_uuidv7_fill, cid_ulid_fill)
 * with single calls: every ID unique, each thread's IDs strictly
 * increasing, every timestamp inside the run's window.  Then the same
 * race on one UUIDv6 and one ObjectId generator (cid_uuidv6_fill,
 * cid_objectid_fill): UUIDv6s unique and increasing in each thread,
 * ObjectIds unique, each batch's counters consecutive.  Run under TSan by
 * make check (test_mt_*).
 */
#define _POSIX_C_SOURCE 200809L

#include "atomic_internal.h"
#include "chronoid.h"
#include "tap.h"
#include "testutil.h"

#define MAX_BATCH 512

/*
 * Each thread hands out its IDs from a batch of its own; when that runs
 * dry it draws a new one of a pseudo-random size, or, one time in four,
 * makes a single call.
 */
typedef struct batch_cache
{
	cid_uuid	ids[MAX_BATCH];	/* cid_ulid has the same 16 bytes */
	size_t		have;
	size_t		pos;
	uint64_t	rng;
} batch_cache;

static _Thread_local batch_cache cache;

typedef int (*fill_fn) (void *gen, void *out, size_t n, size_t *done);
typedef int (*single_fn) (void *gen, void *out);

static int
refill_and_next(void *gen, uint8_t *out, fill_fn fill, single_fn single)
{
	if (cache.pos == cache.have)
	{
		uint64_t	r;
		int			rc;

		if (cache.rng == 0)
			cache.rng = (uint64_t) (uintptr_t) &cache | 1;
		r = tu_xorshift64(&cache.rng);
		cache.pos = cache.have = 0;
		if (r % 4 == 0)
		{
			rc = single(gen, cache.ids);
			cache.have = rc == CID_OK ? 1 : 0;
		}
		else
			rc = fill(gen, cache.ids, (size_t) (r >> 8) % MAX_BATCH + 1, &cache.have);
		if (rc != CID_OK)
			return rc;
	}
	memcpy(out, cache.ids[cache.pos++].bytes, 16);
	return CID_OK;
}

static int
v7_fill(void *gen, void *out, size_t n, size_t *done)
{
	return cid_uuidv7_fill(gen, out, n, done);
}

static int
v7_single(void *gen, void *out)
{
	return cid_uuidv7_next(gen, out);
}

static int
next_uuidv7(void *gen, uint8_t *out)
{
	return refill_and_next(gen, out, v7_fill, v7_single);
}

static int
ulid_fill(void *gen, void *out, size_t n, size_t *done)
{
	return cid_ulid_fill(gen, out, n, done);
}

static int
ulid_single(void *gen, void *out)
{
	return cid_ulid_next(gen, out);
}

static int
next_ulid(void *gen, uint8_t *out)
{
	return refill_and_next(gen, out, ulid_fill, ulid_single);
}

static void
test_uuidv7_batches_race(void)
{
	cid_uuidv7_gen gen;
	size_t		total = tu_scale(8000000, 200000);

	/*
	 * A UUID runs ahead of the clock by at most one fraction unit per UUID
	 * issued, counting those still unhanded in the threads' batches at
	 * the end (at most MAX_BATCH each): one more ms covers them.
	 */
	tu_mt_run	r = {
		.gen = &gen,
		.next = next_uuidv7,
		.valid = tu_is_uuidv7,
		.total = total,
		.allowed_ms = (int64_t) (total / 4096) + 2,
		.what = "UUIDs in batches",
	};

	EXPECT_EQ_INT(cid_uuidv7_init(&gen, NULL), CID_OK);
	if (!tu_mt_share_generator(&r))
		return;
	TU_MT_EXPECT_CLEAN(r);
	/* the first 64 bits are the state: no position went out twice */
	EXPECT_EQ_INT(tu_count_adjacent_equal(r.ids, r.n, 8), 0);
	free(r.ids);
}

static void
test_ulid_batches_race(void)
{
	cid_ulid_gen gen;

	/* a monotonic ULID never runs ahead of the clock */
	tu_mt_run	r = {
		.gen = &gen,
		.next = next_ulid,
		.total = tu_scale(8000000, 200000),
		.allowed_ms = 0,
		.what = "monotonic ULIDs in batches",
	};

	EXPECT_EQ_INT(cid_ulid_init(&gen, true, NULL), CID_OK);
	if (!tu_mt_share_generator(&r))
		return;
	TU_MT_EXPECT_CLEAN(r);
	/* the shared state is at or past the largest ULID handed out */
	EXPECT(memcmp(r.ids[r.n - 1], gen.last, 16) <= 0);
	free(r.ids);
}

/*
 * UUIDv6 and ObjectId: their time fields are not the first 48 bits of
 * Unix ms that tu_mt_share_generator checks, so their race is run here.
 * Each thread writes its IDs (size bytes each) in turn, from batches of
 * 1 to MAX_BATCH or, one time in four, single calls.
 */
typedef struct kind_race
{
	void	   *gen;
	int			(*fill) (void *gen, uint8_t *out, size_t n, size_t *done);
	size_t		size;
	uint8_t    *out;
	size_t		n;
	size_t		errors;
	size_t		not_consecutive;	/* ObjectId: a batch's counters */
	uint64_t	rng;
} kind_race;

static int
v6_fill(void *gen, uint8_t *out, size_t n, size_t *done)
{
	if (n == 1)
	{
		*done = 1;
		return cid_uuidv6_next(gen, (cid_uuid *) (void *) out);
	}
	return cid_uuidv6_fill(gen, (cid_uuid *) (void *) out, n, done);
}

static int
oid_fill(void *gen, uint8_t *out, size_t n, size_t *done)
{
	if (n == 1)
	{
		*done = 1;
		return cid_objectid_next(gen, (cid_objectid *) (void *) out);
	}
	return cid_objectid_fill(gen, (cid_objectid *) (void *) out, n, done);
}

static uint32_t
oid_counter(const uint8_t *b)
{
	return (uint32_t) b[9] << 16 | (uint32_t) b[10] << 8 | b[11];
}

static void *
kind_race_main(void *p)
{
	kind_race  *k = p;
	size_t		i = 0;

	while (i < k->n)
	{
		uint64_t	r = tu_xorshift64(&k->rng);
		size_t		n = r % 4 == 0 ? 1 : (size_t) (r >> 8) % MAX_BATCH + 1,
					done = 0;

		if (n > k->n - i)
			n = k->n - i;
		if (k->fill(k->gen, k->out + k->size * i, n, &done) != CID_OK || done != n)
		{
			k->errors++;
			break;
		}
		if (k->size == sizeof(cid_objectid))
			for (size_t j = i + 1; j < i + n; j++)
				if (oid_counter(k->out + 12 * j) !=
					((oid_counter(k->out + 12 * (j - 1)) + 1) & 0xffffff))
					k->not_consecutive++;
		i += n;
	}
	return NULL;
}

static size_t	cmp_size;

static int
cmp_ids(const void *a, const void *b)
{
	return memcmp(a, b, cmp_size);
}

/* The race on gen; false (after a failed EXPECT) when memory ran out. */
static bool
race_kind(kind_race *proto, uint8_t **all, size_t *total)
{
	kind_race	k[TU_MT_THREADS];
	pthread_t	tid[TU_MT_THREADS];
	size_t		per = tu_scale(1000000, 50000);

	*total = per * TU_MT_THREADS;
	*all = malloc(*total * proto->size);
	EXPECT(*all != NULL);
	if (*all == NULL)
		return false;
	for (int t = 0; t < TU_MT_THREADS; t++)
	{
		k[t] = *proto;
		k[t].out = *all + proto->size * per * (size_t) t;
		k[t].n = per;
		k[t].rng = UINT64_C(0x9e3779b97f4a7c15) * (uint64_t) (t + 1);
		EXPECT_EQ_INT(pthread_create(&tid[t], NULL, kind_race_main, &k[t]), 0);
	}
	for (int t = 0; t < TU_MT_THREADS; t++)
	{
		EXPECT_EQ_INT(pthread_join(tid[t], NULL), 0);
		EXPECT_EQ_U64(k[t].errors, 0);
		EXPECT_EQ_U64(k[t].not_consecutive, 0);
		/* each thread's UUIDv6s strictly increase */
		if (proto->size == sizeof(cid_uuid))
			for (size_t i = 1; i < per; i++)
				if (memcmp(k[t].out + 16 * (i - 1), k[t].out + 16 * i, 16) >= 0)
					k[t].errors++;
		EXPECT_EQ_U64(k[t].errors, 0);
	}
	cmp_size = proto->size;
	qsort(*all, *total, proto->size, cmp_ids);
	return true;
}

static size_t
count_equal_neighbours(const uint8_t *ids, size_t n, size_t size)
{
	size_t		same = 0;

	for (size_t i = 1; i < n; i++)
		if (memcmp(ids + size * (i - 1), ids + size * i, size) == 0)
			same++;
	return same;
}

static void
test_uuidv6_batches_race(void)
{
	cid_uuidv6_gen gen;
	kind_race	proto = {.gen = &gen, .fill = v6_fill, .size = sizeof(cid_uuid)};
	uint8_t    *all;
	size_t		total;
	uint64_t	ticks = 0;
	cid_uuid	last;

	EXPECT_EQ_INT(cid_uuidv6_init(&gen, NULL), CID_OK);
	if (!race_kind(&proto, &all, &total))
		return;
	EXPECT_EQ_U64(count_equal_neighbours(all, total, 16), 0);
	/* the state is the largest tick issued */
	memcpy(last.bytes, all + 16 * (total - 1), 16);
	EXPECT_EQ_INT(cid_uuid_gregorian_ticks(&ticks, &last), CID_OK);
	EXPECT_EQ_U64(ticks, atomic_load(cid_atomic_u64(&gen.state)));
	free(all);
}

static void
test_objectid_batches_race(void)
{
	cid_objectid_gen gen;
	kind_race	proto = {.gen = &gen, .fill = oid_fill, .size = sizeof(cid_objectid)};
	uint8_t    *all;
	size_t		total;

	EXPECT_EQ_INT(cid_objectid_init(&gen, NULL), CID_OK);
	if (!race_kind(&proto, &all, &total))
		return;
	/* fewer than 2^24 in all: none twice */
	EXPECT(total < ((size_t) 1 << 24));
	EXPECT_EQ_U64(count_equal_neighbours(all, total, 12), 0);
	free(all);
}

int
main(void)
{
	TAP_CASE(test_uuidv7_batches_race);
	TAP_CASE(test_ulid_batches_race);
	TAP_CASE(test_uuidv6_batches_race);
	TAP_CASE(test_objectid_batches_race);
	return tap_done();
}
