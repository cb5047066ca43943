/*
 * parse.c — IDs read back, for JavaScript: UUID <-> ULID, UUID v1 <-> v6,
 * TypeID (new, from and to a UUID, parse) and inspect().  Text is read and
 * checked here; decoding is the core's.
 */
#define _GNU_SOURCE

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addon.h"

/* ------------------------------------------------------------------------
 * Parsing IDs given as text or bytes
 * ------------------------------------------------------------------------ */

static napi_value
parse_failed(napi_env env, int rc, const char *what, const char *s, size_t len,
			 size_t pos, const char *expected)
{
	char		msg[1024];

	return cid_node_throw(env, rc, false, "%s",
						  cid_bind_parse_failed(msg, sizeof(msg), rc, what, s, len, pos, expected));
}

/* 16 bytes from a Buffer, a Uint8Array or an ArrayBuffer view; false if v is none. */
static bool
bytes16(napi_env env, napi_value v, const char *what, uint8_t out[16], bool *is_bytes)
{
	bool		is = false;
	void	   *data = NULL;
	size_t		len = 0;
	napi_typedarray_type tt;

	*is_bytes = false;
	if (napi_is_typedarray(env, v, &is) != napi_ok || !is)
		return true;
	napi_get_typedarray_info(env, v, &tt, &len, &data, NULL, NULL);
	if (tt != napi_uint8_array)
	{
		cid_node_type_error(env, v, what, "a string or 16 bytes (Buffer or Uint8Array)");
		return false;
	}
	*is_bytes = true;
	if (len != 16)
	{
		cid_node_throw(env, CID_ELENGTH, false, "%s must be 16 bytes, got %zu", what, len);
		return false;
	}
	memcpy(out, data, 16);
	return true;
}

/* A UUID (as_ulid false) or a ULID (true) given as text or 16 bytes. */
static bool
get_id16(napi_env env, napi_value v, bool as_ulid, uint8_t out[16])
{
	char		buf[CID_NODE_MAX_TEXT];
	size_t		len = 0;
	size_t		pos = 0;
	bool		is_bytes;
	int			rc;

	if (!bytes16(env, v, as_ulid ? "ulid" : "uuid", out, &is_bytes))
		return false;
	if (is_bytes)
		return true;
	if (!cid_node_get_text(env, v, as_ulid ? "ulid" : "uuid", buf, sizeof(buf), &len))
		return false;
	rc = as_ulid ? cid_ulid_parse((cid_ulid *) out, buf, len, &pos)
		: cid_uuid_parse((cid_uuid *) out, buf, len, &pos);
	if (rc != CID_OK)
		return parse_failed(env, rc, as_ulid ? "ULID" : "UUID", buf, len, pos,
							as_ulid ? CID_BIND_ULID_EXPECTED : CID_BIND_UUID_EXPECTED), false;
	return true;
}

static napi_value
uuid_to_ulid(napi_env env, napi_callback_info info)
{
	napi_value	argv[1];
	cid_uuid	u;
	cid_ulid	l;

	if (!cid_node_args(env, info, 1, argv, NULL) || !get_id16(env, argv[0], false, u.bytes))
		return NULL;
	cid_ulid_from_uuid(&l, &u);
	return cid_node_ulid_string(env, &l);
}

static napi_value
ulid_to_uuid(napi_env env, napi_callback_info info)
{
	napi_value	argv[1];
	cid_uuid	u;
	cid_ulid	l;

	if (!cid_node_args(env, info, 1, argv, NULL) || !get_id16(env, argv[0], true, l.bytes))
		return NULL;
	cid_ulid_to_uuid(&u, &l);
	return cid_node_uuid_string(env, &u);
}

/*
 * uuidv1ToV6(uuid) (data non-NULL) and uuidv6ToV1(uuid): RFC 9562 section
 * 5.6's reordering of the same timestamp, by the core; text or 16 bytes
 * in, text out.
 */
static napi_value
uuid_v1_v6(napi_env env, napi_callback_info info)
{
	napi_value	argv[1];
	void	   *to_v6;
	cid_uuid	in,
				out;
	int			rc;

	if (!cid_node_args(env, info, 1, argv, &to_v6) || !get_id16(env, argv[0], false, in.bytes))
		return NULL;
	rc = to_v6 ? cid_uuid_v1_to_v6(&out, &in) : cid_uuid_v6_to_v1(&out, &in);
	if (rc != CID_OK)
	{
		char		text[CID_UUID_STRLEN + 1];
		int			version = cid_uuid_version(&in);

		cid_uuid_format(text, &in);
		if (version < 0)
			return cid_node_throw(env, rc, false, "UUID \"%s\" is not a version %d UUID: "
								  "its variant is not RFC 9562's", text, to_v6 ? 1 : 6);
		return cid_node_throw(env, rc, false, "UUID \"%s\" is version %d, not %d (expected a "
							  "version %d UUID of RFC 9562's variant)", text, version,
							  to_v6 ? 1 : 6, to_v6 ? 1 : 6);
	}
	return cid_node_uuid_string(env, &out);
}

/* ------------------------------------------------------------------------
 * TypeID: a type prefix and a UUID in lower-case base32 (cid_typeid_*)
 * ------------------------------------------------------------------------ */

/* A prefix argument (undefined: none) into buf (65 bytes), checked. */
static bool
get_prefix(napi_env env, napi_value v, char *buf, size_t *len)
{
	napi_valuetype t;
	size_t		pos = 0;
	int			rc;

	if (napi_typeof(env, v, &t) == napi_ok && t == napi_undefined)
	{
		buf[0] = '\0';
		*len = 0;
		return true;
	}
	if (!cid_node_get_text(env, v, "TypeID prefix", buf, CID_TYPEID_PREFIX_MAX + 2, len))
		return false;
	rc = cid_typeid_prefix_check(buf, *len, &pos);
	if (rc != CID_OK)
		return parse_failed(env, rc, "TypeID prefix", buf, *len, pos, CID_BIND_TYPEID_PREFIX_EXPECTED), false;
	return true;
}

/* A TypeID text argument, parsed: the UUID and the prefix's length. */
static bool
get_typeid(napi_env env, napi_value v, char *buf, size_t *len, cid_uuid *u, size_t *plen)
{
	size_t		pos = 0;
	int			rc;

	if (!cid_node_get_text(env, v, "TypeID", buf, CID_TYPEID_STRLEN_MAX + 1, len))
		return false;
	rc = cid_typeid_parse(u, plen, buf, *len, &pos);
	if (rc != CID_OK)
		return parse_failed(env, rc, "TypeID", buf, *len, pos, CID_BIND_TYPEID_EXPECTED), false;
	return true;
}

/* A TypeID's text of length n from cid_typeid_*, or its failure. */
static napi_value
typeid_value(napi_env env, int n, const char *buf)
{
	if (n < 0)
		return cid_node_gen_failed(env, n, "typeid");
	return cid_node_latin1(env, buf, (size_t) n);
}

/* typeid(prefix?): a UUIDv7 of uuidv7()'s generator under the prefix. */
static napi_value
typeid_new(napi_env env, napi_callback_info info)
{
	napi_value	argv[1];
	char		prefix[CID_TYPEID_PREFIX_MAX + 2];
	char		buf[CID_TYPEID_STRLEN_MAX + 1];
	size_t		plen = 0;
	int			n;

	if (!cid_node_args(env, info, 1, argv, NULL) || !get_prefix(env, argv[0], prefix, &plen))
		return NULL;
	n = cid_typeid_next(&cid_bind_gen.uuidv7, buf, sizeof(buf), prefix, plen, NULL);
	return typeid_value(env, n, buf);
}

/* typeidFromUuid(prefix, uuid): the UUID (text or 16 bytes) as a TypeID. */
static napi_value
typeid_from_uuid(napi_env env, napi_callback_info info)
{
	napi_value	argv[2];
	char		prefix[CID_TYPEID_PREFIX_MAX + 2];
	char		buf[CID_TYPEID_STRLEN_MAX + 1];
	size_t		plen = 0;
	cid_uuid	u;
	int			n;

	if (!cid_node_args(env, info, 2, argv, NULL) || !get_prefix(env, argv[0], prefix, &plen) ||
		!get_id16(env, argv[1], false, u.bytes))
		return NULL;
	n = cid_typeid_format(buf, sizeof(buf), prefix, plen, &u);
	return typeid_value(env, n, buf);
}

/*
 * typeidToUuid(text, expectedPrefix?): the UUID's text; with a prefix
 * expected, a TypeID of another one is refused (CHRONOID_EINVAL).
 */
static napi_value
typeid_to_uuid(napi_env env, napi_callback_info info)
{
	napi_value	argv[2];
	char		buf[CID_TYPEID_STRLEN_MAX + 1];
	char		want[CID_TYPEID_PREFIX_MAX + 2];
	size_t		len = 0;
	size_t		plen = 0;
	size_t		wlen = 0;
	napi_valuetype t;
	cid_uuid	u;

	if (!cid_node_args(env, info, 2, argv, NULL) || !get_typeid(env, argv[0], buf, &len, &u, &plen))
		return NULL;
	if (napi_typeof(env, argv[1], &t) == napi_ok && t != napi_undefined)
	{
		char		q[CID_BIND_QUOTE_MAX];

		if (!get_prefix(env, argv[1], want, &wlen))
			return NULL;
		cid_bind_quote(q, buf, len);
		if (wlen != plen || memcmp(want, buf, plen) != 0)
			return cid_node_throw(env, CID_EINVAL, false, "TypeID %s has prefix \"%.*s\", not \"%s\"",
								  q, (int) plen, buf, want);
	}
	return cid_node_uuid_string(env, &u);
}

/* parseTypeid(text): { prefix, uuid }. */
static napi_value
typeid_parse(napi_env env, napi_callback_info info)
{
	napi_value	argv[1];
	napi_value	obj;
	char		buf[CID_TYPEID_STRLEN_MAX + 1];
	size_t		len = 0;
	size_t		plen = 0;
	cid_uuid	u;

	if (!cid_node_args(env, info, 1, argv, NULL) || !get_typeid(env, argv[0], buf, &len, &u, &plen))
		return NULL;
	if (napi_create_object(env, &obj) != napi_ok)
		return cid_node_napi_failed(env, "cannot create an object");
	if (!cid_node_set(env, obj, "prefix", cid_node_latin1(env, buf, plen)) || !cid_node_set(env, obj, "uuid", cid_node_uuid_string(env, &u)))
		return NULL;
	return obj;
}

/* ------------------------------------------------------------------------
 * inspect
 * ------------------------------------------------------------------------ */

static napi_value
info_object(napi_env env, const cid_id_info *ci, const cid_layout *layout)
{
	napi_value	obj;
	napi_value	null;
	const char *kind;
	bool		ok;

	napi_get_null(env, &null);
	if (napi_create_object(env, &obj) != napi_ok)
		return cid_node_napi_failed(env, "cannot create an object");
	kind = cid_kind_name(ci->kind);
	ok = cid_node_set(env, obj, "kind", cid_node_latin1(env, kind, strlen(kind))) &&
		cid_node_set(env, obj, "time", ci->has_time ? cid_node_date(env, ci->unix_ms) : null) &&
		cid_node_set(env, obj, "unixMs", ci->has_time ? cid_node_number(env, (double) ci->unix_ms) : null);
	if (ok && ci->kind == CID_KIND_UUID)
		ok = cid_node_set(env, obj, "id", cid_node_uuid_string(env, (const cid_uuid *) ci->bytes)) &&
			cid_node_set(env, obj, "version", ci->version >= 0 ? cid_node_number(env, ci->version) : null) &&
			cid_node_set(env, obj, "bytes", cid_node_buffer(env, ci->bytes, 16));
	else if (ok && ci->kind == CID_KIND_ULID)
		ok = cid_node_set(env, obj, "id", cid_node_ulid_string(env, (const cid_ulid *) ci->bytes)) &&
			cid_node_set(env, obj, "bytes", cid_node_buffer(env, ci->bytes, 16));
	else if (ok && ci->kind == CID_KIND_OBJECTID)
	{
		cid_objectid o;
		char		text[CID_OBJECTID_STRLEN + 1];

		memcpy(o.bytes, ci->bytes, sizeof(o.bytes));
		cid_objectid_format(text, &o);
		ok = cid_node_set(env, obj, "id", cid_node_latin1(env, text, CID_OBJECTID_STRLEN)) &&
			cid_node_set(env, obj, "bytes", cid_node_buffer(env, ci->bytes, sizeof(o.bytes)));
	}
	else if (ok && ci->kind == CID_KIND_KSUID)
	{
		cid_ksuid	k;
		char		text[CID_KSUID_STRLEN + 1];

		memcpy(k.bytes, ci->bytes, sizeof(k.bytes));
		cid_ksuid_format(text, &k);
		ok = cid_node_set(env, obj, "id", cid_node_latin1(env, text, CID_KSUID_STRLEN)) &&
			cid_node_set(env, obj, "bytes", cid_node_buffer(env, ci->bytes, sizeof(k.bytes)));
	}
	else if (ok)
	{
		char		dec[24];

		snprintf(dec, sizeof(dec), "%lld", (long long) (int64_t) ci->snowflake);
		ok = cid_node_set(env, obj, "id", cid_node_latin1(env, dec, strlen(dec))) &&
			cid_node_set(env, obj, "value", cid_node_bigint(env, ci->snowflake)) &&
			cid_node_set(env, obj, "node", ci->has_node ? cid_node_number(env, (double) ci->node) : null) &&
			cid_node_set(env, obj, "sequence", cid_node_number(env, (double) ci->sequence)) &&
			cid_node_set(env, obj, "layout", cid_node_latin1(env, layout->name, strlen(layout->name)));
	}
	if (!ok)
		return cid_node_napi_failed(env, "cannot build the inspect object");
	return obj;
}

/* A Snowflake given as a BigInt (signed or not) into its parts. */
static bool
inspect_bigint(napi_env env, napi_value v, const cid_layout *layout, cid_id_info *ci)
{
	cid_snowflake_parts p;
	uint64_t	id = 0;
	int			sign = 0;
	size_t		words = 1;
	int			rc;

	if (napi_get_value_bigint_words(env, v, &sign, &words, &id) != napi_ok || words > 1 ||
		(sign && id > (UINT64_C(1) << 63)))
	{
		cid_node_throw(env, CID_EOVERFLOW, true,
					   "snowflake BigInt out of range: expected -2^63 .. 2^64-1");
		return false;
	}
	if (sign)
		id = (uint64_t) 0 - id;
	rc = cid_snowflake_decode(&p, layout, id);
	if (rc != CID_OK)
	{
		cid_node_throw(env, rc, false, "invalid snowflake %llu under layout \"%s\": %s",
					   (unsigned long long) id, layout->name, cid_strerror(rc));
		return false;
	}
	memset(ci, 0, sizeof(*ci));
	ci->kind = CID_KIND_SNOWFLAKE;
	ci->snowflake = id;
	ci->has_time = true;
	ci->unix_ms = p.unix_ms;
	ci->has_node = layout->bits[CID_FIELD_NODE] > 0;
	ci->node = p.node;
	ci->has_sequence = true;
	ci->sequence = p.sequence;
	return true;
}

static napi_value
inspect(napi_env env, napi_callback_info info)
{
	napi_value	argv[2];
	cid_layout	layout;
	cid_id_info ci;
	napi_valuetype t;
	bool		is_bytes;
	uint8_t		b[16];

	if (!cid_node_args(env, info, 2, argv, NULL) || !cid_node_get_layout(env, argv[1], &layout))
		return NULL;
	napi_typeof(env, argv[0], &t);
	if (t == napi_bigint)
	{
		if (!inspect_bigint(env, argv[0], &layout, &ci))
			return NULL;
		return info_object(env, &ci, &layout);
	}
	if (!bytes16(env, argv[0], "id", b, &is_bytes))
		return NULL;
	if (is_bytes)
	{
		memset(&ci, 0, sizeof(ci));
		ci.kind = CID_KIND_UUID;
		memcpy(ci.bytes, b, 16);
		ci.version = cid_uuid_version((const cid_uuid *) b);
		ci.nbytes = 16;
		ci.has_time = cid_uuid_unix_ms(&ci.unix_ms, (const cid_uuid *) b) == CID_OK;
		return info_object(env, &ci, &layout);
	}
	if (t != napi_string)
		return cid_node_type_error(env, argv[0], "id",
								   "a string, a BigInt or 16 bytes (Buffer or Uint8Array)");
	{
		char		buf[CID_NODE_MAX_TEXT];
		size_t		len = 0;
		size_t		pos = 0;
		int			rc;

		if (!cid_node_get_text(env, argv[0], "id", buf, sizeof(buf), &len))
			return NULL;
		rc = cid_inspect_id(&ci, sizeof(ci), buf, len, &layout, &pos);
		if (rc == CID_EUNKNOWN)
		{
			char		q[CID_BIND_QUOTE_MAX];

			cid_bind_quote(q, buf, len);
			return cid_node_throw(env, rc, false,
								  "%s is no known ID form (expected a UUID, a ULID, a "
								  "decimal snowflake, a 24-hex ObjectId or a 27-character KSUID)", q);
		}
		if (rc != CID_OK)
			return parse_failed(env, rc, "ID", buf, len, pos, cid_bind_inspect_expected(len));
		return info_object(env, &ci, &layout);
	}
}


bool
cid_node_parse_init(napi_env env, napi_value exports)
{
	return cid_node_def_fn(env, exports, "uuidToUlid", uuid_to_ulid, NULL) &&
		cid_node_def_fn(env, exports, "ulidToUuid", ulid_to_uuid, NULL) &&
		cid_node_def_fn(env, exports, "uuidv1ToV6", uuid_v1_v6, (void *) "v1") &&
		cid_node_def_fn(env, exports, "uuidv6ToV1", uuid_v1_v6, NULL) &&
		cid_node_def_fn(env, exports, "typeid", typeid_new, NULL) &&
		cid_node_def_fn(env, exports, "typeidFromUuid", typeid_from_uuid, NULL) &&
		cid_node_def_fn(env, exports, "typeidToUuid", typeid_to_uuid, NULL) &&
		cid_node_def_fn(env, exports, "parseTypeid", typeid_parse, NULL) &&
		cid_node_def_fn(env, exports, "inspect", inspect, NULL);
}
