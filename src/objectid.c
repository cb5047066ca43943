/*
 * objectid.c — MongoDB ObjectIds (the BSON ObjectID specification): hex
 * text, time, building one for a second, and the generator (process bytes
 * drawn once per process, a wrapping 24-bit counter), fork-safe; one at a
 * time or a batch per atomic step (fill).
 */
#define _POSIX_C_SOURCE 200809L

#include "chronoid.h"

#include <sched.h>
#include <string.h>

#include "atomic_internal.h"
#include "bytes_internal.h"
#include "env_internal.h"
#include "hex_internal.h"
#include "random_internal.h"

#define NS_PER_S INT64_C(1000000000)
#define MS_PER_S 1000
#define SECONDS_MAX INT64_C(0xffffffff)
#define COUNTER_MASK UINT64_C(0xffffff)

/* The epoch word while one thread draws a process's state: see reseed. */
#define EPOCH_BUSY (UINT64_C(1) << 63)

/* A batch is any buffer of 12 * n bytes: see cid_objectid_fill. */
_Static_assert(sizeof(cid_objectid) == 12 && _Alignof(cid_objectid) == 1,
			   "cid_objectid must be its 12 bytes");

int
cid_objectid_parse(cid_objectid *out, const char *s, size_t len, size_t *errpos)
{
	uint8_t		b[12];

	if (out == NULL || (s == NULL && len > 0))
		return CID_EINVAL;
	if (len != CID_OBJECTID_STRLEN)
		return CID_ELENGTH;
	/* Three words of eight digits; cid_hex8 writes four bytes each. */
	if (cid_hex8(b, cid_load_le(s, 8)) && cid_hex8(b + 4, cid_load_le(s + 8, 8)) &&
		cid_hex8(b + 8, cid_load_le(s + 16, 8)))
	{
		memcpy(out->bytes, b, sizeof(b));
		return CID_OK;
	}
	if (errpos)
		*errpos = cid_hex_first_bad(s, len);
	return CID_ESYNTAX;
}

void
cid_objectid_format(char *out, const cid_objectid *oid)
{
	for (size_t i = 0; i < 12; i++)
		memcpy(out + 2 * i, cid_hex_pairs + 2 * (size_t) oid->bytes[i], 2);
	out[CID_OBJECTID_STRLEN] = '\0';
}

int64_t
cid_objectid_unix_ms(const cid_objectid *oid)
{
	const uint8_t *b = oid->bytes;

	/* The specification: big-endian and unsigned, so never before 1970. */
	return (int64_t) ((uint32_t) b[0] << 24 | (uint32_t) b[1] << 16 |
					  (uint32_t) b[2] << 8 | b[3]) * MS_PER_S;
}

/* The 4 bytes of seconds s (0 .. 2^32 - 1) and the 8 of rest. */
static void
build(cid_objectid *out, int64_t s, uint64_t rest)
{
	for (int i = 0; i < 4; i++)
		out->bytes[i] = (uint8_t) ((uint64_t) s >> (24 - 8 * i));
	cid_store_be64(out->bytes + 4, rest);
}

int
cid_objectid_from_ms(cid_objectid *out, int64_t unix_ms, const uint8_t *rest)
{
	if (out == NULL)
		return CID_EINVAL;
	if (unix_ms < 0 || unix_ms / MS_PER_S > SECONDS_MAX)
		return CID_ETIME_RANGE;
	build(out, unix_ms / MS_PER_S, rest ? cid_load_be64(rest) : 0);
	return CID_OK;
}

/* 8 fresh bytes: 5 of process and 3 of the counter's start. */
static int
draw_state(const cid_env *env, uint64_t *state)
{
	uint8_t		r[8];
	int			rc = cid_env_random(env, r, sizeof(r));

	if (rc == CID_OK)
		*state = cid_load_be64(r);
	return rc;
}

int
cid_objectid_init(cid_objectid_gen *gen, const cid_env *env)
{
	uint64_t	state;
	int			rc;

	if (gen == NULL)
		return CID_EINVAL;
	cid_env_copy(&gen->env, env);
	rc = draw_state(&gen->env, &state);
	if (rc != CID_OK)
		return rc;
	atomic_init(cid_atomic_u64(&gen->state), state);
	atomic_init(cid_atomic_u64(&gen->epoch), cid_random_fork_epoch());
	return CID_OK;
}

/*
 * In a child after fork(): new process bytes and counter before the first
 * ObjectId, or the child would mint the parent's.  One thread claims the
 * draw by marking the epoch word busy (tagged with the epoch it installs);
 * the others wait for it, so none issues from the parent's state.  A busy
 * mark with another epoch's tag was left by a thread that a later fork()
 * did not copy: it is taken over.
 */
static int
reseed(cid_objectid_gen *gen, uint64_t now_epoch)
{
	cid_atomic_u64_t *epoch = cid_atomic_u64(&gen->epoch);
	uint64_t	seen = atomic_load_explicit(epoch, memory_order_acquire);
	uint64_t	state;
	int			rc;

	while (seen != now_epoch)
	{
		if (seen == (EPOCH_BUSY | now_epoch))
		{
			sched_yield();
			seen = atomic_load_explicit(epoch, memory_order_acquire);
			continue;
		}
		if (!atomic_compare_exchange_weak_explicit(epoch, &seen, EPOCH_BUSY | now_epoch,
												   memory_order_acquire,
												   memory_order_acquire))
			continue;
		rc = draw_state(&gen->env, &state);
		if (rc != CID_OK)
		{
			/* give the claim back: the next call tries again */
			atomic_store_explicit(epoch, seen, memory_order_release);
			return rc;
		}
		atomic_store_explicit(cid_atomic_u64(&gen->state), state, memory_order_relaxed);
		atomic_store_explicit(epoch, now_epoch, memory_order_release);
		return CID_OK;
	}
	return CID_OK;
}

/*
 * The seconds of clock reading now_ns, or CID_ETIME_RANGE outside the
 * 32-bit field.
 */
static int
seconds_of(int64_t now_ns, int64_t *s)
{
	if (now_ns < 0 || now_ns / NS_PER_S > SECONDS_MAX)
		return CID_ETIME_RANGE;
	*s = now_ns / NS_PER_S;
	return CID_OK;
}

/*
 * The one step of the single call and the batch: reserve the next n
 * counter values with one compare-and-swap (so no other call's fall among
 * them), and return the state holding the first.  The counter wraps from
 * 0xffffff to 0 within its 24 bits, never carrying into the process bytes;
 * unsigned arithmetic keeps its low 24 bits right for any n.
 */
static uint64_t
reserve(cid_objectid_gen *gen, uint64_t n)
{
	cid_atomic_u64_t *state = cid_atomic_u64(&gen->state);
	uint64_t	last = atomic_load_explicit(state, memory_order_relaxed);

	while (!atomic_compare_exchange_weak_explicit(state, &last,
												  (last & ~COUNTER_MASK) |
												  ((last + n) & COUNTER_MASK),
												  memory_order_relaxed,
												  memory_order_relaxed))
		;
	return (last & ~COUNTER_MASK) | ((last + 1) & COUNTER_MASK);
}

/* ObjectIds first, first + 1, ... of second s (the counter wrapping). */
static void
build_run(cid_objectid *out, int64_t s, uint64_t first, size_t n)
{
	uint64_t	process = first & ~COUNTER_MASK;

	for (size_t i = 0; i < n; i++)
		build(&out[i], s, process | ((first + i) & COUNTER_MASK));
}

int
cid_objectid_next_at(cid_objectid_gen *gen, int64_t now_ns, cid_objectid *out)
{
	int64_t		s;
	int			rc;

	if (gen == NULL || out == NULL)
		return CID_EINVAL;
	rc = seconds_of(now_ns, &s);
	if (rc != CID_OK)
		return rc;
	build_run(out, s, reserve(gen, 1), 1);
	return CID_OK;
}

int
cid_objectid_fill(cid_objectid_gen *gen, cid_objectid *out, size_t n, size_t *done)
{
	uint64_t	now_epoch;
	int64_t		now_ns;
	int64_t		s;
	int			rc;

	rc = cid_fill_start(gen ? &gen->env : NULL, out, n, sizeof(cid_objectid), done, &now_ns);
	if (rc != CID_OK || n == 0)
		return rc;
	rc = seconds_of(now_ns, &s);
	if (rc != CID_OK)
		return rc;
	now_epoch = cid_random_fork_epoch();
	if (atomic_load_explicit(cid_atomic_u64(&gen->epoch), memory_order_acquire) != now_epoch)
	{
		rc = reseed(gen, now_epoch);
		if (rc != CID_OK)
			return rc;
	}
	build_run(out, s, reserve(gen, n), n);
	if (done != NULL)
		*done = n;
	return CID_OK;
}

int
cid_objectid_next(cid_objectid_gen *gen, cid_objectid *out)
{
	return cid_objectid_fill(gen, out, 1, NULL);
}
