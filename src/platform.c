/*
 * platform.c — the platform defaults of a cid_env: the wall clock, a short
 * wait, and random bytes.  The OS clock is read here and, through the
 * inline clock_internal.h, in the Snowflake generator's hot path; the
 * random bytes themselves come from the buffer in random.c.
 */
#define _GNU_SOURCE

#include <sched.h>
#include <time.h>

#include "chronoid.h"
#include "clock_internal.h"

#define NS_PER_SEC	INT64_C(1000000000)
#define NS_PER_MS	INT64_C(1000000)

/*
 * Below this a nanosleep() costs more than it saves: the kernel's timer
 * slack (50 us by default) plus the wake-up latency make the thread
 * oversleep, which under the "wait for next tick" policy leaves the start
 * of every tick unused.
 */
#define SPIN_BELOW_NS	(2 * NS_PER_MS)

/* What to leave to the spin phase after a long sleep, to absorb oversleep. */
#define SLEEP_MARGIN_NS NS_PER_MS

/* CLOCK_REALTIME as Unix nanoseconds: see clock_internal.h. */
int64_t
cid_platform_clock(void *ctx)
{
	(void) ctx;
	return cid_clock_realtime_ns();
}

/*
 * Wait about ns nanoseconds; callers re-read the clock after it and call
 * again while they must still wait.  Short waits (the rest of a
 * millisecond tick) spin on sched_yield(): another runnable thread may go
 * first, but the caller sees the tick change within microseconds instead
 * of a timer slack later.  The spin lasts the time
 * asked for (on CLOCK_MONOTONIC, so a clock step cannot stretch it), not a
 * single yield: callers such as the Snowflake driver bound their wait by
 * the total of the waits they asked for, which would run out early if a
 * 500 us wait returned after 1 us.  Long waits (clock behind) sleep for all
 * but the last millisecond, erring short against oversleeping; the next
 * call spins that millisecond away.
 */
void
cid_platform_sleep(void *ctx, int64_t ns)
{
	struct timespec ts;
	int64_t		sleep_ns;

	(void) ctx;
	if (ns <= 0)
		return;
	if (ns < SPIN_BELOW_NS)
	{
		int64_t		start = cid_clock_monotonic_ns();

		do
		{
			sched_yield();
		} while (start >= 0 && cid_clock_monotonic_ns() - start < ns);
		return;
	}
	sleep_ns = ns - SLEEP_MARGIN_NS;
	ts.tv_sec = (time_t) (sleep_ns / NS_PER_SEC);
	ts.tv_nsec = (long) (sleep_ns % NS_PER_SEC);

	/*
	 * An interrupting signal ends the wait early; that is allowed (the
	 * caller re-reads the clock), so EINTR needs no retry here.
	 */
	(void) nanosleep(&ts, NULL);
}

/* The buffered, fork-safe source of random.c, over its current raw source. */
int
cid_platform_random(void *ctx, void *buf, size_t len)
{
	(void) ctx;
	return cid_random_bytes(buf, len);
}
