/*
 * chronoid_internal.h — shared declarations of the chronoid extension's C
 * glue: the PostgreSQL environment for the core generators, error
 * reporting, and conversions between PostgreSQL timestamps and Unix
 * milliseconds.
 *
 * Naming.  A SQL function's C symbol is "chronoid_" followed by its name,
 * with its schema first when that is not the extension's own
 * (chronoid_ulid_in, chronoid_uuidv7, chronoid_snowflake_nextval), and a
 * suffix where one name has several C functions (chronoid_uuidv7_shift).
 * Older symbols that released install scripts name live on in
 * compat_symbols.c.  Functions the files share among themselves start
 * with cid_pg_; private headers end in _internal.h.
 */
#ifndef CID_PG_CHRONOID_INTERNAL_H
#define CID_PG_CHRONOID_INTERNAL_H

#include "postgres.h"

#include "datatype/timestamp.h"
#include "storage/lwlock.h"

#include "chronoid.h"

/* Plug pg_strong_random() in as the core's raw random source (_PG_init). */
void		cid_pg_env_init(void);

/* Clock, buffered random and interruptible sleep for core generators. */
const cid_env *cid_pg_env(void);

/*
 * The next UUIDv7 of uuidv7(): the server-wide generator when preloaded,
 * else the session's (uuid_funcs.c); ERROR on failure.
 */
void		cid_pg_uuidv7_next(cid_uuid *out);

/* Defined by snowflake_funcs.c: GUCs of the snowflake part. */
void		cid_pg_snowflake_init(void);

/*
 * Shared memory for the preloaded mode (preload_shmem.c).  A part
 * describes its zone and registers it from its init function, called by _PG_init; when
 * the module is not in shared_preload_libraries, registering does nothing.
 * At server start, startup(zone, locks, found) runs once in the
 * postmaster with the zone (size() bytes, zeroed by nothing: found says
 * whether it was already initialised) and, if nlwlocks > 0, that many
 * LWLocks of a tranche named after the part.  cid_pg_shmem_ready() is
 * true in every process of a server that preloaded the module.
 */
typedef struct cid_pg_shmem_part
{
	const char *name;
	Size		(*size) (void);
	int			nlwlocks;
	void		(*startup) (void *zone, LWLockPadded *locks, bool found);
} cid_pg_shmem_part;

void		cid_pg_shmem_register(const cid_pg_shmem_part *part);
void		cid_pg_shmem_register_done(void);
bool		cid_pg_shmem_ready(void);

/*
 * (Error helpers use C11 _Noreturn: PostgreSQL's own attribute macro is
 * spelled differently across 13..18.)
 *
 * ereport(ERROR) for a failed core call: "what: <cid_strerror(status)>",
 * with a SQLSTATE that fits the status.
 */
_Noreturn void cid_pg_report(int status, const char *what);

/* The SQLSTATE cid_pg_report() uses for a status. */
int			cid_pg_sqlstate(int status);

/*
 * How an input error names the character at byte pos of s (which must be
 * inside s): 'Character "z"', a multibyte character whole ('Character
 * "é"'), a control byte as 'Byte 0x09'.  *charpos gets its position,
 * counted in characters of the server encoding from 1, as users count.
 */
char	   *cid_pg_char_at(const char *s, size_t pos, int *charpos);

/*
 * ERROR for TypeID text cid_typeid_parse() refused with status rc and
 * byte position pos (typeid_funcs.c; chronoid_inspect() shares it).
 */
_Noreturn void cid_pg_typeid_error(const char *s, size_t len, int rc, size_t pos);

/*
 * PostgreSQL timestamps count microseconds since 2000-01-01 00:00 UTC;
 * the core counts Unix milliseconds.  To Unix ms floors (negative values
 * included) and raises 22008 for -infinity and infinity, naming the value
 * and the target ("type ulid"); with_tz says which timestamp type ts is.
 */
int64		cid_pg_ts_to_unix_ms(TimestampTz ts, bool with_tz, const char *target);

/* The same in Unix µs, exact (every finite timestamp fits). */
int64		cid_pg_ts_to_unix_us(TimestampTz ts, bool with_tz, const char *target);

/* 22008 for a finite timestamp the 48-bit millisecond formats cannot hold. */
_Noreturn void cid_pg_ts_range_error(TimestampTz ts, bool with_tz,
									 const char *target);

/*
 * 22008 naming the timestamp and target, for formats of other ranges:
 * detail says the range ("A KSUID holds times from ... to ... UTC.").
 */
_Noreturn void cid_pg_ts_out_of_range(TimestampTz ts, bool with_tz,
									  const char *target, const char *detail);

/*
 * Unix ms to a PostgreSQL timestamp (exact: ms * 1000 µs).  Every value
 * the 48-bit formats and 1582-based UUID times produce is in range.
 */
TimestampTz cid_pg_unix_ms_to_ts(int64 unix_ms);

#endif							/* CID_PG_CHRONOID_INTERNAL_H */
