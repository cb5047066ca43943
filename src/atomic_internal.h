/*
 * atomic_internal.h — the atomic view of a cid_atomic_word (not installed).
 * The public header declares the generators' shared state as aligned
 * bytes so that it compiles as C++; libchronoid, its tests and the
 * extension reach that storage only through these functions, as a C11
 * _Atomic uint64_t (the ULID generator's spin lock is one too: 0 free,
 * 1 held).
 */
#ifndef CID_ATOMIC_INTERNAL_H
#define CID_ATOMIC_INTERNAL_H

#include <stdatomic.h>
#include <stdint.h>

#include "chronoid.h"

/* The storage must hold the atomic objects as the platform lays them out. */
_Static_assert(sizeof(_Atomic uint64_t) <= sizeof(cid_atomic_word) &&
			   _Alignof(_Atomic uint64_t) <= _Alignof(cid_atomic_word),
			   "cid_atomic_word cannot hold an _Atomic uint64_t here");

/*
 * The storage is only ever accessed as the one atomic type it holds; the
 * may_alias attribute tells GCC and Clang not to assume otherwise from its
 * declared type.
 */
#if defined(__GNUC__) || defined(__clang__)
typedef _Atomic uint64_t cid_atomic_u64_t __attribute__((may_alias));
#else
typedef _Atomic uint64_t cid_atomic_u64_t;
#endif

static inline cid_atomic_u64_t *
cid_atomic_u64(cid_atomic_word *w)
{
	return (cid_atomic_u64_t *) (void *) w->opaque_;
}

/* A load from a generator the caller holds as const (C11's atomic_load takes no const). */
static inline uint64_t
cid_atomic_u64_load(const cid_atomic_word *w, memory_order order)
{
	return atomic_load_explicit((cid_atomic_u64_t *) (void *) (uintptr_t) w->opaque_, order);
}

#endif							/* CID_ATOMIC_INTERNAL_H */
