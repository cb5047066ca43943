/*
 * bench_pk_load.c — the insert load of "chronoid bench-pk": N rows in
 * batches by K threads, one libpq connection each, every batch's end and
 * latency logged; a progress bar on stderr when it is a terminal; the
 * rates, the rate curve and the latency percentiles from the log.
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_pk_internal.h"

typedef struct sample
{
	uint64_t	done;			/* rows inserted once this batch ended */
	double		t;				/* its end, seconds after the start */
	double		lat;			/* its latency, seconds */
} sample;

typedef struct load
{
	uint64_t	rows;
	uint64_t	batch;
	const char *payload;
	const char *flush_sql;		/* run once at the end, or NULL */
	double		t0;

	pthread_mutex_t mu;
	uint64_t	claimed;
	uint64_t	done;
	sample	   *log;
	size_t		nlog;
	bool		failed;
	char		err[BPK_ERRLEN];
} load;

typedef struct worker
{
	load	   *ld;
	PGconn	   *conn;
} worker;

static void
fail(load *ld, const char *msg)
{
	pthread_mutex_lock(&ld->mu);
	if (!ld->failed)
	{
		ld->failed = true;
		bpk_fmt(ld->err, sizeof(ld->err), "%s", msg);
	}
	pthread_mutex_unlock(&ld->mu);
}

static void *
worker_main(void *arg)
{
	worker	   *w = arg;
	load	   *ld = w->ld;
	char		nbuf[24];
	const char *params[2] = {ld->payload, nbuf};

	for (;;)
	{
		uint64_t	n;
		double		t1,
					t2;
		PGresult   *res;

		pthread_mutex_lock(&ld->mu);
		if (ld->failed || ld->claimed >= ld->rows)
		{
			pthread_mutex_unlock(&ld->mu);
			break;
		}
		n = ld->rows - ld->claimed < ld->batch ? ld->rows - ld->claimed : ld->batch;
		ld->claimed += n;
		pthread_mutex_unlock(&ld->mu);

		bpk_fmt(nbuf, sizeof(nbuf), "%llu", (unsigned long long) n);
		t1 = cid_clock_monotonic_s();
		res = PQexecPrepared(w->conn, "bpk_insert", 2, params, NULL, NULL, 0);
		t2 = cid_clock_monotonic_s();
		if (PQresultStatus(res) != PGRES_COMMAND_OK)
		{
			char		msg[BPK_ERRLEN];

			cid_pq_result_message(msg, sizeof(msg), w->conn, res);
			PQclear(res);
			fail(ld, msg);
			break;
		}
		PQclear(res);
		pthread_mutex_lock(&ld->mu);
		ld->done += n;
		ld->log[ld->nlog].done = ld->done;
		ld->log[ld->nlog].t = t2 - ld->t0;
		ld->log[ld->nlog].lat = t2 - t1;
		ld->nlog++;
		pthread_mutex_unlock(&ld->mu);
		if (bpk_interrupted)
		{
			fail(ld, "interrupted");
			break;
		}
	}

	/*
	 * A backend reports its WAL statistics (pg_stat_wal) when it goes idle,
	 * at most once a second: make this one report them now.  PostgreSQL 15+
	 * does it before answering, so they are in once this call returns.
	 */
	if (!ld->failed && ld->flush_sql != NULL)
		PQclear(PQexec(w->conn, ld->flush_sql));
	return NULL;
}

/*
 * One frame on stderr: "key [#####.....] 1.2M/2.0M rows  25.1k rows/s  ETA
 * 0:32", or the last one, "... in 0:40", which stays on screen.
 */
static void
progress(const char *name, uint64_t done, uint64_t rows, double rate, double secs)
{
	char		line[256];

	bpk_progress_text(line, sizeof(line), name, done, rows, rate, secs);
	fprintf(stderr, "\r%s\033[K%s", line, secs >= 0 ? "\n" : "");
	fflush(stderr);
}

/* When the log's row count reached target, by linear interpolation. */
static double
time_at(const sample *log, size_t n, double target)
{
	size_t		lo = 0,
				hi = n;
	double		d0 = 0,
				t0 = 0;

	while (lo < hi)
	{
		size_t		mid = (lo + hi) / 2;

		if ((double) log[mid].done < target)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo >= n)
		return log[n - 1].t;
	if (lo > 0)
	{
		d0 = (double) log[lo - 1].done;
		t0 = log[lo - 1].t;
	}
	if ((double) log[lo].done <= d0)
		return log[lo].t;
	return t0 + (log[lo].t - t0) * (target - d0) / ((double) log[lo].done - d0);
}

static int
cmp_double(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return (x > y) - (x < y);
}

static double
percentile(const double *sorted, size_t n, double p)
{
	size_t		i = (size_t) ceil(p * (double) n);

	return sorted[i > 0 ? i - 1 : 0];
}

static void
summarise(const load *ld, bpk_key *key)
{
	size_t		n = ld->nlog,
				i;
	double		end = ld->log[n - 1].t,
				t80 = time_at(ld->log, n, 0.8 * (double) ld->rows),
				prev = 0;
	double	   *lat = malloc(n * sizeof(double));

	key->secs = end;
	key->rate = end > 0 ? (double) ld->rows / end : 0;
	key->rate_tail = end > t80 ? 0.2 * (double) ld->rows / (end - t80) : key->rate;
	for (i = 0; i < BPK_CURVE; i++)
	{
		double		hi = (double) ld->rows * (double) (i + 1) / BPK_CURVE;
		double		t = time_at(ld->log, n, hi);
		double		step = (double) ld->rows / BPK_CURVE;

		key->curve_rows[i] = hi - step / 2;
		key->curve_rate[i] = t > prev ? step / (t - prev) : 0;
		prev = t;
	}
	if (lat != NULL)
	{
		for (i = 0; i < n; i++)
			lat[i] = ld->log[i].lat;
		qsort(lat, n, sizeof(double), cmp_double);
		key->p50_ms = 1000 * percentile(lat, n, 0.50);
		key->p99_ms = 1000 * percentile(lat, n, 0.99);
		free(lat);
	}
}

/*
 * Close the connections and wait until their backends are gone: before
 * PostgreSQL 15 the last statistics reach pg_stat_wal only as a backend
 * exits (and through the collector: give it its 500 ms too).
 */
static void
wait_backends_gone(const char *conninfo, PGconn *const *conns, int k)
{
	int			pids[256],
				i,
				tries;
	char		err[BPK_ERRLEN];
	PGconn	   *c;

	for (i = 0; i < k && i < 256; i++)
		pids[i] = PQbackendPID(conns[i]);
	for (i = 0; i < k; i++)
		PQfinish(conns[i]);
	c = bpk_connect(conninfo, err, sizeof(err));
	if (c == NULL)
		return;
	for (tries = 0; tries < 100; tries++)
	{
		char		sql[128],
					out[32];
		bool		alive = false;

		for (i = 0; i < k && i < 256 && !alive; i++)
		{
			bpk_fmt(sql, sizeof(sql),
					 "SELECT count(*) FROM pg_stat_activity WHERE pid = %d", pids[i]);
			alive = !bpk_query(c, sql, out, sizeof(out), err, sizeof(err)) ||
				strcmp(out, "0") != 0;
		}
		if (!alive)
			break;
		nanosleep(&(struct timespec) {0, 50L * 1000 * 1000}, NULL);
	}
	if (PQserverVersion(c) < 150000)
		nanosleep(&(struct timespec) {0, 600L * 1000 * 1000}, NULL);
	PQfinish(c);
}

bool
bpk_load(const bpk_run *run, bpk_key *key, const char *insert_sql,
		 const char *conninfo, char *err, size_t errlen)
{
	load		ld;
	worker	   *ws = calloc((size_t) run->clients, sizeof(worker));
	pthread_t  *th = calloc((size_t) run->clients, sizeof(pthread_t));
	PGconn    **conns = calloc((size_t) run->clients, sizeof(PGconn *));
	char	   *payload = malloc(run->payload + 1);
	bool		tty = isatty(2);
	int			i,
				nconn = 0,
				nth = 0;
	bool		ok = false;
	uint64_t	seed = 0x9e3779b97f4a7c15u;

	memset(&ld, 0, sizeof(ld));
	pthread_mutex_init(&ld.mu, NULL);
	ld.rows = run->rows;
	ld.batch = run->batch;
	ld.flush_sql = run->server_num >= 150000 ? "SELECT pg_stat_force_next_flush()" : NULL;
	ld.log = malloc((size_t) (run->rows / run->batch + (uint64_t) run->clients + 2) * sizeof(sample));
	if (ws == NULL || th == NULL || conns == NULL || payload == NULL || ld.log == NULL)
	{
		bpk_fmt(err, errlen, "out of memory");
		goto done;
	}
	/* Letters that do not compress much, the same for every row. */
	for (i = 0; (uint64_t) i < run->payload; i++)
	{
		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		payload[i] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+/"[seed & 63];
	}
	payload[run->payload] = '\0';
	ld.payload = payload;

	for (nconn = 0; nconn < run->clients; nconn++)
	{
		PGresult   *res;

		conns[nconn] = bpk_connect(conninfo, err, errlen);
		if (conns[nconn] == NULL)
			goto done;
		res = PQprepare(conns[nconn], "bpk_insert", insert_sql, 2, NULL);
		if (PQresultStatus(res) != PGRES_COMMAND_OK)
		{
			cid_pq_result_message(err, errlen, conns[nconn], res);
			PQclear(res);
			nconn++;
			goto done;
		}
		PQclear(res);
		ws[nconn].ld = &ld;
		ws[nconn].conn = conns[nconn];
	}

	ld.t0 = cid_clock_monotonic_s();
	for (nth = 0; nth < run->clients; nth++)
	{
		if (pthread_create(&th[nth], NULL, worker_main, &ws[nth]) != 0)
		{
			fail(&ld, "cannot start a thread");
			break;
		}
	}
	for (;;)
	{
		uint64_t	d;
		double		rate;
		bool		end;

		/*
		 * The rate as the report computes it (bpk_rate: rows by the last
		 * batch's end over its time), not over the time of this poll,
		 * which trails the last batch by up to a poll interval.
		 */
		pthread_mutex_lock(&ld.mu);
		d = ld.done;
		rate = ld.nlog > 0 ? bpk_rate(ld.log[ld.nlog - 1].done, ld.log[ld.nlog - 1].t) : -1;
		end = ld.failed || d >= ld.rows;
		pthread_mutex_unlock(&ld.mu);
		if (tty && !end)
			progress(key->name, d, ld.rows, rate, -1);
		if (end)
			break;
		if (bpk_interrupted)
			fail(&ld, "interrupted");
		nanosleep(&(struct timespec) {0, 200L * 1000 * 1000}, NULL);
	}
	for (i = 0; i < nth; i++)
		pthread_join(th[i], NULL);
	if (ld.failed)
	{
		if (tty)
			fputs("\r\033[K", stderr);
		bpk_fmt(err, errlen, "%s", ld.err);
		goto done;
	}
	summarise(&ld, key);
	/* the last frame shows the figures the report will: rows/s and time */
	if (tty)
		progress(key->name, ld.rows, ld.rows, key->rate, key->secs);
	ok = true;

done:
	if (ok)
		wait_backends_gone(conninfo, conns, nconn);
	else
	{
		for (i = 0; i < nconn; i++)
			if (conns[i] != NULL)
				PQfinish(conns[i]);
	}
	pthread_mutex_destroy(&ld.mu);
	free(ld.log);
	free(payload);
	free(conns);
	free(th);
	free(ws);
	return ok;
}
