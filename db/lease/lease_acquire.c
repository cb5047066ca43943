/*
 * lease_acquire.c — cid_lease_acquire(): the lowest free node number under
 * a table lock, decided on the server's clock, never one a database
 * server holds in snowflake.node_registry.
 */
#define _GNU_SOURCE

#include <pthread.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libpq-fe.h>

#include "lease_internal.h"
#include "pq_internal.h"

/*
 * A statement of the acquisition failed: clear its result, roll the
 * transaction back and say whether to try again.  A serialization failure,
 * a deadlock or a duplicate key comes from another session acquiring at
 * the same time (CID_EAGAIN); anything else is CID_ELEASE_DB.
 */
static int
abandon(PGconn *conn, PGresult *res)
{
	const char *st = res != NULL ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
	int			rc = st != NULL && (strcmp(st, "40001") == 0 || strcmp(st, "40P01") == 0 ||
									strcmp(st, "23505") == 0) ? CID_EAGAIN : CID_ELEASE_DB;

	PQclear(res);
	(void) cid_lease_do(conn, "ROLLBACK", NULL, 0);
	return rc;
}

static int
make_holder(char *out)
{
	uint8_t		b[CID_LEASE_HOLDER_LEN / 2];
	static const char hex[] = "0123456789abcdef";
	size_t		i;

	if (cid_platform_random(NULL, b, sizeof(b)) != 0)
		return CID_ERANDOM;
	for (i = 0; i < sizeof(b); i++)
	{
		out[2 * i] = hex[b[i] >> 4];
		out[2 * i + 1] = hex[b[i] & 15];
	}
	out[CID_LEASE_HOLDER_LEN] = '\0';
	return CID_OK;
}

/*
 * The node registry, snowflake.node_registry: into reg its name, "" when
 * the database has none.  The acquire reads it in its next statements,
 * so it must pass the trust check of the lease's own table, triggers
 * apart (cid_pq_trusted_read): a schema or table that another role owns could be
 * renamed and replaced by a view that runs that role's code with our
 * rights, or claims every node.  False with errbuf set on refusal or
 * failure.
 */
static bool
find_registry(PGconn *conn, char *reg, size_t reglen, char *errbuf, size_t errlen)
{
	char		why[512];
	bool		broken;
	int			trusted;
	PGresult   *res = cid_lease_exec(conn, "SELECT pg_catalog.to_regclass('snowflake.node_registry') IS NOT NULL",
									 0, NULL, CID_LEASE_CALL_TIMEOUT_MS, &broken, errbuf, errlen);

	reg[0] = '\0';
	if (!cid_pq_ok(res))
	{
		PQclear(res);
		return false;
	}
	if (strcmp(PQgetvalue(res, 0, 0), "t") != 0)
	{
		PQclear(res);
		return true;
	}
	PQclear(res);
	trusted = cid_pq_trusted_read(conn, "snowflake", "^node_registry$", CID_LEASE_CALL_TIMEOUT_MS,
								  why, sizeof(why), errbuf, errlen);
	if (trusted < 0)
		return false;
	if (trusted == 0)
	{
		cid_pq_seterr(errbuf, errlen, "refusing to read the node registry snowflake.node_registry: "
					  "%s (whoever controls it could replace it with a view of its own, run with "
					  "your rights; see docs/cluster.md)", why);
		return false;
	}
	snprintf(reg, reglen, "snowflake.node_registry");
	return true;
}

/*
 * One try of the acquire transaction.  Returns CID_OK with *node,
 * *not_before set and the transaction committed; CID_EAGAIN when a
 * retryable error happened; another status otherwise.
 */
static int
acquire_once(PGconn *conn, const cid_lease_cfg *c, const char *holder, const char *owner,
			 uint64_t lo, uint64_t hi, uint64_t *node, int64_t *not_before, int64_t *t0,
			 const cid_lease *l, char *errbuf, size_t errlen)
{
	char		sql[1536];
	char		reg[160];
	char		p_lo[24],
				p_hi[24],
				p_grace[24],
				p_ttl[24],
				p_node[24],
				p_wall[24];
	const char *params[7];
	PGresult   *res;
	bool		broken,
				registry;
	int64_t		wall,
				nb = 0;

	if (!cid_lease_do(conn, "BEGIN", errbuf, errlen))
		return CID_ELEASE_DB;
	/* Acquisitions are rare: take them one at a time. */
	snprintf(sql, sizeof(sql), "LOCK TABLE %s.node_lease IN SHARE ROW EXCLUSIVE MODE", c->schema);
	res = cid_lease_exec(conn, sql, 0, NULL, CID_LEASE_CALL_TIMEOUT_MS, &broken, errbuf, errlen);
	if (!cid_pq_ok(res))
		return abandon(conn, res);
	PQclear(res);
	if (!find_registry(conn, reg, sizeof(reg), errbuf, errlen))
	{
		(void) cid_lease_do(conn, "ROLLBACK", NULL, 0);
		return CID_ELEASE_DB;
	}
	registry = reg[0] != '\0';

	snprintf(p_lo, sizeof(p_lo), "%" PRIu64, lo);
	snprintf(p_hi, sizeof(p_hi), "%" PRIu64, hi);
	snprintf(p_grace, sizeof(p_grace), "%" PRId64, c->o.grace_ms);
	params[0] = p_lo;
	params[1] = p_hi;
	params[2] = p_grace;
	/* The lapse test runs on the server's clock only (docs/cluster.md). */
	snprintf(sql, sizeof(sql),
			 "SELECT g.n, l.last_ms, l.ttl_ms FROM pg_catalog.generate_series($1::int, $2::int) AS g(n)"
			 " LEFT JOIN %s.node_lease l ON l.node = g.n"
			 " WHERE (l.node IS NULL OR l.expires_at + $3::bigint * interval '1 millisecond'"
			 "        < pg_catalog.clock_timestamp())"
			 "%s%s%s ORDER BY g.n LIMIT 1",
			 c->schema,
			 registry ? " AND NOT EXISTS (SELECT 1 FROM " : "", reg,
			 registry ? " r WHERE r.node = g.n)" : "");
	res = cid_lease_exec(conn, sql, 3, params, CID_LEASE_CALL_TIMEOUT_MS, &broken, errbuf, errlen);
	if (!cid_pq_ok(res))
	{
		PQclear(res);
		(void) cid_lease_do(conn, "ROLLBACK", NULL, 0);
		return CID_ELEASE_DB;
	}
	if (PQntuples(res) == 0)
	{
		PGresult   *cnt;

		PQclear(res);
		snprintf(sql, sizeof(sql),
				 "SELECT (SELECT pg_catalog.count(*) FROM %s.node_lease WHERE node BETWEEN $1::int AND $2::int"
				 " AND expires_at + $3::bigint * interval '1 millisecond' >= pg_catalog.clock_timestamp()),"
				 " %s%s%s",
				 c->schema,
				 registry ? "(SELECT pg_catalog.count(DISTINCT node) FROM " : "0", reg,
				 registry ? " WHERE node BETWEEN $1::int AND $2::int)" : "");
		cnt = cid_lease_exec(conn, sql, 3, params, CID_LEASE_CALL_TIMEOUT_MS, &broken, errbuf, errlen);
		if (cid_pq_ok(cnt))
			cid_pq_seterr(errbuf, errlen,
							 "no free node number in %" PRIu64 "..%" PRIu64 ": %s held by leases, "
							 "%s claimed by database servers (snowflake.node_registry)",
							 lo, hi, PQgetvalue(cnt, 0, 0), PQgetvalue(cnt, 0, 1));
		PQclear(cnt);
		(void) cid_lease_do(conn, "ROLLBACK", NULL, 0);
		return CID_ELEASE_FULL;
	}
	*node = (uint64_t) strtoull(PQgetvalue(res, 0, 0), NULL, 10);
	if (!PQgetisnull(res, 0, 1))
		nb = strtoll(PQgetvalue(res, 0, 1), NULL, 10) + strtoll(PQgetvalue(res, 0, 2), NULL, 10);
	PQclear(res);

	/*
	 * The previous holder's IDs carry timestamps up to nb on its clock.  If
	 * this host's clock is behind that by more than we may wait, give up
	 * now, before the row changes.
	 */
	wall = cid_lease_wall_ms(&c->o);
	if (nb >= wall && nb - wall >= c->o.clock_wait_ms)
	{
		cid_pq_seterr(errbuf, errlen,
						 "node %" PRIu64 ": the previous holder's IDs reach %" PRId64
						 " ms, %" PRId64 " ms ahead of this host's clock (wait allowed: %"
						 PRId64 " ms); check the clocks", *node, nb, nb - wall, c->o.clock_wait_ms);
		(void) cid_lease_do(conn, "ROLLBACK", NULL, 0);
		return CID_ELEASE_CLOCK;
	}

	snprintf(p_node, sizeof(p_node), "%" PRIu64, *node);
	snprintf(p_ttl, sizeof(p_ttl), "%" PRId64, c->o.ttl_ms);
	snprintf(p_wall, sizeof(p_wall), "%" PRId64, wall);
	params[0] = p_node;
	params[1] = holder;
	params[2] = owner;
	params[3] = p_ttl;
	params[4] = p_wall;
	snprintf(sql, sizeof(sql),
			 "INSERT INTO %s.node_lease AS t"
			 " (node, holder, owner, acquired_at, renewed_at, expires_at, last_ms, ttl_ms)"
			 " VALUES ($1::int, $2, $3, pg_catalog.clock_timestamp(), pg_catalog.clock_timestamp(),"
			 "  pg_catalog.clock_timestamp() + $4::bigint * interval '1 millisecond', $5::bigint, $4::bigint)"
			 " ON CONFLICT (node) DO UPDATE SET holder = excluded.holder, owner = excluded.owner,"
			 "  acquired_at = excluded.acquired_at, renewed_at = excluded.renewed_at,"
			 "  expires_at = excluded.expires_at, last_ms = excluded.last_ms,"
			 "  ttl_ms = excluded.ttl_ms",
			 c->schema);
	/* The deadline counts from before the server read its clock. */
	*t0 = cid_lease_mono_now(l);
	res = cid_lease_exec(conn, sql, 5, params, CID_LEASE_CALL_TIMEOUT_MS, &broken, errbuf, errlen);
	if (!cid_pq_ok(res))
		return abandon(conn, res);
	PQclear(res);
	if (!cid_lease_do(conn, "COMMIT", errbuf, errlen))
		return CID_EAGAIN;
	*not_before = nb;
	return CID_OK;
}

/* Undo a successful acquire that cannot be used after all. */
static void
give_back(cid_lease *l)
{
	if (cid_lease_release_on(l->conn, l->schema, l->node, l->holder, 0, NULL, 0) != CID_OK)
		return;					/* it lapses after its ttl instead */
}

int
cid_lease_acquire(cid_lease **out, const cid_lease_opts *opts, char *errbuf, size_t errlen)
{
	cid_lease_cfg	c;
	cid_lease  *l;
	cid_layout	layout;
	uint64_t	lo,
				hi,
				node = 0,
				maxnode;
	int64_t		nb = 0,
				t0 = 0,
				wall;
	char		owner[CID_LEASE_OWNER_MAX + 1],
				host[128];
	int			rc,
				tries;
	pthread_condattr_t ca;

	cid_pq_seterr(errbuf, errlen, "%s", "");
	if (out == NULL)
		return CID_EINVAL;
	*out = NULL;
	rc = cid_lease_get_cfg(&c, opts, errbuf, errlen);
	if (rc < 0)
		return rc;
	if (c.o.layout != NULL)
		layout = *c.o.layout;
	else if (cid_layout_preset(&layout, "pgedge") != CID_OK)
		return CID_ELAYOUT;
	if (cid_layout_validate(&layout, errbuf, errlen) != CID_OK)
		return CID_ELAYOUT;
	maxnode = cid_layout_max_node(&layout);
	lo = c.o.lo;
	hi = c.o.hi;
	if (lo == 0 && hi == 0)
	{
		lo = 1;
		hi = maxnode;
	}
	if (lo > hi || hi > maxnode || hi > INT32_MAX)
	{
		cid_pq_seterr(errbuf, errlen, "invalid range %" PRIu64 "..%" PRIu64
						 " (layout %s: nodes 0..%" PRIu64 ")", lo, hi, layout.name, maxnode);
		return CID_EINVAL;
	}

	l = calloc(1, sizeof(*l));
	if (l == NULL)
	{
		cid_pq_seterr(errbuf, errlen, "out of memory");
		return CID_EINVAL;
	}
	memcpy(l->schema, c.schema, sizeof(c.schema));
	l->grace_ms = c.o.grace_ms;
	if (c.conninfo != NULL && (l->conninfo = strdup(c.conninfo)) == NULL)
	{
		cid_lease_destroy(l, true);
		return CID_EINVAL;
	}
	l->mono = c.o.monotonic != NULL ? c.o.monotonic : cid_lease_default_mono;
	l->mono_ctx = c.o.mono_ctx;
	if (make_holder(l->holder) != CID_OK)
	{
		cid_lease_destroy(l, true);
		cid_pq_seterr(errbuf, errlen, "no random bytes for the holder token");
		return CID_ERANDOM;
	}
	if (c.o.owner != NULL)
		snprintf(owner, sizeof(owner), "%s", c.o.owner);
	else
	{
		if (gethostname(host, sizeof(host)) != 0)
			snprintf(host, sizeof(host), "?");
		host[sizeof(host) - 1] = '\0';
		snprintf(owner, sizeof(owner), "%s:%ld", host, (long) getpid());
	}

	l->conn = cid_lease_connect(l->conninfo, l->schema, CID_LEASE_CALL_TIMEOUT_MS, errbuf, errlen);
	if (l->conn == NULL)
	{
		cid_lease_destroy(l, true);
		return CID_ELEASE_DB;
	}
	rc = CID_EAGAIN;
	for (tries = 0; tries < 10 && rc == CID_EAGAIN; tries++)
		rc = acquire_once(l->conn, &c, l->holder, owner, lo, hi, &node, &nb, &t0, l,
						  errbuf, errlen);
	if (rc == CID_EAGAIN)
		rc = CID_ELEASE_DB;
	if (rc < 0)
	{
		cid_lease_destroy(l, true);
		return rc;
	}
	cid_pq_seterr(errbuf, errlen, "%s", "");
	l->node = node;
	rc = cid_lease_init_local(l, node, &c.o, nb, t0);
	if (rc < 0)
	{
		give_back(l);
		cid_lease_destroy(l, true);
		return rc;
	}
	l->grace_ms = c.o.grace_ms;

	if (pthread_mutex_init(&l->mu, NULL) == 0)
	{
		if (pthread_condattr_init(&ca) == 0 &&
			pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) == 0 &&
			pthread_cond_init(&l->cv, &ca) == 0)
			l->sync_ready = true;
		else
			pthread_mutex_destroy(&l->mu);
		pthread_condattr_destroy(&ca);
	}
	if (!l->sync_ready)
	{
		cid_pq_seterr(errbuf, errlen, "cannot set up the renewer's lock");
		give_back(l);
		cid_lease_destroy(l, true);
		return CID_EINVAL;
	}
	if (!c.o.no_renewer)
	{
		if (pthread_create(&l->thread, NULL, cid_lease_renewer_main, l) != 0)
		{
			cid_pq_seterr(errbuf, errlen, "cannot start the renewer thread");
			give_back(l);
			cid_lease_destroy(l, true);
			return CID_EINVAL;
		}
		l->thread_started = true;
	}
	*out = l;

	/* Wait (bounded above) until this host's clock passes the previous IDs. */
	wall = cid_lease_wall_ms(&c.o);
	if (nb >= wall)
	{
		int64_t		ns = (nb - wall + 1) * 1000000;

		if (c.o.env != NULL && c.o.env->sleep != NULL)
			c.o.env->sleep(c.o.env->ctx, ns);
		else
			cid_platform_sleep(NULL, ns);
	}
	return CID_OK;
}
