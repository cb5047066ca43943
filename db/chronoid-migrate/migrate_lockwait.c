/*
 * migrate_lockwait.c — before a try of a lock that writers would queue
 * behind: is a session holding a lock on those tables that will not let go
 * within --lock-timeout?  Then wait without asking for the lock, so that
 * writers are not stalled by a try that cannot succeed.
 */
#define _GNU_SOURCE

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "migrate_steps_internal.h"

/* How often the holders are looked at while the tool waits. */
#define LOCKWAIT_POLL_MS 50

/*
 * The relations the script's segments act on (each runs as the owner of
 * the table it touches), as an oid[] literal: a CHECK added to one child
 * takes no lock on the others.  All of them when no segment says, and
 * for the serial road's widening.
 */
static void
script_relids(const mig_ctx *c, const mig_script *s, char *buf, size_t len)
{
	bool		rel[MIG_MAX_CHILDREN + 1] = {false};
	bool		any = false;
	size_t		n;
	int			i;

	for (i = 0; i < s->n; i++)
	{
		int			who = s->seg[i].who;

		if (who == MIG_AS_TABLE)
			rel[0] = any = true;
		else if (who >= 0 && who < c->t.nchildren)
			rel[who + 1] = any = true;
	}
	/* The serial road's one call, as the table's owner, widens the children's columns too. */
	if (mig_widens(c))
		any = false;
	n = (size_t) snprintf(buf, len, "{");
	for (i = 0; i <= c->t.nchildren && n < len; i++)
	{
		if (any && !rel[i])
			continue;
		n += (size_t) snprintf(buf + n, len - n, "%s%u", n > 1 ? "," : "",
							   i == 0 ? c->t.relid : c->t.children[i - 1].relid);
	}
	if (n < len)
		snprintf(buf + n, len - n, "}");
}

/*
 * Whether pid's transaction vxid was seen holding a lock for at least
 * ms; remembers it when new.  For a session whose transaction start the
 * role may not see (another role's, without pg_read_all_stats).
 */
static bool
held_since(mig_lockwait *w, int pid, const char *vxid, int64_t now, int64_t ms)
{
	int			k,
				free_k = -1;

	for (k = 0; k < MIG_LOCKWAIT_SEEN; k++)
	{
		if (w->pid[k] == pid && strcmp(w->vxid[k], vxid) == 0)
			return now - w->since[k] >= ms;
		if (free_k < 0 && (w->pid[k] == 0 || now - w->since[k] > 600000))
			free_k = k;
	}
	k = free_k >= 0 ? free_k : (int) (now % MIG_LOCKWAIT_SEEN);
	w->pid[k] = pid;
	snprintf(w->vxid[k], sizeof(w->vxid[k]), "%s", vxid);
	w->since[k] = now;
	return false;
}

/*
 * The sessions, other than autovacuum (clear_autovacuum's) and this one,
 * that hold a lock on the relations and have held it, or are likely to
 * hold it, longer than --lock-timeout: described in held ("" when none).
 * false (c->err set) on an error.
 */
static bool
long_holders(mig_ctx *c, mig_lockwait *w, const char *oids, char *held, size_t len)
{
	char		ms[24];
	const char *params[2] = {oids, ms};
	PGresult   *res;
	int64_t		now = cid_clock_monotonic_ms();
	size_t		n = 0;
	int			i,
				shown = 0;

	held[0] = '\0';
	snprintf(ms, sizeof(ms), "%lld", (long long) c->o->lock_timeout_ms);
	res = mig_query(c,
					"SELECT l.pid, l.virtualtransaction,"
					"       a.backend_type IS NOT NULL AND a.xact_start < pg_catalog.clock_timestamp() - $2::pg_catalog.int8 * interval '1 ms',"
					"       a.backend_type IS NULL,"
					"       pg_catalog.format('pid %s (%s)', l.pid, CASE WHEN a.backend_type IS NULL"
					"         THEN pg_catalog.format('application_name %s, %s on %s; what it runs shows to a superuser or pg_read_all_stats',"
					"              pg_catalog.quote_literal(COALESCE(a.application_name, '')),"
					"              pg_catalog.string_agg(DISTINCT l.mode, '/'),"
					"              pg_catalog.string_agg(DISTINCT l.relation::pg_catalog.regclass::pg_catalog.text, ', '))"
					"         ELSE pg_catalog.format('%s, application_name %s, %s, transaction open %s s: %s', a.backend_type,"
					"              pg_catalog.quote_literal(COALESCE(a.application_name, '')), COALESCE(a.state, 'state unknown'),"
					"              pg_catalog.round(pg_catalog.date_part('epoch', pg_catalog.clock_timestamp() - a.xact_start)::pg_catalog.numeric, 1),"
					"              pg_catalog.left(pg_catalog.regexp_replace(COALESCE(a.query, '?'), '[[:space:]]+', ' ', 'g'), 80)) END)"
					"  FROM pg_catalog.pg_locks l LEFT JOIN pg_catalog.pg_stat_activity a ON a.pid = l.pid"
					" WHERE l.locktype = 'relation' AND l.granted AND l.pid <> pg_catalog.pg_backend_pid()"
					"   AND l.database = (SELECT d.oid FROM pg_catalog.pg_database d WHERE d.datname = pg_catalog.current_database())"
					"   AND l.relation = ANY ($1::pg_catalog.oid[])"
					"   AND a.backend_type IS DISTINCT FROM 'autovacuum worker'"
					" GROUP BY l.pid, l.virtualtransaction, a.backend_type, a.application_name, a.state, a.xact_start, a.query"
					" ORDER BY l.pid", 2, params);
	if (res == NULL)
		return false;
	for (i = 0; i < PQntuples(res); i++)
	{
		bool		old = strcmp(PQgetvalue(res, i, 2), "t") == 0;
		bool		unseen = strcmp(PQgetvalue(res, i, 3), "t") == 0;

		/*
		 * A transaction the role may not date counts once it has been seen
		 * holding its lock for --lock-timeout: the first try may queue
		 * behind it, no more.
		 */
		if (unseen && held_since(w, (int) strtol(PQgetvalue(res, i, 0), NULL, 10), PQgetvalue(res, i, 1),
								 now, c->o->lock_timeout_ms))
			old = true;
		if (!old)
			continue;
		if (shown++ < 3 && n < len)
			n += (size_t) snprintf(held + n, len - n, "%s%s", n == 0 ? "; held by " : "; ", PQgetvalue(res, i, 4));
	}
	PQclear(res);
	return true;
}

int
mig_lock_wait(mig_ctx *c, mig_lockwait *w, const mig_script *s, const char *what, int tryno, char *held, size_t len)
{
	char		oids[16 * (MIG_MAX_CHILDREN + 1) + 4];
	/* As long as a try and the pause after it would have taken. */
	int64_t		budget = c->o->lock_timeout_ms + 200 + (int64_t) (tryno < 10 ? tryno : 10) * 100;
	int64_t		start = cid_clock_monotonic_ms();

	script_relids(c, s, oids, sizeof(oids));
	for (;;)
	{
		if (!long_holders(c, w, oids, held, len))
			return -1;
		if (held[0] == '\0')
			return 1;
		if (mig_interrupted())
		{
			snprintf(c->err, sizeof(c->err), "interrupted while waiting for a lock holder to let go%s", held);
			return -1;
		}
		if (cid_clock_monotonic_ms() - start >= budget)
			break;
		mig_sleep_ms(LOCKWAIT_POLL_MS);
	}
	fprintf(stderr, "chronoid: %s: %s: lock not requested (try %d of %d)%s; waiting without queueing, "
			"so writers go on\n", c->o->sub, what, tryno, c->o->retries, held);
	snprintf(c->err, sizeof(c->err), "lock not requested: a session held a lock through %d tries", tryno);
	return 0;
}
