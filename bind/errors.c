/*
 * errors.c — a failed status as every binding reports it: the stable code
 * (JavaScript's error.code), the class of error (Python's exception class)
 * and the words, for the core's statuses and the lease library's alike.
 */
#include <stdio.h>

#include "bind_internal.h"

/*
 * The table.  Values are what the caller gave wrong; everything that stops
 * a generator (clock, random source, claims, a lease or block lost) is a
 * generator error; a child's use of its parent's lease or block is a fork
 * error (a generator error too, in Python's classes).
 */
static const cid_bind_status statuses[] = {
	{CID_EINVAL, "CHRONOID_EINVAL", CID_BIND_VALUE_ERROR, "ChronoidValueError"},
	{CID_ENODE, "CHRONOID_ENODE", CID_BIND_VALUE_ERROR, "ChronoidValueError"},
	{CID_ELAYOUT, "CHRONOID_ELAYOUT", CID_BIND_VALUE_ERROR, "ChronoidValueError"},
	{CID_ESYNTAX, "CHRONOID_ESYNTAX", CID_BIND_VALUE_ERROR, "ChronoidValueError"},
	{CID_ELENGTH, "CHRONOID_ELENGTH", CID_BIND_VALUE_ERROR, "ChronoidValueError"},
	{CID_EOVERFLOW, "CHRONOID_EOVERFLOW", CID_BIND_VALUE_ERROR, "ChronoidValueError"},
	{CID_ETIME_RANGE, "CHRONOID_ETIME_RANGE", CID_BIND_VALUE_ERROR, "ChronoidValueError"},
	{CID_ENOTIME, "CHRONOID_ENOTIME", CID_BIND_VALUE_ERROR, "ChronoidValueError"},
	{CID_EUNKNOWN, "CHRONOID_EUNKNOWN", CID_BIND_VALUE_ERROR, "ChronoidValueError"},
	{CID_ECLOCK_BACKWARDS, "CHRONOID_ECLOCK_BACKWARDS", CID_BIND_GENERATOR_ERROR, "GeneratorError"},
	{CID_EDRIFT, "CHRONOID_EDRIFT", CID_BIND_GENERATOR_ERROR, "GeneratorError"},
	{CID_EWAIT_TIMEOUT, "CHRONOID_EWAIT_TIMEOUT", CID_BIND_GENERATOR_ERROR, "GeneratorError"},
	{CID_EEXHAUSTED, "CHRONOID_EEXHAUSTED", CID_BIND_GENERATOR_ERROR, "GeneratorError"},
	{CID_EMONOTONIC_OVERFLOW, "CHRONOID_EMONOTONIC_OVERFLOW", CID_BIND_GENERATOR_ERROR, "GeneratorError"},
	{CID_ERANDOM, "CHRONOID_ERANDOM", CID_BIND_GENERATOR_ERROR, "GeneratorError"},
	{CID_ECLOCK, "CHRONOID_ECLOCK", CID_BIND_GENERATOR_ERROR, "GeneratorError"},
	{CID_EAGAIN, "CHRONOID_EAGAIN", CID_BIND_WOULD_WAIT, "WouldWait"},
	{CID_ENODE_HELD, "CHRONOID_ENODE_HELD", CID_BIND_GENERATOR_ERROR, "GeneratorError"},
	{CID_ECLAIM, "CHRONOID_ECLAIM", CID_BIND_GENERATOR_ERROR, "GeneratorError"},
	{CID_EFORKED, "CHRONOID_EFORKED", CID_BIND_GENERATOR_ERROR, "GeneratorError"},
	{CID_ELEASE_DB, "CHRONOID_ELEASE_DB", CID_BIND_GENERATOR_ERROR, "GeneratorError"},
	{CID_ELEASE_FULL, "CHRONOID_ELEASE_FULL", CID_BIND_GENERATOR_ERROR, "GeneratorError"},
	{CID_ELEASE_EXPIRED, "CHRONOID_ELEASE_EXPIRED", CID_BIND_GENERATOR_ERROR, "GeneratorError"},
	{CID_ELEASE_LOST, "CHRONOID_ELEASE_LOST", CID_BIND_GENERATOR_ERROR, "GeneratorError"},
	{CID_ELEASE_FORKED, "CHRONOID_ELEASE_FORKED", CID_BIND_FORK_ERROR, "ForkError"},
	{CID_ELEASE_CLOCK, "CHRONOID_ELEASE_CLOCK", CID_BIND_GENERATOR_ERROR, "GeneratorError"},
	{CID_ELEASE_RELEASED, "CHRONOID_ELEASE_RELEASED", CID_BIND_GENERATOR_ERROR, "GeneratorError"},
	{CID_EBLOCK_DB, "CHRONOID_EBLOCK_DB", CID_BIND_GENERATOR_ERROR, "GeneratorError"},
	{CID_EBLOCK_EXHAUSTED, "CHRONOID_EBLOCK_EXHAUSTED", CID_BIND_GENERATOR_ERROR, "GeneratorError"},
	{CID_EBLOCK_FORKED, "CHRONOID_EBLOCK_FORKED", CID_BIND_FORK_ERROR, "ForkError"},
};

static const cid_bind_status unknown = {0, "CHRONOID_ERROR", CID_BIND_GENERATOR_ERROR, "GeneratorError"};

const cid_bind_status *
cid_bind_status_of(int status)
{
	for (size_t i = 0; i < sizeof(statuses) / sizeof(statuses[0]); i++)
		if (statuses[i].status == status)
			return &statuses[i];
	return &unknown;
}

const char *
cid_bind_strerror(int status)
{
#ifdef CID_BIND_LEASE
	return cid_lease_strerror(status);
#else
	return cid_strerror(status);
#endif
}

const char *
cid_bind_failure(char *out, size_t len, int status, const char *detail)
{
	if (detail == NULL || detail[0] == '\0')
		snprintf(out, len, "%s", cid_bind_strerror(status));
#ifdef CID_BIND_LEASE
	else if (status == CID_ELEASE_FULL)
		snprintf(out, len, "%s", detail);
#endif
	else
		snprintf(out, len, "%s: %s", cid_bind_strerror(status), detail);
	return out;
}
