/*
 * uuidv7.c — the UUIDv7 generator: RFC 9562 section 6.2 method 3 (12 bits
 * of sub-millisecond fraction in rand_a), stepped lock-free so that one
 * generator's UUIDs strictly increase across threads, as PostgreSQL 18;
 * one at a time or a batch per atomic step (fill).
 */
#define _POSIX_C_SOURCE 200809L

#include "chronoid.h"

#include <string.h>

#include "atomic_internal.h"
#include "bytes_internal.h"
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

/* The batch stages rand_b in out, 8 bytes per UUID: see cid_uuidv7_fill. */
_Static_assert(sizeof(cid_uuid) == 16 && _Alignof(cid_uuid) == 1, "cid_uuid must be its 16 bytes");

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

/*
 * RFC 9562 section 6.2 method 3: the state of clock reading now_ns (>= 0),
 * ms << 12 | floor(sub-ms ns * 4096 / 1e6), the fraction as PostgreSQL 18
 * fills rand_a.  (999999 * 4096 fits easily.)
 */
static inline uint64_t
state_of(int64_t now_ns)
{
	return (uint64_t) (now_ns / NS_PER_MS) << FRACTION_BITS |
		(uint64_t) (((now_ns % NS_PER_MS) << FRACTION_BITS) / NS_PER_MS);
}

/*
 * The UUID of state s (ms << 12 | fraction) and 8 random bytes, RFC 9562
 * section 5.7: unix_ts_ms (48), ver 0111, rand_a (12, the fraction), var
 * 10, rand_b (62).  The first 8 bytes are s with the version nibble put in
 * between, as one big-endian word.  rand_b may overlap b (the batch reads
 * it before it writes).
 */
static inline void
build(uint8_t *b, uint64_t s, const uint8_t *rand_b)
{
	uint64_t	hi = (s >> FRACTION_BITS) << 16 | UINT64_C(0x7000) |
		(s & ((1u << FRACTION_BITS) - 1));
	uint8_t		r[8];

	memcpy(r, rand_b, 8);
	cid_store_be64(b, hi);
	r[0] = (uint8_t) (0x80 | (r[0] & 0x3f));
	memcpy(b + 8, r, 8);
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
	if (shift_us == 0)
		units = 0;
	else if (!shift_to_units(shift_us, &units))
		return CID_ETIME_RANGE;

	candidate = (int64_t) state_of(now_ns);

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

	build(out->bytes, (uint64_t) shifted, rand_b);
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

/*
 * The batch.  Its random bytes are drawn in one request into the back half
 * of out (UUID i's 8 bytes at byte 8 * n + 8 * i), then the UUIDs are
 * written front to back over them: UUID i ends at byte 16 * i + 16, which
 * is never past the first unread byte, 8 * n + 8 * (i + 1), and build()
 * reads UUID i's own bytes before writing.  So a batch costs one random
 * request and no buffer of its own, however large.
 */
int
cid_uuidv7_fill(cid_uuidv7_gen *gen, cid_uuid *out, size_t n, size_t *done)
{
	uint8_t    *rand;
	uint64_t	candidate;
	uint64_t	last;
	uint64_t	first;
	uint64_t	count;
	int64_t		now;
	int			rc;

	rc = cid_fill_start(gen ? &gen->env : NULL, out, n, 16, done, &now);
	if (rc != CID_OK || n == 0)
		return rc;
	candidate = state_of(now);
	rand = (uint8_t *) out + 8 * n;
	rc = cid_env_random(&gen->env, rand, 8 * n);
	if (rc != CID_OK)
		return rc;

	/*
	 * As cid_uuidv7_next_at, for n positions at once: take max(candidate,
	 * last + 1) and the n - 1 after it, publishing the last of them.  The
	 * range is reserved whole by one compare-and-swap, so no other call
	 * can issue inside it, and every later one issues after it.  Near the
	 * end of the 48-bit field the range is cut short.
	 */
	last = atomic_load_explicit(cid_atomic_u64(&gen->state), memory_order_relaxed);
	do
	{
		first = candidate > last ? candidate : last + 1;
		if (first > (uint64_t) STATE_MAX)
			return CID_ETIME_RANGE;
		count = (uint64_t) STATE_MAX - first + 1;
		if (count > n)
			count = n;
	} while (!atomic_compare_exchange_weak_explicit(cid_atomic_u64(&gen->state), &last,
													first + count - 1,
													memory_order_relaxed,
													memory_order_relaxed));

	for (uint64_t i = 0; i < count; i++)
		build(out[i].bytes, first + i, rand + 8 * i);
	if (done != NULL)
		*done = (size_t) count;
	return count == n ? CID_OK : CID_ETIME_RANGE;
}
