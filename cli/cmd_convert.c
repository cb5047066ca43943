/*
 * cmd_convert.c — "chronoid convert --to uuid|ulid|typeid": the same 128
 * bits in another text form, or canonicalised in their own; "--to
 * uuidv6|uuidv1": a Gregorian time-based UUID in the other version (RFC
 * 9562 section 5.6).
 */
#include <string.h>

#include "cli_internal.h"
#include "typeid_internal.h"	/* cid_typeid_shaped: the core's rule */

enum
{
	OPT_TO = 1,
	OPT_PREFIX,
	OPT_HELP
};

static const cli_option convert_options[] = {
	{"to", 0, true, OPT_TO},
	{"prefix", 0, true, OPT_PREFIX},
	{"help", 'h', false, OPT_HELP},
	{NULL, 0, false, 0}
};

typedef struct convert_ctx
{
	cid_kind	to;				/* CID_KIND_UUID or CID_KIND_ULID */
	const char *prefix;			/* --to typeid: its prefix ("" none); else NULL */
	int			to_version;		/* 6 or 1 for --to uuidv6|uuidv1, else 0 */
	unsigned long bad;
} convert_ctx;

/*
 * --to uuidv6 (from version 1, Cassandra's TimeUUID) or uuidv1 (from 6):
 * a UUID already of the wanted version is canonicalised, any other is
 * refused with its version.  false after a message.
 */
static bool
convert_version(const convert_ctx *ctx, cid_uuid *u, const char *s, size_t len)
{
	int			from = 7 - ctx->to_version;
	int			version = cid_uuid_version(u);	/* -1 outside the RFC variant */
	int			rc;

	if (version != from && version != ctx->to_version)
	{
		cli_error_value("convert", "", s, len,
						": not a version %d or %d UUID (uuidv%d is made from version %d)",
						from, ctx->to_version, ctx->to_version, from);
		return false;
	}
	if (version == from)
	{
		rc = ctx->to_version == 6 ? cid_uuid_v1_to_v6(u, u) : cid_uuid_v6_to_v1(u, u);
		if (rc != CID_OK)
		{
			cli_error_value("convert", "", s, len, ": %s", cid_strerror(rc));
			return false;
		}
	}
	return true;
}

/*
 * The 128 bits of s into *uuid: a TypeID (the one form with a '_') by its
 * parser, anything else classified by cid_inspect(); false after a message.
 */
static bool
read_bits(const char *s, size_t len, cid_uuid *uuid, convert_ctx *ctx)
{
	cid_info	info;
	size_t		errpos = 0;
	int			rc;

	if (cid_typeid_shaped(s, len))
		return cli_typeid_parse("convert", s, len, uuid, NULL);

	/*
	 * cid_inspect()'s default layout only matters for the Snowflake case,
	 * which is refused anyway.
	 */
	rc = cid_inspect(&info, s, len, NULL, &errpos);
	if (rc < 0)
	{
		cid_layout	layout;

		if (cid_layout_preset(&layout, "pgedge") != CID_OK)
			memset(&layout, 0, sizeof(layout));
		cli_report_bad_id("convert", s, len, rc, errpos, &layout);
		return false;
	}
	if (info.kind == CID_KIND_SNOWFLAKE)
	{
		cli_error_value("convert", "", s, len,
						": a snowflake cannot be converted to a %s "
						"(it has 64 bits, not 128)",
						ctx->prefix != NULL ? "TypeID" :
						ctx->to == CID_KIND_UUID ? "UUID" : "ULID");
		return false;
	}
	if (info.kind == CID_KIND_UUID)
		memcpy(uuid->bytes, info.bytes, sizeof(uuid->bytes));
	else
	{
		cid_ulid	ulid;

		memcpy(ulid.bytes, info.bytes, sizeof(ulid.bytes));
		cid_ulid_to_uuid(uuid, &ulid);
	}
	return true;
}

static void
convert_one(const char *s, size_t len, void *arg)
{
	convert_ctx *ctx = arg;
	cid_uuid	uuid;
	cid_ulid	ulid;

	if (!read_bits(s, len, &uuid, ctx) ||
		(ctx->to_version != 0 && !convert_version(ctx, &uuid, s, len)))
	{
		ctx->bad++;
		return;
	}
	if (ctx->prefix != NULL)
		cli_out_typeid_line(ctx->prefix, strlen(ctx->prefix), &uuid);
	else if (ctx->to == CID_KIND_UUID)
		cli_out_uuid_line(&uuid);
	else
	{
		cid_ulid_from_uuid(&ulid, &uuid);
		cli_out_ulid_line(&ulid);
	}
}

int
cli_cmd_convert(int argc, char **argv)
{
	cli_args	args;
	const char *value;
	const char *to_text = NULL;
	const char *prefix = NULL;
	convert_ctx ctx;
	int			opt;

	memset(&ctx, 0, sizeof(ctx));
	cli_args_init(&args, argc, argv, 1, "convert");
	while ((opt = cli_next_option(&args, convert_options, &value)) != CLI_ARG_END)
	{
		switch (opt)
		{
			case CLI_ARG_ERROR:
				return CLI_EXIT_USAGE;
			case OPT_TO:
				to_text = value;
				break;
			case OPT_PREFIX:
				prefix = value;
				break;
			case OPT_HELP:
				cli_usage_convert(stdout);
				return CLI_EXIT_OK;
		}
	}
	if (to_text == NULL)
	{
		cli_error("convert", "missing option '--to' (uuid, ulid, typeid, uuidv6 or uuidv1)");
		return CLI_EXIT_USAGE;
	}
	if (strcmp(to_text, "uuid") == 0)
		ctx.to = CID_KIND_UUID;
	else if (strcmp(to_text, "ulid") == 0)
		ctx.to = CID_KIND_ULID;
	else if (strcmp(to_text, "typeid") == 0)
	{
		ctx.to = CID_KIND_UUID;
		ctx.prefix = prefix != NULL ? prefix : "";
		if (!cli_typeid_prefix_ok("convert", ctx.prefix))
			return CLI_EXIT_USAGE;
	}
	else if (strcmp(to_text, "uuidv6") == 0 || strcmp(to_text, "uuidv1") == 0)
	{
		ctx.to = CID_KIND_UUID;
		ctx.to_version = to_text[5] - '0';
	}
	else
	{
		cli_error_value("convert", "invalid value ", to_text, strlen(to_text),
						" for '--to' (expected uuid, ulid, typeid, uuidv6 or uuidv1)");
		return CLI_EXIT_USAGE;
	}
	if (prefix != NULL && ctx.prefix == NULL)
	{
		cli_error("convert", "option '--prefix' applies only to '--to typeid'");
		return CLI_EXIT_USAGE;
	}
	return cli_run_ids(&args, convert_one, &ctx, &ctx.bad);
}
