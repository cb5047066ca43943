/*
 * uuidv7.c — the UUIDv7 generator: RFC 9562 section 6.2 method 3 (12 bits
 * of sub-millisecond fraction in rand_a), stepped lock-free so that one
 * generator's UUIDs strictly increase across threads, as PostgreSQL 18.
 */
#include "chronoid.h"

#include <string.h>

#include "atomic_internal.h"
#include "env_internal.h"

#define NS_PER_MS INT64_C(1000000)
#define FRACTION_BITS 12

/* Largest state: 2^48 - 1 ms with a full fraction. */
#define STATE_MAX ((INT64_C(1) << (48 + FRACTION_BITS)) - 1)

/*
 * Shifts whose quotient by 125 exceeds this move the state by more than
 * 2^61 units, which no state in 0 .. STATE_MAX survives.
 */
#define SHIFT_Q_LIMIT (INT64_C(1) << 52)

int
cid_uuidv7_init(cid_uuidv7_gen *gen, const cid_env *env)
{
	if (gen == NULL)
		return CID_EINVAL;
	cid_env_copy(&gen->env, env);
	atomic_init(cid_atomic_u64(&gen->state), 0);
	return CID_OK;
}

/*
 * shift_us in units of 1/4096 ms (1 unit = 1000/4096 us = 125/512 us),
 * rounded down.  Splitting by 125 first keeps the product in range; false
 * when the shift is so large that every result would be out of range.
 */
static bool
shift_to_units(int64_t shift_us, int64_t *units)
{
	int64_t		q = shift_us / 125;
	int64_t		r = shift_us % 125;	/* same sign as shift_us */
	int64_t		rem_units;

	if (q > SHIFT_Q_LIMIT || q < -SHIFT_Q_LIMIT)
		return false;
	/* floor(r * 512 / 125) with |r| < 125; C division truncates. */
	rem_units = r * 512 / 125;
	if (r * 512 % 125 < 0)
		rem_units--;
	*units = q * 512 + rem_units;
	return true;
}

int
cid_uuidv7_next_at(cid_uuidv7_gen *gen, int64_t now_ns, int64_t shift_us,
				   const uint8_t rand_b[8], cid_uuid *out)
{
	int64_t		ms;
	int64_t		candidate;
	int64_t		units;
	int64_t		shifted;
	uint64_t	last;
	uint64_t	next;

	if (gen == NULL || rand_b == NULL || out == NULL)
		return CID_EINVAL;
	if (now_ns < 0)
		return CID_ETIME_RANGE;
	ms = now_ns / NS_PER_MS;
	if (ms > (STATE_MAX >> FRACTION_BITS))
		return CID_ETIME_RANGE;	/* unreachable for int64 ns; kept for safety */
	if (!shift_to_units(shift_us, &units))
		return CID_ETIME_RANGE;

	/*
	 * RFC 9562 section 6.2 method 3: rand_a carries floor(sub-ms ns * 4096 /
	 * 1e6), as PostgreSQL 18 fills it.  (999999 * 4096 fits easily.)
	 */
	candidate = ms << FRACTION_BITS |
		((now_ns % NS_PER_MS) << FRACTION_BITS) / NS_PER_MS;

	/*
	 * Take max(candidate, last + 1).  The state is the only shared datum,
	 * and all threads agree on the modification order of a single atomic
	 * object, so relaxed ordering is enough for strict increase; the
	 * compare-exchange makes each value go to exactly one caller.  The
	 * shift is checked before the exchange, so a failing call leaves the
	 * state alone.
	 */
	last = atomic_load_explicit(cid_atomic_u64(&gen->state), memory_order_relaxed);
	do
	{
		if ((uint64_t) candidate > last)
			next = (uint64_t) candidate;
		else
		{
			if (last >= (uint64_t) STATE_MAX)
				return CID_ETIME_RANGE;
			next = last + 1;	/* may carry into the ms: runs ahead */
		}
		/* |units| <= 2^61 + 512 and next < 2^60: no overflow. */
		shifted = (int64_t) next + units;
		if (shifted < 0 || shifted > STATE_MAX)
			return CID_ETIME_RANGE;
	} while (!atomic_compare_exchange_weak_explicit(cid_atomic_u64(&gen->state), &last, next,
													memory_order_relaxed,
													memory_order_relaxed));

	/*
	 * RFC 9562 section 5.7: unix_ts_ms (48), ver 0111, rand_a (12, the
	 * fraction), var 10, rand_b (62).
	 */
	for (int i = 0; i < 6; i++)
		out->bytes[i] = (uint8_t) ((uint64_t) shifted >> (FRACTION_BITS + 40 - 8 * i));
	out->bytes[6] = (uint8_t) (0x70 | ((shifted >> 8) & 0x0f));
	out->bytes[7] = (uint8_t) (shifted & 0xff);
	out->bytes[8] = (uint8_t) (0x80 | (rand_b[0] & 0x3f));
	memcpy(out->bytes + 9, rand_b + 1, 7);
	return CID_OK;
}

int
cid_uuidv7_next_shifted(cid_uuidv7_gen *gen, int64_t shift_us, cid_uuid *out)
{
	int64_t		now;
	uint8_t		rand_b[8];
	int			rc;

	if (gen == NULL || out == NULL)
		return CID_EINVAL;
	rc = cid_env_now(&gen->env, &now);
	if (rc != CID_OK)
		return rc;
	rc = cid_env_random(&gen->env, rand_b, sizeof(rand_b));
	if (rc != CID_OK)
		return rc;
	return cid_uuidv7_next_at(gen, now, shift_us, rand_b, out);
}

int
cid_uuidv7_next(cid_uuidv7_gen *gen, cid_uuid *out)
{
	return cid_uuidv7_next_shifted(gen, 0, out);
}
