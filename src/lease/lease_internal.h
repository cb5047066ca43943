/*
 * lease_internal.h — the lease object and the pure parts of
 * libchronoid_lease (lease_core.c), shared with the libpq part
 * (lease_pg.c) and the unit tests.  Not installed.
 */
#ifndef CID_LEASE_INTERNAL_H
#define CID_LEASE_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "chronoid_lease.h"

#define CID_LEASE_SCHEMA_MAX 63
#define CID_LEASE_HOLDER_LEN 32		/* hex digits of 16 random bytes */

struct pg_conn;					/* libpq's PGconn, without its header */

struct cid_lease
{
	/* The fence: read on every mint. */
	_Atomic int64_t deadline_ns;	/* monotonic; mint only before it */
	_Atomic int fenced;			/* 0, or the status that stopped it: sticky */
	unsigned	fork_gen;		/* cid_lease_fork_gen() when created */
	cid_lease_mono_fn mono;
	void	   *mono_ctx;
	cid_snowflake_gen gen;		/* node = the leased number */

	uint64_t	node;
	int64_t		ttl_ms;
	int64_t		grace_ms;
	int64_t		not_before_ms;	/* previous holder's last ms + its ttl */
	char		holder[CID_LEASE_HOLDER_LEN + 1];
	char		schema[CID_LEASE_SCHEMA_MAX + 1];
	char	   *conninfo;		/* NULL: PG* variables */
	struct pg_conn *conn;		/* the caller's thread: acquire, renew,
								 * release */
	struct pg_conn *rconn;		/* the renewer thread's */

	/* The renewer thread. */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool		sync_ready;		/* mu and cv initialised */
	pthread_t	thread;
	bool		thread_started;
	bool		stop;			/* under mu */
	char		errmsg[256];	/* under mu */
};

/* Bumped in every child after fork(): leases made before it are dead there. */
unsigned	cid_lease_fork_gen(void);

/* Monotonic now in ns for this lease (injected clock or CLOCK_MONOTONIC). */
int64_t		cid_lease_mono_now(const cid_lease *lease);
int64_t		cid_lease_default_mono(void *ctx);

/*
 * Set up the pure parts: generator (layout, opts, env) for node, seeded so
 * that it never issues at or before not_before_ms; valid until
 * start_ns + ttl on the lease's monotonic clock.
 */
int			cid_lease_init_local(cid_lease *lease, uint64_t node, const cid_lease_opts *opts,
								 int64_t not_before_ms, int64_t start_ns);

/* Push the deadline to t0_ns + ttl (never backwards, never when fenced). */
void		cid_lease_extend(cid_lease *lease, int64_t t0_ns);

/* Stop the lease with status (the first status wins; it stays). */
void		cid_lease_fence(cid_lease *lease, int status);

/* Status for minting at now_ns: 0, or why not (and fence on expiry). */
int			cid_lease_check_at(cid_lease *lease, int64_t now_ns);

/*
 * The highest wall-clock ms this lease's IDs can carry so far: the later
 * of the wall clock now and the generator's last tick (which runs ahead of
 * a clock that is behind).
 */
int64_t		cid_lease_last_ms(const cid_lease *lease);

/* Validate a schema name; copy it into out (CID_LEASE_SCHEMA_MAX + 1). */
bool		cid_lease_schema_ok(const char *schema, char *out);

/* snprintf into errbuf when it is there. */
void		cid_lease_seterr(char *errbuf, size_t errlen, const char *fmt,...)
			__attribute__((format(printf, 3, 4)));

#endif							/* CID_LEASE_INTERNAL_H */
