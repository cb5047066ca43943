/*
 * lease_setup.c — cid_lease_setup(): the node_lease table, created once
 * by whoever runs "chronoid lease init", checked before and after.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libpq-fe.h>

#include "lease_internal.h"
#include "pq_internal.h"

/* The CREATE statements: several in one string, so a script. */
static bool
setup_script(PGconn *conn, const char *sql, char *errbuf, size_t errlen)
{
	bool		broken;
	char		msg[512];
	PGresult   *res = cid_pq_script(conn, sql, CID_LEASE_CALL_TIMEOUT_MS, &broken, msg, sizeof(msg));
	bool		ok = cid_pq_ok(res);

	if (!ok)
		cid_pq_seterr(errbuf, errlen, "statement failed: %s", msg);
	PQclear(res);
	return ok;
}

int
cid_lease_setup(const cid_lease_opts *opts, char *errbuf, size_t errlen)
{
	cid_lease_cfg	c;
	PGconn	   *conn;
	char		sql[1536];
	int			rc;

	conn = cid_lease_call_begin(&c, opts, true, errbuf, errlen, &rc);
	if (conn == NULL)
		return rc;

	/*
	 * IF NOT EXISTS is not safe against itself: two sessions creating the
	 * same table at once can fail on the catalog's unique index; an
	 * advisory lock makes concurrent setups take turns.
	 */
	snprintf(sql, sizeof(sql),
			 "CREATE SCHEMA IF NOT EXISTS %s;"
			 "CREATE TABLE IF NOT EXISTS %s.node_lease ("
			 " node int PRIMARY KEY CHECK (node >= 0),"
			 " holder text NOT NULL,"
			 " owner text,"
			 " acquired_at timestamptz,"
			 " renewed_at timestamptz,"
			 " expires_at timestamptz NOT NULL,"
			 " last_ms bigint,"
			 " ttl_ms bigint NOT NULL DEFAULT 0);"
			 "COMMENT ON TABLE %s.node_lease IS "
			 "'chronoid node leases for application servers (docs/cluster.md)'",
			 c.schema, c.schema, c.schema);
	rc = CID_OK;

	/*
	 * The trust check ran at connect; it runs again after the CREATEs, in
	 * their transaction, since IF NOT EXISTS takes whatever someone else
	 * created meanwhile.
	 */
	if (!cid_lease_do(conn, "BEGIN", errbuf, errlen) ||
		!cid_lease_do(conn, "SELECT pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtext('chronoid.node_lease'))", errbuf, errlen) ||
		!setup_script(conn, sql, errbuf, errlen) ||
		!cid_lease_trust(conn, c.schema, errbuf, errlen) ||
		!cid_lease_do(conn, "COMMIT", errbuf, errlen))
	{
		(void) cid_lease_do(conn, "ROLLBACK", NULL, 0);
		rc = CID_ELEASE_DB;
	}
	PQfinish(conn);
	return rc;
}
