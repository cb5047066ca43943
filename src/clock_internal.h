/*
 * clock_internal.h — the platform's clocks as inline functions (not
 * installed): the wall clock, shared by platform.c and the Snowflake
 * generator's hot path (which saves two call levels by reading it in
 * place), and the monotonic clock that every wait, timeout and rate in
 * the commands and database tools measures with.
 */
#ifndef CID_CLOCK_INTERNAL_H
#define CID_CLOCK_INTERNAL_H

#include <stdint.h>
#include <time.h>

/*
 * CLOCK_REALTIME as Unix nanoseconds: the wall clock of every ID.  A
 * signed 64-bit count lasts until 2262.  A clock that reads before 1970
 * comes out negative, which callers treat like a failure: no ID format
 * here can hold such an instant.  Includers need _POSIX_C_SOURCE (or
 * _GNU_SOURCE) for clock_gettime().
 */
static inline int64_t
cid_clock_realtime_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_REALTIME, &ts) != 0)
		return -1;
	return (int64_t) ts.tv_sec * INT64_C(1000000000) + (int64_t) ts.tv_nsec;
}

/*
 * CLOCK_MONOTONIC in nanoseconds (-1 if it cannot be read, which Linux
 * never does): elapsed time that a step of the wall clock cannot stretch
 * or shrink.  Its zero is arbitrary; only differences mean anything.
 */
static inline int64_t
cid_clock_monotonic_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
		return -1;
	return (int64_t) ts.tv_sec * INT64_C(1000000000) + (int64_t) ts.tv_nsec;
}

/* The same in milliseconds. */
static inline int64_t
cid_clock_monotonic_ms(void)
{
	return cid_clock_monotonic_ns() / 1000000;
}

/* The same in seconds, for rates and latencies printed as decimals. */
static inline double
cid_clock_monotonic_s(void)
{
	return (double) cid_clock_monotonic_ns() / 1e9;
}

#endif							/* CID_CLOCK_INTERNAL_H */
