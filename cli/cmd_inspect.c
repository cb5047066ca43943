/*
 * cmd_inspect.c — "chronoid inspect": what cid_inspect_id() finds in each
 * ID, as a line of key=value text or as one JSON object per line.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli_internal.h"
#include "typeid_internal.h"	/* cid_typeid_shaped: the core's rule */

enum
{
	OPT_LAYOUT = 1,
	OPT_JSON,
	OPT_AS,
	OPT_HELP
};

static const cli_option inspect_options[] = {
	{"layout", 0, true, OPT_LAYOUT},
	{"json", 0, false, OPT_JSON},
	{"as", 0, true, OPT_AS},
	{"help", 'h', false, OPT_HELP},
	{NULL, 0, false, 0}
};

typedef struct inspect_ctx
{
	const cid_layout *layout;
	bool		json;
	bool		as_typeid;		/* --as typeid: bare 26 digits too */
	unsigned long bad;			/* IDs refused */
} inspect_ctx;

/* The canonical text of a decoded ID into buf; returns its length. */
static size_t
canonical_id(char *buf, const cid_id_info *info)
{
	switch (info->kind)
	{
		case CID_KIND_SNOWFLAKE:
			return cli_u64_to_dec(buf, info->snowflake);
		case CID_KIND_UUID:
			{
				cid_uuid	u;

				memcpy(u.bytes, info->bytes, sizeof(u.bytes));
				cid_uuid_format(buf, &u);
				return CID_UUID_STRLEN;
			}
		case CID_KIND_OBJECTID:
			{
				cid_objectid o;

				memcpy(o.bytes, info->bytes, sizeof(o.bytes));
				cid_objectid_format(buf, &o);
				return CID_OBJECTID_STRLEN;
			}
		case CID_KIND_KSUID:
			{
				cid_ksuid	k;

				memcpy(k.bytes, info->bytes, sizeof(k.bytes));
				cid_ksuid_format(buf, &k);
				return CID_KSUID_STRLEN;
			}
		case CID_KIND_ULID:
		default:
			{
				cid_ulid	u;

				memcpy(u.bytes, info->bytes, sizeof(u.bytes));
				cid_ulid_format(buf, &u);
				return CID_ULID_STRLEN;
			}
	}
}

/*
 * The parts that are not a snowflake's node and sequence, as key and
 * value texts: a UUID v1/v6's clock sequence and node (hex, as a MAC
 * address), an ObjectId's process bytes (hex) and counter.  *n of them.
 */
typedef struct extra_part
{
	const char *key;
	char		value[24];
	bool		quoted;			/* a string in JSON */
} extra_part;

static int
extra_parts(extra_part *parts, const cid_id_info *info)
{
	if (info->kind == CID_KIND_UUID && info->has_node)
	{
		parts[0].key = "clock_seq";
		snprintf(parts[0].value, sizeof(parts[0].value), "%" PRIu64, info->sequence);
		parts[0].quoted = false;
		parts[1].key = "node";
		snprintf(parts[1].value, sizeof(parts[1].value), "%012" PRIx64, info->node);
		parts[1].quoted = true;
		return 2;
	}
	if (info->kind == CID_KIND_OBJECTID)
	{
		parts[0].key = "process";
		snprintf(parts[0].value, sizeof(parts[0].value), "%010" PRIx64, info->node);
		parts[0].quoted = true;
		parts[1].key = "counter";
		snprintf(parts[1].value, sizeof(parts[1].value), "%" PRIu64, info->sequence);
		parts[1].quoted = false;
		return 2;
	}
	return 0;
}

/* id snowflake time=... unix_ms=... node=... sequence=... */
static void
write_text(const cid_id_info *info, const char *id, size_t idlen,
		   const char *timestamp)
{
	extra_part	parts[2];
	int			nparts = extra_parts(parts, info);

	cli_out_bytes(id, idlen);
	cli_out_char(' ');
	cli_out_str(cid_kind_name(info->kind));
	if (info->kind == CID_KIND_UUID)
	{
		if (info->version >= 0)
		{
			cli_out_str(" version=");
			cli_out_i64(info->version);
		}
		else
			cli_out_str(" variant=non-rfc");
	}
	if (timestamp != NULL)
	{
		cli_out_str(" time=");
		cli_out_str(timestamp);
	}
	if (info->has_time)
	{
		cli_out_str(" unix_ms=");
		cli_out_i64(info->unix_ms);
	}
	if (info->kind == CID_KIND_SNOWFLAKE && info->has_node)
	{
		cli_out_str(" node=");
		cli_out_u64(info->node);
	}
	if (info->kind == CID_KIND_SNOWFLAKE && info->has_sequence)
	{
		cli_out_str(" sequence=");
		cli_out_u64(info->sequence);
	}
	for (int i = 0; i < nparts; i++)
	{
		cli_out_char(' ');
		cli_out_str(parts[i].key);
		cli_out_char('=');
		cli_out_str(parts[i].value);
	}
	cli_out_char('\n');
}

/*
 * {"id":..,"type":..,"version":..,"variant":..,"unix_ms":..,"timestamp":..,
 * "node":..,"sequence":..,"layout":..}: keys in this order, a key that does
 * not apply left out; a UUID v1/v6 has "clock_seq" and "node" (hex text),
 * an ObjectId "process" (hex text) and "counter" instead.
 */
static void
write_json(const cid_id_info *info, const char *id, size_t idlen,
		   const char *timestamp, const cid_layout *layout)
{
	extra_part	parts[2];
	int			nparts = extra_parts(parts, info);

	cli_out_str("{\"id\":");
	cli_out_json_str(id, idlen);
	cli_out_str(",\"type\":\"");
	cli_out_str(cid_kind_name(info->kind));
	cli_out_char('"');
	if (info->kind == CID_KIND_UUID)
	{
		if (info->version >= 0)
		{
			cli_out_str(",\"version\":");
			cli_out_i64(info->version);
		}
		else
			cli_out_str(",\"variant\":\"non-rfc\"");
	}
	if (info->has_time)
	{
		cli_out_str(",\"unix_ms\":");
		cli_out_i64(info->unix_ms);
	}
	if (timestamp != NULL)
	{
		cli_out_str(",\"timestamp\":");
		cli_out_json_str(timestamp, strlen(timestamp));
	}
	if (info->kind == CID_KIND_SNOWFLAKE && info->has_node)
	{
		cli_out_str(",\"node\":");
		cli_out_u64(info->node);
	}
	if (info->kind == CID_KIND_SNOWFLAKE && info->has_sequence)
	{
		cli_out_str(",\"sequence\":");
		cli_out_u64(info->sequence);
	}
	for (int i = 0; i < nparts; i++)
	{
		cli_out_str(",\"");
		cli_out_str(parts[i].key);
		cli_out_str("\":");
		if (parts[i].quoted)
			cli_out_json_str(parts[i].value, strlen(parts[i].value));
		else
			cli_out_str(parts[i].value);
	}
	if (info->kind == CID_KIND_SNOWFLAKE)
	{
		cli_out_str(",\"layout\":");
		cli_out_json_str(layout->name, strlen(layout->name));
	}
	cli_out_str("}\n");
}

/*
 * A UUID v1/v6's time to its 100 ns: "....22.123Z" becomes "....22.1234567Z"
 * (size bytes at buf).
 */
static void
add_100ns(char *buf, size_t size, int32_t sub_ms_ns)
{
	size_t		n = strlen(buf);
	int32_t		steps = sub_ms_ns / 100;	/* 0 .. 9999 */

	if (n < 1 || buf[n - 1] != 'Z')
		return;
	if (n + 4 < size)
		snprintf(buf + n - 1, size - (n - 1), "%04dZ", (int) steps);
}

static void
inspect_one(const char *s, size_t len, void *arg)
{
	inspect_ctx *ctx = arg;
	cid_id_info info;
	size_t		errpos = 0;
	char		id[CID_UUID_STRLEN + 1];	/* the longest kind's text */
	size_t		idlen;
	char		timebuf[CID_TIME_STRLEN + 1 + 4];	/* + 100-ns digits */
	const char *timestamp = NULL;
	int			rc;

	/*
	 * A TypeID with a prefix is the one form with a '_'; a bare one is
	 * the text of a ULID, which cid_inspect() keeps calling it unless
	 * --as typeid says otherwise.
	 */
	if (ctx->as_typeid || cid_typeid_shaped(s, len))
	{
		cid_uuid	uuid;
		size_t		prefix_len = 0;

		if (cli_typeid_parse("inspect", s, len, &uuid, &prefix_len))
			cli_typeid_inspect_line(s, len, prefix_len, &uuid, ctx->json);
		else
			ctx->bad++;
		return;
	}
	rc = cid_inspect_id(&info, sizeof(info), s, len, ctx->layout, &errpos);
	if (rc < 0)
	{
		cli_report_bad_id("inspect", s, len, rc, errpos, ctx->layout);
		ctx->bad++;
		return;
	}
	idlen = canonical_id(id, &info);
	/* A time the calendar text cannot show (before year 0) keeps unix_ms. */
	if (info.has_time && cid_time_format(timebuf, info.unix_ms) == CID_OK)
	{
		timestamp = timebuf;
		if (info.precision_ns == 100)
			add_100ns(timebuf, sizeof(timebuf), info.sub_ms_ns);
	}
	if (ctx->json)
		write_json(&info, id, idlen, timestamp, ctx->layout);
	else
		write_text(&info, id, idlen, timestamp);
}

int
cli_cmd_inspect(int argc, char **argv)
{
	cli_args	args;
	const char *value;
	const char *layout_text = NULL;
	cid_layout	layout;
	inspect_ctx ctx;
	int			opt;

	memset(&ctx, 0, sizeof(ctx));
	cli_args_init(&args, argc, argv, 1, "inspect");
	while ((opt = cli_next_option(&args, inspect_options, &value)) != CLI_ARG_END)
	{
		switch (opt)
		{
			case CLI_ARG_ERROR:
				return CLI_EXIT_USAGE;
			case OPT_LAYOUT:
				layout_text = value;
				break;
			case OPT_JSON:
				ctx.json = true;
				break;
			case OPT_AS:
				if (strcmp(value, "typeid") != 0)
				{
					cli_error_value("inspect", "invalid value ", value, strlen(value),
									" for '--as' (expected typeid)");
					return CLI_EXIT_USAGE;
				}
				ctx.as_typeid = true;
				break;
			case OPT_HELP:
				cli_usage_inspect(stdout);
				return CLI_EXIT_OK;
		}
	}
	if (!cli_resolve_layout(&layout, layout_text, "inspect"))
		return CLI_EXIT_USAGE;
	ctx.layout = &layout;
	return cli_run_ids(&args, inspect_one, &ctx, &ctx.bad);
}
