/*
 * env_internal.h — a generator's cid_env with the platform's clock and
 * random source standing in for the parts the caller left NULL (shared by
 * libchronoid's generators; not installed).
 */
#ifndef CID_ENV_INTERNAL_H
#define CID_ENV_INTERNAL_H

#include <string.h>

#include "chronoid.h"

/* The generator's copy of env; a NULL env means every part is the platform's. */
static inline void
cid_env_copy(cid_env *dst, const cid_env *env)
{
	if (env != NULL)
		*dst = *env;
	else
		memset(dst, 0, sizeof(*dst));
}

/* Read env's clock (ns); CID_ECLOCK when it fails. */
static inline int
cid_env_now(const cid_env *env, int64_t *now_ns)
{
	cid_clock_fn clock = env->clock ? env->clock : cid_platform_clock;

	*now_ns = clock(env->ctx);
	return *now_ns < 0 ? CID_ECLOCK : CID_OK;
}

/* len random bytes from env's source; CID_ERANDOM when it fails. */
static inline int
cid_env_random(const cid_env *env, void *buf, size_t len)
{
	cid_random_fn fill = env->random ? env->random : cid_platform_random;

	return fill(env->ctx, buf, len) < 0 ? CID_ERANDOM : CID_OK;
}

#endif							/* CID_ENV_INTERNAL_H */
