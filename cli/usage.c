/*
 * usage.c — the chronoid command's --help texts.  Keep them in step with
 * docs/chronoid.1 and docs/cli.md.
 */
#include "cli_internal.h"

void
cli_usage_main(FILE *fp)
{
	fputs("usage: chronoid COMMAND [OPTIONS] [ARGS]\n"
		  "\n"
		  "Unique, time-sortable IDs of eight kinds: Snowflake, UUIDv7, ULID, TypeID,\n"
		  "UUIDv6, ObjectId, KSUID, UUIDv4.\n"
		  "\n"
		  "commands:\n"
		  "  gen SCHEME      generate IDs (snowflake, uuidv7, uuidv4, ulid, typeid,\n"
		  "                  uuidv6, objectid, ksuid)\n"
		  "  inspect [ID...] decode IDs: type, version, time, node, sequence\n"
		  "  convert [ID...] turn UUIDs, ULIDs and TypeIDs into each other,\n"
		  "                  UUIDv1 into v6 and back\n"
		  "  bench-pk        measure primary-key kinds on a real PostgreSQL\n"
		  "  block SEQ [N]   reserve N values of a PostgreSQL sequence at once\n"
		  "  lease SUB       lease a snowflake node number from PostgreSQL\n"
		  "  migrate ACTION  move a live table's key to time-ordered IDs\n"
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
		  "                    [--scope NAME] [--claim-dir DIR] [--no-claim] [--monotonic]\n"
		  "                    [--prefix PREFIX]\n"
		  "\n"
		  "Print COUNT new IDs of SCHEME, one per line.  Snowflakes, UUIDv7s,\n"
		  "TypeIDs and monotonic ULIDs strictly increase; plain ULIDs sort by their\n"
		  "millisecond only, and UUIDv4s are random.\n"
		  "\n"
		  "schemes:\n"
		  "  snowflake   64-bit integer in decimal (needs a node number)\n"
		  "  uuidv7      time-ordered UUID (RFC 9562), lower case\n"
		  "  uuidv4      random UUID (RFC 9562), lower case\n"
		  "  ulid        26 Crockford base32 characters, upper case\n"
		  "  typeid      a UUIDv7 as 26 lower-case base32 characters after\n"
		  "              --prefix and '_' (TypeID spec 0.3.0)\n"
		  "  uuidv6      time-ordered UUID with a 100-ns time (RFC 9562), lower\n"
		  "              case; random clock sequence and node\n"
		  "  objectid    MongoDB ObjectId, 24 hex characters, lower case\n"
		  "  ksuid       KSUID (Segment), 27 base62 characters\n"
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
		  "      --scope NAME      snowflake: the ID space whose node number is\n"
		  "                        claimed on this host while gen runs (default\n"
		  "                        \"default\"): a second process claiming the same\n"
		  "                        scope and node is refused, naming the holder\n"
		  "      --claim-dir DIR   where the claims' lock files are (default\n"
		  "                        $CHRONOID_CLAIM_DIR, else /run/lock/chronoid)\n"
		  "      --no-claim        snowflake: do not claim the node number\n"
		  "      --monotonic       ulid: increment the random part within a\n"
		  "                        millisecond instead of drawing it afresh\n"
		  "      --prefix PREFIX   typeid: the type prefix, at most 63 characters\n"
		  "                        of a-z and '_', starting and ending with a\n"
		  "                        letter (default none: the bare 26 digits)\n"
		  "  -h, --help            show this text and exit\n"
		  "\n"
		  "environment:\n"
		  "  CHRONOID_NODE         node number when --node is not given\n"
		  "  CHRONOID_CLAIM_DIR    the claims' directory when --claim-dir is not given\n", fp);
}

void
cli_usage_inspect(FILE *fp)
{
	fputs("usage: chronoid inspect [--layout NAME|SPEC] [--json] [--as typeid] [ID...]\n"
		  "\n"
		  "Decode each ID: its type (snowflake, uuid, ulid, typeid, objectid,\n"
		  "ksuid), UUID version, creation time (UUID v1/v6 to 100 ns), a\n"
		  "snowflake's node and sequence, a UUID v1/v6's clock sequence and\n"
		  "node, an ObjectId's process bytes and counter, a TypeID's prefix and\n"
		  "UUID.  Text with a '_' (and no '-') is a TypeID; 26 characters alone\n"
		  "are a ULID unless --as typeid.  With no ID arguments, read IDs from\n"
		  "standard input, one per line.\n"
		  "\n"
		  "options:\n"
		  "      --layout L        snowflake bit layout (default pgedge)\n"
		  "      --json            one JSON object per line\n"
		  "      --as typeid       read every ID as a TypeID (a bare one too)\n"
		  "  -h, --help            show this text and exit\n"
		  "\n"
		  "An invalid ID is reported on standard error; the others are still\n"
		  "decoded, and the exit status is 1.\n", fp);
}

void
cli_usage_convert(FILE *fp)
{
	fputs("usage: chronoid convert --to uuid|ulid|typeid|uuidv6|uuidv1 [--prefix PREFIX] [ID...]\n"
		  "\n"
		  "Write each UUID, ULID or TypeID in the form given (the same 128\n"
		  "bits), or canonicalise it when it already has that form.  A ULID read as a\n"
		  "UUID is generally not a version 7 UUID.  --to uuidv6 rewrites a\n"
		  "version 1 UUID (Cassandra's TimeUUID) as version 6, which sorts by\n"
		  "time (RFC 9562 section 5.6); --to uuidv1 does the reverse.  With no\n"
		  "ID arguments, read IDs from standard input, one per line.\n"
		  "\n"
		  "options:\n"
		  "      --to FORM         uuid, ulid, typeid, uuidv6 or uuidv1 (required)\n"
		  "      --prefix PREFIX   --to typeid: the type prefix (default none)\n"
		  "  -h, --help            show this text and exit\n", fp);
}
