/*
 * cmd_convert.c — "chronoid convert --to uuid|ulid": the same 128 bits in
 * the other text form, or canonicalised in their own.
 */
#include <string.h>

#include "cli_internal.h"

enum
{
	OPT_TO = 1,
	OPT_HELP
};

static const cli_option convert_options[] = {
	{"to", 0, true, OPT_TO},
	{"help", 'h', false, OPT_HELP},
	{NULL, 0, false, 0}
};

typedef struct convert_ctx
{
	cid_kind	to;				/* CID_KIND_UUID or CID_KIND_ULID */
	unsigned long bad;
} convert_ctx;

static void
convert_one(const char *s, size_t len, void *arg)
{
	convert_ctx *ctx = arg;
	cid_info	info;
	size_t		errpos = 0;
	cid_uuid	uuid;
	cid_ulid	ulid;
	int			rc;

	/*
	 * cid_inspect() classifies the text; its default layout only matters
	 * for the Snowflake case, which is refused anyway.
	 */
	rc = cid_inspect(&info, s, len, NULL, &errpos);
	if (rc < 0)
	{
		cid_layout	layout;

		if (cid_layout_preset(&layout, "pgedge") != CID_OK)
			memset(&layout, 0, sizeof(layout));
		cli_report_bad_id("convert", s, len, rc, errpos, &layout);
		ctx->bad++;
		return;
	}
	if (info.kind == CID_KIND_SNOWFLAKE)
	{
		cli_error_value("convert", "", s, len,
						": a snowflake cannot be converted to a %s "
						"(it has 64 bits, not 128)",
						ctx->to == CID_KIND_UUID ? "UUID" : "ULID");
		ctx->bad++;
		return;
	}

	if (info.kind == CID_KIND_UUID)
		memcpy(uuid.bytes, info.bytes, sizeof(uuid.bytes));
	else
		memcpy(ulid.bytes, info.bytes, sizeof(ulid.bytes));

	if (ctx->to == CID_KIND_UUID)
	{
		if (info.kind == CID_KIND_ULID)
			cid_ulid_to_uuid(&uuid, &ulid);
		cli_out_uuid_line(&uuid);
	}
	else
	{
		if (info.kind == CID_KIND_UUID)
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
			case OPT_HELP:
				cli_usage_convert(stdout);
				return CLI_EXIT_OK;
		}
	}
	if (to_text == NULL)
	{
		cli_error("convert", "missing option '--to' (uuid or ulid)");
		return CLI_EXIT_USAGE;
	}
	if (strcmp(to_text, "uuid") == 0)
		ctx.to = CID_KIND_UUID;
	else if (strcmp(to_text, "ulid") == 0)
		ctx.to = CID_KIND_ULID;
	else
	{
		cli_error_value("convert", "invalid value ", to_text, strlen(to_text),
						" for '--to' (expected uuid or ulid)");
		return CLI_EXIT_USAGE;
	}
	return cli_run_ids(&args, convert_one, &ctx, &ctx.bad);
}
