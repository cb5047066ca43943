/*
 * platform.c — libchronoid's platform defaults for WebAssembly: the wall
 * clock, a wait and random bytes come from the host page through three
 * imported functions (wasm/glue.js supplies Date.now(), performance.now()
 * and crypto.getRandomValues()).  Takes the place of src/platform.c and
 * src/random.c, which need an OS.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "chronoid.h"
#include "random_internal.h"
#include "wasm.h"

#define IMPORT(name) __attribute__((import_module("chronoid"), import_name(name)))

/*
 * Unix ms of the wall clock (Date.now()), and ms of a monotonic clock
 * (performance.now(), for waits only).  Doubles, not int64s: JavaScript
 * would make a BigInt for every reading.
 */
IMPORT("now_ms") double cw_host_now_ms(void);
IMPORT("mono_ms") double cw_host_mono_ms(void);

/* len bytes of crypto.getRandomValues() at p; 0, or -1 on failure. */
IMPORT("random") int32_t cw_host_random(void *p, uint32_t len);

/*
 * Random bytes are drawn from the host a pool at a time: a call into
 * JavaScript and getRandomValues() cost more than the ID they feed.  The
 * call's fixed cost dominates up to a few KB (in Chromium 1.2 us for 512
 * bytes, 1.9 us for 4,096: 24 ns against 5 ns of each UUIDv7's ten
 * bytes), so the pool is 4 KB.  A module instance is one thread (no
 * shared memory), and there is no fork: the pool needs neither a lock nor
 * a fork check.
 */
#define POOL_BYTES 4096
static uint8_t pool[POOL_BYTES];
static size_t pool_left;

int
cid_random_bytes(void *buf, size_t len)
{
	uint8_t    *out = buf;

	if (len > POOL_BYTES / 2)
		return cw_host_random(buf, (uint32_t) len) == 0 ? 0 : -1;
	if (pool_left < len)
	{
		if (cw_host_random(pool, POOL_BYTES) != 0)
			return -1;
		pool_left = POOL_BYTES;
	}
	/* Taken from the end, and wiped: no byte is handed out twice. */
	memcpy(out, pool + pool_left - len, len);
	memset(pool + pool_left - len, 0, len);
	pool_left -= len;
	return 0;
}

/* One process, never forked: process-bound state never goes stale. */
uint64_t
cid_random_fork_epoch(void)
{
	return 0;
}

/*
 * A reading of Date.now() the host took just before the call under way,
 * for the call's first clock reading: calling from the module back into
 * JavaScript for it cost as much as the rest of a Snowflake's step.  Any
 * later reading of the same call (a wait's) asks the host again.
 */
static bool hinted;
static double hint_ms;

void
cw_clock_hint(double now_ms)
{
	hint_ms = now_ms;
	hinted = true;
}

void
cw_clock_hint_clear(void)
{
	hinted = false;
}

int64_t
cid_platform_clock(void *ctx)
{
	double		ms = hinted ? hint_ms : cw_host_now_ms();

	(void) ctx;
	hinted = false;
	/* NaN or before 1970: a failed reading (CID_ECLOCK). */
	if (!(ms >= 0 && ms < 9.2e12))
		return -1;
	return (int64_t) ms * INT64_C(1000000);
}

int
cid_platform_random(void *ctx, void *buf, size_t len)
{
	(void) ctx;
	return cid_random_bytes(buf, len);
}

/*
 * Most clock readings one wait spins through: an edge runtime's clocks
 * stand still while a request runs (workerd moves them only on I/O).
 */
#define SPIN_MAX 100000

/*
 * Wait about ns: a page cannot block, so this spins on the monotonic
 * clock.  Only the Snowflake "wait" policies get here, for the rest of a
 * tick or a short clock step back; a wait that ends early is allowed (the
 * driver counts the time asked for toward maxWaitMs), so a clock that
 * never moves ends in CID_EWAIT_TIMEOUT or CID_EEXHAUSTED, not a hang.
 */
void
cid_platform_sleep(void *ctx, int64_t ns)
{
	double		start = cw_host_mono_ms();

	(void) ctx;
	for (int i = 0; ns > 0 && i < SPIN_MAX && (cw_host_mono_ms() - start) * 1e6 < (double) ns; i++)
		;
}

/* The cid_env every generator of the module uses: the host's parts. */
const cid_env cw_env = {cid_platform_clock, cid_platform_random, cid_platform_sleep, NULL};
