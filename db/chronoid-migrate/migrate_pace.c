/*
 * migrate_pace.c — how fast the backfill goes: batch sizes adapted so a
 * batch holds its row locks about 200 ms, a pause after each so writers
 * get the table back, and the progress shown meanwhile.
 */
#define _GNU_SOURCE

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "migrate_steps_internal.h"

#define PACE_MIN 100
#define PACE_MAX 50000
#define PACE_FIRST 1000
#define PACE_TARGET_MS 200
/* The adaptive pause never exceeds this: one batch stalled by something else must not stall the run. */
#define PACE_MAX_PAUSE_MS 2000
/*
 * A batch holds its rows' locks until it commits, and a writer updating
 * one of them waits that long: whatever slows a batch (a starved machine,
 * a subscriber catching up, a checkpoint), it is cancelled at this and
 * tried again with half as many rows, so that no writer waits longer.
 */
#define PACE_CAP_MS 1000

void
mig_sleep_ms(int64_t ms)
{
	struct timespec ts;

	if (ms <= 0)
		return;
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (long) (ms % 1000) * 1000000L;
	/* A signal cuts the sleep short: the caller checks mig_interrupted(). */
	(void) nanosleep(&ts, NULL);
}

void
mig_pace_init(mig_pace *p, int64_t fixed_batch, int64_t pause_ms)
{
	p->fixed_batch = fixed_batch;
	p->batch = fixed_batch > 0 ? fixed_batch : PACE_FIRST;
	p->pause_ms = pause_ms;
	p->target_ms = PACE_TARGET_MS;
	p->cap_ms = PACE_CAP_MS;
}

bool
mig_pace_shrink(mig_pace *p)
{
	if (p->batch <= 1)
		return false;
	p->batch /= 2;
	/* --batch too: the cap protects the writers, whatever size was asked for. */
	if (p->fixed_batch > 0)
		p->fixed_batch = p->batch;
	return true;
}

int64_t
mig_pace_after(mig_pace *p, int64_t rows, int64_t took_ms)
{
	if (p->fixed_batch == 0 && rows > 0)
	{
		/*
		 * Aim the next batch at the target time from this one's rate, but
		 * move at most by half or double: one slow batch (a checkpoint, a
		 * writer's lock) must not collapse the size.
		 */
		int64_t		t = took_ms < 1 ? 1 : took_ms;
		int64_t		want = rows * p->target_ms / t;

		if (want > p->batch * 2)
			want = p->batch * 2;
		if (want < p->batch / 2)
			want = p->batch / 2;
		if (want < PACE_MIN)
			want = PACE_MIN;
		if (want > PACE_MAX)
			want = PACE_MAX;
		p->batch = want;
	}
	/*
	 * By default as long a pause as the batch took (the writers get half
	 * the time at least), up to PACE_MAX_PAUSE_MS.
	 */
	if (p->pause_ms >= 0)
		return p->pause_ms;
	return took_ms < PACE_MAX_PAUSE_MS ? took_ms : PACE_MAX_PAUSE_MS;
}

void
mig_fmt_count(char *buf, size_t len, int64_t n)
{
	char		tmp[32];
	size_t		d,
				i,
				o = 0;

	snprintf(tmp, sizeof(tmp), "%lld", (long long) (n < 0 ? 0 : n));
	d = strlen(tmp);
	for (i = 0; i < d && o + 2 < len; i++)
	{
		if (i > 0 && (d - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = tmp[i];
	}
	buf[o] = '\0';
}

void
mig_fmt_secs(char *buf, size_t len, double secs)
{
	long long	s = (long long) (secs + 0.5);

	if (secs < 0)
		snprintf(buf, len, "--");
	else if (s < 60)
		snprintf(buf, len, "%llds", s);
	else if (s < 3600)
		snprintf(buf, len, "%lldm%02llds", s / 60, s % 60);
	else
		snprintf(buf, len, "%lldh%02lldm", s / 3600, (s % 3600) / 60);
}

void
mig_fmt_now(char *buf, size_t len)
{
	time_t		now = time(NULL);
	struct tm	tm;

	if (gmtime_r(&now, &tm) == NULL || strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		snprintf(buf, len, "-");
}

void
mig_progress_start(mig_progress *p, const char *what, int64_t total, int64_t done, bool bar)
{
	memset(p, 0, sizeof(*p));
	p->what = what;
	p->total = total;
	p->done = done;
	p->start_done = done;
	p->start_ms = cid_clock_monotonic_ms();
	p->bar = bar;
}

void
mig_progress_update(mig_progress *p, int64_t done, const char *note)
{
	int64_t		now = cid_clock_monotonic_ms();
	double		secs = (double) (now - p->start_ms) / 1000.0;
	double		rate = secs > 0 ? (double) (done - p->start_done) / secs : 0;
	char		d[32],
				t[32],
				r[32],
				eta[32];
	int			pct;

	p->done = done;
	/* Plain lines every 5 s (a log should not fill up); the bar 5 times a second. */
	if (note == NULL && now - p->last_ms < (p->bar ? 200 : 5000))
		return;
	p->last_ms = now;
	mig_fmt_count(d, sizeof(d), done);
	mig_fmt_count(t, sizeof(t), p->total);
	mig_fmt_count(r, sizeof(r), (int64_t) rate);
	if (rate > 0 && p->total > done)
		mig_fmt_secs(eta, sizeof(eta), (double) (p->total - done) / rate);
	else
		snprintf(eta, sizeof(eta), p->total > done ? "--" : "0s");
	pct = p->total > 0 ? (int) (done * 100 / p->total) : 100;
	if (pct > 100)
		pct = 100;
	if (p->bar)
	{
		char		bar[31];
		int			fill = pct * 30 / 100,
					i;

		for (i = 0; i < 30; i++)
			bar[i] = i < fill ? '#' : '.';
		bar[30] = '\0';
		fprintf(stderr, "\r%s [%s] %3d%% %s/%s rows, %s rows/s, ETA %s%s%s\033[K",
				p->what, bar, pct, d, t, r, eta, note ? "  " : "", note ? note : "");
		p->drawn = true;
	}
	else
	{
		char		ts[32];

		/* A log read later (hours of backfill) needs to say when, not only how far. */
		mig_fmt_now(ts, sizeof(ts));
		fprintf(stderr, "%s %s: %s of ~%s rows (%d%%), %s rows/s, ETA %s%s%s\n",
				ts, p->what, d, t, pct, r, eta, note ? "; " : "", note ? note : "");
	}
	fflush(stderr);
}

void
mig_progress_end(mig_progress *p)
{
	p->last_ms = 0;
	mig_progress_update(p, p->done, NULL);
	if (p->bar && p->drawn)
		fputc('\n', stderr);
}
