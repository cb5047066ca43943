/*
 * lease_internal.h — the lease object, the pure parts of libchronoid_lease
 * (lease_core.c) and what its PostgreSQL files (lease_conn.c, setup,
 * acquire, renew, release, list) share.  Used by the unit tests too; not
 * installed.
 */
#ifndef CID_LEASE_INTERNAL_H
#define CID_LEASE_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "chronoid_lease.h"
#include "compiler_internal.h"

#define CID_LEASE_SCHEMA_MAX 63
#define CID_LEASE_HOLDER_LEN 32		/* hex digits of 16 random bytes */

struct pg_conn;					/* libpq's PGconn, without its header */
struct pg_result;				/* libpq's PGresult */

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

/*
 * The schema name (NULL: "chronoid") and the owner text (NULL: none
 * given) of a lease's options: CID_OK with the schema copied into
 * schema_out (CID_LEASE_SCHEMA_MAX + 1 bytes), or CID_EINVAL with errbuf
 * naming the value and what was expected (lease_text.c).
 */
int			cid_lease_texts_ok(const char *schema, const char *owner, char *schema_out,
							   char *errbuf, size_t errlen);

/*
 * text for a message: quoted, control bytes as \xNN, cut after 64 bytes
 * at a character's start; out holds CID_LEASE_SHOWN_MAX bytes (64 bytes
 * shown four times over, a character's last 3 bytes, "...", the quotes).
 * Returns out.
 */
#define CID_LEASE_SHOWN_MAX 280
const char *cid_lease_shown(char *out, const char *text);

/*
 * snprintf into errbuf when it is there: db/pq/pq.c's, declared again here
 * for lease_core.c, which stays free of libpq's header.
 */
void		cid_pq_seterr(char *errbuf, size_t errlen, const char *fmt,...) CID_PRINTF(3, 4);

/* ------------------------------------------------------------------------
 * The PostgreSQL side, shared by lease_*.c (lease_conn.c unless noted)
 * ------------------------------------------------------------------------ */

/* Statement budget for the caller's own calls (setup, acquire, list). */
#define CID_LEASE_CALL_TIMEOUT_MS 30000

/* Options checked and completed: schema, ttl, grace, range. */
typedef struct cid_lease_cfg
{
	cid_lease_opts o;
	char		schema[CID_LEASE_SCHEMA_MAX + 1];
	const char *conninfo;		/* NULL for the PG* variables */
} cid_lease_cfg;

/* Options checked and completed into c; CID_EINVAL with errbuf set. */
int			cid_lease_get_cfg(cid_lease_cfg *c, const cid_lease_opts *opts,
							  char *errbuf, size_t errlen);

/*
 * The start of every one-shot call: errbuf cleared, options checked, then
 * args_ok (CID_EINVAL), then a trusted connection (CID_ELEASE_DB).  NULL
 * with *rc set on failure.
 */
struct pg_conn *cid_lease_call_begin(cid_lease_cfg *c, const cid_lease_opts *opts,
								 bool args_ok, char *errbuf, size_t errlen, int *rc);

/* A connection (search path pinned by db/pq) whose schema passed the trust check. */
struct pg_conn *cid_lease_connect(const char *conninfo, const char *schema,
							  int64_t timeout_ms, char *errbuf, size_t errlen);

/* The trust check alone (setup runs it again inside its transaction). */
bool		cid_lease_trust(struct pg_conn *conn, const char *schema, char *errbuf, size_t errlen);

/* cid_pq_exec() with the lease's wording of failures. */
struct pg_result *cid_lease_exec(struct pg_conn *conn, const char *sql, int nparams,
						   const char *const *params, int64_t timeout_ms,
						   bool *broken, char *errbuf, size_t errlen);

/* One statement within CID_LEASE_CALL_TIMEOUT_MS; true on success. */
bool		cid_lease_do(struct pg_conn *conn, const char *sql, char *errbuf, size_t errlen);

/* The wall clock in ms (the injected one when opts has it). */
int64_t		cid_lease_wall_ms(const cid_lease_opts *opts);

/* Free a lease's memory and, with close_conns, its connections (lease_conn.c). */
void		cid_lease_destroy(cid_lease *l, bool close_conns);

/* Whether l was made before a fork() of this process (lease_renew.c). */
bool		cid_lease_forked(const cid_lease *l);

/* The renewer thread's body (lease_renew.c). */
void	   *cid_lease_renewer_main(void *arg);

/* Stop and join the renewer thread when it runs (lease_renew.c). */
void		cid_lease_stop_renewer(cid_lease *l);

/*
 * The UPDATE every renewal runs (lease_renew.c), with the schema for %s:
 * $1 node, $2 holder, $3 ttl ms, $4 last ms.
 */
extern const char cid_lease_renew_sql[];

/* Give node back on conn, stamping last_ms (lease_conn.c). */
int			cid_lease_release_on(struct pg_conn *conn, const char *schema, uint64_t node,
								 const char *holder, int64_t last_ms,
								 char *errbuf, size_t errlen);

#endif							/* CID_LEASE_INTERNAL_H */
