/*
 * bench_pk_report.c — what "chronoid bench-pk" writes: a Markdown report
 * (absolute figures, ratios to bigserial, the server and its settings),
 * the same as JSON, and a gnuplot chart (insert rate against rows
 * inserted, one line per key; primary-key index size per key).
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "chronoid.h"
#include "bench_pk_internal.h"

static const bpk_key *
find_base(const bpk_run *run)
{
	int			i;

	for (i = 0; i < run->nkeys; i++)
	{
		if (run->keys[i].available && strcmp(run->keys[i].name, "bigserial") == 0)
			return &run->keys[i];
	}
	return NULL;
}

/* 1234567.8 -> "1,234,568" */
static const char *
grouped(char *buf, size_t len, double v)
{
	char		tmp[64];
	size_t		n,
				i,
				o = 0;

	bpk_fmt(tmp, sizeof(tmp), "%.0f", v);
	n = strlen(tmp);
	for (i = 0; i < n && o + 2 < len; i++)
	{
		buf[o++] = tmp[i];
		if (tmp[i] != '-' && (n - i - 1) % 3 == 0 && i + 1 < n)
			buf[o++] = ',';
	}
	buf[o] = '\0';
	return buf;
}

static const char *
size_text(char *buf, size_t len, double bytes)
{
	if (bytes < 0)
		bpk_fmt(buf, len, "n/a");
	else if (bytes >= 1024.0 * 1024 * 1024)
		bpk_fmt(buf, len, "%.2f GiB", bytes / (1024.0 * 1024 * 1024));
	else if (bytes >= 1024.0 * 1024)
		bpk_fmt(buf, len, "%.1f MiB", bytes / (1024.0 * 1024));
	else
		bpk_fmt(buf, len, "%.0f KiB", bytes / 1024.0);
	return buf;
}

static const char *
ratio(char *buf, size_t len, double v, double base)
{
	if (v < 0 || base <= 0)
		bpk_fmt(buf, len, "n/a");
	else
		bpk_fmt(buf, len, "%.2fx", v / base);
	return buf;
}

static const char *
num(char *buf, size_t len, const char *fmt, double v)
{
	if (v < 0)
		bpk_fmt(buf, len, "n/a");
	else
		bpk_fmt(buf, len, fmt, v);
	return buf;
}

/* With --repeat: each round's tail rate, with the key's place in its round. */
static void
print_rounds(const bpk_run *run, FILE *fp)
{
	char		b[64];
	int			i,
				r;

	fprintf(fp, "\nRows/s over the last 20%% of the rows, per round (the key's place in that "
			"round's order in brackets; p99 batch ms after the slash):\n\n| key |");
	for (r = 0; r < run->repeat; r++)
		fprintf(fp, " round %d |", r + 1);
	fprintf(fp, "\n|---|");
	for (r = 0; r < run->repeat; r++)
		fprintf(fp, "--:|");
	fputc('\n', fp);
	for (i = 0; i < run->nkeys; i++)
	{
		const bpk_key *k = &run->keys[i];

		if (!k->available)
			continue;
		fprintf(fp, "| %s |", k->name);
		for (r = 0; r < k->nrounds; r++)
			fprintf(fp, " %s (%d) / %.2f |", grouped(b, sizeof(b), k->round_rate_tail[r]),
					k->round_position[r], k->round_p99_ms[r]);
		fputc('\n', fp);
	}
}

bool
bpk_small_run_warning(const bpk_run *run, char *buf, size_t len)
{
	const bpk_key *big = NULL;
	char		idx[32],
				sb[32],
				rows[32];
	double		need;
	int			i;

	buf[0] = '\0';
	for (i = 0; i < run->nkeys; i++)
	{
		const bpk_key *k = &run->keys[i];

		if (k->available && k->index_bytes > 0 && (big == NULL || k->index_bytes > big->index_bytes))
			big = k;
	}
	if (big == NULL)
		return false;
	need = bpk_rows_to_outgrow(run->rows, big->index_bytes, run->shared_buffers);
	if (need < 0)
		return false;
	bpk_fmt(buf, len, "too small to rank the keys: the largest primary-key index (%s, %s) "
			"stayed below shared_buffers (%s), so every index was in memory throughout, "
			"random keys never paid for reading their pages back, and the differences in "
			"rate (ordered keys against bigserial too) are not meaningful; an index that "
			"size reaches shared_buffers at about %s rows: run several times that, or on a "
			"server with a smaller shared_buffers",
			big->name, size_text(idx, sizeof(idx), big->index_bytes),
			size_text(sb, sizeof(sb), run->shared_buffers), grouped(rows, sizeof(rows), need));
	return true;
}

void
bpk_print_markdown(const bpk_run *run, FILE *fp)
{
	const bpk_key *base = find_base(run);
	char		b[12][64],
				rows[32];
	int			i;

	fprintf(fp, "# chronoid bench-pk\n\n");
	fprintf(fp, "%s rows per key inserted by %d concurrent connections in batches of %llu rows, "
			"payload %llu bytes; PostgreSQL %s on %s; started %s.\n\n",
			grouped(rows, sizeof(rows), (double) run->rows), run->clients,
			(unsigned long long) run->batch, (unsigned long long) run->payload,
			run->server_version, run->target, run->started_at);
	{
		char		warn[BPK_WARNLEN];

		if (bpk_small_run_warning(run, warn, sizeof(warn)))
			fprintf(fp, "> **Warning:** %s.\n\n", warn);
	}
	if (run->repeat > 1)
		fprintf(fp, "Each key ran %d times, the order of the keys rotated by one place each round; "
				"every figure is the median of its %d rounds (the chart shows the round with the "
				"median rate over the last 20%%), and each round's rates are listed below.\n\n",
				run->repeat, run->repeat);

	fprintf(fp, "| key | rows/s | rows/s, last 20%% | WAL bytes/row | full-page images | p99 batch ms | "
			"PK index | table | index/table | leaf density | latest 50 ms |\n");
	fprintf(fp, "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
	for (i = 0; i < run->nkeys; i++)
	{
		const bpk_key *k = &run->keys[i];

		if (!k->available)
			continue;
		fprintf(fp, "| %s | %s | %s | %.1f | %s | %.2f | %s | %s | %.2f | %s | %.3f |\n",
				k->name, grouped(b[0], 64, k->rate), grouped(b[1], 64, k->rate_tail),
				k->wal_bytes / (double) run->rows,
				k->fpi < 0 ? "n/a" : grouped(b[2], 64, k->fpi), k->p99_ms,
				size_text(b[3], 64, k->index_bytes), size_text(b[4], 64, k->table_bytes),
				k->table_bytes > 0 ? k->index_bytes / k->table_bytes : 0,
				num(b[5], 64, "%.1f%%", k->leaf_density), k->latest_ms);
	}

	if (base != NULL)
	{
		char		warn[BPK_WARNLEN];

		fprintf(fp, "\nRelative to bigserial (leaf density: difference in points)%s:\n\n",
				bpk_small_run_warning(run, warn, sizeof(warn)) ?
				"; the run was too small for these ratios to mean anything (see the warning above)" : "");
		fprintf(fp, "| key | rows/s | rows/s, last 20%% | WAL/row | full-page images | p99 batch | PK index | leaf density |\n");
		fprintf(fp, "|---|--:|--:|--:|--:|--:|--:|--:|\n");
		for (i = 0; i < run->nkeys; i++)
		{
			const bpk_key *k = &run->keys[i];

			if (!k->available)
				continue;
			if (k->leaf_density >= 0 && base->leaf_density >= 0)
				bpk_fmt(b[6], 64, "%+.1f", k->leaf_density - base->leaf_density);
			else
				bpk_fmt(b[6], 64, "n/a");
			fprintf(fp, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", k->name,
					ratio(b[0], 64, k->rate, base->rate),
					ratio(b[1], 64, k->rate_tail, base->rate_tail),
					ratio(b[2], 64, k->wal_bytes, base->wal_bytes),
					ratio(b[3], 64, k->fpi, base->fpi),
					ratio(b[4], 64, k->p99_ms, base->p99_ms),
					ratio(b[5], 64, k->index_bytes, base->index_bytes), b[6]);
		}
	}

	for (i = 0; i < run->nkeys; i++)
	{
		const bpk_key *k = &run->keys[i];

		if (!k->available || k->created_index_bytes < 0)
			continue;
		fprintf(fp, "\n%s keys are random, so `ORDER BY id DESC LIMIT 50` returns 50 arbitrary rows "
				"(%.3f ms); the latest 50 need an index on `created_at`: %s more "
				"(PK + it: %s), and `ORDER BY created_at DESC LIMIT 50` then takes %.3f ms.\n",
				k->name, k->latest_ms, size_text(b[0], 64, k->created_index_bytes),
				size_text(b[1], 64, k->index_bytes + k->created_index_bytes), k->latest_created_ms);
	}

	if (run->repeat > 1)
		print_rounds(run, fp);
	fprintf(fp, "\n| key | column type | DEFAULT | p50 batch ms | seconds |\n|---|---|---|--:|--:|\n");
	for (i = 0; i < run->nkeys; i++)
	{
		const bpk_key *k = &run->keys[i];

		if (k->available)
			fprintf(fp, "| %s | `%s` | `%s` | %.2f | %.1f |\n", k->name, k->type,
					k->expr != NULL ? k->expr : "nextval() of its sequence", k->p50_ms, k->secs);
		else
			fprintf(fp, "| %s | skipped: %s | | | |\n", k->name, k->note);
	}

	fprintf(fp, "\n| setting | value |\n|---|---|\n");
	for (i = 0; i < run->nsettings; i++)
		fprintf(fp, "| %s | %s |\n", run->settings[i].name, run->settings[i].value);

	fprintf(fp, "\nEach key gets a table `(id KEY PRIMARY KEY, created_at timestamptz DEFAULT "
			"clock_timestamp(), payload text)` with autovacuum off, created after a CHECKPOINT%s. "
			"WAL and full-page images are the server's counters (`pg_current_wal_lsn()`, "
			"`pg_stat_wal.wal_fpi`) over the load, so other work on the server counts too. "
			"Sizes are the main forks (`pg_relation_size`). Leaf density: %s. "
			"\"latest 50\": the median of 9 runs of `SELECT id ... ORDER BY id DESC LIMIT 50`.\n",
			run->have_checkpoint ? "" : " (CHECKPOINT refused: not a superuser)",
			run->have_pgstattuple ? "`pgstatindex()` from pgstattuple" : run->pgstattuple_note);
}

static void
json_str(FILE *fp, const char *s)
{
	fputc('"', fp);
	for (; s != NULL && *s != '\0'; s++)
	{
		unsigned char c = (unsigned char) *s;

		if (c == '"' || c == '\\')
			fprintf(fp, "\\%c", c);
		else if (c < 0x20)
			fprintf(fp, "\\u%04x", c);
		else
			fputc(c, fp);
	}
	fputc('"', fp);
}

/*
 * The JSON report follows the CLI's one rule (docs/cli.md): a figure that
 * was not measured (negative in bpk_key) or does not apply is left out,
 * never null.  jobj keeps the separator state of the object being written.
 */
typedef struct jobj
{
	FILE	   *fp;
	bool		first;
} jobj;

static void
jkey(jobj *o, const char *name)
{
	fprintf(o->fp, "%s\"%s\": ", o->first ? "" : ", ", name);
	o->first = false;
}

static void
jnum(jobj *o, const char *name, double v)
{
	if (v < 0)
		return;
	jkey(o, name);
	fprintf(o->fp, "%.6g", v);
}

static void
jstr(jobj *o, const char *name, const char *v)
{
	if (v == NULL)
		return;
	jkey(o, name);
	json_str(o->fp, v);
}

/* A line break inside an object, for people reading the file. */
static void
jbreak(jobj *o)
{
	fputs(o->first ? "" : ",\n     ", o->fp);
	o->first = true;
}

static void
write_json(const bpk_run *run, FILE *fp)
{
	int			i,
				j;
	bool		first = true;

	fprintf(fp, "{\n  \"tool\": \"chronoid bench-pk\",\n  \"version\": \"%s\",\n", cid_version());
	fprintf(fp, "  \"started_at\": \"%s\",\n  \"rows\": %llu,\n  \"clients\": %d,\n"
			"  \"batch\": %llu,\n  \"payload\": %llu,\n  \"repeat\": %d,\n",
			run->started_at, (unsigned long long) run->rows, run->clients,
			(unsigned long long) run->batch, (unsigned long long) run->payload, run->repeat);
	fprintf(fp, "  \"server_version\": ");
	json_str(fp, run->server_version);
	fprintf(fp, ",\n  \"target\": ");
	json_str(fp, run->target);
	if (run->shared_buffers > 0)
		fprintf(fp, ",\n  \"shared_buffers_bytes\": %.0f", run->shared_buffers);
	{
		char		warn[BPK_WARNLEN];

		/* a list, always there: empty when the run raised no warning */
		fprintf(fp, ",\n  \"warnings\": [");
		if (bpk_small_run_warning(run, warn, sizeof(warn)))
			json_str(fp, warn);
		fputc(']', fp);
	}
	fprintf(fp, ",\n  \"pgstattuple\": %s,\n", run->have_pgstattuple ? "true" : "false");

	/*
	 * settings: those the server has and showed, with their values (an
	 * empty list, such as shared_preload_libraries = '', is left out like
	 * one not set); unreadable_settings: the ones hidden from the role,
	 * with the server's reason.  Both objects are always there.
	 */
	for (j = 0; j < 2; j++)
	{
		bool		any = false;

		fprintf(fp, "%s  \"%s\": {", j > 0 ? ",\n" : "", j == 0 ? "settings" : "unreadable_settings");
		for (i = 0; i < run->nsettings; i++)
		{
			const bpk_setting *st = &run->settings[i];
			const char *v = st->value;

			if (j == 0 ? (st->unreadable || st->unset || v[0] == '\0') : !st->unreadable)
				continue;
			if (j == 1 && strncmp(v, "(not readable: ", 15) == 0)
			{
				/* the reason alone, without the report's parentheses */
				char		why[sizeof(st->value)];
				size_t		n = strlen(v + 15);

				if (n > 0 && v[15 + n - 1] == ')')
					n--;		/* not there when the value was cut */
				bpk_fmt(why, sizeof(why), "%.*s", (int) n, v + 15);
				fprintf(fp, "%s\n    \"%s\": ", any ? "," : "", st->name);
				json_str(fp, why);
			}
			else
			{
				fprintf(fp, "%s\n    \"%s\": ", any ? "," : "", st->name);
				json_str(fp, v);
			}
			any = true;
		}
		fprintf(fp, "%s}", any ? "\n  " : "");
	}
	fprintf(fp, ",\n  \"keys\": [");
	for (i = 0; i < run->nkeys; i++)
	{
		const bpk_key *k = &run->keys[i];
		jobj		o = {fp, true};

		fprintf(fp, "%s\n    {", first ? "" : ",");
		first = false;
		jstr(&o, "name", k->name);
		jkey(&o, "available");
		fputs(k->available ? "true" : "false", fp);
		if (!k->available)
		{
			jstr(&o, "note", k->note);
			fputc('}', fp);
			continue;
		}
		jstr(&o, "type", k->type);
		/* bigserial has no expression: its DEFAULT is its sequence's */
		jstr(&o, "expression", k->expr);
		jbreak(&o);
		jnum(&o, "seconds", k->secs);
		jnum(&o, "rows_per_s", k->rate);
		jnum(&o, "rows_per_s_last20", k->rate_tail);
		jnum(&o, "batch_p50_ms", k->p50_ms);
		jnum(&o, "batch_p99_ms", k->p99_ms);
		jbreak(&o);
		jnum(&o, "wal_bytes", k->wal_bytes);
		jnum(&o, "wal_bytes_per_row", k->wal_bytes < 0 ? -1 : k->wal_bytes / (double) run->rows);
		jnum(&o, "wal_fpi", k->fpi);
		jbreak(&o);
		jnum(&o, "pk_index_bytes", k->index_bytes);
		jnum(&o, "table_bytes", k->table_bytes);
		jnum(&o, "index_table_ratio", k->table_bytes > 0 && k->index_bytes >= 0 ?
			 k->index_bytes / k->table_bytes : -1);
		jnum(&o, "leaf_density", k->leaf_density);
		jnum(&o, "leaf_pages", k->leaf_pages);
		jbreak(&o);
		jnum(&o, "latest50_ms", k->latest_ms);
		jnum(&o, "created_at_index_bytes", k->created_index_bytes);
		jnum(&o, "latest50_by_created_at_ms", k->latest_created_ms);
		jbreak(&o);
		jkey(&o, "rounds");
		fputc('[', fp);
		for (j = 0; j < k->nrounds; j++)
		{
			jobj		r = {fp, true};

			fprintf(fp, "%s{", j > 0 ? ", " : "");
			jnum(&r, "place", k->round_position[j]);
			jnum(&r, "rows_per_s", k->round_rate[j]);
			jnum(&r, "rows_per_s_last20", k->round_rate_tail[j]);
			jnum(&r, "batch_p99_ms", k->round_p99_ms[j]);
			fputc('}', fp);
		}
		fputc(']', fp);
		jbreak(&o);
		jkey(&o, "curve");
		fputc('[', fp);
		for (j = 0; j < BPK_CURVE; j++)
			fprintf(fp, "%s[%.0f, %.1f]", j > 0 ? ", " : "", k->curve_rows[j], k->curve_rate[j]);
		fputs("]}", fp);
	}
	fprintf(fp, "\n  ]\n}\n");
}

static void
write_chart_data(const bpk_run *run, FILE *rate, FILE *size)
{
	int			i,
				j,
				blocks = 0;

	for (i = 0; i < run->nkeys; i++)
	{
		const bpk_key *k = &run->keys[i];

		if (!k->available)
			continue;
		fprintf(rate, "%s# %s\n", blocks++ > 0 ? "\n\n" : "", k->name);
		for (j = 0; j < BPK_CURVE; j++)
			fprintf(rate, "%.0f %.1f\n", k->curve_rows[j], k->curve_rate[j]);
		fprintf(size, "%s %.3f\n", k->name, k->index_bytes / (1024.0 * 1024));
	}
}

static void
write_gnuplot(const bpk_run *run, FILE *fp)
{
	static const char *const terms[][2] = {
		{"pngcairo size 1000,900 font ',10'", "bench-pk.png"},
		{"svg size 1000,900 dynamic font 'sans,10'", "bench-pk.svg"},
	};
	char		rows[32];
	int			t,
				i,
				j,
				n;
	double		max = 0;
	bpk_axis	ax;

	grouped(rows, sizeof(rows), (double) run->rows);

	/*
	 * The rate axis: gnuplot's own "%.0s%c" labels a 1.0M, 1.2M, 1.4M axis
	 * "1M, 1M, 1M".  The ticks are chosen here, the rates divided by the
	 * unit, and the labels get the decimals the step needs.
	 */
	for (i = 0; i < run->nkeys; i++)
	{
		for (j = 0; run->keys[i].available && j < BPK_CURVE; j++)
			if (run->keys[i].curve_rate[j] > max)
				max = run->keys[i].curve_rate[j];
	}
	bpk_axis_for(&ax, max);
	fprintf(fp, "# chronoid bench-pk chart: gnuplot bench-pk.gp (in this directory)\n");
	for (t = 0; t < 2; t++)
	{
		fprintf(fp, "reset\nset terminal %s noenhanced\nset output '%s'\n", terms[t][0], terms[t][1]);
		fprintf(fp, "set multiplot layout 2,1 title \"chronoid bench-pk: %s rows per key, %d clients, "
				"PostgreSQL %s\"\n", rows, run->clients, run->server_version);
		fprintf(fp, "set title 'Insert rate (each point: %d%% of the rows)'\nset xlabel 'rows inserted'\n"
				"set ylabel 'rows/s'\nset grid\nset key outside right\nset yrange [0:*]\n"
				"set format x '%%.1s%%c'\nset ytics %.10g\nset format y '%%.%df%s'\n",
				100 / BPK_CURVE, ax.step / ax.unit, ax.decimals, ax.prefix);
		fprintf(fp, "plot");
		n = 0;
		for (i = 0; i < run->nkeys; i++)
		{
			if (!run->keys[i].available)
				continue;
			fprintf(fp, "%s 'bench-pk-rate.dat' index %d using 1:($2/%.0f) with linespoints pt 7 ps 0.4 lw 1.5 title '%s'",
					n > 0 ? "," : "", n, ax.unit, run->keys[i].name);
			n++;
		}
		fprintf(fp, "\nset title 'Primary-key index size'\nunset xlabel\nset ylabel 'MiB'\n"
				"set format y '%%g'\nset style data histograms\nset style fill solid 0.7\n"
				"set boxwidth 0.7\nset yrange [0:*]\nunset key\nset grid noxtics\n"
				"plot 'bench-pk-size.dat' using 2:xtic(1) lc rgb '#4472c4', "
				"'' using 0:2:(sprintf('%%.1f', $2)) with labels offset 0,0.8\n"
				"unset multiplot\nset output\n");
	}
}

static FILE *
open_out(const bpk_run *run, const char *name, char *err, size_t errlen)
{
	char		path[1024];
	FILE	   *fp;

	bpk_fmt(path, sizeof(path), "%s/%s", run->out_dir, name);
	fp = fopen(path, "w");
	if (fp == NULL)
		bpk_fmt(err, errlen, "cannot write %s: %s", path, strerror(errno));
	return fp;
}

static bool
close_out(FILE *fp, const bpk_run *run, const char *name, char *err, size_t errlen)
{
	if (fclose(fp) != 0)
	{
		bpk_fmt(err, errlen, "cannot write %s/%s: %s", run->out_dir, name, strerror(errno));
		return false;
	}
	return true;
}

/* gnuplot bench-pk.gp in the output directory; its output to a log. */
static int
run_gnuplot(const char *dir)
{
	pid_t		pid = fork();
	int			status;

	if (pid < 0)
		return -1;
	if (pid == 0)
	{
		if (chdir(dir) != 0 || freopen("bench-pk-gnuplot.log", "w", stderr) == NULL ||
			freopen("/dev/null", "w", stdout) == NULL)
			_exit(126);
		execlp("gnuplot", "gnuplot", "bench-pk.gp", (char *) NULL);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
	{
		if (errno != EINTR)
			return -1;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

bool
bpk_write_report(const bpk_run *run, bool *charts, char *err, size_t errlen)
{
	static const char *const names[] = {"bench-pk.md", "bench-pk.json", "bench-pk-rate.dat",
	"bench-pk-size.dat", "bench-pk.gp"};
	FILE	   *fp[5];
	int			i,
				rc;
	bool		ok = true;
	char		path[1024];

	for (i = 0; i < 5; i++)
	{
		fp[i] = open_out(run, names[i], err, errlen);
		if (fp[i] == NULL)
		{
			while (--i >= 0)
				fclose(fp[i]);
			return false;
		}
	}
	bpk_print_markdown(run, fp[0]);
	fputs("\n![insert rate and index size](bench-pk.png)\n", fp[0]);
	write_json(run, fp[1]);
	write_chart_data(run, fp[2], fp[3]);
	write_gnuplot(run, fp[4]);
	for (i = 0; i < 5; i++)
		ok = close_out(fp[i], run, names[i], err, errlen) && ok;
	if (!ok)
		return false;
	rc = run_gnuplot(run->out_dir);
	*charts = rc == 0;
	bpk_fmt(path, sizeof(path), "%s/bench-pk-gnuplot.log", run->out_dir);
	if (rc == 0)
		unlink(path);
	else
		fprintf(stderr, "chronoid: bench-pk: %s: the chart was not drawn (%s is ready for it)\n",
				rc == 127 ? "gnuplot not found" : "gnuplot failed (see bench-pk-gnuplot.log)",
				"bench-pk.gp");
	return true;
}
