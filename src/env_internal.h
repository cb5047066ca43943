/*
 * env_internal.h — a generator's cid_env with the platform's clock and
 * random source standing in for the parts the caller left NULL (shared by
 * libchronoid's generators; not installed).  Includers need
 * _POSIX_C_SOURCE for clock_internal.h.
 */
#ifndef CID_ENV_INTERNAL_H
#define CID_ENV_INTERNAL_H

#include <stdint.h>
#include <string.h>

#include "chronoid.h"
#include "clock_internal.h"

/* The generator's copy of env; a NULL env means every part is the platform's. */
static inline void
cid_env_copy(cid_env *dst, const cid_env *env)
{
	if (env != NULL)
		*dst = *env;
	else
		memset(dst, 0, sizeof(*dst));
}

/*
 * Read env's clock (ns); CID_ECLOCK when it fails.  The platform's clock
 * is read in place (clock_internal.h) rather than through two calls: at
 * the cost of one clock read per ID, the calls show.
 */
static inline int
cid_env_now(const cid_env *env, int64_t *now_ns)
{
	*now_ns = env->clock ? env->clock(env->ctx) : cid_clock_realtime_ns();
	return *now_ns < 0 ? CID_ECLOCK : CID_OK;
}

/*
 * len random bytes from env's source; CID_ERANDOM when it fails.  The
 * platform's is the buffered source of random.c, called directly.
 */
static inline int
cid_env_random(const cid_env *env, void *buf, size_t len)
{
	int			rc = env->random ? env->random(env->ctx, buf, len) : cid_random_bytes(buf, len);

	return rc < 0 ? CID_ERANDOM : CID_OK;
}

/*
 * The start every batch driver (cid_*_fill) shares: *done (may be NULL)
 * set to 0, the arguments checked (env is NULL when the generator is; out
 * may be NULL only for n = 0; n IDs of size bytes must fit a size_t), and
 * env's clock read into *now_ns unless n is 0.  The caller returns the
 * status when it is not CID_OK or when n is 0.
 */
static inline int
cid_fill_start(const cid_env *env, const void *out, size_t n, size_t size, size_t *done,
			   int64_t *now_ns)
{
	if (done != NULL)
		*done = 0;
	*now_ns = 0;
	if (env == NULL || (out == NULL && n > 0) || n > SIZE_MAX / size)
		return CID_EINVAL;
	return n == 0 ? CID_OK : cid_env_now(env, now_ns);
}

#endif							/* CID_ENV_INTERNAL_H */
