/*
 * time.c — UTC time text for libchronoid: RFC 3339 output with milliseconds
 * and a small parser, on the proleptic Gregorian calendar (no leap seconds).
 */
#include "chronoid.h"
#include "time_internal.h"

#include <string.h>

/*
 * The calendar arithmetic counts years from March, so that the leap day is
 * the last day of its "year", and splits time into 400-year eras of 146097
 * days (the Gregorian cycle).  This is the well-known days-from-civil
 * method (H. Hinnant, "chrono-Compatible Low-Level Date Algorithms").
 */
int64_t
cid_days_from_civil(int64_t year, int month, int day)
{
	int64_t		y = year - (month <= 2 ? 1 : 0);
	int64_t		era = cid_floor_div(y, 400);
	int64_t		yoe = y - era * 400;	/* 0 .. 399 */
	int64_t		mp = (month + 9) % 12;	/* March = 0 */
	int64_t		doy = (153 * mp + 2) / 5 + day - 1;
	int64_t		doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;

	/* 719468 days from 0000-03-01 to 1970-01-01 */
	return era * 146097 + doe - 719468;
}

void
cid_civil_from_days(int64_t days, int64_t *year, int *month, int *day)
{
	int64_t		z = days + 719468;
	int64_t		era = cid_floor_div(z, 146097);
	int64_t		doe = z - era * 146097; /* 0 .. 146096 */
	int64_t		yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t		doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	int64_t		mp = (5 * doy + 2) / 153;
	int			m = (int) (mp < 10 ? mp + 3 : mp - 9);

	*day = (int) (doy - (153 * mp + 2) / 5 + 1);
	*month = m;
	*year = yoe + era * 400 + (m <= 2 ? 1 : 0);
}

int
cid_days_in_month(int64_t year, int month)
{
	static const int mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	bool		leap;

	if (month < 1 || month > 12)
		return 0;
	leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
	return mdays[month - 1] + (month == 2 && leap ? 1 : 0);
}

/* Write v as exactly width decimal digits (v < 10^width). */
static char *
put_digits(char *p, int64_t v, int width)
{
	for (int i = width - 1; i >= 0; i--)
	{
		p[i] = (char) ('0' + v % 10);
		v /= 10;
	}
	return p + width;
}

int
cid_time_format(char *out, int64_t unix_ms)
{
	int64_t		days = cid_floor_div(unix_ms, CID_MS_PER_DAY);
	int64_t		ms_of_day = cid_floor_mod(unix_ms, CID_MS_PER_DAY);
	int64_t		year;
	int			month,
				day;
	char	   *p = out;

	if (out == NULL)
		return CID_EINVAL;
	cid_civil_from_days(days, &year, &month, &day);
	if (year < 0 || year > 99999)
		return CID_ETIME_RANGE;
	p = put_digits(p, year, year > 9999 ? 5 : 4);
	*p++ = '-';
	p = put_digits(p, month, 2);
	*p++ = '-';
	p = put_digits(p, day, 2);
	*p++ = 'T';
	p = put_digits(p, ms_of_day / 3600000, 2);
	*p++ = ':';
	p = put_digits(p, ms_of_day / 60000 % 60, 2);
	*p++ = ':';
	p = put_digits(p, ms_of_day / 1000 % 60, 2);
	*p++ = '.';
	p = put_digits(p, ms_of_day % 1000, 3);
	*p++ = 'Z';
	*p = '\0';
	return CID_OK;
}

static bool
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/*
 * Read exactly n digits at s[*pos]; CID_ESYNTAX (with *pos at the bad
 * character) when one is missing.
 */
static int
take_digits(const char *s, size_t len, size_t *pos, int n, int64_t *v)
{
	*v = 0;
	for (int i = 0; i < n; i++)
	{
		if (*pos >= len || !is_digit(s[*pos]))
			return CID_ESYNTAX;
		*v = *v * 10 + (s[*pos] - '0');
		(*pos)++;
	}
	return CID_OK;
}

static int
take_char(const char *s, size_t len, size_t *pos, char c)
{
	if (*pos >= len || s[*pos] != c)
		return CID_ESYNTAX;
	(*pos)++;
	return CID_OK;
}

/* A plain (optionally negative) integer of Unix milliseconds. */
static int
parse_integer_ms(int64_t *unix_ms, const char *s, size_t len, size_t *errpos)
{
	size_t		pos = 0;
	bool		neg = false;
	uint64_t	mag = 0;
	uint64_t	limit;

	if (s[0] == '-')
	{
		neg = true;
		pos = 1;
	}
	if (pos >= len)
	{
		*errpos = pos;
		return CID_ESYNTAX;
	}
	/* |INT64_MIN| = INT64_MAX + 1 */
	limit = neg ? (uint64_t) INT64_MAX + 1 : (uint64_t) INT64_MAX;
	for (; pos < len; pos++)
	{
		unsigned	d;

		if (!is_digit(s[pos]))
		{
			*errpos = pos;
			return CID_ESYNTAX;
		}
		d = (unsigned) (s[pos] - '0');
		if (mag > (limit - d) / 10)
		{
			*errpos = pos;
			return CID_ETIME_RANGE;
		}
		mag = mag * 10 + d;
	}
	if (neg)
		*unix_ms = mag == (uint64_t) INT64_MAX + 1 ? INT64_MIN : -(int64_t) mag;
	else
		*unix_ms = (int64_t) mag;
	return CID_OK;
}

int
cid_time_parse(int64_t *unix_ms, const char *s, size_t len, size_t *errpos)
{
	size_t		dummy;
	size_t		pos = 0;
	size_t		ndig = 0;
	size_t		field_pos[6] = {0};
	int64_t		year,
				mon,
				day,
				hh = 0,
				mi = 0,
				ss = 0,
				frac_ms = 0;
	int			rc;

	if (errpos == NULL)
		errpos = &dummy;
	*errpos = 0;
	if (unix_ms == NULL || (s == NULL && len > 0))
		return CID_EINVAL;
	if (len == 0)
		return CID_ESYNTAX;

	while (ndig < len && is_digit(s[ndig]))
		ndig++;
	if (s[0] == '-' || ndig == len)
		return parse_integer_ms(unix_ms, s, len, errpos);
	if (ndig != 4 && ndig != 5)
	{
		/* a date needs a 4- or 5-digit year before its '-' */
		*errpos = ndig < 4 ? ndig : 5;
		return CID_ESYNTAX;
	}

	field_pos[0] = 0;
	rc = take_digits(s, len, &pos, (int) ndig, &year);
	if (rc == CID_OK)
		rc = take_char(s, len, &pos, '-');
	field_pos[1] = pos;
	if (rc == CID_OK)
		rc = take_digits(s, len, &pos, 2, &mon);
	if (rc == CID_OK)
		rc = take_char(s, len, &pos, '-');
	field_pos[2] = pos;
	if (rc == CID_OK)
		rc = take_digits(s, len, &pos, 2, &day);
	if (rc == CID_OK && pos < len)
	{
		if (s[pos] == 'T' || s[pos] == 't' || s[pos] == ' ')
			pos++;
		else
			rc = CID_ESYNTAX;
		field_pos[3] = pos;
		if (rc == CID_OK)
			rc = take_digits(s, len, &pos, 2, &hh);
		if (rc == CID_OK)
			rc = take_char(s, len, &pos, ':');
		field_pos[4] = pos;
		if (rc == CID_OK)
			rc = take_digits(s, len, &pos, 2, &mi);
		if (rc == CID_OK)
			rc = take_char(s, len, &pos, ':');
		field_pos[5] = pos;
		if (rc == CID_OK)
			rc = take_digits(s, len, &pos, 2, &ss);
		if (rc == CID_OK && pos < len && s[pos] == '.')
		{
			/* 1 to 9 fraction digits; beyond milliseconds they are cut */
			int			nfrac = 0;

			pos++;
			while (pos < len && is_digit(s[pos]) && nfrac < 9)
			{
				if (nfrac < 3)
					frac_ms = frac_ms * 10 + (s[pos] - '0');
				nfrac++;
				pos++;
			}
			if (nfrac == 0)
				rc = CID_ESYNTAX;
			for (; nfrac < 3; nfrac++)
				frac_ms *= 10;
		}
		if (rc == CID_OK && pos < len && (s[pos] == 'Z' || s[pos] == 'z'))
			pos++;
		if (rc == CID_OK && pos < len)
			rc = CID_ESYNTAX;
	}
	if (rc != CID_OK)
	{
		*errpos = pos;
		return rc;
	}

	if (mon < 1 || mon > 12)
	{
		*errpos = field_pos[1];
		return CID_ETIME_RANGE;
	}
	if (day < 1 || day > cid_days_in_month(year, (int) mon))
	{
		*errpos = field_pos[2];
		return CID_ETIME_RANGE;
	}
	if (hh > 23 || mi > 59 || ss > 59)
	{
		*errpos = field_pos[hh > 23 ? 3 : mi > 59 ? 4 : 5];
		return CID_ETIME_RANGE;
	}
	*unix_ms = cid_days_from_civil(year, (int) mon, (int) day) * CID_MS_PER_DAY
		+ ((hh * 60 + mi) * 60 + ss) * 1000 + frac_ms;
	return CID_OK;
}
