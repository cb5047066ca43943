/*
 * glue.c — the WebAssembly face of libchronoid: what node/lib/wasm-native.mjs
 * calls to mint, parse, convert and inspect IDs.  Every ID comes from a
 * cid_* call; this file only moves arguments in and results out through
 * one I/O buffer, and words the errors as the Node addon does
 * (node/src/addon.c), so that both builds throw the same messages.
 *
 * Calling convention: text arguments go into cw_io() (UTF-8, a length
 * passed along); results come back in cw_io() with their length as the
 * return value.  A negative return means failure: cw_err_status(),
 * cw_err_range() and cw_err_msg() say which error to throw.
 *
 * What is not JavaScript's calling convention is the binding layer's
 * (bind/, compiled in less its process part): the kinds of ID (kinds.c,
 * over this module's own set of generators, started on the host's clock
 * and random source), the status table behind cw_code() (errors.c) and
 * the words of a bad argument (text.c), the Node addon's too.  The
 * checks here take C values (JavaScript's types are told apart in
 * wasm-native.mjs); test/run.sh wasm and web/test/cases.mjs hold both
 * builds to the same messages.
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bind_internal.h"
#include "chronoid.h"
#include "scope_internal.h"
#include "wasm.h"

#define EXPORT(name) __attribute__((export_name(name)))

#define IO_BYTES 8192
#define MAX_TEXT 256			/* longest argument text, as the addon's */

/* 8-aligned: Snowflake IDs come back in it as int64s. */
static _Alignas(8) char io[IO_BYTES];

EXPORT("io") char *
cw_io(void)
{
	return io;
}

EXPORT("io_bytes") int
cw_io_bytes(void)
{
	return IO_BYTES;
}

EXPORT("alloc") void *
cw_alloc(size_t n)
{
	return malloc(n == 0 ? 1 : n);
}

EXPORT("free") void
cw_free(void *p)
{
	free(p);
}

/* ------------------------------------------------------------------------
 * Errors: the status, whether a RangeError, and the message
 * ------------------------------------------------------------------------ */

static int	err_status;
static int	err_range;
static char err_msg[1024];

EXPORT("err_status") int
cw_err_status(void)
{
	return err_status;
}

EXPORT("err_range") int
cw_err_range(void)
{
	return err_range;
}

EXPORT("err_msg") const char *
cw_err_msg(void)
{
	return err_msg;
}

/* The error code JavaScript sees for a status: bind/errors.c's table. */
EXPORT("code") const char *
cw_code(int status)
{
	return cid_bind_status_of(status)->code;
}

/* Record an error; returns -1 for the caller to return. */
static int
fail(int status, bool range, const char *fmt,...)
{
	va_list		ap;

	va_start(ap, fmt);
	vsnprintf(err_msg, sizeof(err_msg), fmt, ap);
	va_end(ap);
	err_status = status;
	err_range = range;
	return -1;
}

/*
 * A text argument of len bytes in io (the host wrote at most IO_BYTES of
 * a longer one): refused when it does not fit cap bytes with its NUL.
 */
static bool
text_fits(const char *what, size_t len, size_t cap)
{
	char		q[CID_BIND_QUOTE_MAX];

	if (len < cap)
		return true;
	cid_bind_quote(q, io, cap - 1);
	fail(CID_ELENGTH, false, "%s %s is too long: %zu bytes, at most %zu", what, q, len, cap - 1);
	return false;
}

/* Record a failed parse of s as what (bind/text.c's words); returns -1. */
static int
parse_failed(int rc, const char *what, const char *s, size_t len, size_t pos,
			 const char *expected)
{
	cid_bind_parse_failed(err_msg, sizeof(err_msg), rc, what, s, len, pos, expected);
	err_status = rc;
	err_range = false;
	return -1;
}

/*
 * An optional text option of len bytes in io (what: 0 "scope", 1
 * "claimDir"): it fits and holds no NUL.
 */
EXPORT("opt_text") int
cw_opt_text(int what, size_t len)
{
	const char *name = what == 0 ? "scope" : "claimDir";
	char		q[CID_BIND_QUOTE_MAX];

	if (!text_fits(name, len, what == 0 ? MAX_TEXT : 4096))
		return -1;
	if (memchr(io, '\0', len) != NULL)
	{
		cid_bind_quote(q, io, len);
		return fail(CID_EINVAL, false, "%s %s contains a NUL character", name, q);
	}
	io[len] = '\0';
	if (what == 0 && !cid_scope_ok(io))
		return fail(CID_EINVAL, false, "invalid claim scope \"%.*s\": expected 1 to %d characters of "
					"A-Z a-z 0-9 _ . - not starting with '.'", CID_CLAIM_SCOPE_MAX + 1, io,
					CID_CLAIM_SCOPE_MAX);
	return 0;
}

/* ------------------------------------------------------------------------
 * Numbers, times and layouts given by the host
 * ------------------------------------------------------------------------ */

/* A batch size: n, or -1. */
EXPORT("count") int
cw_count(double d)
{
	char		msg[128];

	if (!(d >= 0 && d <= ((unsigned) CID_BIND_MAX_BATCH)) || d != floor(d))
		return fail(CID_EINVAL, true, "%s", cid_bind_bad_count(msg, sizeof(msg), d));
	return (int) d;
}

EXPORT("max_batch") int
cw_max_batch(void)
{
	return ((unsigned) CID_BIND_MAX_BATCH);
}

/* The time of the last cw_time_* call that succeeded. */
static int64_t time_ms;

/* The largest |ms| a Date can hold (ECMA-262: 8.64e15). */
#define MAX_DATE_MS 8.64e15

/* A time given as a number (is_date 0) or a Date's value (1). */
EXPORT("time_num") int
cw_time_num(double d, int is_date)
{
	char		msg[128];

	if (!(d >= -MAX_DATE_MS && d <= MAX_DATE_MS) || d != floor(d))
		return fail(CID_ETIME_RANGE, true, "%s",
					cid_bind_bad_time(msg, sizeof(msg), is_date ? "Date" : "time", d));
	time_ms = (int64_t) d;
	return 0;
}

/* A time given as text in io. */
EXPORT("time_text") int
cw_time_text(size_t len)
{
	char		q[CID_BIND_QUOTE_MAX];
	size_t		pos = 0;
	int			rc;

	if (!text_fits("time", len, MAX_TEXT))
		return -1;
	rc = cid_time_parse(&time_ms, io, len, &pos);
	if (rc == CID_OK)
		return 0;
	cid_bind_quote(q, io, len);
	if (rc == CID_ESYNTAX)
		return fail(rc, false, "invalid time %s: unexpected character at position %zu "
					"(expected YYYY-MM-DD, YYYY-MM-DDTHH:MM:SS[.fff]Z or Unix ms)", q, pos);
	return fail(rc, true, "invalid time %s: %s", q, cid_strerror(rc));
}

/* The layout of the last cw_layout_set call that succeeded. */
static cid_layout layout;

/* A layout name or spec in io (len < 0: none given, "pgedge"). */
EXPORT("layout_set") int
cw_layout_set(int len)
{
	char		err[256];
	char		q[CID_BIND_QUOTE_MAX];
	int			rc;

	if (len < 0)
		rc = cid_layout_preset(&layout, "pgedge");
	else
	{
		if (!text_fits("layout", (size_t) len, MAX_TEXT))
			return -1;
		io[len] = '\0';
		if (strlen(io) != (size_t) len)
		{
			cid_bind_quote(q, io, (size_t) len);
			return fail(CID_ELAYOUT, false, "invalid layout %s: it contains a NUL character", q);
		}
		rc = cid_layout_resolve(&layout, io, err, sizeof(err));
		if (rc != CID_OK)
			return fail(CID_ELAYOUT, false, "invalid layout: %s", err);
	}
	if (rc != CID_OK)
		return fail(rc, false, "layout: %s", cid_strerror(rc));
	return 0;
}

/* The layout as JSON in io (the host makes epoch a Date). */
EXPORT("layout_json") int
cw_layout_json(void)
{
	char		spec[256];
	int			total = 0;

	for (int i = 0; i < 4; i++)
		total += layout.bits[i];
	if (cid_layout_format(spec, sizeof(spec), &layout) < 0)
		spec[0] = '\0';
	return snprintf(io, IO_BYTES, "{\"name\":\"%s\",\"spec\":\"%s\",\"bits\":%d,\"timeBits\":%d,"
					"\"nodeBits\":%d,\"sequenceBits\":%d,\"reservedBits\":%d,\"tickMs\":%" PRId64 ","
					"\"epochMs\":%" PRId64 ",\"maxNode\":%" PRIu64 ",\"maxMs\":%" PRId64 "}",
					layout.name, spec, total, layout.bits[CID_FIELD_TIME],
					layout.bits[CID_FIELD_NODE], layout.bits[CID_FIELD_SEQ],
					layout.bits[CID_FIELD_RESERVED], (int64_t) layout.tick_ms, layout.epoch_ms,
					cid_layout_max_node(&layout), cid_layout_max_ms(&layout));
}

/* The preset names, one a line. */
EXPORT("presets") int
cw_presets(void)
{
	size_t		k = 0;

	for (int i = 0; cid_layout_preset_names[i] != NULL; i++)
		k += (size_t) snprintf(io + k, IO_BYTES - k, "%s%s", i ? "\n" : "",
							   cid_layout_preset_names[i]);
	return (int) k;
}

EXPORT("version") int
cw_version(void)
{
	return snprintf(io, IO_BYTES, "%s", cid_version());
}

/* ------------------------------------------------------------------------
 * The generated kinds: one as text or bytes, n as bytes or lines
 * ------------------------------------------------------------------------ */

/* The module's generators, on the host's clock and random source. */
static cid_bind_gens gens;

/* bind/kinds.c's kinds, in the order of node/lib/wasm-native.mjs's KINDS. */
enum
{
	K_UUIDV7, K_UUIDV4, K_ULID, K_ULID_MONO, K_UUIDV6, K_OBJECTID, K_KSUID, K_COUNT
};

static const cid_bind_kind *const kinds[K_COUNT] = {
	&cid_bind_uuidv7, &cid_bind_uuidv4, &cid_bind_ulid, &cid_bind_ulid_mono, &cid_bind_uuidv6,
	&cid_bind_objectid, &cid_bind_ksuid,
};

/*
 * Start the generators on the host's clock and random source, at the
 * first ID rather than when the module loads: edge runtimes give no
 * random bytes outside a request (workerd refuses getRandomValues while
 * a worker's top level runs).
 */
static bool started;

static int
start(void)
{
	int			rc;

	if (started)
		return 0;
	rc = cid_bind_gens_init(&gens, &cw_env);
	if (rc != CID_OK)
		return fail(rc, false, "chronoid: cannot start the generators: %s", cid_strerror(rc));
	started = true;
	return 0;
}

/* n IDs of kind k into out (n * size bytes): the core's batch steps. */
static int
fill(const cid_bind_kind *k, uint8_t *out, size_t n)
{
	int			rc;

	if (start() < 0)
		return -1;
	rc = n == 1 ? k->next(&gens, out) : k->fill(&gens, out, n);
	if (rc < 0)
		return fail(rc, false, "%s: %s", k->what, cid_strerror(rc));
	return 0;
}

/* One ID of kind k as text in io: its length, or -1. */
EXPORT("next") int
cw_next(int k)
{
	const cid_bind_kind *kd = kinds[k];
	uint8_t		b[32];

	if (fill(kd, b, 1) < 0)
		return -1;
	kd->format(io, b);
	return (int) kd->text_len;
}

/* n IDs of kind k into out (n * size bytes). */
EXPORT("fill") int
cw_fill(int k, uint8_t *out, size_t n)
{
	return n == 0 ? 0 : fill(kinds[k], out, n);
}

/*
 * n IDs of kind k as a JSON array of their texts (bind/batch_json.c says
 * why): out holds n * size + CID_BIND_JSON_BYTES(n, text_len) bytes, the
 * IDs first and the array after them; returns the array's length.
 */
EXPORT("json") int
cw_json(int k, uint8_t *out, size_t n)
{
	const cid_bind_kind *kd = kinds[k];
	char	   *text = (char *) out + n * kd->size;

	if (n > 0 && fill(kd, out, n) < 0)
		return -1;
	return (int) cid_bind_json(kd, text, out, n);
}

/* ------------------------------------------------------------------------
 * UUIDs and ULIDs given as text or 16 bytes; conversions; TypeID
 * ------------------------------------------------------------------------ */

/* The 16 bytes of the last cw_id16 or cw_typeid_get call. */
static uint8_t id16[16];

/* A UUID (as_ulid 0) or ULID (1) of len bytes of text in io, or 16 bytes (len < 0). */
EXPORT("id16") int
cw_id16(int as_ulid, int len)
{
	size_t		pos = 0;
	int			rc;

	if (len < 0)
	{
		memcpy(id16, io, 16);
		return 0;
	}
	if (!text_fits(as_ulid ? "ulid" : "uuid", (size_t) len, MAX_TEXT))
		return -1;
	rc = as_ulid ? cid_ulid_parse((cid_ulid *) id16, io, (size_t) len, &pos)
		: cid_uuid_parse((cid_uuid *) id16, io, (size_t) len, &pos);
	if (rc != CID_OK)
		return parse_failed(rc, as_ulid ? "ULID" : "UUID", io, (size_t) len, pos,
							as_ulid ? CID_BIND_ULID_EXPECTED : CID_BIND_UUID_EXPECTED);
	return 0;
}

/*
 * What to do with id16: 0 a UUID to ULID text, 1 a ULID to UUID text, 2 a
 * v1 UUID to v6, 3 a v6 UUID to v1 (RFC 9562 section 5.6's reordering, by
 * the core), 4 the UUID's text.
 */
EXPORT("convert") int
cw_convert(int op)
{
	cid_uuid	in,
				out;
	int			rc;

	memcpy(in.bytes, id16, 16);
	if (op == 0)
	{
		cid_ulid	l;

		cid_ulid_from_uuid(&l, &in);
		cid_ulid_format(io, &l);
		return CID_ULID_STRLEN;
	}
	if (op == 4)
	{
		cid_uuid_format(io, &in);
		return CID_UUID_STRLEN;
	}
	if (op == 1)
	{
		cid_ulid	l;

		memcpy(l.bytes, id16, 16);
		cid_ulid_to_uuid(&out, &l);
		cid_uuid_format(io, &out);
		return CID_UUID_STRLEN;
	}
	rc = op == 2 ? cid_uuid_v1_to_v6(&out, &in) : cid_uuid_v6_to_v1(&out, &in);
	if (rc != CID_OK)
	{
		char		text[CID_UUID_STRLEN + 1];
		int			version = cid_uuid_version(&in);
		int			want = op == 2 ? 1 : 6;

		cid_uuid_format(text, &in);
		if (version < 0)
			return fail(rc, false, "UUID \"%s\" is not a version %d UUID: its variant is not "
						"RFC 9562's", text, want);
		return fail(rc, false, "UUID \"%s\" is version %d, not %d (expected a version %d UUID "
					"of RFC 9562's variant)", text, version, want, want);
	}
	cid_uuid_format(io, &out);
	return CID_UUID_STRLEN;
}

/* The prefix of the last cw_prefix call, and the TypeID of cw_typeid_get. */
static char prefix[CID_TYPEID_PREFIX_MAX + 2];
static size_t prefix_len;
static char typeid_text[CID_TYPEID_STRLEN_MAX + 1];
static size_t typeid_len;
static size_t typeid_plen;

/* A TypeID prefix in io (len < 0: none). */
EXPORT("prefix") int
cw_prefix(int len)
{
	size_t		pos = 0;
	int			rc;

	prefix_len = 0;
	prefix[0] = '\0';
	if (len < 0)
		return 0;
	if (!text_fits("TypeID prefix", (size_t) len, CID_TYPEID_PREFIX_MAX + 2))
		return -1;
	rc = cid_typeid_prefix_check(io, (size_t) len, &pos);
	if (rc != CID_OK)
		return parse_failed(rc, "TypeID prefix", io, (size_t) len, pos, CID_BIND_TYPEID_PREFIX_EXPECTED);
	memcpy(prefix, io, (size_t) len);
	prefix[len] = '\0';
	prefix_len = (size_t) len;
	return 0;
}

static int
typeid_result(int n)
{
	if (n < 0)
		return fail(n, false, "typeid: %s", cid_strerror(n));
	return n;
}

/* A new TypeID (a UUIDv7 of uuidv7's generator) under the prefix. */
EXPORT("typeid_new") int
cw_typeid_new(void)
{
	if (start() < 0)
		return -1;
	return typeid_result(cid_typeid_next(&gens.uuidv7, io, CID_TYPEID_STRLEN_MAX + 1, prefix,
										 prefix_len, NULL));
}

/* id16 as a TypeID under the prefix. */
EXPORT("typeid_from_uuid") int
cw_typeid_from_uuid(void)
{
	cid_uuid	u;

	memcpy(u.bytes, id16, 16);
	return typeid_result(cid_typeid_format(io, CID_TYPEID_STRLEN_MAX + 1, prefix, prefix_len, &u));
}

/* A TypeID's text in io: its UUID into id16; returns its prefix's length. */
EXPORT("typeid_get") int
cw_typeid_get(size_t len)
{
	size_t		pos = 0;
	int			rc;

	if (!text_fits("TypeID", len, CID_TYPEID_STRLEN_MAX + 1))
		return -1;
	rc = cid_typeid_parse((cid_uuid *) id16, &typeid_plen, io, len, &pos);
	if (rc != CID_OK)
		return parse_failed(rc, "TypeID", io, len, pos, CID_BIND_TYPEID_EXPECTED);
	memcpy(typeid_text, io, len);
	typeid_len = len;
	return (int) typeid_plen;
}

/* The last TypeID's prefix against the last cw_prefix: 0, or -1. */
EXPORT("typeid_check") int
cw_typeid_check(void)
{
	char		q[CID_BIND_QUOTE_MAX];

	cid_bind_quote(q, typeid_text, typeid_len);
	if (prefix_len != typeid_plen || memcmp(prefix, typeid_text, typeid_plen) != 0)
		return fail(CID_EINVAL, false, "TypeID %s has prefix \"%.*s\", not \"%s\"", q,
					(int) typeid_plen, typeid_text, prefix);
	return 0;
}

/* ------------------------------------------------------------------------
 * inspect, as JSON in io
 * ------------------------------------------------------------------------ */

static int
hex(char *out, const uint8_t *b, size_t n)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++)
	{
		out[2 * i] = digits[b[i] >> 4];
		out[2 * i + 1] = digits[b[i] & 15];
	}
	out[2 * n] = '\0';
	return (int) (2 * n);
}

/*
 * The fields the addon's inspect object has, by kind: "id", "version"
 * and "bytes" (hex) for the byte kinds, "value" (signed decimal), "node",
 * "sequence", "layout" for a Snowflake.
 */
static int
info_json(const cid_id_info *ci)
{
	char		text[CID_UUID_STRLEN + 1];
	char		bytes[2 * CID_ID_INFO_BYTES + 1];
	int			k;

	k = snprintf(io, IO_BYTES, "{\"kind\":\"%s\",\"hasTime\":%s,\"unixMs\":%" PRId64,
				 cid_kind_name(ci->kind), ci->has_time ? "true" : "false", ci->unix_ms);
	if (ci->kind == CID_KIND_UUID)
	{
		cid_uuid_format(text, (const cid_uuid *) ci->bytes);
		hex(bytes, ci->bytes, 16);
		k += snprintf(io + k, IO_BYTES - k, ",\"id\":\"%s\",\"version\":%d,\"bytes\":\"%s\"}",
					  text, ci->version, bytes);
	}
	else if (ci->kind == CID_KIND_ULID || ci->kind == CID_KIND_OBJECTID || ci->kind == CID_KIND_KSUID)
	{
		size_t		n = 16;

		if (ci->kind == CID_KIND_ULID)
			cid_ulid_format(text, (const cid_ulid *) ci->bytes);
		else if (ci->kind == CID_KIND_OBJECTID)
		{
			cid_objectid o;

			n = sizeof(o.bytes);
			memcpy(o.bytes, ci->bytes, n);
			cid_objectid_format(text, &o);
		}
		else
		{
			cid_ksuid	s;

			n = sizeof(s.bytes);
			memcpy(s.bytes, ci->bytes, n);
			cid_ksuid_format(text, &s);
		}
		hex(bytes, ci->bytes, n);
		k += snprintf(io + k, IO_BYTES - k, ",\"id\":\"%s\",\"bytes\":\"%s\"}", text, bytes);
	}
	else
	{
		char		node[24] = "null";

		if (ci->has_node)
			snprintf(node, sizeof(node), "%" PRIu64, ci->node);
		k += snprintf(io + k, IO_BYTES - k, ",\"id\":\"%" PRId64 "\",\"node\":%s,"
					  "\"sequence\":%" PRIu64 ",\"layout\":\"%s\"}", (int64_t) ci->snowflake,
					  node, ci->sequence, layout.name);
	}
	return k;
}

/* An ID as text in io, under the layout of cw_layout_set. */
EXPORT("inspect_text") int
cw_inspect_text(size_t len)
{
	cid_id_info ci;
	size_t		pos = 0;
	int			rc;

	if (!text_fits("id", len, MAX_TEXT))
		return -1;
	rc = cid_inspect_id(&ci, sizeof(ci), io, len, &layout, &pos);
	if (rc == CID_EUNKNOWN)
	{
		char		q[CID_BIND_QUOTE_MAX];

		cid_bind_quote(q, io, len);
		return fail(rc, false, "%s is no known ID form (expected a UUID, a ULID, a decimal "
					"snowflake, a 24-hex ObjectId or a 27-character KSUID)", q);
	}
	if (rc != CID_OK)
		return parse_failed(rc, "ID", io, len, pos,
							len == CID_OBJECTID_STRLEN ? "a MongoDB ObjectId (24 hex digits)" :
							len == CID_KSUID_STRLEN ? "a KSUID (27 base62 characters)" :
							"a UUID, a ULID or a decimal snowflake of the layout");
	return info_json(&ci);
}

/* 16 bytes in io, read as a UUID. */
EXPORT("inspect_bytes") int
cw_inspect_bytes(void)
{
	cid_id_info ci;

	memset(&ci, 0, sizeof(ci));
	ci.kind = CID_KIND_UUID;
	memcpy(ci.bytes, io, 16);
	ci.version = cid_uuid_version((const cid_uuid *) ci.bytes);
	ci.nbytes = 16;
	ci.has_time = cid_uuid_unix_ms(&ci.unix_ms, (const cid_uuid *) ci.bytes) == CID_OK;
	return info_json(&ci);
}

/* A Snowflake given as a BigInt (in_range 0: outside -2^63 .. 2^64-1). */
EXPORT("inspect_snowflake") int
cw_inspect_snowflake(uint64_t id, int in_range)
{
	cid_snowflake_parts p;
	cid_id_info ci;
	int			rc;

	if (!in_range)
		return fail(CID_EOVERFLOW, true, "snowflake BigInt out of range: expected -2^63 .. 2^64-1");
	rc = cid_snowflake_decode(&p, &layout, id);
	if (rc != CID_OK)
		return fail(rc, false, "invalid snowflake %" PRIu64 " under layout \"%s\": %s", id,
					layout.name, cid_strerror(rc));
	memset(&ci, 0, sizeof(ci));
	ci.kind = CID_KIND_SNOWFLAKE;
	ci.snowflake = id;
	ci.has_time = true;
	ci.unix_ms = p.unix_ms;
	ci.has_node = layout.bits[CID_FIELD_NODE] > 0;
	ci.node = p.node;
	ci.has_sequence = true;
	ci.sequence = p.sequence;
	return info_json(&ci);
}

/* ------------------------------------------------------------------------
 * Range bounds
 * ------------------------------------------------------------------------ */

static const uint8_t all_ones[32] = {
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
};

/* The bounds of kind k at the last time given: "min\nmax" in io. */
EXPORT("bounds") int
cw_bounds(int k)
{
	const cid_bind_kind *kd = kinds[k];
	uint8_t		lo[32],
				hi[32];
	size_t		w = kd->text_len;
	char		msg[256];
	int			rc;

	rc = kd->at != NULL ? kd->at(lo, time_ms, NULL) : CID_EINVAL;
	if (rc == CID_OK)
		rc = kd->at(hi, time_ms, all_ones);
	if (rc != CID_OK)
		return fail(rc, true, "%s",
					cid_bind_time_outside(msg, sizeof(msg), time_ms, kd->what, kd->span));
	kd->format(io, lo);
	io[w] = '\n';
	kd->format(io + w + 1, hi);
	return (int) (2 * w + 1);
}

/*
 * An ID of kind k (UUIDv7, ULID) for the last time given, its other bits
 * fresh from the host's random source: its text in io.
 */
EXPORT("id_at") int
cw_id_at(int k)
{
	uint8_t		rest[16],
				out[32];
	char		msg[256];
	int			rc;

	if (k != K_UUIDV7 && k != K_ULID)
		return fail(CID_EINVAL, false, "no ID for a given time of kind %d", k);
	if ((rc = cid_random_bytes(rest, sizeof(rest))) != CID_OK)
		return fail(rc, false, "%s: no random bytes: %s", kinds[k]->what, cid_strerror(rc));
	if ((rc = kinds[k]->at(out, time_ms, rest)) != CID_OK)
		return fail(rc, true, "%s", cid_bind_time_outside(msg, sizeof(msg), time_ms,
														  kinds[k]->what, kinds[k]->span));
	kinds[k]->format(io, out);
	return (int) kinds[k]->text_len;
}

/* The Snowflake bounds at the last time, in the last layout: "min\nmax". */
EXPORT("snowflake_bounds") int
cw_snowflake_bounds(void)
{
	uint64_t	lo,
				hi;
	int			rc;

	rc = cid_snowflake_min_at(&lo, &layout, time_ms);
	if (rc == CID_OK)
		rc = cid_snowflake_max_at(&hi, &layout, time_ms);
	if (rc != CID_OK)
	{
		char		msg[256];

		return fail(rc, true, "%s",
					cid_bind_time_outside_layout(msg, sizeof(msg), time_ms, &layout));
	}
	return snprintf(io, IO_BYTES, "%" PRId64 "\n%" PRId64, (int64_t) lo, (int64_t) hi);
}

/* ------------------------------------------------------------------------
 * Snowflake generators: a node number the application gives
 * ------------------------------------------------------------------------ */

static cid_snowflake_opts opts;
static int64_t policy_v[CID_BIND_POLICY_NOPTS];	/* bind/snowflake_opts.c checks them */
static uint64_t node_arg;

/* Start reading a generator's options: the defaults. */
EXPORT("sf_begin") void
cw_sf_begin(void)
{
	cid_snowflake_opts_default(&opts);
	for (int i = 0; i < CID_BIND_POLICY_NOPTS; i++)
		policy_v[i] = CID_BIND_UNSET;
}

/*
 * The node, given as a number (how 0), a BigInt in 0 .. 2^64-1 (1) or a
 * BigInt outside it (2); checked against the layout later.
 */
EXPORT("sf_node") int
cw_sf_node(int how, double d, uint64_t big)
{
	char		msg[256];

	if ((how == 0 && (!(d >= 0 && d <= 9007199254740991.0) || d != floor(d))) || how == 2)
		return fail(CID_ENODE, true, "%s",
					cid_bind_bad_node(msg, sizeof(msg), how == 2, d, &layout));
	node_arg = how == 0 ? (uint64_t) d : big;
	return 0;
}

/*
 * A limit option (which: 0 maxDriftMs, 1 maxWaitMs, 2 maxBorrowTicks): an
 * integer here, its range checked with the rest by sf_new.
 */
EXPORT("sf_limit") int
cw_sf_limit(int which, double d)
{
	static const int opt[] = {CID_BIND_POLICY_MAX_DRIFT_MS, CID_BIND_POLICY_MAX_WAIT_MS,
	CID_BIND_POLICY_MAX_BORROW_TICKS};
	const char *name = cid_bind_policy_opt_names[opt[which]].camel;
	char		msg[256];

	if (!(fabs(d) <= 9007199254740991.0) || d != floor(d))
		return fail(CID_EINVAL, true, "%s",
					cid_bind_bad_integer(msg, sizeof(msg), name, d, CID_BIND_SAFE_INTEGER_EXPECTED));
	policy_v[opt[which]] = (int64_t) d;
	return 0;
}

/* The policies, as the host's numbers (checked there against their names). */
EXPORT("sf_policies") void
cw_sf_policies(int behind, int exhausted)
{
	policy_v[CID_BIND_POLICY_ON_BEHIND] = behind;
	policy_v[CID_BIND_POLICY_ON_EXHAUSTED] = exhausted;
}

/* A generator of the node, layout and options given: its address, or 0. */
EXPORT("sf_new") cid_snowflake_gen *
cw_sf_new(void)
{
	cid_snowflake_gen *g;
	char		err[256];
	int			rc;

	if (cid_bind_snowflake_policy(&opts, policy_v, true, err, sizeof(err)) != CID_OK)
	{
		fail(CID_EINVAL, true, "%s", err);
		return NULL;
	}
	if (node_arg > cid_layout_max_node(&layout))
	{
		fail(CID_ENODE, true, "%s", cid_bind_node_outside(err, sizeof(err), node_arg, &layout));
		return NULL;
	}
	g = malloc(sizeof(*g));
	if (g == NULL)
	{
		fail(CID_EINVAL, false, "out of memory");
		return NULL;
	}
	rc = cid_snowflake_init(g, &layout, node_arg, &opts, &cw_env);
	if (rc != CID_OK)
	{
		free(g);
		fail(rc, false, "snowflake: %s", cid_strerror(rc));
		return NULL;
	}
	return g;
}

/* The generator's layout becomes the current one (for its descriptions). */
EXPORT("sf_layout") void
cw_sf_layout(const cid_snowflake_gen *g)
{
	layout = g->layout;
}

static int
sf_failed(const cid_snowflake_gen *g, int rc)
{
	return fail(rc, false, "snowflake (node %" PRIu64 ", layout \"%s\"): %s", g->node,
				g->layout.name, cid_strerror(rc));
}

/* n IDs of g into out (n int64s). */
EXPORT("sf_fill") int
cw_sf_fill(cid_snowflake_gen *g, uint64_t *out, size_t n)
{
	int			rc;

	if (n == 0)
		return 0;
	rc = n == 1 ? cid_snowflake_next(g, out) : cid_snowflake_fill(g, out, n, NULL);
	return rc < 0 ? sf_failed(g, rc) : 0;
}

/*
 * The next ID of g as the return value (a BigInt in JavaScript, with no
 * trip through memory), its clock reading now_ms taken by the host just
 * before (cw_clock_hint): the single call's path.  0 may be an ID (node
 * 0's first in the layout's epoch millisecond), so a failure also sets
 * cw_err_status(), which the host reads only when 0 comes back.
 */
EXPORT("sf_next") int64_t
cw_sf_next(cid_snowflake_gen *g, double now_ms)
{
	uint64_t	id;
	int			rc;

	err_status = 0;
	cw_clock_hint(now_ms);
	rc = cid_snowflake_next(g, &id);
	cw_clock_hint_clear();
	if (rc < 0)
	{
		sf_failed(g, rc);
		return 0;
	}
	return (int64_t) id;
}

/* The last millisecond g issued in (INT64_MIN: none yet). */
EXPORT("sf_last_ms") int64_t
cw_sf_last_ms(const cid_snowflake_gen *g)
{
	return cid_snowflake_last_ms(g);
}

/*
 * g takes over a (scope, node) whose previous generator, now closed by
 * all its users, last issued in last_ms: g starts after that tick, so the
 * number's IDs never repeat across the handover.
 */
EXPORT("sf_start_after") int
cw_sf_start_after(cid_snowflake_gen *g, int64_t last_ms)
{
	int			rc;

	if (last_ms == INT64_MIN)
		return 0;
	rc = cid_snowflake_start_after(g, last_ms);
	return rc < 0 ? sf_failed(g, rc) : 0;
}
