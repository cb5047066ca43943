/*
 * lease_renew.c — renewal: by the caller, or by a background thread with
 * its own connection, waking every ttl/3, every wait bounded.
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

bool
cid_lease_forked(const cid_lease *l)
{
	return cid_lease_fork_gen() != l->fork_gen;
}

/* The UPDATE shared by renewals: only an unexpired row of this holder. */
const char cid_lease_renew_sql[] =
"UPDATE %s.node_lease SET renewed_at = pg_catalog.clock_timestamp(),"
" expires_at = pg_catalog.clock_timestamp() + $3::bigint * interval '1 millisecond',"
" last_ms = GREATEST(coalesce(last_ms, 0), $4::bigint), ttl_ms = $3::bigint"
" WHERE node = $1::int AND holder = $2 AND expires_at > pg_catalog.clock_timestamp()"
" RETURNING (extract(epoch FROM expires_at - pg_catalog.clock_timestamp()) * 1000)::bigint";

static int
renew_on(cid_lease *l, PGconn **connp, char *errbuf, size_t errlen)
{
	char		sql[1024],
				p_node[24],
				p_ttl[24],
				p_last[24];
	const char *params[4];
	PGresult   *res;
	bool		broken;
	int64_t		t0,
				left;
	int			st;

	t0 = cid_lease_mono_now(l);
	st = cid_lease_check_at(l, t0);
	if (st != CID_OK)
		return st;
	left = (atomic_load(&l->deadline_ns) - t0) / 1000000;
	if (*connp == NULL)
	{
		*connp = cid_lease_connect(l->conninfo, l->schema, left < l->ttl_ms / 3 ? left : l->ttl_ms / 3,
							errbuf, errlen);
		if (*connp == NULL)
			return CID_ELEASE_DB;
		/* t0 must come before the server reads its clock: take it again */
		t0 = cid_lease_mono_now(l);
		st = cid_lease_check_at(l, t0);
		if (st != CID_OK)
			return st;
		left = (atomic_load(&l->deadline_ns) - t0) / 1000000;
	}
	snprintf(sql, sizeof(sql), cid_lease_renew_sql, l->schema);
	snprintf(p_node, sizeof(p_node), "%" PRIu64, l->node);
	snprintf(p_ttl, sizeof(p_ttl), "%" PRId64, l->ttl_ms);
	snprintf(p_last, sizeof(p_last), "%" PRId64, cid_lease_last_ms(l));
	params[0] = p_node;
	params[1] = l->holder;
	params[2] = p_ttl;
	params[3] = p_last;

	/*
	 * Wait no longer than the lease has left: an answer after the deadline
	 * is of no use (the lease is dead by then), and a partitioned server
	 * must not keep this thread past it.
	 */
	res = cid_lease_exec(*connp, sql, 4, params, left > 100 ? left : 100, &broken, errbuf, errlen);
	if (!cid_pq_ok(res))
	{
		PQclear(res);
		if (broken)
		{
			PQfinish(*connp);
			*connp = NULL;
		}
		return CID_ELEASE_DB;
	}
	if (PQntuples(res) == 0)
	{
		PQclear(res);
		cid_lease_fence(l, CID_ELEASE_LOST);
		cid_pq_seterr(errbuf, errlen,
						 "node %" PRIu64 ": the server no longer has this lease (it lapsed on "
						 "the server's clock, was released or was taken): stop minting", l->node);
		return CID_ELEASE_LOST;
	}
	PQclear(res);
	/* Dead already?  Then it stays dead (sticky), whatever the server said. */
	st = cid_lease_check_at(l, cid_lease_mono_now(l));
	if (st != CID_OK)
		return st;
	cid_lease_extend(l, t0);
	return CID_OK;
}

int
cid_lease_renew(cid_lease *l, char *errbuf, size_t errlen)
{
	cid_pq_seterr(errbuf, errlen, "%s", "");
	if (l == NULL)
		return CID_EINVAL;
	if (cid_lease_forked(l))
		return CID_ELEASE_FORKED;
	return renew_on(l, (PGconn **) &l->conn, errbuf, errlen);
}

static int64_t
mono_ns_plus(int64_t ns)
{
	return cid_lease_default_mono(NULL) + ns;
}

void *
cid_lease_renewer_main(void *arg)
{
	cid_lease  *l = arg;
	int64_t		period = l->ttl_ms * 1000000 / 3;
	int64_t		retry = l->ttl_ms * 1000000 / 10;
	int64_t		next = mono_ns_plus(period);
	char		msg[256];
	int			st;

	if (retry < 200000000)
		retry = 200000000;
	if (retry > period)
		retry = period;
	pthread_mutex_lock(&l->mu);
	for (;;)
	{
		while (!l->stop)
		{
			struct timespec ts;

			ts.tv_sec = (time_t) (next / 1000000000);
			ts.tv_nsec = (long) (next % 1000000000);
			if (pthread_cond_timedwait(&l->cv, &l->mu, &ts) == ETIMEDOUT)
				break;
		}
		if (l->stop)
			break;
		pthread_mutex_unlock(&l->mu);
		msg[0] = '\0';
		st = renew_on(l, (PGconn **) &l->rconn, msg, sizeof(msg));
		pthread_mutex_lock(&l->mu);
		if (st == CID_OK)
		{
			l->errmsg[0] = '\0';
			next = mono_ns_plus(period);
			continue;
		}
		snprintf(l->errmsg, sizeof(l->errmsg), "%s",
				 msg[0] != '\0' ? msg : cid_lease_strerror(st));
		if (st != CID_ELEASE_DB)
			break;				/* fenced: nothing more to renew */
		next = mono_ns_plus(retry);
	}
	pthread_mutex_unlock(&l->mu);
	return NULL;
}

int
cid_lease_start(cid_lease *l)
{
	if (l == NULL)
		return CID_EINVAL;
	if (cid_lease_forked(l))
		return CID_ELEASE_FORKED;
	if (l->thread_started)
		return CID_OK;
	if (pthread_create(&l->thread, NULL, cid_lease_renewer_main, l) != 0)
		return CID_EINVAL;
	l->thread_started = true;
	return CID_OK;
}

void
cid_lease_stop_renewer(cid_lease *l)
{
	if (!l->thread_started)
		return;
	pthread_mutex_lock(&l->mu);
	l->stop = true;
	pthread_cond_signal(&l->cv);
	pthread_mutex_unlock(&l->mu);
	pthread_join(l->thread, NULL);
	l->thread_started = false;
}

void
cid_lease_errmsg(const cid_lease *l, char *buf, size_t len)
{
	cid_lease  *m = (cid_lease *) l;

	if (buf == NULL || len == 0)
		return;
	buf[0] = '\0';
	if (l == NULL || !l->sync_ready || cid_lease_forked(l))
		return;
	pthread_mutex_lock(&m->mu);
	snprintf(buf, len, "%s", l->errmsg);
	pthread_mutex_unlock(&m->mu);
}
