/*
 * bench_pk_usage.c — the --help text of "chronoid bench-pk".
 */
#include "bench_pk_internal.h"

void
bpk_usage(FILE *fp)
{
	fputs("usage: chronoid bench-pk [--rows N] [--clients K] [--keys LIST]\n"
		  "                         [--payload BYTES] [--batch B] [--conninfo STR]\n"
		  "                         [--repeat R] [--out DIR]\n"
		  "\n"
		  "Insert N rows into a table per primary-key kind from K concurrent\n"
		  "connections and measure insert rate (overall and over the last 20%),\n"
		  "WAL and full-page images per row, p99 batch latency, index and table\n"
		  "size, leaf density (pgstattuple) and a \"latest 50 rows\" query.\n"
		  "Writes DIR/bench-pk.md, bench-pk.json and a chart (bench-pk.png and\n"
		  ".svg, drawn by gnuplot); prints the report.  By default it starts a\n"
		  "throwaway local cluster (shared_buffers = 128MB, chronoid preloaded)\n"
		  "and removes it afterwards; with --conninfo or PG* variables it uses\n"
		  "that server, in a schema of its own that it drops afterwards.\n"
		  "\n"
		  "keys (default: all that are available):\n"
		  "  bigserial        bigserial (the baseline)\n"
		  "  uuidv4           gen_random_uuid()\n"
		  "  uuidv7           chronoid's uuidv7()\n"
		  "  ulid             chronoid's gen_ulid() (random within a millisecond)\n"
		  "  ulid_monotonic   chronoid's gen_monotonic_ulid()\n"
		  "  snowflake        chronoid's snowflake.nextval()\n"
		  "  NAME=SQL         your own DEFAULT expression, e.g. 'mine=next_id()'\n"
		  "\n"
		  "options:\n"
		  "  -n, --rows N          rows per key (default 1000000)\n"
		  "  -c, --clients K       concurrent connections (default 2, at most 64)\n"
		  "  -k, --keys LIST       comma-separated keys (see above)\n"
		  "      --payload BYTES   payload text per row (default 100)\n"
		  "      --batch B         rows per INSERT (default 100)\n"
		  "  -d, --conninfo STR    libpq connection string or URI of the server\n"
		  "  -r, --repeat R        run every key R times (at most 9), the order\n"
		  "                        rotated each round; report the medians\n"
		  "  -o, --out DIR         output directory (default bench-pk-out)\n"
		  "  -h, --help            show this text and exit\n"
		  "\n"
		  "Exit status: 0 success, 1 a failure (server unreachable, an expression\n"
		  "that fails, ...), 2 a bad command line.\n", fp);
}
