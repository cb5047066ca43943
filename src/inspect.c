/*
 * inspect.c — cid_inspect(): tell a UUID, a ULID and a decimal Snowflake
 * apart by the form of their text, and decode whichever it is.
 */
#include "chronoid.h"

#include <string.h>

/* 1..20 decimal digits, optionally after one '-'. */
static bool
is_decimal(const char *s, size_t len)
{
	size_t		i = 0;

	if (len > 0 && s[0] == '-')
		i = 1;
	if (len - i < 1 || len - i > 20)
		return false;
	for (; i < len; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

static int
inspect_uuid(cid_info *out, const char *s, size_t len, size_t *errpos)
{
	cid_uuid	uuid;
	int			rc;

	rc = cid_uuid_parse(&uuid, s, len, errpos);
	if (rc != CID_OK)
		return rc;
	out->kind = CID_KIND_UUID;
	memcpy(out->bytes, uuid.bytes, 16);
	out->version = cid_uuid_version(&uuid);
	out->has_time = cid_uuid_unix_ms(&out->unix_ms, &uuid) == CID_OK;
	if (!out->has_time)
		out->unix_ms = 0;
	return CID_OK;
}

static int
inspect_ulid(cid_info *out, const char *s, size_t len, size_t *errpos)
{
	cid_ulid	ulid;
	int			rc;

	rc = cid_ulid_parse(&ulid, s, len, errpos);
	if (rc != CID_OK)
		return rc;
	out->kind = CID_KIND_ULID;
	memcpy(out->bytes, ulid.bytes, 16);
	out->has_time = true;
	out->unix_ms = cid_ulid_unix_ms(&ulid);
	return CID_OK;
}

static int
inspect_snowflake(cid_info *out, const char *s, size_t len,
				  const cid_layout *layout, size_t *errpos)
{
	cid_layout	preset;
	cid_snowflake_parts parts;
	uint64_t	id;
	int			rc;

	if (layout == NULL)
	{
		rc = cid_layout_preset(&preset, "pgedge");
		if (rc != CID_OK)
			return rc;
		layout = &preset;
	}
	rc = cid_snowflake_parse(&id, layout, s, len, errpos);
	if (rc != CID_OK)
		return rc;
	rc = cid_snowflake_decode(&parts, layout, id);
	if (rc != CID_OK)
		return rc;
	out->kind = CID_KIND_SNOWFLAKE;
	out->snowflake = id;
	out->has_time = true;
	out->unix_ms = parts.unix_ms;
	out->has_node = layout->bits[CID_FIELD_NODE] > 0;
	out->node = out->has_node ? parts.node : 0;
	out->has_sequence = layout->bits[CID_FIELD_SEQ] > 0;
	out->sequence = out->has_sequence ? parts.sequence : 0;
	return CID_OK;
}

int
cid_inspect(cid_info *out, const char *s, size_t len,
			const cid_layout *layout, size_t *errpos)
{
	if (out == NULL || (s == NULL && len > 0))
		return CID_EINVAL;
	memset(out, 0, sizeof(*out));
	out->version = -1;			/* only UUIDs have a version */

	switch (len)
	{
		case 32:
		case 34:				/* braced hex form: cid_uuid_parse takes it */
		case 36:
		case 38:
			return inspect_uuid(out, s, len, errpos);
		case CID_ULID_STRLEN:
			return inspect_ulid(out, s, len, errpos);
		default:
			if (is_decimal(s, len))
				return inspect_snowflake(out, s, len, layout, errpos);
			return CID_EUNKNOWN;
	}
}
