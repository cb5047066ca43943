/*
 * inspect.c — cid_inspect(): tell a UUID, a ULID and a decimal Snowflake
 * apart by the form of their text, and decode whichever it is;
 * cid_inspect_id(): the same and the other kinds (ObjectId, KSUID, room
 * for TypeID) into a struct that can grow.
 */
#include "chronoid.h"

#include <string.h>

#include "bytes_internal.h"
#include "typeid_internal.h"

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

/* What cid_inspect() tells of a UUID's bytes, however they were written. */
static void
uuid_info(cid_info *out, const cid_uuid *uuid)
{
	out->kind = CID_KIND_UUID;
	memcpy(out->bytes, uuid->bytes, 16);
	out->version = cid_uuid_version(uuid);
	out->has_time = cid_uuid_unix_ms(&out->unix_ms, uuid) == CID_OK;
	if (!out->has_time)
		out->unix_ms = 0;
}

static int
inspect_uuid(cid_info *out, const char *s, size_t len, size_t *errpos)
{
	cid_uuid	uuid;
	int			rc;

	rc = cid_uuid_parse(&uuid, s, len, errpos);
	if (rc != CID_OK)
		return rc;
	uuid_info(out, &uuid);
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

/* ------------------------------------------------------------------------
 * cid_inspect_id: every kind, in a struct that grows at its end
 * ------------------------------------------------------------------------ */

/*
 * The size of the first cid_id_info (this library's): the least a caller
 * may pass.  A later version that appends fields keeps this number and
 * fills only the out_size bytes its caller knows of.
 */
#define ID_INFO_SIZE_1 sizeof(cid_id_info)

#define NS_PER_MS INT64_C(1000000)
#define NS_PER_S INT64_C(1000000000)
#define TICKS_PER_MS 10000		/* 100-ns steps */

/*
 * cid_inspect()'s answer for a UUID, ULID or Snowflake, widened, with what
 * only the larger struct holds (v1/v6 time below the ms, node, sequence).
 */
static void
id_info_of(cid_id_info *out, const cid_info *in, const cid_layout *layout)
{
	cid_uuid	u;
	uint64_t	ticks;

	out->kind = in->kind;
	out->version = in->version;
	out->snowflake = in->snowflake;
	out->has_time = in->has_time;
	out->unix_ms = in->unix_ms;
	out->has_node = in->has_node;
	out->node = in->node;
	out->has_sequence = in->has_sequence;
	out->sequence = in->sequence;
	if (in->kind == CID_KIND_SNOWFLAKE)
	{
		cid_layout	preset;

		if (layout == NULL && cid_layout_preset(&preset, "pgedge") == CID_OK)
			layout = &preset;
		out->precision_ns = layout != NULL ? (int64_t) layout->tick_ms * NS_PER_MS : NS_PER_MS;
		return;
	}
	out->nbytes = 16;
	memcpy(out->bytes, in->bytes, 16);
	if (in->has_time)
		out->precision_ns = NS_PER_MS;
	memcpy(u.bytes, in->bytes, 16);
	if (in->kind == CID_KIND_UUID && cid_uuid_gregorian_ticks(&ticks, &u) == CID_OK)
	{
		/*
		 * RFC 9562 sections 5.1 and 5.6: 100-ns steps since 1582-10-15;
		 * below the ms cid_inspect() gives, the rest in ns.  Bytes 8..9
		 * hold the variant over the 14-bit clock sequence, 10..15 the node.
		 */
		int64_t		since_unix = (int64_t) ticks - CID_UUID_GREGORIAN_OFFSET;

		out->sub_ms_ns = (int32_t) ((since_unix - out->unix_ms * TICKS_PER_MS) * 100);
		out->precision_ns = 100;
		out->has_node = true;
		out->node = cid_load_be_n(u.bytes + 10, 6);
		out->has_sequence = true;
		out->sequence = cid_load_be_n(u.bytes + 8, 2) & 0x3fff;
	}
}

/* The UUID, ULID and Snowflake forms through cid_inspect(). */
static int
inspect_classic(cid_id_info *out, const char *s, size_t len,
				const cid_layout *layout, size_t *errpos)
{
	cid_info	old;
	int			rc = cid_inspect(&old, s, len, layout, errpos);

	if (rc == CID_OK)
		id_info_of(out, &old, layout);
	return rc;
}

static int
inspect_objectid(cid_id_info *out, const char *s, size_t len, size_t *errpos)
{
	cid_objectid o;
	int			rc = cid_objectid_parse(&o, s, len, errpos);

	if (rc != CID_OK)
		return rc;
	out->kind = CID_KIND_OBJECTID;
	out->nbytes = sizeof(o.bytes);
	memcpy(out->bytes, o.bytes, sizeof(o.bytes));
	out->has_time = true;
	out->unix_ms = cid_objectid_unix_ms(&o);
	out->precision_ns = NS_PER_S;
	/* the BSON ObjectID spec: 5 process bytes, then the 24-bit counter */
	out->has_node = true;
	out->node = cid_load_be_n(o.bytes + 4, 5);
	out->has_sequence = true;
	out->sequence = cid_load_be_n(o.bytes + 9, 3);
	return CID_OK;
}

static int
inspect_ksuid(cid_id_info *out, const char *s, size_t len, size_t *errpos)
{
	cid_ksuid	k;
	int			rc = cid_ksuid_parse(&k, s, len, errpos);

	if (rc != CID_OK)
		return rc;
	out->kind = CID_KIND_KSUID;
	out->nbytes = sizeof(k.bytes);
	memcpy(out->bytes, k.bytes, sizeof(k.bytes));
	out->has_time = true;
	out->unix_ms = cid_ksuid_unix_ms(&k);
	out->precision_ns = NS_PER_S;
	return CID_OK;
}

/*
 * A TypeID with a prefix: its UUID inspected as a UUID is (version, time
 * to the UUID's precision), then the kind and the prefix.  A bare one is
 * the 26 characters of a ULID, and stays one.
 */
static int
inspect_typeid(cid_id_info *out, const char *s, size_t len, size_t *errpos)
{
	cid_uuid	u;
	cid_info	old;
	size_t		prefix_len = 0;
	int			rc = cid_typeid_parse(&u, &prefix_len, s, len, errpos);

	if (rc != CID_OK)
		return rc;
	memset(&old, 0, sizeof(old));
	uuid_info(&old, &u);
	id_info_of(out, &old, NULL);
	out->kind = CID_KIND_TYPEID;
	memcpy(out->prefix, s, prefix_len);
	out->prefix[prefix_len] = '\0';
	return CID_OK;
}

int
cid_inspect_id(cid_id_info *out, size_t out_size, const char *s, size_t len,
			   const cid_layout *layout, size_t *errpos)
{
	cid_id_info info;
	int			rc;

	if (out == NULL || out_size < ID_INFO_SIZE_1 || (s == NULL && len > 0))
		return CID_EINVAL;
	memset(&info, 0, sizeof(info));
	info.version = -1;			/* only UUIDs have a version */

	if (cid_typeid_shaped(s, len))
		rc = inspect_typeid(&info, s, len, errpos);
	else
		switch (len)
		{
			case CID_OBJECTID_STRLEN:
				rc = inspect_objectid(&info, s, len, errpos);
				break;
			case CID_KSUID_STRLEN:
				rc = inspect_ksuid(&info, s, len, errpos);
				break;
			default:
				rc = inspect_classic(&info, s, len, layout, errpos);
				break;
		}
	if (rc != CID_OK)
		return rc;
	/* a caller's larger (later) struct gets zeros where this one ends */
	memset(out, 0, out_size);
	memcpy(out, &info, out_size < sizeof(info) ? out_size : sizeof(info));
	return CID_OK;
}

const char *
cid_kind_name(cid_kind kind)
{
	switch (kind)
	{
		case CID_KIND_SNOWFLAKE:
			return "snowflake";
		case CID_KIND_UUID:
			return "uuid";
		case CID_KIND_ULID:
			return "ulid";
		case CID_KIND_OBJECTID:
			return "objectid";
		case CID_KIND_KSUID:
			return "ksuid";
		case CID_KIND_TYPEID:
			return "typeid";
	}
	return "unknown";
}
