/*
 * cmd_bench_pk.c — "chronoid bench-pk": what the primary key's kind does to
 * a real PostgreSQL.  Options and keys, the target (the server given, in a
 * schema of its own), each key's table loaded and measured, and everything
 * removed again whatever happened.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli_internal.h"
#include "bench_pk_internal.h"
#include "pq_internal.h"

volatile sig_atomic_t bpk_interrupted;

enum
{
	OPT_ROWS = 1,
	OPT_CLIENTS,
	OPT_KEYS,
	OPT_PAYLOAD,
	OPT_BATCH,
	OPT_CONNINFO,
	OPT_OUT,
	OPT_REPEAT,
	OPT_SCRATCH,
	OPT_HELP
};

static const cli_option bpk_options[] = {
	{"rows", 'n', true, OPT_ROWS},
	{"clients", 'c', true, OPT_CLIENTS},
	{"keys", 'k', true, OPT_KEYS},
	{"payload", 0, true, OPT_PAYLOAD},
	{"batch", 0, true, OPT_BATCH},
	{"conninfo", 'd', true, OPT_CONNINFO},
	{"out", 'o', true, OPT_OUT},
	{"repeat", 'r', true, OPT_REPEAT},
	{"scratch", 0, false, OPT_SCRATCH},
	{"help", 'h', false, OPT_HELP},
	{NULL, 0, false, 0}
};

/* The built-in keys, in report order; "%s" is chronoid's schema. */
static const struct
{
	const char *name;
	const char *type;
	const char *expr;
	bool		chronoid;
}			builtin_keys[] = {
	{"bigserial", "bigserial", NULL, false},
	{"uuidv4", "uuid", "gen_random_uuid()", false},
	{"uuidv7", "uuid", "%s.chronoid_uuidv7()", true},
	{"ulid", "%s.ulid", "%s.gen_ulid()", true},
	{"ulid_monotonic", "%s.ulid", "%s.gen_monotonic_ulid()", true},
	{"snowflake", "bigint", "snowflake.nextval()", true},
};
#define NBUILTIN ((int) (sizeof(builtin_keys) / sizeof(builtin_keys[0])))

static const char *const setting_names[] = {
	"shared_buffers", "max_wal_size", "checkpoint_timeout", "full_page_writes",
	"wal_compression", "fsync", "synchronous_commit", "autovacuum",
	"shared_preload_libraries", "snowflake.node", NULL
};
#define NSETTING_NAMES ((int) (sizeof(setting_names) / sizeof(setting_names[0])))

static char *
xprintf(const char *fmt,...) CID_PRINTF(1, 2);

static char *
xprintf(const char *fmt,...)
{
	va_list		ap;
	int			n;
	char	   *s;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || (s = malloc((size_t) n + 1)) == NULL)
	{
		cli_error(BPK_CMD, "out of memory");
		exit(CLI_EXIT_FAIL);
	}
	va_start(ap, fmt);
	vsnprintf(s, (size_t) n + 1, fmt, ap);
	va_end(ap);
	return s;
}

static void
on_signal(int sig)
{
	(void) sig;
	bpk_interrupted = 1;
}

static bool
parse_num(const char *opt, const char *text, uint64_t min, uint64_t max,
		  uint64_t *out)
{
	if (!cli_parse_uint(text, max, out) || *out < min)
	{
		char		what[32];

		bpk_fmt(what, sizeof(what), "invalid --%s ", opt);
		cli_error_value(BPK_CMD, what, text, strlen(text), ": expected an integer from %llu to %llu",
						(unsigned long long) min, (unsigned long long) max);
		return false;
	}
	return true;
}

static bool
valid_name(const char *s, size_t len)
{
	size_t		i;

	if (len == 0 || len > BPK_NAME_MAX || (s[0] >= '0' && s[0] <= '9'))
		return false;
	for (i = 0; i < len; i++)
	{
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return false;
	}
	return true;
}

static int
builtin_index(const char *s, size_t len)
{
	int			i;

	for (i = 0; i < NBUILTIN; i++)
	{
		if (strlen(builtin_keys[i].name) == len && memcmp(builtin_keys[i].name, s, len) == 0)
			return i;
	}
	return -1;
}

static bpk_key *
add_key(bpk_run *run, const char *name, size_t len)
{
	bpk_key    *k;
	int			i;

	for (i = 0; i < run->nkeys; i++)
	{
		if (strlen(run->keys[i].name) == len && memcmp(run->keys[i].name, name, len) == 0)
		{
			cli_error_value(BPK_CMD, "key ", name, len, " named twice in --keys");
			return NULL;
		}
	}
	if (run->nkeys == BPK_MAX_KEYS)
	{
		cli_error(BPK_CMD, "too many keys (at most %d)", BPK_MAX_KEYS);
		return NULL;
	}
	k = &run->keys[run->nkeys++];
	memset(k, 0, sizeof(*k));
	memcpy(k->name, name, len);
	k->name[len] = '\0';
	k->fpi = -1;
	k->leaf_density = -1;
	k->leaf_pages = -1;
	k->created_index_bytes = -1;
	k->latest_created_ms = -1;
	return k;
}

/*
 * --keys: comma-separated builtin names and name=SQL entries.  An
 * expression may hold commas (f(a, b)): a piece without '=' that is not a
 * known name continues the expression before it.
 */
static bool
parse_keys(bpk_run *run, const char *list)
{
	const char *p = list;
	bpk_key    *last_custom = NULL;

	if (*list == '\0')
	{
		cli_error(BPK_CMD, "empty --keys");
		return false;
	}
	while (*p != '\0' || p == list)
	{
		const char *end = strchr(p, ',');
		size_t		len = end != NULL ? (size_t) (end - p) : strlen(p);
		const char *eq = memchr(p, '=', len);
		bpk_key    *k;

		if (eq != NULL && valid_name(p, (size_t) (eq - p)))
		{
			if (builtin_index(p, (size_t) (eq - p)) >= 0)
			{
				cli_error_value(BPK_CMD, "key name ", p, (size_t) (eq - p),
								" is a built-in key: give your expression another name");
				return false;
			}
			if (eq + 1 == p + len)
			{
				cli_error_value(BPK_CMD, "key ", p, (size_t) (eq - p), " has an empty expression");
				return false;
			}
			if ((k = add_key(run, p, (size_t) (eq - p))) == NULL)
				return false;
			k->expr = xprintf("%.*s", (int) (len - (size_t) (eq + 1 - p)), eq + 1);
			k->named = true;
			last_custom = k;
		}
		else if (eq == NULL && builtin_index(p, len) >= 0)
		{
			if ((k = add_key(run, p, len)) == NULL)
				return false;
			k->builtin = true;
			k->named = true;
			last_custom = NULL;
		}
		else if (last_custom != NULL)
		{
			char	   *e = xprintf("%s,%.*s", last_custom->expr, (int) len, p);

			free(last_custom->expr);
			last_custom->expr = e;
		}
		else
		{
			cli_error_value(BPK_CMD, "unknown key ", p, len,
							" (keys: bigserial, uuidv4, uuidv7, ulid, ulid_monotonic, snowflake, or NAME=SQL-EXPRESSION)");
			return false;
		}
		if (end == NULL)
			break;
		p = end + 1;
	}
	return true;
}

static void
default_keys(bpk_run *run)
{
	int			i;

	for (i = 0; i < NBUILTIN; i++)
		add_key(run, builtin_keys[i].name, strlen(builtin_keys[i].name))->builtin = true;
}

/* A runtime failure: the message goes to err, "context: message". */
static bool
failf(char *err, size_t errlen, const char *ctx, const char *msg)
{
	char		tmp[BPK_ERRLEN];

	bpk_fmt(tmp, sizeof(tmp), "%s", msg);
	bpk_fmt(err, errlen, "%s: %s", ctx, tmp);
	return false;
}

/*
 * The server's version and settings, our schema, the chronoid extension,
 * pgstattuple, and every key's type and expression, each tried once.
 */
static bool
prepare_target(bpk_run *run, PGconn *conn, bool scratch, char *err, size_t errlen)
{
	char		buf[BPK_ERRLEN],
				msg[BPK_ERRLEN],
				sql[1024];
	double		num;
	int			i;

	if (!bpk_query(conn, "SELECT current_setting('server_version')", run->server_version,
				   sizeof(run->server_version), msg, sizeof(msg)) ||
		!bpk_query_num(conn, "SELECT current_setting('server_version_num')::int", &num, msg, sizeof(msg)))
		return failf(err, errlen, "reading the server version", msg);
	run->server_num = (int) num;
	/* shared_buffers, to tell a run whose indexes never left memory */
	if (!bpk_query_num(conn, "SELECT pg_catalog.pg_size_bytes(pg_catalog.current_setting('shared_buffers'))",
					   &run->shared_buffers, msg, sizeof(msg)))
		run->shared_buffers = -1;
	for (i = 0; i < BPK_NSETTINGS && i < NSETTING_NAMES && setting_names[i] != NULL; i++)
	{
		run->settings[i].name = setting_names[i];
		bpk_fmt(sql, sizeof(sql), "SELECT coalesce(current_setting('%s', true), '(not set)')",
				 setting_names[i]);
		/*
		 * Some (shared_preload_libraries) are hidden from roles without
		 * pg_read_all_settings: the report says so rather than failing.
		 */
		if (!bpk_query(conn, sql, run->settings[i].value, sizeof(run->settings[i].value), msg, sizeof(msg)))
		{
			bpk_fmt(run->settings[i].value, sizeof(run->settings[i].value),
					"(not readable: %s)", msg);
			run->settings[i].unreadable = true;
		}
		else
			run->settings[i].unset = strcmp(run->settings[i].value, "(not set)") == 0;
		run->nsettings = i + 1;
	}

	if (scratch)
		bpk_fmt(run->schema, sizeof(run->schema), "chronoid_bench_pk");
	else
		bpk_fmt(run->schema, sizeof(run->schema), "chronoid_bench_pk_%ld", (long) getpid());
	bpk_fmt(sql, sizeof(sql), "CREATE SCHEMA %s", run->schema);
	if (!bpk_exec(conn, sql, msg, sizeof(msg)))
	{
		run->schema[0] = '\0';	/* not ours: never dropped */
		return failf(err, errlen, "creating a schema for the benchmark", msg);
	}

	/* chronoid: created on a scratch server, only used elsewhere. */
	if (scratch)
		bpk_exec(conn, "CREATE EXTENSION IF NOT EXISTS chronoid", msg, sizeof(msg));
	/*
	 * chronoid's keys name its functions by schema, in each table's default
	 * and in the one call below: its schemas must be trusted (db/pq), else
	 * whoever controls them could rename one and have those names call its
	 * own functions with our rights.  Refused, the keys are unavailable.
	 */
	{
		cid_pq_ext	ext;
		char		why[BPK_ERRLEN];
		int			trusted = cid_pq_ext_trusted(conn, 0, &ext, why, sizeof(why), msg, sizeof(msg));

		if (trusted < 0)
			return failf(err, errlen, "looking for the chronoid extension", msg);
		run->ext_refused[0] = '\0';
		if (trusted == 0)
			bpk_fmt(run->ext_refused, sizeof(run->ext_refused), "refusing chronoid's functions: %s "
					"(install chronoid into a schema that only a superuser controls)", why);
		bpk_fmt(run->ext_schema, sizeof(run->ext_schema), "%s", trusted == 1 ? ext.schema_q : "");
	}

	/*
	 * pgstattuple: the one installed, else ours (dropped with the schema);
	 * pgstatindex() is named by schema too: one we cannot trust is left
	 * unused.
	 */
	if (!bpk_query(conn, "SELECT coalesce((SELECT n.nspname FROM pg_extension e "
				   "JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pgstattuple'), '')",
				   buf, sizeof(buf), msg, sizeof(msg)))
		return failf(err, errlen, "looking for pgstattuple", msg);
	if (buf[0] != '\0')
	{
		char		why[BPK_ERRLEN];
		int			trusted = cid_pq_schema_trusted(conn, buf, 0, why, sizeof(why), msg, sizeof(msg));
		char	   *q = trusted == 1 ? PQescapeIdentifier(conn, buf, strlen(buf)) : NULL;

		if (trusted < 0)
			return failf(err, errlen, "looking for pgstattuple", msg);
		if (q == NULL)
		{
			bpk_fmt(run->pgstattuple_note, sizeof(run->pgstattuple_note),
					"pgstattuple is not used (%s): no leaf density", trusted == 0 ? why : "out of memory");
			buf[0] = '\0';
		}
		else
		{
			bpk_fmt(buf, sizeof(buf), "%s", q);
			PQfreemem(q);
		}
	}
	else
	{
		bpk_fmt(sql, sizeof(sql), "CREATE EXTENSION pgstattuple SCHEMA %s", run->schema);
		if (bpk_exec(conn, sql, msg, sizeof(msg)))
			bpk_fmt(buf, sizeof(buf), "%s", run->schema);
		else
			bpk_fmt(run->pgstattuple_note, sizeof(run->pgstattuple_note),
					 "pgstattuple is not available (%s): no leaf density", msg);
	}
	if (buf[0] != '\0')
	{
		run->have_pgstattuple = true;
		bpk_fmt(run->pgstattuple_note, sizeof(run->pgstattuple_note), "%s", buf);
	}
	run->have_checkpoint = bpk_exec(conn, "CHECKPOINT", msg, sizeof(msg));

	for (i = 0; i < run->nkeys; i++)
	{
		bpk_key    *k = &run->keys[i];
		const char *x = run->ext_schema;

		if (k->builtin)
		{
			int			b = builtin_index(k->name, strlen(k->name));

			if (builtin_keys[b].chronoid && x[0] == '\0')
			{
				bpk_fmt(k->note, sizeof(k->note), "%s", run->ext_refused[0] != '\0' ? run->ext_refused
						: "the chronoid extension is not installed in this database");
				if (k->named)
				{
					bpk_fmt(err, errlen, "key \"%s\": %s", k->name, k->note);
					return false;
				}
				continue;
			}
			k->type = xprintf(builtin_keys[b].type, x);
			k->expr = builtin_keys[b].expr != NULL ? xprintf(builtin_keys[b].expr, x) : NULL;
			k->random_order = strcmp(k->name, "uuidv4") == 0;
		}
		if (k->expr == NULL)
		{
			k->available = true;
			continue;
		}
		/* One call tells the type (for NAME=SQL) and that it works at all. */
		bpk_fmt(sql, sizeof(sql), "SELECT pg_typeof((%s))::text", k->expr);
		if (strlen(k->expr) > 900 || !bpk_query(conn, sql, buf, sizeof(buf), msg, sizeof(msg)))
		{
			if (strlen(k->expr) > 900)
				bpk_fmt(msg, sizeof(msg), "expression too long");
			bpk_fmt(k->note, sizeof(k->note), "%s fails: %s", k->expr, msg);
			if (k->named)
			{
				bpk_fmt(err, errlen, "key \"%s\": expression %s", k->name, k->note);
				return false;
			}
			continue;
		}
		if (!k->builtin)
			k->type = xprintf("%s", buf);
		k->available = true;
	}
	return true;
}

static bool
timed_query(PGconn *conn, const char *sql, double *ms, char *err, size_t errlen)
{
	double		t[9];
	int			i,
				j;

	/* The median of 9: the first run may read from disk. */
	for (i = 0; i < 9; i++)
	{
		double		t1 = cid_clock_monotonic_s();

		if (!bpk_exec(conn, sql, err, errlen))
			return false;
		t[i] = 1000 * (cid_clock_monotonic_s() - t1);
		for (j = i; j > 0 && t[j - 1] > t[j]; j--)
		{
			double		s = t[j];

			t[j] = t[j - 1];
			t[j - 1] = s;
		}
	}
	*ms = t[4];
	return true;
}

#define Q(call, what) do { if (!(call)) return failf(err, errlen, what, msg); } while (0)

static bool
measure_key(bpk_run *run, PGconn *conn, const char *conninfo, bpk_key *k,
			char *err, size_t errlen)
{
	char		sql[2048],
				tbl[128],
				buf[16],
				idx[160],
				lsn[64],
				msg[BPK_ERRLEN],
				ctx[128];
	double		fpi0 = 0,
				v;
	bool		have_wal_stats = run->server_num >= 140000;

	bpk_fmt(tbl, sizeof(tbl), "%s.k_%s", run->schema, k->name);
	bpk_fmt(idx, sizeof(idx), "%s.k_%s_pkey", run->schema, k->name);
	bpk_fmt(ctx, sizeof(ctx), "key \"%s\"", k->name);
	/* The same shape for every key; autovacuum off: the inserts alone. */
	if (k->expr == NULL)
		bpk_fmt(sql, sizeof(sql), "CREATE TABLE %s (id bigserial PRIMARY KEY, ", tbl);
	else
		bpk_fmt(sql, sizeof(sql), "CREATE TABLE %s (id %s PRIMARY KEY DEFAULT (%s), ",
				 tbl, k->type, k->expr);
	bpk_fmt(sql + strlen(sql), sizeof(sql) - strlen(sql),
			 "created_at timestamptz NOT NULL DEFAULT clock_timestamp(), "
			 "payload text NOT NULL) WITH (autovacuum_enabled = off)");
	Q(bpk_exec(conn, sql, msg, sizeof(msg)), ctx);
	if (k->builtin && builtin_keys[builtin_index(k->name, strlen(k->name))].chronoid)
	{
		/*
		 * The default keeps the functions it calls by OID: if they are
		 * chronoid's, every insert calls chronoid's, whatever the names
		 * mean later.
		 */
		bpk_fmt(sql, sizeof(sql),
				"SELECT count(*) FILTER (WHERE m.objid IS NOT NULL) > 0 AND count(*) FILTER (WHERE m.objid IS NULL) = 0"
				"  FROM pg_catalog.pg_attrdef a"
				"  JOIN pg_catalog.pg_depend d ON d.classid = 'pg_catalog.pg_attrdef'::pg_catalog.regclass"
				"   AND d.objid = a.oid AND d.refclassid = 'pg_catalog.pg_proc'::pg_catalog.regclass"
				"  LEFT JOIN pg_catalog.pg_depend m ON m.classid = 'pg_catalog.pg_proc'::pg_catalog.regclass"
				"   AND m.objid = d.refobjid AND m.deptype = 'e'"
				"   AND m.refobjid = (SELECT e.oid FROM pg_catalog.pg_extension e WHERE e.extname = 'chronoid')"
				" WHERE a.adrelid = '%s'::pg_catalog.regclass AND a.adnum = 1", tbl);
		Q(bpk_query(conn, sql, buf, sizeof(buf), msg, sizeof(msg)), ctx);
		if (strcmp(buf, "t") != 0)
			return failf(err, errlen, ctx, "its default does not call chronoid's function: "
						 "chronoid's schema changed while the benchmark ran");
	}

	/* Every key starts after a checkpoint: full-page images alike. */
	if (run->have_checkpoint)
		Q(bpk_exec(conn, "CHECKPOINT", msg, sizeof(msg)), ctx);
	Q(bpk_query(conn, "SELECT pg_current_wal_lsn()::text", lsn, sizeof(lsn), msg, sizeof(msg)), ctx);
	if (have_wal_stats)
		Q(bpk_query_num(conn, "SELECT wal_fpi FROM pg_stat_wal", &fpi0, msg, sizeof(msg)), ctx);

	bpk_fmt(sql, sizeof(sql),
			 "INSERT INTO %s (payload) SELECT $1::text FROM generate_series(1, $2::int)", tbl);
	if (!bpk_load(run, k, sql, conninfo, msg, sizeof(msg)))
		return failf(err, errlen, ctx, msg);

	bpk_fmt(sql, sizeof(sql), "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '%s')", lsn);
	Q(bpk_query_num(conn, sql, &k->wal_bytes, msg, sizeof(msg)), ctx);
	if (have_wal_stats)
	{
		Q(bpk_exec(conn, "SELECT pg_stat_clear_snapshot()", msg, sizeof(msg)), ctx);
		Q(bpk_query_num(conn, "SELECT wal_fpi FROM pg_stat_wal", &v, msg, sizeof(msg)), ctx);
		k->fpi = v - fpi0;
	}
	bpk_fmt(sql, sizeof(sql), "SELECT pg_relation_size('%s')", idx);
	Q(bpk_query_num(conn, sql, &k->index_bytes, msg, sizeof(msg)), ctx);
	bpk_fmt(sql, sizeof(sql), "SELECT pg_relation_size('%s')", tbl);
	Q(bpk_query_num(conn, sql, &k->table_bytes, msg, sizeof(msg)), ctx);
	if (run->have_pgstattuple)
	{
		bpk_fmt(sql, sizeof(sql), "SELECT avg_leaf_density FROM %s.pgstatindex('%s')",
				 run->pgstattuple_note, idx);
		if (bpk_query_num(conn, sql, &v, msg, sizeof(msg)))
		{
			k->leaf_density = v;
			bpk_fmt(sql, sizeof(sql), "SELECT leaf_pages FROM %s.pgstatindex('%s')",
					 run->pgstattuple_note, idx);
			if (bpk_query_num(conn, sql, &v, msg, sizeof(msg)))
				k->leaf_pages = v;
		}
		else
		{
			run->have_pgstattuple = false;
			bpk_fmt(run->pgstattuple_note, sizeof(run->pgstattuple_note),
					 "pgstatindex() failed (%s): no leaf density", msg);
		}
	}
	bpk_fmt(sql, sizeof(sql), "ANALYZE %s", tbl);
	Q(bpk_exec(conn, sql, msg, sizeof(msg)), ctx);
	bpk_fmt(sql, sizeof(sql), "SELECT id FROM %s ORDER BY id DESC LIMIT 50", tbl);
	Q(timed_query(conn, sql, &k->latest_ms, msg, sizeof(msg)), ctx);
	if (k->random_order)
	{
		/* A random key cannot find the latest rows: it needs this index. */
		bpk_fmt(sql, sizeof(sql), "CREATE INDEX k_%s_created ON %s (created_at)", k->name, tbl);
		Q(bpk_exec(conn, sql, msg, sizeof(msg)), ctx);
		bpk_fmt(sql, sizeof(sql), "SELECT pg_relation_size('%s.k_%s_created')", run->schema, k->name);
		Q(bpk_query_num(conn, sql, &k->created_index_bytes, msg, sizeof(msg)), ctx);
		bpk_fmt(sql, sizeof(sql), "SELECT id FROM %s ORDER BY created_at DESC LIMIT 50", tbl);
		Q(timed_query(conn, sql, &k->latest_created_ms, msg, sizeof(msg)), ctx);
	}
	bpk_fmt(sql, sizeof(sql), "DROP TABLE %s", tbl);
	Q(bpk_exec(conn, sql, msg, sizeof(msg)), ctx);
	return true;
}

/*
 * A fresh cluster (--scratch) has no WAL segments to recycle yet:
 * whichever key came first would pay for creating them (and for a cold
 * cache).  So write about as much WAL as one key will, unmeasured, before
 * the first.
 */
static bool
warm_up(bpk_run *run, PGconn *conn, char *err, size_t errlen)
{
	char		sql[512],
				msg[BPK_ERRLEN];
	uint64_t	n = run->rows < 4000000 ? run->rows : 4000000;

	if (isatty(2))
		fputs("chronoid bench-pk: warming up the scratch server\n", stderr);
	bpk_fmt(sql, sizeof(sql), "CREATE TABLE %s.warm_up (id bigint, payload text) "
			"WITH (autovacuum_enabled = off)", run->schema);
	if (!bpk_exec(conn, sql, msg, sizeof(msg)))
		return failf(err, errlen, "warm-up", msg);
	bpk_fmt(sql, sizeof(sql), "INSERT INTO %s.warm_up SELECT g, repeat('x', %llu) "
			"FROM generate_series(1, %llu) g", run->schema,
			(unsigned long long) run->payload, (unsigned long long) n);
	if (!bpk_exec(conn, sql, msg, sizeof(msg)))
		return failf(err, errlen, "warm-up", msg);
	bpk_fmt(sql, sizeof(sql), "DROP TABLE %s.warm_up", run->schema);
	if (!bpk_exec(conn, sql, msg, sizeof(msg)))
		return failf(err, errlen, "warm-up", msg);
	return true;
}

/* Each key's figures per round; static: too big for the stack. */
static bpk_key round_keys[BPK_MAX_REPEAT][BPK_MAX_KEYS];

/* The per-round figures that are reduced to their median. */
static const size_t median_fields[] = {
	offsetof(bpk_key, secs), offsetof(bpk_key, rate), offsetof(bpk_key, rate_tail),
	offsetof(bpk_key, p50_ms), offsetof(bpk_key, p99_ms), offsetof(bpk_key, wal_bytes),
	offsetof(bpk_key, fpi), offsetof(bpk_key, index_bytes), offsetof(bpk_key, table_bytes),
	offsetof(bpk_key, leaf_density), offsetof(bpk_key, leaf_pages),
	offsetof(bpk_key, latest_ms), offsetof(bpk_key, created_index_bytes),
	offsetof(bpk_key, latest_created_ms),
};

static double *
field(bpk_key *k, size_t off)
{
	return (double *) (void *) ((char *) k + off);
}

/*
 * Index (into v[0..n)) of the median; the lower middle one for even n, so
 * that it is always a value that was measured.
 */
static int
median_index(const double *v, int n)
{
	int			order[BPK_MAX_REPEAT] = {0};
	int			i,
				j;

	for (i = 0; i < n; i++)
	{
		for (j = i; j > 0 && v[order[j - 1]] > v[i]; j--)
			order[j] = order[j - 1];
		order[j] = i;
	}
	return order[(n - 1) / 2];
}

/*
 * Run every available key run->repeat times.  Round r starts r keys
 * further down the list (a rotation), so that each key takes each place in
 * the order as often as the others: on a server whose speed drifts during
 * the run (WAL recycling, caches filling), a fixed order would favour the
 * keys that come later.  The key keeps the median of each figure.
 */
static bool
run_rounds(bpk_run *run, PGconn *conn, const char *conninfo, char *err, size_t errlen)
{
	double		v[BPK_MAX_REPEAT];
	int			r,
				j,
				i,
				f;

	for (r = 0; r < run->repeat; r++)
	{
		int			place = 0;

		for (j = 0; j < run->nkeys; j++)
		{
			i = (j + r) % run->nkeys;
			if (!run->keys[i].available)
				continue;
			if (isatty(2) && run->repeat > 1)
				fprintf(stderr, "chronoid bench-pk: round %d of %d, key %s\n",
						r + 1, run->repeat, run->keys[i].name);
			round_keys[r][i] = run->keys[i];
			if (!measure_key(run, conn, conninfo, &round_keys[r][i], err, errlen))
				return false;
			run->keys[i].round_position[r] = ++place;
			if (bpk_interrupted)
			{
				bpk_fmt(err, errlen, "interrupted");
				return false;
			}
		}
	}
	for (i = 0; i < run->nkeys; i++)
	{
		bpk_key    *k = &run->keys[i];
		int			m;

		if (!k->available)
			continue;
		for (f = 0; f < (int) (sizeof(median_fields) / sizeof(median_fields[0])); f++)
		{
			for (r = 0; r < run->repeat; r++)
				v[r] = *field(&round_keys[r][i], median_fields[f]);
			*field(k, median_fields[f]) = v[median_index(v, run->repeat)];
		}
		for (r = 0; r < run->repeat; r++)
		{
			k->round_rate[r] = round_keys[r][i].rate;
			k->round_rate_tail[r] = round_keys[r][i].rate_tail;
			k->round_p99_ms[r] = round_keys[r][i].p99_ms;
		}
		k->nrounds = run->repeat;
		m = median_index(k->round_rate_tail, run->repeat);
		memcpy(k->curve_rows, round_keys[m][i].curve_rows, sizeof(k->curve_rows));
		memcpy(k->curve_rate, round_keys[m][i].curve_rate, sizeof(k->curve_rate));
	}
	return true;
}

/* The files of the run, one line each, for the person at the terminal. */
static void
print_paths(const bpk_run *run, bool charts)
{
	const char *d = run->out_dir;

	fprintf(stderr, "chronoid bench-pk: report %s/bench-pk.md\n"
			"chronoid bench-pk: JSON   %s/bench-pk.json\n", d, d);
	if (charts)
		fprintf(stderr, "chronoid bench-pk: charts %s/bench-pk.png %s/bench-pk.svg\n", d, d);
	else
		fprintf(stderr, "chronoid bench-pk: charts not drawn; %s/bench-pk.gp draws them\n", d);
}

static bool
pg_env_set(void)
{
	static const char *const vars[] = {"PGHOST", "PGHOSTADDR", "PGPORT", "PGDATABASE",
	"PGUSER", "PGSERVICE", NULL};
	int			i;

	for (i = 0; vars[i] != NULL; i++)
	{
		const char *v = getenv(vars[i]);

		if (v != NULL && *v != '\0')
			return true;
	}
	return false;
}

static int
usage_error(const char *msg)
{
	cli_error(BPK_CMD, "%s (see 'chronoid bench-pk --help')", msg);
	return CLI_EXIT_USAGE;
}

static int
bench_pk(bpk_run *run, int argc, char **argv)
{
	cli_args	a;
	const char *value,
			   *keys = NULL;
	char		err[BPK_ERRLEN] = "",
				msg[BPK_ERRLEN];
	const char *conninfo;
	PGconn	   *conn = NULL;
	bool		scratch = false,
				made_out = false,
				charts = false,
				ok = false;
	struct sigaction sa;
	struct stat st;
	int			opt,
				i;
	uint64_t	v;

	run->rows = 1000000;
	run->clients = 2;
	run->payload = 100;
	run->batch = 100;
	run->repeat = 1;
	run->out_dir = "bench-pk-out";
	cli_args_init(&a, argc, argv, 1, BPK_CMD);
	while ((opt = cli_next_arg(&a, bpk_options, &value)) != CLI_ARG_END)
	{
		switch (opt)
		{
			case OPT_ROWS:
				if (!parse_num("rows", value, 1, UINT64_C(10000000000), &run->rows))
					return CLI_EXIT_USAGE;
				break;
			case OPT_CLIENTS:
				if (!parse_num("clients", value, 1, 64, &v))
					return CLI_EXIT_USAGE;
				run->clients = (int) v;
				break;
			case OPT_PAYLOAD:
				if (!parse_num("payload", value, 0, 100000, &run->payload))
					return CLI_EXIT_USAGE;
				break;
			case OPT_BATCH:
				if (!parse_num("batch", value, 1, 100000, &run->batch))
					return CLI_EXIT_USAGE;
				break;
			case OPT_KEYS:
				keys = value;
				break;
			case OPT_CONNINFO:
				run->conninfo = value;
				break;
			case OPT_REPEAT:
				if (!parse_num("repeat", value, 1, BPK_MAX_REPEAT, &v))
					return CLI_EXIT_USAGE;
				run->repeat = (int) v;
				break;
			case OPT_OUT:
				if (*value == '\0')
					return usage_error("empty --out");
				run->out_dir = value;
				break;
			case OPT_SCRATCH:
				scratch = true;
				break;
			case OPT_HELP:
				bpk_usage(stdout);
				return CLI_EXIT_OK;
			case CLI_ARG_OPERAND:
				cli_error_value(BPK_CMD, "unexpected argument ", value, strlen(value),
								" (see 'chronoid bench-pk --help')");
				return CLI_EXIT_USAGE;
			default:
				return CLI_EXIT_USAGE;
		}
	}
	if (keys == NULL)
		default_keys(run);
	else if (!parse_keys(run, keys))
		return CLI_EXIT_USAGE;
	if (run->batch > run->rows)
		run->batch = run->rows;

	/*
	 * Starting a server is not this program's job (make bench-pk starts a
	 * throwaway one with scripts/pgcluster.sh and passes --scratch).
	 */
	if (run->conninfo == NULL && !pg_env_set())
		return usage_error("no server to measure: give --conninfo or the PG* variables "
						   "('make bench-pk' runs it on a throwaway cluster)");

	/* The output directory first: a run must not end with nowhere to write. */
	if (stat(run->out_dir, &st) != 0)
	{
		if (mkdir(run->out_dir, 0777) != 0)
		{
			cli_error(BPK_CMD, "cannot create output directory %s: %s", run->out_dir, strerror(errno));
			return CLI_EXIT_FAIL;
		}
		made_out = true;
	}
	else if (!S_ISDIR(st.st_mode) || access(run->out_dir, W_OK | X_OK) != 0)
	{
		cli_error(BPK_CMD, "output directory %s is not a writable directory", run->out_dir);
		return CLI_EXIT_FAIL;
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);

	conninfo = run->conninfo != NULL ? run->conninfo : "";
	bpk_fmt(run->target, sizeof(run->target), "the server given by %s%s",
			 run->conninfo != NULL ? "--conninfo" : "the PG* environment variables",
			 scratch ? ", a scratch one (--scratch: extensions created, warmed up first)" : "");
	conn = bpk_connect(conninfo, msg, sizeof(msg));
	if (conn == NULL)
	{
		bpk_fmt(err, sizeof(err), "%s", msg);
		goto done;
	}
	{
		time_t		now = time(NULL);

		strftime(run->started_at, sizeof(run->started_at), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	}
	if (!prepare_target(run, conn, scratch, err, sizeof(err)))
		goto done;
	if (scratch && !warm_up(run, conn, err, sizeof(err)))
		goto done;
	for (i = 0; i < run->nkeys; i++)
	{
		if (!run->keys[i].available)
			fprintf(stderr, "chronoid: bench-pk: skipping key \"%s\": %s\n",
					run->keys[i].name, run->keys[i].note);
	}
	if (!run_rounds(run, conn, conninfo, err, sizeof(err)))
		goto done;
	ok = true;

done:
	/* Nothing is left behind: our schema (with the tables). */
	if (conn != NULL && run->schema[0] != '\0')
	{
		char		sql[128];

		bpk_fmt(sql, sizeof(sql), "DROP SCHEMA IF EXISTS %s CASCADE", run->schema);
		if (!bpk_exec(conn, sql, msg, sizeof(msg)) && ok)
		{
			failf(err, sizeof(err), "dropping the benchmark schema", msg);
			ok = false;
		}
	}
	if (conn != NULL)
		PQfinish(conn);
	if (ok && !bpk_write_report(run, &charts, err, sizeof(err)))
		ok = false;
	if (!ok)
	{
		cli_error(BPK_CMD, "%s", err);
		if (made_out)
			rmdir(run->out_dir);
		return CLI_EXIT_FAIL;
	}
	bpk_print_markdown(run, stdout);
	if (fflush(stdout) != 0)
		return CLI_EXIT_FAIL;

	/*
	 * A warning always goes to stderr; where the files went only when a
	 * person is watching (stderr a terminal, as the progress bar).
	 */
	{
		char		warn[BPK_WARNLEN];

		if (bpk_small_run_warning(run, warn, sizeof(warn)))
			cli_error(BPK_CMD, "warning: %s", warn);
	}
	if (isatty(2))
		print_paths(run, charts);
	return CLI_EXIT_OK;
}

int
bpk_main(int argc, char **argv)
{
	/* Static: the keys' figures take more room than a stack should. */
	static bpk_run run;
	int			rc = bench_pk(&run, argc, argv);
	int			i;

	/* The rounds' copies share these strings: freed once, here. */
	for (i = 0; i < run.nkeys; i++)
	{
		free(run.keys[i].expr);
		free(run.keys[i].type);
	}
	return rc;
}
