/*
 * bench_pk_internal.h — private pieces of "chronoid bench-pk": the key table, the
 * statements on the shared libpq layer, the concurrent load and the report.
 */
#ifndef CHRONOID_BENCH_PK_INTERNAL_H
#define CHRONOID_BENCH_PK_INTERNAL_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <libpq-fe.h>

#include "clock_internal.h"
#include "pq_internal.h"

#define BPK_CMD			"bench-pk"
#define BPK_ERRLEN		512
#define BPK_WARNLEN		1024	/* bpk_small_run_warning's text */
#define BPK_MAX_KEYS	32
#define BPK_NAME_MAX	31		/* a key name: [a-z_][a-z0-9_]* */
#define BPK_CURVE		50		/* points of the rate curve */
#define BPK_NSETTINGS	12
#define BPK_MAX_REPEAT	9		/* --repeat: rounds at most */

/* One key under test, with its measurements (negative: not measured). */
typedef struct bpk_key
{
	char		name[BPK_NAME_MAX + 1];
	char	   *expr;			/* DEFAULT expression; NULL: bigserial */
	char	   *type;			/* column type */
	bool		builtin;
	bool		named;			/* named in --keys: unavailable is an error */
	bool		available;
	char		note[256];		/* why it is not available */
	bool		random_order;	/* uuidv4: needs a created_at index */

	double		secs;
	double		rate;			/* rows/s overall */
	double		rate_tail;		/* rows/s over the last 20% of rows */
	double		p50_ms;
	double		p99_ms;
	double		wal_bytes;
	double		fpi;			/* full-page images; -1: no pg_stat_wal */
	double		index_bytes;
	double		table_bytes;
	double		leaf_density;	/* percent; -1: no pgstattuple */
	double		leaf_pages;
	double		latest_ms;		/* ORDER BY id DESC LIMIT 50 */
	double		created_index_bytes;	/* uuidv4's created_at index */
	double		latest_created_ms;
	double		curve_rows[BPK_CURVE];
	double		curve_rate[BPK_CURVE];

	/*
	 * With --repeat, the figures above are medians over the rounds and the
	 * curve is that of the round with the median tail rate; these keep
	 * each round's rates, in round order, for the report.
	 */
	int			nrounds;
	double		round_rate[BPK_MAX_REPEAT];
	double		round_rate_tail[BPK_MAX_REPEAT];
	double		round_p99_ms[BPK_MAX_REPEAT];
	int			round_position[BPK_MAX_REPEAT];	/* 1-based place in its round */
} bpk_key;

typedef struct bpk_setting
{
	const char *name;
	char		value[128];		/* as the report shows it */
	bool		unset;			/* no such setting here: value "(not set)" */
	bool		unreadable;		/* hidden from the role: value "(not
								 * readable: why)" */
} bpk_setting;

/* The whole run: options, target, keys, results. */
typedef struct bpk_run
{
	uint64_t	rows;
	uint64_t	batch;
	int			clients;
	int			repeat;			/* rounds, key order rotated each round */
	uint64_t	payload;
	const char *conninfo;		/* NULL: the PG* environment variables */
	const char *out_dir;

	char		target[256];	/* which server, for the report */
	char		server_version[128];
	int			server_num;		/* server_version_num */
	bpk_setting settings[BPK_NSETTINGS];
	int			nsettings;
	bool		have_pgstattuple;
	char		pgstattuple_note[256];
	bool		have_checkpoint;
	double		shared_buffers;	/* bytes; -1: unknown */
	char		schema[64];
	char		ext_schema[128];	/* chronoid's schema, quoted; "" when absent or refused */
	char		ext_refused[512];	/* why chronoid's schemas are not trusted; "" */
	char		started_at[32];

	bpk_key		keys[BPK_MAX_KEYS];
	int			nkeys;
} bpk_run;

/* The command (cmd_bench_pk.c; argv[0] is "bench-pk") and its --help text. */
int			bpk_main(int argc, char **argv);
void		bpk_usage(FILE *fp);

/* Set by SIGINT/SIGTERM/SIGHUP while a bench runs. */
extern volatile sig_atomic_t bpk_interrupted;

/* bench_pk_pg.c: libpq with one-line messages */
PGconn	   *bpk_connect(const char *conninfo, char *err, size_t errlen);
bool		bpk_exec(PGconn *conn, const char *sql, char *err, size_t errlen);
bool		bpk_query(PGconn *conn, const char *sql, char *out, size_t outlen,
					  char *err, size_t errlen);
bool		bpk_query_num(PGconn *conn, const char *sql, double *out,
						  char *err, size_t errlen);

/*
 * snprintf that may cut: messages are bounded on purpose (and through
 * vsnprintf, the compiler does not warn about each of them).
 */
void		bpk_fmt(char *dst, size_t len, const char *fmt,...) CID_PRINTF(3, 4);

/*
 * bench_pk_format.c: pure formatting, tested by tests/unit/test_bench_pk.c
 */
#define BPK_BAR			30		/* width of the progress bar */

/* A count as the progress line shows it: "789", "45.6k", "1.23M"; "--" below 0. */
void		bpk_fmt_count(char *buf, size_t len, double v);

/*
 * Seconds as "M:SS", "H:MM:SS" from an hour, rounded to the second; "--"
 * for a negative, NaN or infinite value or beyond 99:59:59.
 */
void		bpk_fmt_duration(char *buf, size_t len, double secs);

/*
 * Rows per second as the report computes it: rows done by the end of the
 * last finished batch over that end's time since the start; -1 (unknown)
 * before a batch has finished.
 */
double		bpk_rate(uint64_t done, double t);

/*
 * One progress frame, without the carriage return: "key [####....]
 * 1.20M/2.00M rows  25.1k rows/s  ETA 0:32".  rate < 0 (unknown) shows
 * "--" for the rate and the ETA.  secs >= 0 makes it the last frame:
 * "in M:SS" instead of the ETA.
 */
void		bpk_progress_text(char *buf, size_t len, const char *name, uint64_t done,
							  uint64_t rows, double rate, double secs);

/* The chart's rate axis: ticks every step rows/s, labelled in unit. */
typedef struct bpk_axis
{
	double		step;			/* rows/s between ticks: 1, 2 or 5 x 10^k */
	double		unit;			/* 1, 1e3, 1e6 or 1e9 */
	const char *prefix;			/* "", "k", "M", "G" for unit */
	int			decimals;		/* digits after the point for step / unit */
} bpk_axis;

/* The axis for rates up to max (max <= 0 is taken as 1). */
void		bpk_axis_for(bpk_axis *ax, double max);

/*
 * When an index of index_bytes after rows stays below limit_bytes (the
 * server's shared_buffers), about how many rows it would take to reach
 * it; -1 when it did reach it or a size is unknown (<= 0).
 */
double		bpk_rows_to_outgrow(uint64_t rows, double index_bytes, double limit_bytes);

/* bench_pk_load.c: N rows by K connections, with a progress bar */
bool		bpk_load(const bpk_run *run, bpk_key *key, const char *insert_sql,
					 const char *conninfo, char *err, size_t errlen);

/*
 * bench_pk_report.c: Markdown, JSON and the chart in run->out_dir;
 * *charts says whether gnuplot drew bench-pk.png and bench-pk.svg.
 */
bool		bpk_write_report(const bpk_run *run, bool *charts, char *err, size_t errlen);
void		bpk_print_markdown(const bpk_run *run, FILE *fp);

/*
 * The warning of a run too small to rank the keys (every primary-key index
 * stayed below shared_buffers, so none was ever read back from disk), in
 * buf (Markdown: it goes into the report; one line).  false, buf empty,
 * when the run is large enough or shared_buffers is unknown.
 */
bool		bpk_small_run_warning(const bpk_run *run, char *buf, size_t len);

#endif							/* CHRONOID_BENCH_PK_INTERNAL_H */
