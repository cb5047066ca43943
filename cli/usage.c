/*
 * usage.c — the chronoid command's --help texts.  Keep them in step with
 * docs/chronoid.1 and docs/cli.md.
 */
#include "cli.h"

void
cli_usage_main(FILE *fp)
{
	fputs("usage: chronoid COMMAND [OPTIONS] [ARGS]\n"
		  "\n"
		  "Unique, time-sortable IDs: Snowflake, UUIDv7, ULID, UUIDv4.\n"
		  "\n"
		  "commands:\n"
		  "  gen SCHEME      generate IDs (snowflake, uuidv7, uuidv4, ulid)\n"
		  "  inspect [ID...] decode IDs: type, version, time, node, sequence\n"
		  "  convert [ID...] turn UUIDs into ULIDs and back (same 128 bits)\n"
		  "  bench-pk        measure primary-key kinds on a real PostgreSQL\n"
		  "  lease SUB       lease a snowflake node number from PostgreSQL\n"
		  "  help [COMMAND]  show this text or a command's\n"
		  "\n"
		  "options:\n"
		  "  -h, --help      show this text and exit\n"
		  "  -V, --version   show the version and exit\n"
		  "\n"
		  "'chronoid COMMAND --help' describes a command.  Exit status: 0 success,\n"
		  "1 an invalid ID or a generator failure, 2 a bad command line.\n", fp);
}

void
cli_usage_gen(FILE *fp)
{
	fputs("usage: chronoid gen SCHEME [-n COUNT] [--node N] [--layout NAME|SPEC]\n"
		  "                    [--monotonic]\n"
		  "\n"
		  "Print COUNT new IDs of SCHEME, one per line.  Snowflakes, UUIDv7s\n"
		  "and monotonic ULIDs strictly increase; plain ULIDs sort by their\n"
		  "millisecond only, and UUIDv4s are random.\n"
		  "\n"
		  "schemes:\n"
		  "  snowflake   64-bit integer in decimal (needs a node number)\n"
		  "  uuidv7      time-ordered UUID (RFC 9562), lower case\n"
		  "  uuidv4      random UUID (RFC 9562), lower case\n"
		  "  ulid        26 Crockford base32 characters, upper case\n"
		  "\n"
		  "options:\n"
		  "  -n, --count COUNT     how many IDs (default 1, at most 1000000000000)\n"
		  "      --node N          snowflake node number (or CHRONOID_NODE);\n"
		  "                        required: two machines with the same node\n"
		  "                        mint the same IDs\n"
		  "      --layout L        snowflake bit layout: a preset (pgedge, the\n"
		  "                        default; twitter, sonyflake, instagram,\n"
		  "                        discord) or a spec such as\n"
		  "                        \"time:42,seq:12,reserved:10;epoch=2025-01-01;tick=1ms\"\n"
		  "      --monotonic       ulid: increment the random part within a\n"
		  "                        millisecond instead of drawing it afresh\n"
		  "  -h, --help            show this text and exit\n"
		  "\n"
		  "environment:\n"
		  "  CHRONOID_NODE         node number when --node is not given\n", fp);
}

void
cli_usage_inspect(FILE *fp)
{
	fputs("usage: chronoid inspect [--layout NAME|SPEC] [--json] [ID...]\n"
		  "\n"
		  "Decode each ID: its type (snowflake, uuid, ulid), UUID version,\n"
		  "creation time, and a snowflake's node and sequence.  With no ID\n"
		  "arguments, read IDs from standard input, one per line.\n"
		  "\n"
		  "options:\n"
		  "      --layout L        snowflake bit layout (default pgedge)\n"
		  "      --json            one JSON object per line\n"
		  "  -h, --help            show this text and exit\n"
		  "\n"
		  "An invalid ID is reported on standard error; the others are still\n"
		  "decoded, and the exit status is 1.\n", fp);
}

void
cli_usage_convert(FILE *fp)
{
	fputs("usage: chronoid convert --to uuid|ulid [ID...]\n"
		  "\n"
		  "Write each UUID or ULID as the other form (the same 128 bits), or\n"
		  "canonicalise it when it already has that form.  A ULID read as a\n"
		  "UUID is generally not a version 7 UUID.  With no ID arguments, read\n"
		  "IDs from standard input, one per line.\n"
		  "\n"
		  "options:\n"
		  "      --to FORM         uuid or ulid (required)\n"
		  "  -h, --help            show this text and exit\n", fp);
}

void
cli_usage_bench_pk(FILE *fp)
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

void
cli_usage_lease(FILE *fp)
{
	fputs("usage: chronoid lease init [OPTIONS]\n"
		  "       chronoid lease acquire [OPTIONS] [--json]\n"
		  "       chronoid lease renew TOKEN --node N [OPTIONS]\n"
		  "       chronoid lease release TOKEN --node N [OPTIONS]\n"
		  "       chronoid lease list [OPTIONS] [--json]\n"
		  "       chronoid lease run [OPTIONS] [--] COMMAND [ARGS...]\n"
		  "\n"
		  "Lease a snowflake node number from a PostgreSQL table, so that\n"
		  "application servers never mint under the same number (docs/cluster.md).\n"
		  "A lease lasts --ttl from its last renewal; a lapsed number is handed\n"
		  "on only --grace later, on the database server's clock.\n"
		  "\n"
		  "subcommands:\n"
		  "  init       create the schema and table if missing\n"
		  "  acquire    lease the lowest free number; print \"NODE TOKEN\"\n"
		  "  renew      extend a lease by its token (a lapsed one is never revived)\n"
		  "  release    give a number back (its holder has stopped minting)\n"
		  "  list       every row: node, state (held, lapsed, free, released),\n"
		  "             ms to expiry, holder, owner\n"
		  "  run        lease a number, run COMMAND with CHRONOID_NODE (and\n"
		  "             CHRONOID_LEASE_TOKEN) set, renew every ttl/3; when the\n"
		  "             lease cannot be renewed, SIGTERM the command before the\n"
		  "             deadline and SIGKILL it at the deadline; release at the\n"
		  "             end; exit with the command's status (1 when stopped)\n"
		  "\n"
		  "options:\n"
		  "  -d, --conninfo STR    libpq connection string or URI (default: PG*\n"
		  "                        environment variables)\n"
		  "      --schema NAME     schema of the node_lease table (default chronoid)\n"
		  "      --ttl DUR         lease length (default 30s; 500ms, 10s, 2m, 1h)\n"
		  "      --grace DUR       safety margin (default the larger of 2s, ttl/5)\n"
		  "      --range LO-HI     numbers to lease from (default 1 to the\n"
		  "                        layout's largest node)\n"
		  "      --layout L        snowflake bit layout (default pgedge)\n"
		  "      --owner TEXT      who holds it, for people (default host:pid)\n"
		  "      --node N          renew, release: the leased number\n"
		  "      --kill-after DUR  run: SIGTERM this long before the deadline\n"
		  "                        (default ttl/4, at most ttl/3)\n"
		  "      --json            acquire, list: JSON lines\n"
		  "  -h, --help            show this text and exit\n"
		  "\n"
		  "Exit status: 0 success, 1 a failure (server unreachable, no free\n"
		  "number, lease lost), 2 a bad command line.\n", fp);
}
