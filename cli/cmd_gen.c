/*
 * cmd_gen.c — "chronoid gen SCHEME": new IDs, one per line, from the
 * library's generators, in batches (cid_snowflake_fill, cid_uuidv7_fill,
 * cid_uuidv4_fill, cid_ulid_fill, cid_uuidv6_fill, cid_objectid_fill,
 * cid_ksuid_fill) and batch text; TypeIDs are UUIDv7 batches written
 * under a prefix.
 */
#include <stdlib.h>
#include <string.h>

#include "cli_internal.h"

enum
{
	OPT_COUNT = 1,
	OPT_NODE,
	OPT_LAYOUT,
	OPT_MONOTONIC,
	OPT_SCOPE,
	OPT_CLAIM_DIR,
	OPT_NO_CLAIM,
	OPT_PREFIX,
	OPT_HELP
};

static const cli_option gen_options[] = {
	{"count", 'n', true, OPT_COUNT},
	{"node", 0, true, OPT_NODE},
	{"layout", 0, true, OPT_LAYOUT},
	{"monotonic", 0, false, OPT_MONOTONIC},
	{"scope", 0, true, OPT_SCOPE},
	{"claim-dir", 0, true, OPT_CLAIM_DIR},
	{"no-claim", 0, false, OPT_NO_CLAIM},
	{"prefix", 0, true, OPT_PREFIX},
	{"help", 'h', false, OPT_HELP},
	{NULL, 0, false, 0}
};

typedef enum gen_scheme
{
	SCHEME_SNOWFLAKE,
	SCHEME_UUIDV7,
	SCHEME_UUIDV4,
	SCHEME_ULID,
	SCHEME_TYPEID,
	/* the IDs already in databases (issue 27) */
	SCHEME_UUIDV6,
	SCHEME_OBJECTID,
	SCHEME_KSUID
} gen_scheme;

static const char *const scheme_names[] = {"snowflake", "uuidv7", "uuidv4", "ulid", "typeid",
"uuidv6", "objectid", "ksuid", NULL};

#define SCHEME_LIST "snowflake, uuidv7, uuidv4, ulid, typeid, uuidv6, objectid or ksuid"

/*
 * Snowflakes per cid_snowflake_fill call: one atomic reservation covers a
 * whole run of a tick's sequence, and the batch's text (at most 21 bytes
 * an ID) fits one output reservation.
 */
#define SNOWFLAKE_BATCH 2048

static bool
all_digits(const char *s)
{
	if (*s == '\0')
		return false;
	for (; *s != '\0'; s++)
	{
		if (*s < '0' || *s > '9')
			return false;
	}
	return true;
}

static bool
parse_count(const char *text, uint64_t *count)
{
	if (!all_digits(text) || (cli_parse_uint(text, UINT64_MAX, count) && *count == 0))
	{
		cli_error_value("gen", "invalid count ", text, strlen(text),
						": expected a positive integer");
		return false;
	}
	if (!cli_parse_uint(text, CLI_MAX_COUNT, count))
	{
		cli_error_value("gen", "invalid count ", text, strlen(text),
						": too large (at most %llu)",
						(unsigned long long) CLI_MAX_COUNT);
		return false;
	}
	return true;
}

/*
 * The node from --node or else CHRONOID_NODE, checked against the layout.
 * No default: two machines left on the same default would mint the same
 * IDs, which is the one thing a Snowflake must never do.
 */
static bool
resolve_node(const char *opt_text, const cid_layout *layout, uint64_t *node)
{
	uint64_t	max = cid_layout_max_node(layout);
	const char *text = opt_text;
	const char *from = "";
	uint64_t	v = 0;

	if (text == NULL)
	{
		text = getenv("CHRONOID_NODE");
		if (text != NULL && *text == '\0')
			text = NULL;
		from = " (from CHRONOID_NODE)";
	}
	if (text == NULL)
	{
		if (layout->bits[CID_FIELD_NODE] == 0)
		{
			/* Nothing to choose: the layout has no node field. */
			*node = 0;
			return true;
		}
		cli_error("gen", "snowflake needs a node number");
		cli_error("gen", "hint: pass --node N or set CHRONOID_NODE=N "
				  "(0..%llu for layout %s); there is no default because two "
				  "machines with the same node would mint the same IDs",
				  (unsigned long long) max, layout->name);
		return false;
	}
	if (!all_digits(text))
	{
		cli_error_value("gen", "invalid node ", text, strlen(text),
						"%s: expected a non-negative integer", from);
		return false;
	}
	if (!cli_parse_uint(text, max, &v))
	{
		cli_out_sync();
		if (layout->bits[CID_FIELD_NODE] == 0)
		{
			fprintf(stderr, "chronoid: gen: node %s%s out of range: layout %s "
					"has no node field (0 only)\n", text, from, layout->name);
			return false;
		}
		fprintf(stderr, "chronoid: gen: node %s%s out of range for layout %s "
				"(0..%llu)\n", text, from, layout->name, (unsigned long long) max);
		return false;
	}
	*node = v;
	return true;
}

/* How gen snowflake claims its node number on this host (include/chronoid.h). */
typedef struct gen_claim
{
	bool		off;			/* --no-claim */
	const char *scope;			/* --scope, NULL: "default" */
	const char *dir;			/* --claim-dir, NULL: $CHRONOID_CLAIM_DIR or the default */
} gen_claim;

/*
 * The run's generator, holding the node's claim, so that a second process
 * minting the same layout's node on this host (another gen, an application
 * through the npm or Python package) is refused instead of minting the
 * same IDs, and a run that follows another on the number (a loop of gen
 * calls) starts after the previous one's last tick (the claim's mark).
 * The claim goes with the process.  A layout without a node field is
 * claimed as node 0.  --no-claim: this process's claim only.
 */
static cid_claimed_snowflake *
open_generator(const gen_claim *how, const cid_layout *layout, uint64_t node)
{
	cid_claimed_snowflake *g = NULL;
	char		err[512];
	int			rc;

	rc = cid_claimed_snowflake_open(&g, how->scope, node, layout, NULL, !how->off, how->dir,
									NULL, err, sizeof(err));
	if (rc == CID_OK)
		return g;
	cli_error("gen", "snowflake: %s", err);
	if (rc == CID_ENODE_HELD)
		cli_error("gen", "hint: choose another --node, or --no-claim if the number is known to be free");
	else if (rc == CID_ECLAIM || strstr(err, "absolute path") != NULL)
		cli_error("gen", "hint: --claim-dir DIR (an absolute path) for another directory, or --no-claim");
	return NULL;
}

static int
gen_snowflake(const cid_layout *layout, uint64_t node, uint64_t count, const gen_claim *how)
{
	static uint64_t ids[SNOWFLAKE_BATCH];
	cid_claimed_snowflake *gen = open_generator(how, layout, node);
	int			rc = CID_OK;

	if (gen == NULL)
		return CLI_EXIT_FAIL;
	while (count > 0)
	{
		size_t		n = count < SNOWFLAKE_BATCH ? (size_t) count : SNOWFLAKE_BATCH;
		size_t		done = 0;
		char	   *p;
		size_t		k = 0;
		size_t		i;

		/* On failure, print the IDs issued before it: they are valid. */
		rc = cid_claimed_snowflake_fill(gen, ids, n, &done);
		if (rc >= 0)
			done = n;
		else if (done > n || rc == CID_ECLAIM)
			done = 0;
		p = cli_out_reserve(done * (CLI_U64_DIGITS + 1));
		for (i = 0; i < done; i++)
		{
			k += cli_u64_to_dec(p + k, ids[i]);
			p[k++] = '\n';
		}
		cli_out_commit(k);
		if (rc < 0)
			break;
		count -= n;
	}
	cid_claimed_snowflake_close(gen);
	if (rc < 0)
	{
		cli_error("gen", "snowflake: %s", cid_strerror(rc));
		return CLI_EXIT_FAIL;
	}
	return CLI_EXIT_OK;
}

/*
 * IDs per batch: one fill, one clock reading and one atomic step for the
 * lot, and their text (25 to 37 bytes each, 300 KiB at most) in one
 * output reservation, so a write(2) of the 1 MiB buffer carries about
 * three batches.
 */
#define TEXT_BATCH 8192

static union
{
	cid_uuid	uuid[TEXT_BATCH];
	cid_ulid	ulid[TEXT_BATCH];
	cid_objectid objectid[TEXT_BATCH];
	cid_ksuid	ksuid[TEXT_BATCH];
}			batch;

/* TypeID: the --prefix every ID of the run gets (checked before the run). */
static const char *typeid_prefix = "";

/* One batch of a scheme: a fill, and its batch text with '\n' after each. */
typedef struct text_scheme
{
	const char *name;
	size_t		width;			/* one ID's text, without the newline */
	int			(*fill) (void *gen, size_t n, size_t *done);
	size_t		(*format) (char *out, size_t n);
} text_scheme;

static int
fill_uuidv7(void *gen, size_t n, size_t *done)
{
	return cid_uuidv7_fill(gen, batch.uuid, n, done);
}

static int
fill_uuidv4(void *gen, size_t n, size_t *done)
{
	int			rc = cid_uuidv4_fill(batch.uuid, n, gen);

	*done = rc == CID_OK ? n : 0;
	return rc;
}

static int
fill_ulid(void *gen, size_t n, size_t *done)
{
	return cid_ulid_fill(gen, batch.ulid, n, done);
}

static int
fill_uuidv6(void *gen, size_t n, size_t *done)
{
	return cid_uuidv6_fill(gen, batch.uuid, n, done);
}

static int
fill_objectid(void *gen, size_t n, size_t *done)
{
	return cid_objectid_fill(gen, batch.objectid, n, done);
}

static int
fill_ksuid(void *gen, size_t n, size_t *done)
{
	int			rc = cid_ksuid_fill(batch.ksuid, n, NULL);

	(void) gen;
	*done = rc == CID_OK ? n : 0;
	return rc;
}

static size_t
format_uuids(char *out, size_t n)
{
	return cid_uuid_format_many(out, batch.uuid, n, '\n');
}

static size_t
format_ulids(char *out, size_t n)
{
	return cid_ulid_format_many(out, batch.ulid, n, '\n');
}

/*
 * The kinds without a batch text in the core: each ID's text (one_text
 * writes batch item i's, NUL-terminated), then '\n' over the NUL.
 */
static size_t
format_lines(char *out, size_t n, size_t width, void (*one_text) (char *out, size_t i))
{
	for (size_t i = 0; i < n; i++)
	{
		one_text(out + i * (width + 1), i);
		out[i * (width + 1) + width] = '\n';
	}
	return n * (width + 1);
}

static void
objectid_text(char *out, size_t i)
{
	cid_objectid_format(out, &batch.objectid[i]);
}

static void
ksuid_text(char *out, size_t i)
{
	cid_ksuid_format(out, &batch.ksuid[i]);
}

static size_t
format_objectids(char *out, size_t n)
{
	return format_lines(out, n, CID_OBJECTID_STRLEN, objectid_text);
}

static size_t
format_ksuids(char *out, size_t n)
{
	return format_lines(out, n, CID_KSUID_STRLEN, ksuid_text);
}

/* TypeIDs: a batch of UUIDv7s, each written under the run's prefix. */
static size_t
format_typeids(char *out, size_t n)
{
	size_t		plen = strlen(typeid_prefix);
	size_t		line = (plen > 0 ? plen + 1 : 0) + CID_TYPEID_SUFFIX_LEN + 1;
	size_t		k = 0;

	for (size_t i = 0; i < n; i++)
	{
		int			len = cid_typeid_format(out + k, (n - i) * line, typeid_prefix, plen,
											&batch.uuid[i]);

		/* the prefix was checked before the run: len is the length */
		if (len < 0)
			break;
		out[k + (size_t) len] = '\n';
		k += (size_t) len + 1;
	}
	return k;
}

/*
 * count IDs of scheme s from gen, batch by batch.  On failure the IDs
 * issued before it are printed (they are valid), then the error.
 */
static int
gen_text(const text_scheme *s, void *gen, uint64_t count)
{
	while (count > 0)
	{
		size_t		n = count < TEXT_BATCH ? (size_t) count : TEXT_BATCH;
		size_t		done = 0;
		int			rc = s->fill(gen, n, &done);

		if (done > n)
			done = 0;
		cli_out_commit(s->format(cli_out_reserve(done * (s->width + 1)), done));
		if (rc < 0)
		{
			cli_error("gen", "%s: %s", s->name, cid_strerror(rc));
			return CLI_EXIT_FAIL;
		}
		count -= n;
	}
	return CLI_EXIT_OK;
}

/*
 * UUIDv7s, or TypeIDs (which are UUIDv7s under a prefix): the same
 * generator and batches, another text.
 */
static int
gen_uuidv7(uint64_t count, const char *prefix)
{
	static const text_scheme s = {"uuidv7", CID_UUID_STRLEN, fill_uuidv7, format_uuids};
	text_scheme t = {"typeid", 0, fill_uuidv7, format_typeids};
	cid_uuidv7_gen gen;
	int			rc = cid_uuidv7_init(&gen, NULL);

	if (rc < 0)
	{
		cli_error("gen", "%s: %s", prefix != NULL ? t.name : s.name, cid_strerror(rc));
		return CLI_EXIT_FAIL;
	}
	if (prefix == NULL)
		return gen_text(&s, &gen, count);
	typeid_prefix = prefix;
	t.width = (*prefix != '\0' ? strlen(prefix) + 1 : 0) + CID_TYPEID_SUFFIX_LEN;
	return gen_text(&t, &gen, count);
}

static int
gen_uuidv4(uint64_t count)
{
	static const text_scheme s = {"uuidv4", CID_UUID_STRLEN, fill_uuidv4, format_uuids};

	return gen_text(&s, NULL, count);
}

static int
gen_ulid(uint64_t count, bool monotonic)
{
	static const text_scheme s = {"ulid", CID_ULID_STRLEN, fill_ulid, format_ulids};
	cid_ulid_gen gen;
	int			rc = cid_ulid_init(&gen, monotonic, NULL);

	if (rc < 0)
	{
		cli_error("gen", "ulid: %s", cid_strerror(rc));
		return CLI_EXIT_FAIL;
	}
	return gen_text(&s, &gen, count);
}

static int
gen_uuidv6(uint64_t count)
{
	static const text_scheme s = {"uuidv6", CID_UUID_STRLEN, fill_uuidv6, format_uuids};
	cid_uuidv6_gen gen;
	int			rc = cid_uuidv6_init(&gen, NULL);

	if (rc < 0)
	{
		cli_error("gen", "uuidv6: %s", cid_strerror(rc));
		return CLI_EXIT_FAIL;
	}
	return gen_text(&s, &gen, count);
}

static int
gen_objectid(uint64_t count)
{
	static const text_scheme s = {"objectid", CID_OBJECTID_STRLEN, fill_objectid, format_objectids};
	cid_objectid_gen gen;
	int			rc = cid_objectid_init(&gen, NULL);

	if (rc < 0)
	{
		cli_error("gen", "objectid: %s", cid_strerror(rc));
		return CLI_EXIT_FAIL;
	}
	return gen_text(&s, &gen, count);
}

static int
gen_ksuid(uint64_t count)
{
	static const text_scheme s = {"ksuid", CID_KSUID_STRLEN, fill_ksuid, format_ksuids};

	return gen_text(&s, NULL, count);
}

/* Complain about an option that does not apply to the chosen scheme. */
static int
not_for_scheme(const char *option, const char *scheme)
{
	cli_error("gen", "option '--%s' applies only to %s", option, scheme);
	return CLI_EXIT_USAGE;
}

int
cli_cmd_gen(int argc, char **argv)
{
	cli_args	args;
	const char *value;
	const char *scheme_text = NULL;
	const char *node_text = NULL;
	const char *layout_text = NULL;
	const char *prefix = NULL;
	bool		monotonic = false;
	gen_claim	claim = {false, NULL, NULL};
	uint64_t	count = 1;
	gen_scheme	scheme;
	int			opt;
	int			rc;
	int			i;

	cli_args_init(&args, argc, argv, 1, "gen");
	while ((opt = cli_next_arg(&args, gen_options, &value)) != CLI_ARG_END)
	{
		switch (opt)
		{
			case CLI_ARG_ERROR:
				return CLI_EXIT_USAGE;
			case CLI_ARG_OPERAND:
				if (scheme_text != NULL)
				{
					cli_error_value("gen", "unexpected argument ", value,
									strlen(value), " (one SCHEME only)");
					return CLI_EXIT_USAGE;
				}
				scheme_text = value;
				break;
			case OPT_COUNT:
				if (!parse_count(value, &count))
					return CLI_EXIT_USAGE;
				break;
			case OPT_NODE:
				node_text = value;
				break;
			case OPT_LAYOUT:
				layout_text = value;
				break;
			case OPT_MONOTONIC:
				monotonic = true;
				break;
			case OPT_SCOPE:
				claim.scope = value;
				break;
			case OPT_CLAIM_DIR:
				claim.dir = value;
				break;
			case OPT_NO_CLAIM:
				claim.off = true;
				break;
			case OPT_PREFIX:
				prefix = value;
				break;
			case OPT_HELP:
				cli_usage_gen(stdout);
				return CLI_EXIT_OK;
		}
	}

	if (scheme_text == NULL)
	{
		cli_error("gen", "missing SCHEME (" SCHEME_LIST ")");
		return CLI_EXIT_USAGE;
	}
	for (i = 0; scheme_names[i] != NULL; i++)
	{
		if (strcmp(scheme_names[i], scheme_text) == 0)
			break;
	}
	if (scheme_names[i] == NULL)
	{
		cli_error_value("gen", "unknown scheme ", scheme_text, strlen(scheme_text),
						" (expected " SCHEME_LIST ")");
		return CLI_EXIT_USAGE;
	}
	scheme = (gen_scheme) i;
	if (scheme != SCHEME_SNOWFLAKE && node_text != NULL)
		return not_for_scheme("node", "snowflake");
	if (scheme != SCHEME_SNOWFLAKE && layout_text != NULL)
		return not_for_scheme("layout", "snowflake");
	if (scheme != SCHEME_SNOWFLAKE && claim.scope != NULL)
		return not_for_scheme("scope", "snowflake");
	if (scheme != SCHEME_SNOWFLAKE && claim.dir != NULL)
		return not_for_scheme("claim-dir", "snowflake");
	if (scheme != SCHEME_SNOWFLAKE && claim.off)
		return not_for_scheme("no-claim", "snowflake");
	if (scheme != SCHEME_ULID && monotonic)
		return not_for_scheme("monotonic", "ulid");
	if (scheme != SCHEME_TYPEID && prefix != NULL)
		return not_for_scheme("prefix", "typeid");
	if (scheme == SCHEME_TYPEID && prefix != NULL && !cli_typeid_prefix_ok("gen", prefix))
		return CLI_EXIT_USAGE;

	switch (scheme)
	{
		case SCHEME_SNOWFLAKE:
			{
				cid_layout	layout;
				uint64_t	node;

				if (!cli_resolve_layout(&layout, layout_text, "gen") ||
					!resolve_node(node_text, &layout, &node))
					return CLI_EXIT_USAGE;
				rc = gen_snowflake(&layout, node, count, &claim);
				break;
			}
		case SCHEME_UUIDV7:
			rc = gen_uuidv7(count, NULL);
			break;
		case SCHEME_TYPEID:
			rc = gen_uuidv7(count, prefix != NULL ? prefix : "");
			break;
		case SCHEME_UUIDV4:
			rc = gen_uuidv4(count);
			break;
		case SCHEME_UUIDV6:
			rc = gen_uuidv6(count);
			break;
		case SCHEME_OBJECTID:
			rc = gen_objectid(count);
			break;
		case SCHEME_KSUID:
			rc = gen_ksuid(count);
			break;
		case SCHEME_ULID:
		default:
			rc = gen_ulid(count, monotonic);
			break;
	}
	if (!cli_out_flush())
		return CLI_EXIT_FAIL;
	return rc;
}
