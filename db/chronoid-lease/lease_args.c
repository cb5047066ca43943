/*
 * lease_args.c — the values "chronoid lease" takes on its command line:
 * durations (--ttl, --grace, --kill-after) and node ranges (--range).
 */
#include <stdint.h>
#include <string.h>

#include "lease_cmd_internal.h"

/* Digits only, no overflow past max. */
static bool
parse_digits(const char *s, size_t len, uint64_t max, uint64_t *out)
{
	uint64_t	v = 0;
	size_t		i;

	if (len == 0)
		return false;
	for (i = 0; i < len; i++)
	{
		if (s[i] < '0' || s[i] > '9')
			return false;
		if (v > (max - (uint64_t) (s[i] - '0')) / 10)
			return false;
		v = v * 10 + (uint64_t) (s[i] - '0');
	}
	*out = v;
	return true;
}

bool
lease_parse_duration(const char *s, int64_t *ms)
{
	const uint64_t day = UINT64_C(86400000);
	size_t		n,
				d;
	uint64_t	v,
				unit;

	if (s == NULL || ms == NULL)
		return false;
	n = strlen(s);
	for (d = 0; d < n && s[d] >= '0' && s[d] <= '9'; d++)
		;
	if (d == n || strcmp(s + d, "s") == 0)
		unit = 1000;
	else if (strcmp(s + d, "ms") == 0)
		unit = 1;
	else if (strcmp(s + d, "m") == 0)
		unit = 60000;
	else if (strcmp(s + d, "h") == 0)
		unit = 3600000;
	else
		return false;
	if (!parse_digits(s, d, day, &v) || v > day / unit)
		return false;
	*ms = (int64_t) (v * unit);
	return true;
}

bool
lease_parse_range(const char *s, uint64_t *lo, uint64_t *hi)
{
	const char *dash;
	uint64_t	a,
				b;

	if (s == NULL || lo == NULL || hi == NULL)
		return false;
	dash = strchr(s, '-');
	if (dash == NULL)
	{
		if (!parse_digits(s, strlen(s), UINT32_MAX, &a))
			return false;
		b = a;
	}
	else if (!parse_digits(s, (size_t) (dash - s), UINT32_MAX, &a) ||
			 !parse_digits(dash + 1, strlen(dash + 1), UINT32_MAX, &b))
		return false;
	if (a > b)
		return false;
	*lo = a;
	*hi = b;
	return true;
}
