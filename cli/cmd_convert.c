/*
 * cmd_convert.c — "chronoid convert --to uuid|ulid": the same 128 bits in
 * the other text form, or canonicalised in their own.
 */
#include <string.h>

#include "cli.h"

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
	char	   *p;
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
		cli_out_sync();
		fputs("chronoid: convert: ", stderr);
		cli_quote(stderr, s, len);
		fprintf(stderr, ": a snowflake cannot be converted to a %s "
				"(it has 64 bits, not 128)\n",
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
		p = cli_out_reserve(CID_UUID_STRLEN + 1);
		cid_uuid_format(p, &uuid);
		p[CID_UUID_STRLEN] = '\n';
		cli_out_commit(CID_UUID_STRLEN + 1);
	}
	else
	{
		if (info.kind == CID_KIND_UUID)
			cid_ulid_from_uuid(&ulid, &uuid);
		p = cli_out_reserve(CID_ULID_STRLEN + 1);
		cid_ulid_format(p, &ulid);
		p[CID_ULID_STRLEN] = '\n';
		cli_out_commit(CID_ULID_STRLEN + 1);
	}
}

int
cli_cmd_convert(int argc, char **argv)
{
	cli_args	args;
	const char *value;
	const char *to_text = NULL;
	convert_ctx ctx;
	char	  **ids;
	int			nids = 0;
	int			opt;
	bool		read_ok;

	/* Operands are gathered in argv's own slots (they are never more). */
	ids = argv;
	memset(&ctx, 0, sizeof(ctx));
	cli_args_init(&args, argc, argv, 1, "convert");
	while ((opt = cli_next_arg(&args, convert_options, &value)) != CLI_ARG_END)
	{
		switch (opt)
		{
			case CLI_ARG_ERROR:
				return CLI_EXIT_USAGE;
			case CLI_ARG_OPERAND:
				ids[nids++] = (char *) value;
				break;
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
		cli_out_sync();
		fputs("chronoid: convert: invalid value ", stderr);
		cli_quote(stderr, to_text, strlen(to_text));
		fputs(" for '--to' (expected uuid or ulid)\n", stderr);
		return CLI_EXIT_USAGE;
	}
	read_ok = cli_for_each_id(ids, nids, convert_one, &ctx, "convert");
	if (!cli_out_flush() || !read_ok || ctx.bad > 0)
		return CLI_EXIT_FAIL;
	return CLI_EXIT_OK;
}
