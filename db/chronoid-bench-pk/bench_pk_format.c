/*
 * bench_pk_format.c — the pure pieces of "chronoid bench-pk"'s output:
 * counts and durations as the progress line shows them, the progress line
 * itself, the chart's rate axis, and the test of a run too small to rank
 * the keys.  No I/O and no libpq, so tests/unit/test_bench_pk.c checks
 * them exactly.
 */
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "bench_pk_internal.h"

void
bpk_fmt(char *dst, size_t len, const char *fmt,...)
{
	va_list		ap;

	va_start(ap, fmt);
	vsnprintf(dst, len, fmt, ap);
	va_end(ap);
}

void
bpk_fmt_count(char *buf, size_t len, double v)
{
	/*
	 * Rounded the way printf rounds, the prefix chosen on the rounded
	 * value: 999,999 is "1.00M", not "1000.0k".
	 */
	if (v < 0)
		bpk_fmt(buf, len, "--");
	else if (v >= 999995)
		bpk_fmt(buf, len, "%.2fM", v / 1e6);
	else if (v >= 999.95)
		bpk_fmt(buf, len, "%.1fk", v / 1e3);
	else
		bpk_fmt(buf, len, "%.0f", v);
}

void
bpk_fmt_duration(char *buf, size_t len, double secs)
{
	long		s;

	if (!(secs >= 0) || secs > 359999)
	{
		bpk_fmt(buf, len, "--");
		return;
	}
	s = lround(secs);
	if (s >= 3600)
		bpk_fmt(buf, len, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
	else
		bpk_fmt(buf, len, "%ld:%02ld", s / 60, s % 60);
}

double
bpk_rate(uint64_t done, double t)
{
	return done > 0 && t > 0 ? (double) done / t : -1;
}

void
bpk_progress_text(char *buf, size_t len, const char *name, uint64_t done,
				  uint64_t rows, double rate, double secs)
{
	char		bar[BPK_BAR + 1],
				d[16],
				r[16],
				rate_s[16],
				when[24];
	int			i,
				fill;

	if (done > rows)
		done = rows;
	fill = rows > 0 ? (int) ((double) BPK_BAR * (double) done / (double) rows) : 0;
	for (i = 0; i < BPK_BAR; i++)
		bar[i] = i < fill ? '#' : '.';
	bar[BPK_BAR] = '\0';
	bpk_fmt_count(d, sizeof(d), (double) done);
	bpk_fmt_count(r, sizeof(r), (double) rows);
	bpk_fmt_count(rate_s, sizeof(rate_s), rate);
	if (secs >= 0)
	{
		/* the last frame: the key's figures, as the report gives them */
		char		dur[16];

		bpk_fmt_duration(dur, sizeof(dur), secs);
		bpk_fmt(when, sizeof(when), "in %s", dur);
	}
	else
	{
		char		eta[16];

		/* no ETA before a rate is known: a batch has to finish first */
		bpk_fmt_duration(eta, sizeof(eta),
						 rate > 0 ? (double) (rows - done) / rate : -1);
		bpk_fmt(when, sizeof(when), "ETA %s", eta);
	}
	bpk_fmt(buf, len, "%-16s [%s] %s/%s rows  %s rows/s  %s", name, bar, d, r, rate_s, when);
}

void
bpk_axis_for(bpk_axis *ax, double max)
{
	static const char *const prefixes[] = {"", "k", "M", "G"};
	double		raw,
				mag,
				norm,
				top,
				in_unit;
	int			p = 0;

	/* a tick every 1, 2 or 5 times a power of ten, about five of them */
	if (!(max > 0))
		max = 1;
	raw = max / 5;
	mag = 1;
	while (mag * 10 <= raw)
		mag *= 10;
	while (mag > raw)
		mag /= 10;
	norm = raw / mag;
	ax->step = (norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 5 ? 5 : 10) * mag;

	/*
	 * The largest prefix that keeps the top label at 1 or more; the top
	 * label is the first tick at or above max (gnuplot extends the range
	 * to it), so 900k in steps of 200k reads up to "1.0M", not "1000k".
	 */
	top = ceil(max / ax->step - 1e-9) * ax->step;
	ax->unit = 1;
	while (p < 3 && top >= ax->unit * 1000)
	{
		ax->unit *= 1000;
		p++;
	}
	ax->prefix = prefixes[p];

	/* enough decimals that two ticks never print alike: 1.0M 1.2M 1.4M */
	in_unit = ax->step / ax->unit;
	ax->decimals = 0;
	while (in_unit < 1 - 1e-9 && ax->decimals < 9)
	{
		in_unit *= 10;
		ax->decimals++;
	}
}

double
bpk_rows_to_outgrow(uint64_t rows, double index_bytes, double limit_bytes)
{
	/*
	 * An index grows about linearly with its rows: the one of index_bytes
	 * after rows reaches limit_bytes after rows * limit / index_bytes.
	 * -1: not a small run (the index outgrew the limit), or nothing to
	 * compare (a size unknown).
	 */
	if (!(index_bytes > 0) || !(limit_bytes > 0) || index_bytes >= limit_bytes)
		return -1;
	return ceil((double) rows * limit_bytes / index_bytes);
}
