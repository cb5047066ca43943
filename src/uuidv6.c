/*
 * uuidv6.c — RFC 9562's Gregorian time-based UUIDs: version 1 <-> 6
 * conversion, v6 from a timestamp, and the lock-free v6 generator.
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

int
cid_uuidv6_from_ticks(cid_uuid *out, uint64_t ticks, const uint8_t *rand)
{
	static const uint8_t zero[8];

	if (out == NULL)
		return CID_EINVAL;
	if (ticks >= TICKS_LIMIT)
		return CID_ETIME_RANGE;
	put_v6_time(out->bytes, ticks);
	if (rand == NULL)
	{
		memcpy(out->bytes + 8, zero, 8);
		out->bytes[8] = 0x80;	/* variant 10, clock sequence 0 */
		return CID_OK;
	}
	memcpy(out->bytes + 8, rand, 8);
	/* RFC 9562 section 4.1: variant 10 above the 14-bit clock sequence. */
	out->bytes[8] = (uint8_t) (0x80 | (out->bytes[8] & 0x3f));
	/* Section 6.10: a random node has its multicast bit set. */
	out->bytes[10] |= 0x01;
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

int
cid_uuidv6_next_at(cid_uuidv6_gen *gen, int64_t now_ns, const uint8_t rand[8], cid_uuid *out)
{
	cid_atomic_u64_t *state;
	uint64_t	ticks;
	uint64_t	last;
	uint64_t	next;

	if (gen == NULL || rand == NULL || out == NULL)
		return CID_EINVAL;
	if (now_ns < 0)
		return CID_ETIME_RANGE;
	/* int64 ns end in 2262, far inside the 60-bit field (year 5236). */
	ticks = (uint64_t) (now_ns / NS_PER_TICK) + (uint64_t) CID_UUID_GREGORIAN_OFFSET;
	state = cid_atomic_u64(&gen->state);
	last = atomic_load_explicit(state, memory_order_relaxed);
	do
	{
		/* A tick not past the last one issued steps past it instead. */
		next = ticks > last ? ticks : last + 1;
		if (next >= TICKS_LIMIT)
			return CID_ETIME_RANGE;
	} while (!atomic_compare_exchange_weak_explicit(state, &last, next,
													memory_order_relaxed,
													memory_order_relaxed));
	return cid_uuidv6_from_ticks(out, next, rand);
}

int
cid_uuidv6_next(cid_uuidv6_gen *gen, cid_uuid *out)
{
	uint8_t		rand[8];
	int64_t		now_ns;
	int			rc;

	if (gen == NULL || out == NULL)
		return CID_EINVAL;
	rc = cid_env_now(&gen->env, &now_ns);
	if (rc == CID_OK)
		rc = cid_env_random(&gen->env, rand, sizeof(rand));
	if (rc != CID_OK)
		return rc;
	return cid_uuidv6_next_at(gen, now_ns, rand, out);
}
