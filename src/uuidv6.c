/*
 * uuidv6.c — RFC 9562's Gregorian time-based UUIDs: version 1 <-> 6
 * conversion, v6 from a timestamp, and the lock-free v6 generator, one at
 * a time or a batch per atomic step (fill).
 */
#define _POSIX_C_SOURCE 200809L

#include "chronoid.h"

#include <string.h>

#include "atomic_internal.h"
#include "bytes_internal.h"
#include "env_internal.h"

/* The timestamp field is 60 bits wide (RFC 9562 sections 5.1 and 5.6). */
#define TICKS_LIMIT (UINT64_C(1) << 60)
#define NS_PER_TICK 100

/*
 * The first 8 bytes of a v6 UUID of ticks (RFC 9562 section 5.6):
 * time_high (32 bits), time_mid (16), ver 0110, time_low (12): the count
 * read from its top down, which is what makes v6 sort by time.
 */
static void
put_v6_time(uint8_t *b, uint64_t ticks)
{
	cid_store_be64(b, (ticks >> 12) << 16 | UINT64_C(0x6000) | (ticks & 0x0fff));
}

/*
 * The same for version 1 (RFC 9562 section 5.1): time_low (32), time_mid
 * (16), ver 0001, time_high (12), least significant part first.
 */
static void
put_v1_time(uint8_t *b, uint64_t ticks)
{
	cid_store_be64(b, (ticks & UINT64_C(0xffffffff)) << 32 |
				   ((ticks >> 32) & 0xffff) << 16 | UINT64_C(0x1000) |
				   ((ticks >> 48) & 0x0fff));
}

/* Retime in as the other version; clock sequence and node stay. */
static int
convert(cid_uuid *out, const cid_uuid *in, int from, void (*put) (uint8_t *, uint64_t))
{
	uint64_t	ticks;
	cid_uuid	tmp;

	if (out == NULL || in == NULL || cid_uuid_version(in) != from)
		return CID_EINVAL;
	if (cid_uuid_gregorian_ticks(&ticks, in) != CID_OK)
		return CID_EINVAL;		/* not reached: versions 1 and 6 have one */
	tmp = *in;
	put(tmp.bytes, ticks);
	*out = tmp;
	return CID_OK;
}

int
cid_uuid_v1_to_v6(cid_uuid *out, const cid_uuid *in)
{
	return convert(out, in, 1, put_v6_time);
}

int
cid_uuid_v6_to_v1(cid_uuid *out, const cid_uuid *in)
{
	return convert(out, in, 6, put_v1_time);
}

/*
 * The v6 UUID of ticks (below 2^60) and rand, into b.  rand may lie in b's
 * own last 8 bytes or anywhere past them (the batch stages its random
 * bytes there): it is read before b is written.
 */
static void
build(uint8_t *b, uint64_t ticks, const uint8_t *rand)
{
	uint8_t		r[8];

	memcpy(r, rand, 8);
	put_v6_time(b, ticks);
	/* RFC 9562 section 4.1: variant 10 above the 14-bit clock sequence. */
	r[0] = (uint8_t) (0x80 | (r[0] & 0x3f));
	/* Section 6.10: a random node has its multicast bit set. */
	r[2] |= 0x01;
	memcpy(b + 8, r, 8);
}

int
cid_uuidv6_from_ticks(cid_uuid *out, uint64_t ticks, const uint8_t *rand)
{
	static const uint8_t zero[8];

	if (out == NULL)
		return CID_EINVAL;
	if (ticks >= TICKS_LIMIT)
		return CID_ETIME_RANGE;
	if (rand != NULL)
		build(out->bytes, ticks, rand);
	else
	{
		put_v6_time(out->bytes, ticks);
		memcpy(out->bytes + 8, zero, 8);
		out->bytes[8] = 0x80;	/* variant 10, clock sequence 0 */
	}
	return CID_OK;
}

int
cid_uuidv6_init(cid_uuidv6_gen *gen, const cid_env *env)
{
	if (gen == NULL)
		return CID_EINVAL;
	cid_env_copy(&gen->env, env);
	atomic_init(cid_atomic_u64(&gen->state), 0);
	return CID_OK;
}

/* The tick of clock reading now_ns (>= 0). */
static inline uint64_t
ticks_of(int64_t now_ns)
{
	/* int64 ns end in 2262, far inside the 60-bit field (year 5236). */
	return (uint64_t) (now_ns / NS_PER_TICK) + (uint64_t) CID_UUID_GREGORIAN_OFFSET;
}

/*
 * The one step of the single call and the batch: reserve n ticks from
 * max(ticks, last + 1) on with one compare-and-swap, so they come after
 * everything issued before and no other call issues inside them; *first
 * and the count reserved (fewer than n near the end of the 60-bit field,
 * 0 past it, the state then untouched).
 */
static uint64_t
reserve(cid_uuidv6_gen *gen, uint64_t ticks, uint64_t n, uint64_t *first)
{
	cid_atomic_u64_t *state = cid_atomic_u64(&gen->state);
	uint64_t	last = atomic_load_explicit(state, memory_order_relaxed);
	uint64_t	count;

	do
	{
		/* A tick not past the last one issued steps past it instead. */
		*first = ticks > last ? ticks : last + 1;
		if (*first >= TICKS_LIMIT)
			return 0;
		count = TICKS_LIMIT - *first;
		if (count > n)
			count = n;
	} while (!atomic_compare_exchange_weak_explicit(state, &last, *first + count - 1,
													memory_order_relaxed,
													memory_order_relaxed));
	return count;
}

int
cid_uuidv6_next_at(cid_uuidv6_gen *gen, int64_t now_ns, const uint8_t rand[8], cid_uuid *out)
{
	uint64_t	first;

	if (gen == NULL || rand == NULL || out == NULL)
		return CID_EINVAL;
	if (now_ns < 0)
		return CID_ETIME_RANGE;
	if (reserve(gen, ticks_of(now_ns), 1, &first) == 0)
		return CID_ETIME_RANGE;
	build(out->bytes, first, rand);
	return CID_OK;
}

/*
 * The batch.  As cid_uuidv7_fill: its random bytes are drawn in one
 * request into the back half of out (UUID i's 8 at byte 8 * n + 8 * i),
 * then the UUIDs are written front to back over them; UUID i ends at byte
 * 16 * i + 16, never past the first unread byte, 8 * n + 8 * (i + 1), and
 * build() reads UUID i's own bytes before writing.
 */
int
cid_uuidv6_fill(cid_uuidv6_gen *gen, cid_uuid *out, size_t n, size_t *done)
{
	uint8_t    *rand;
	uint64_t	first;
	uint64_t	count;
	int64_t		now_ns;
	int			rc;

	rc = cid_fill_start(gen ? &gen->env : NULL, out, n, sizeof(cid_uuid), done, &now_ns);
	if (rc != CID_OK || n == 0)
		return rc;
	rand = (uint8_t *) out + 8 * n;
	rc = cid_env_random(&gen->env, rand, 8 * n);
	if (rc != CID_OK)
		return rc;
	count = reserve(gen, ticks_of(now_ns), n, &first);
	for (uint64_t i = 0; i < count; i++)
		build(out[i].bytes, first + i, rand + 8 * i);
	if (done != NULL)
		*done = (size_t) count;
	return count == n ? CID_OK : CID_ETIME_RANGE;
}

int
cid_uuidv6_next(cid_uuidv6_gen *gen, cid_uuid *out)
{
	return cid_uuidv6_fill(gen, out, 1, NULL);
}
