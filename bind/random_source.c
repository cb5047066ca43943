/*
 * random_source.c — the packages' raw random source, chosen in one place:
 * OpenSSL's DRBG where a binding is built with libcrypto (CID_BIND_OPENSSL),
 * else the core's default, getrandom(2).  The core's per-thread buffer and
 * its fork defences (src/random.c, docs/design-random.md) stay in front of
 * either.  Not named random.c: the npm addon's build names objects after
 * their file, and the core has a random.c.
 */
#include <limits.h>

#include "bind_internal.h"

#ifdef CID_BIND_OPENSSL
#include <openssl/err.h>
#include <openssl/opensslv.h>
#include <openssl/rand.h>

/*
 * Before 1.1.1 OpenSSL's generator did not reseed in a forked child: a batch,
 * which skips the core's buffer, would repeat the parent's bytes there.
 */
#if OPENSSL_VERSION_NUMBER < 0x10101000L
#error "chronoid's packages need OpenSSL 1.1.1 or later (fork-safe RAND_bytes), or CHRONOID_NO_OPENSSL=1"
#endif

/*
 * RAND_bytes: a CTR_DRBG seeded from the kernel, one per thread, reseeded
 * when the process id changes (so also after _Fork() or clone(2), which run
 * no atfork handlers).  About ten times the kernel's throughput for the
 * thousands of bytes a batch draws in one request (docs/benchmarks.md).
 * It takes an int: a batch's bytes (at most 320 MiB, CID_BIND_MAX_BATCH
 * KSUIDs) fit, but a request above INT_MAX goes in parts rather than fail.
 */
static int
openssl_fill(void *buf, size_t len)
{
	unsigned char *p = buf;

	while (len > 0)
	{
		int			n = len > (size_t) INT_MAX ? INT_MAX : (int) len;

		if (RAND_bytes(p, n) != 1)
		{
			/*
			 * Not left in the thread's error queue for the next OpenSSL
			 * user in the process (Python's ssl module) to take as its own.
			 */
			ERR_clear_error();
			return -1;
		}
		p += n;
		len -= (size_t) n;
	}
	return 0;
}
#endif

void
cid_bind_random_start(void)
{
#ifdef CID_BIND_OPENSSL
	cid_random_set_source(openssl_fill);
#endif
}
