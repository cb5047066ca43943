/*
 * bench_block.c — what `make bench-block` measures (bench/block/run.sh
 * starts the server): IDs per second per client and round trips per
 * million IDs for three ways of taking integer IDs from one PostgreSQL
 * counter, with 1, 4 and 16 clients in one run:
 *
 *   nextval   SELECT nextval('public.bench_nv'): one round trip per ID
 *   update    the hand-written allocator: UPDATE public.id_blocks SET
 *             next_start = next_start + 1000 ... RETURNING, then the block
 *             handed out locally (a row lock held until commit)
 *   cid_block the allocator of libchronoid_lease (nextval_block(),
 *             prefetch, adaptive size), one per client
 *
 * Then the latency of taking one ID at 5000 IDs/s while every process of
 * the server is stopped (SIGSTOP) for one second: p50, p99, max, counted
 * from when the ID was due (a stall delays the IDs queued behind it).  Each
 * figure is the median of REPEAT rounds; the methods are interleaved in
 * each round, their order rotated.  Never asserted; docs/benchmarks.md.
 *
 *   bench_block POSTMASTER_PID [SECONDS [REPEAT]]   (PG* name the server)
 */
#define _GNU_SOURCE

#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libpq-fe.h>

#include "chronoid_lease.h"

enum
{
	M_NEXTVAL,
	M_UPDATE,
	M_BLOCK,
	M_COUNT
};
static const char *const mname[M_COUNT] = {"nextval", "update", "cid_block"};

#define UPDATE_BLOCK 1000
#define MAX_CLIENTS 16
#define PAUSE_RATE 5000			/* IDs per second during the pause test */
#define PAUSE_SECS 3

static double secs = 1.5;
static pid_t postmaster;

static int64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void
die(const char *what, const char *msg)
{
	fprintf(stderr, "bench-block: %s: %s\n", what, msg);
	exit(1);
}

/* One client: a way of taking IDs, on its own connection or allocator. */
typedef struct client
{
	int			method;
	PGconn	   *conn;
	cid_block  *blk;
	int64_t		next, end;		/* update: the block in hand */
	uint64_t	ids;
	uint64_t	trips;
	int64_t		last;
	/* pause test: per-ID latencies */
	int64_t    *lat;
	size_t		nlat;
} client;

static PGconn *
connect_db(void)
{
	PGconn	   *c = PQconnectdb("");

	if (PQstatus(c) != CONNECTION_OK)
		die("connect", PQerrorMessage(c));
	PQclear(PQexec(c, "SET search_path = pg_catalog, pg_temp"));
	return c;
}

static void
client_open(client *c, int method)
{
	memset(c, 0, sizeof(*c));
	c->method = method;
	if (method == M_BLOCK)
	{
		cid_block_opts o;
		char		err[512];

		cid_block_opts_default(&o);
		o.sequence = "public.bench_blk";
		if (cid_block_open(&c->blk, &o, err, sizeof(err)) != CID_OK)
			die("cid_block_open", err);
		c->trips = 1;
		return;
	}
	c->conn = connect_db();
	if (method == M_NEXTVAL)
		PQclear(PQprepare(c->conn, "nv", "SELECT pg_catalog.nextval('public.bench_nv')", 0, NULL));
	else
		PQclear(PQprepare(c->conn, "up",
						  "UPDATE public.id_blocks SET next_start = next_start OPERATOR(pg_catalog.+) 1000"
						  " WHERE name OPERATOR(pg_catalog.=) 'bench' RETURNING next_start OPERATOR(pg_catalog.-) 1000",
						  0, NULL));
}

static int64_t
query_int(PGconn *conn, const char *stmt)
{
	PGresult   *r = PQexecPrepared(conn, stmt, 0, NULL, NULL, NULL, 0);
	int64_t		v;

	if (PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) != 1)
		die(stmt, PQerrorMessage(conn));
	v = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
	PQclear(r);
	return v;
}

/* One ID by the client's method. */
static int64_t
client_take(client *c)
{
	int64_t		id = 0;

	switch (c->method)
	{
		case M_NEXTVAL:
			c->trips++;
			return query_int(c->conn, "nv");
		case M_UPDATE:
			if (c->next == c->end)
			{
				c->next = query_int(c->conn, "up");
				c->end = c->next + UPDATE_BLOCK;
				c->trips++;
			}
			return c->next++;
		default:
			if (cid_block_next(c->blk, &id) != CID_OK)
				die("cid_block_next", "failed");
			return id;
	}
}

static void
client_close(client *c)
{
	if (c->blk != NULL)
	{
		cid_block_stats st;

		cid_block_get_stats(c->blk, &st);
		c->trips = st.blocks;
		cid_block_free(c->blk);
	}
	if (c->conn != NULL)
		PQfinish(c->conn);
}

static pthread_barrier_t start_line;
static int64_t deadline;

static void *
run_client(void *arg)
{
	client	   *c = arg;

	pthread_barrier_wait(&start_line);
	while (now_ns() < deadline)
	{
		/* the clock is read once per 64 IDs: it costs more than an ID */
		for (int i = 0; i < 64; i++)
			c->last = client_take(c);
		c->ids += 64;
	}
	return NULL;
}

/* IDs per second per client, and round trips per million IDs. */
static void
throughput(int method, int nclients, double *per_client, double *trips_per_m)
{
	client		cl[MAX_CLIENTS];
	pthread_t	t[MAX_CLIENTS];
	uint64_t	ids = 0,
				trips = 0;

	for (int i = 0; i < nclients; i++)
		client_open(&cl[i], method);
	pthread_barrier_init(&start_line, NULL, (unsigned) nclients + 1);
	for (int i = 0; i < nclients; i++)
		pthread_create(&t[i], NULL, run_client, &cl[i]);
	deadline = now_ns() + (int64_t) (secs * 1e9);
	pthread_barrier_wait(&start_line);
	for (int i = 0; i < nclients; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&start_line);
	for (int i = 0; i < nclients; i++)
	{
		client_close(&cl[i]);
		ids += cl[i].ids;
		trips += cl[i].trips;
	}
	*per_client = (double) ids / secs / nclients;
	*trips_per_m = (double) trips * 1e6 / (double) ids;
}

/* SIGSTOP or SIGCONT the postmaster and every process it started. */
static void
signal_server(int sig)
{
	DIR		   *d = opendir("/proc");
	struct dirent *e;

	kill(postmaster, sig);
	while (d != NULL && (e = readdir(d)) != NULL)
	{
		char		path[300],
					buf[512];
		FILE	   *f;
		int			ppid = 0;
		int			pid = atoi(e->d_name);

		if (pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/stat", pid);
		f = fopen(path, "r");
		if (f == NULL)
			continue;
		if (fgets(buf, sizeof(buf), f) != NULL)
		{
			char	   *p = strrchr(buf, ')');

			if (p != NULL)
				(void) sscanf(p + 2, "%*c %d", &ppid);
		}
		fclose(f);
		if (ppid == postmaster)
			kill(pid, sig);
	}
	if (d != NULL)
		closedir(d);
}

static void *
pauser(void *arg)
{
	(void) arg;
	usleep(1000000);			/* 1 s into the run */
	signal_server(SIGSTOP);
	usleep(1000000);
	signal_server(SIGCONT);
	return NULL;
}

static int
cmp_i64(const void *a, const void *b)
{
	int64_t		x = *(const int64_t *) a,
				y = *(const int64_t *) b;

	return (x > y) - (x < y);
}

/* p50, p99 and max latency (us) of one ID at PAUSE_RATE, paused 1 s. */
static void
pause_run(int method, double out[3])
{
	client		c;
	pthread_t	t;
	size_t		n = PAUSE_RATE * PAUSE_SECS;
	int64_t		start;

	client_open(&c, method);
	c.lat = calloc(n, sizeof(int64_t));
	if (c.lat == NULL)
		die("calloc", "out of memory");
	pthread_create(&t, NULL, pauser, NULL);
	start = now_ns();
	for (size_t i = 0; i < n; i++)
	{
		int64_t		due = start + (int64_t) (i * (1000000000 / PAUSE_RATE));
		struct timespec ts = {(time_t) (due / 1000000000), (long) (due % 1000000000)};

		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		(void) client_take(&c);
		/* from when the ID was wanted: a stall delays the ones after it too */
		c.lat[i] = now_ns() - due;
	}
	pthread_join(t, NULL);
	qsort(c.lat, n, sizeof(int64_t), cmp_i64);
	out[0] = (double) c.lat[n / 2] / 1000.0;
	out[1] = (double) c.lat[n * 99 / 100] / 1000.0;
	out[2] = (double) c.lat[n - 1] / 1000.0;
	free(c.lat);
	client_close(&c);
}

static int
cmp_d(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return (x > y) - (x < y);
}

static double
median(double *v, int n)
{
	qsort(v, (size_t) n, sizeof(double), cmp_d);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int
main(int argc, char **argv)
{
	static const int nclients[] = {1, 4, 16};
	int			repeat = 3;
	double		rate[3][M_COUNT][9],
				trips[3][M_COUNT][9],
				lat[M_COUNT][3][9];

	if (argc < 2)
	{
		fprintf(stderr, "usage: bench_block POSTMASTER_PID [SECONDS [REPEAT]]\n");
		return 2;
	}
	postmaster = (pid_t) atoi(argv[1]);
	if (argc > 2)
		secs = atof(argv[2]);
	if (argc > 3)
		repeat = atoi(argv[3]);
	if (repeat < 1 || repeat > 9 || secs <= 0)
		return 2;

	for (int r = 0; r < repeat; r++)
	{
		for (int ci = 0; ci < 3; ci++)
			for (int k = 0; k < M_COUNT; k++)
			{
				int			m = (k + r) % M_COUNT;	/* rotated each round */

				throughput(m, nclients[ci], &rate[ci][m][r], &trips[ci][m][r]);
				fprintf(stderr, "round %d: %-9s %2d clients: %12.0f IDs/s per client, %9.1f round trips per 1M IDs\n",
						r + 1, mname[m], nclients[ci], rate[ci][m][r], trips[ci][m][r]);
			}
		for (int k = 0; k < M_COUNT; k++)
		{
			int			m = (k + r) % M_COUNT;
			double		o[3];

			pause_run(m, o);
			for (int j = 0; j < 3; j++)
				lat[m][j][r] = o[j];
			fprintf(stderr, "round %d: %-9s 1 s pause: p50 %.0f us, p99 %.0f us, max %.0f us\n",
					r + 1, mname[m], o[0], o[1], o[2]);
		}
	}

	printf("IDs per second per client (median of %d), round trips per 1M IDs, ratio to nextval:\n\n", repeat);
	printf("| clients | method | IDs/s per client | round trips per 1M IDs | x nextval |\n");
	printf("|---:|---|---:|---:|---:|\n");
	for (int ci = 0; ci < 3; ci++)
	{
		double		base = median(rate[ci][M_NEXTVAL], repeat);

		for (int m = 0; m < M_COUNT; m++)
		{
			double		v = median(rate[ci][m], repeat);

			printf("| %d | %s | %.0f | %.1f | %.1f |\n", nclients[ci], mname[m], v,
				   median(trips[ci][m], repeat), v / base);
		}
	}
	printf("\nOne ID at %d IDs/s for %d s, every server process stopped for 1 s (median of %d):\n\n",
		   PAUSE_RATE, PAUSE_SECS, repeat);
	printf("| method | p50 | p99 | max |\n|---|---:|---:|---:|\n");
	for (int m = 0; m < M_COUNT; m++)
		printf("| %s | %.0f us | %.0f us | %.0f us |\n", mname[m], median(lat[m][0], repeat),
			   median(lat[m][1], repeat), median(lat[m][2], repeat));
	return 0;
}
