/*
 * time_internal.h — calendar and integer helpers shared by libchronoid's
 * source files (not installed).  Times are Unix milliseconds, UTC, on the
 * proleptic Gregorian calendar.
 */
#ifndef CID_TIME_INTERNAL_H
#define CID_TIME_INTERNAL_H

#include <stdint.h>

#define CID_MS_PER_DAY INT64_C(86400000)
#define CID_NS_PER_MS INT64_C(1000000)

/* Floor division and the matching non-negative remainder (b > 0). */
static inline int64_t
cid_floor_div(int64_t a, int64_t b)
{
	int64_t		q = a / b;

	/* C truncates toward zero; step down once for negative inexact quotients */
	if ((a % b != 0) && (a < 0))
		q--;
	return q;
}

static inline int64_t
cid_floor_mod(int64_t a, int64_t b)
{
	int64_t		r = a % b;

	/* not a - floor_div * b: that product overflows near INT64_MIN */
	return r < 0 ? r + b : r;
}

/* Days since 1970-01-01 of a civil date (month 1..12, day 1..31). */
int64_t		cid_days_from_civil(int64_t year, int month, int day);

/* The civil date of a day count since 1970-01-01. */
void		cid_civil_from_days(int64_t days, int64_t *year, int *month, int *day);

/* Days in a month of a year (proleptic Gregorian leap rule). */
int			cid_days_in_month(int64_t year, int month);

#endif							/* CID_TIME_INTERNAL_H */
