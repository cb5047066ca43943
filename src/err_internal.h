/*
 * err_internal.h — how the core's calls that do I/O (node_claim.c,
 * snowflake_claimed.c) fill a caller's message buffer: printf into it
 * when there is one, and hand the status back.
 */
#ifndef CID_ERR_INTERNAL_H
#define CID_ERR_INTERNAL_H

#include <stdarg.h>
#include <stdio.h>

#include "compiler_internal.h"

static inline int cid_fail(int status, char *err, size_t errlen, const char *fmt,...) CID_PRINTF(4, 5);

/* printf fmt into err (errlen bytes; err may be NULL); returns status. */
static inline int
cid_fail(int status, char *err, size_t errlen, const char *fmt,...)
{
	if (err != NULL && errlen > 0)
	{
		va_list		ap;

		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return status;
}

#endif							/* CID_ERR_INTERNAL_H */
