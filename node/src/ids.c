/*
 * ids.c — UUIDv7, UUIDv4, UUIDv6, ULID (plain and monotonic), ObjectId and
 * KSUID for JavaScript: one as text, into a Buffer, as a new Buffer, as
 * lines; and the bounds of a time.  The generators are process-wide, so
 * every worker_thread of a process draws from the same ones (the core's
 * generators are thread-safe).
 */
#define _GNU_SOURCE

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addon.h"

cid_uuidv7_gen cid_node_uuidv7_gen;
static cid_ulid_gen ulid_plain_gen;
static cid_ulid_gen ulid_mono_gen;
static cid_uuidv6_gen uuidv6_gen;
static cid_objectid_gen objectid_gen;
static pthread_once_t gens_once = PTHREAD_ONCE_INIT;
static int	gens_status = CID_OK;

static void
init_gens(void)
{
	int			rc;

	rc = cid_uuidv7_init(&cid_node_uuidv7_gen, NULL);
	if (rc == CID_OK)
		rc = cid_ulid_init(&ulid_plain_gen, false, NULL);
	if (rc == CID_OK)
		rc = cid_ulid_init(&ulid_mono_gen, true, NULL);
	if (rc == CID_OK)
		rc = cid_uuidv6_init(&uuidv6_gen, NULL);
	if (rc == CID_OK)
		rc = cid_objectid_init(&objectid_gen, NULL);
	gens_status = rc;
}

/* ------------------------------------------------------------------------
 * UUIDv7, UUIDv4, ULID, UUIDv6, ObjectId, KSUID: one, as bytes, batches
 * ------------------------------------------------------------------------ */

/*
 * One ID of the kind into its bytes, and n of them (cid_*_fill where the
 * core has one: one clock reading and one reservation for the whole
 * batch); data says which generator.
 */
typedef int (*next_fn) (void *gen, uint8_t *out);
typedef int (*fill_fn) (void *gen, uint8_t *out, size_t n);
typedef void (*format_fn) (char *out, const uint8_t *bytes);

static int
next_uuidv7(void *gen, uint8_t *out)
{
	return cid_uuidv7_next(gen, (cid_uuid *) out);
}

static int
fill_uuidv7(void *gen, uint8_t *out, size_t n)
{
	return cid_uuidv7_fill(gen, (cid_uuid *) out, n, NULL);
}

static int
next_ulid(void *gen, uint8_t *out)
{
	return cid_ulid_next(gen, (cid_ulid *) out);
}

static int
fill_ulid(void *gen, uint8_t *out, size_t n)
{
	return cid_ulid_fill(gen, (cid_ulid *) out, n, NULL);
}

static int
next_uuidv4(void *gen, uint8_t *out)
{
	(void) gen;
	return cid_uuidv4_new((cid_uuid *) out, NULL);
}

static int
fill_uuidv4(void *gen, uint8_t *out, size_t n)
{
	(void) gen;
	return cid_uuidv4_fill((cid_uuid *) out, n, NULL);
}

static int
next_uuidv6(void *gen, uint8_t *out)
{
	return cid_uuidv6_next(gen, (cid_uuid *) out);
}

static int
fill_uuidv6(void *gen, uint8_t *out, size_t n)
{
	return cid_uuidv6_fill(gen, (cid_uuid *) out, n, NULL);
}

static int
next_objectid(void *gen, uint8_t *out)
{
	return cid_objectid_next(gen, (cid_objectid *) out);
}

static int
fill_objectid(void *gen, uint8_t *out, size_t n)
{
	return cid_objectid_fill(gen, (cid_objectid *) out, n, NULL);
}

static int
next_ksuid(void *gen, uint8_t *out)
{
	(void) gen;
	return cid_ksuid_new((cid_ksuid *) out, NULL);
}

static int
fill_ksuid(void *gen, uint8_t *out, size_t n)
{
	(void) gen;
	return cid_ksuid_fill((cid_ksuid *) out, n, NULL);
}

static void
format_uuid(char *out, const uint8_t *bytes)
{
	cid_uuid_format(out, (const cid_uuid *) bytes);
}

static void
format_ulid(char *out, const uint8_t *bytes)
{
	cid_ulid_format(out, (const cid_ulid *) bytes);
}

static void
format_objectid(char *out, const uint8_t *bytes)
{
	cid_objectid_format(out, (const cid_objectid *) bytes);
}

static void
format_ksuid(char *out, const uint8_t *bytes)
{
	cid_ksuid_format(out, (const cid_ksuid *) bytes);
}

/*
 * The smallest (rest NULL) or largest (rest all ones) ID of the time unit
 * holding ms: the core's from_ms steps, the pure halves of the generators.
 */
typedef int (*at_fn) (uint8_t *out, int64_t ms, const uint8_t *rest);

static int
at_uuidv7(uint8_t *out, int64_t ms, const uint8_t *rest)
{
	return cid_uuidv7_from_ms((cid_uuid *) out, ms, rest);
}

static int
at_ulid(uint8_t *out, int64_t ms, const uint8_t *rest)
{
	return cid_ulid_from_ms((cid_ulid *) out, ms, rest);
}

/* v6 counts 100 ns from 1582-10-15: the ms's first or last tick. */
static int
at_uuidv6(uint8_t *out, int64_t ms, const uint8_t *rest)
{
	/* Outside this the ticks do not fit 60 bits (nor the product 64). */
	if (ms < -CID_UUID_GREGORIAN_OFFSET / 10000 || ms > (INT64_C(1) << 60) / 10000)
		return CID_ETIME_RANGE;
	return cid_uuidv6_from_ticks((cid_uuid *) out, (uint64_t) (ms * 10000 + CID_UUID_GREGORIAN_OFFSET) +
								 (rest != NULL ? 9999 : 0), rest);
}

static int
at_objectid(uint8_t *out, int64_t ms, const uint8_t *rest)
{
	return cid_objectid_from_ms((cid_objectid *) out, ms, rest);
}

static int
at_ksuid(uint8_t *out, int64_t ms, const uint8_t *rest)
{
	return cid_ksuid_from_ms((cid_ksuid *) out, ms, rest);
}

typedef struct kind_gen
{
	const char *what;			/* for messages */
	next_fn		next;
	fill_fn		fill;			/* n at once: the core's batch step */
	void	   *gen;
	size_t		size;			/* bytes of one ID */
	size_t		text_len;		/* characters of its text */
	format_fn	format;
	at_fn		at;				/* NULL: no bounds (no time) */
	const char *span;			/* the times it holds, for messages */
} kind_gen;

#define UUIDV7_SPAN "1970-01-01T00:00:00.000Z .. 10889-08-02T05:31:50.655Z"
#define KIND_UUID(what, nx, fl, gen, at, span) \
	{what, nx, fl, gen, 16, CID_UUID_STRLEN, format_uuid, at, span}
#define KIND_ULID(what, gen) {what, next_ulid, fill_ulid, gen, 16, CID_ULID_STRLEN, format_ulid, \
	at_ulid, UUIDV7_SPAN}

static kind_gen k_uuidv7 = KIND_UUID("UUIDv7", next_uuidv7, fill_uuidv7, &cid_node_uuidv7_gen, at_uuidv7,
									 UUIDV7_SPAN);
static kind_gen k_uuidv4 = KIND_UUID("UUIDv4", next_uuidv4, fill_uuidv4, NULL, NULL, NULL);
static kind_gen k_uuidv6 = KIND_UUID("UUIDv6", next_uuidv6, fill_uuidv6, &uuidv6_gen, at_uuidv6,
									 "1582-10-15T00:00:00.000Z .. 5236-03-31T21:21:00.684Z");
static kind_gen k_ulid = KIND_ULID("ULID", &ulid_plain_gen);
static kind_gen k_ulid_mono = KIND_ULID("monotonic ULID", &ulid_mono_gen);
static kind_gen k_objectid = {"ObjectId", next_objectid, fill_objectid, &objectid_gen, sizeof(cid_objectid),
	CID_OBJECTID_STRLEN, format_objectid, at_objectid,
"1970-01-01T00:00:00.000Z .. 2106-02-07T06:28:15.999Z"};
static kind_gen k_ksuid = {"KSUID", next_ksuid, fill_ksuid, NULL, sizeof(cid_ksuid), CID_KSUID_STRLEN,
	format_ksuid, at_ksuid, "2014-05-13T16:53:20.000Z .. 2150-06-19T23:21:35.999Z"};

static napi_value
id_string(napi_env env, napi_callback_info info)
{
	kind_gen   *k;
	uint8_t		b[32];			/* the largest kind, KSUID, has 20 */
	char		text[CID_UUID_STRLEN + 1];	/* the longest text */
	int			rc;

	if (napi_get_cb_info(env, info, NULL, NULL, NULL, (void **) &k) != napi_ok)
		return cid_node_napi_failed(env, "cannot read the arguments");
	rc = k->next(k->gen, b);
	if (rc < 0)
		return cid_node_gen_failed(env, rc, k->what);
	k->format(text, b);
	return cid_node_latin1(env, text, k->text_len);
}

/*
 * One ID into a Uint8Array of its size made by the JavaScript layer
 * (Buffer.allocUnsafe takes it from Node's pool: a Buffer made here costs
 * ten times the ID).
 */
static napi_value
id_into(napi_env env, napi_callback_info info)
{
	napi_value	argv[1];
	kind_gen   *k;
	napi_typedarray_type tt;
	size_t		len = 0;
	void	   *data = NULL;
	bool		is = false;
	int			rc;

	if (!cid_node_args(env, info, 1, argv, (void **) &k))
		return NULL;
	if (napi_is_typedarray(env, argv[0], &is) != napi_ok || !is ||
		napi_get_typedarray_info(env, argv[0], &tt, &len, &data, NULL, NULL) != napi_ok ||
		tt != napi_uint8_array || len != k->size)
	{
		char		expected[48];

		snprintf(expected, sizeof(expected), "a Uint8Array of %zu bytes", k->size);
		return cid_node_type_error(env, argv[0], "target", expected);
	}
	rc = k->next(k->gen, data);
	if (rc < 0)
		return cid_node_gen_failed(env, rc, k->what);
	return argv[0];
}

/* n IDs as one Buffer of n * size bytes. */
static napi_value
id_buffer(napi_env env, napi_callback_info info)
{
	napi_value	argv[1];
	napi_value	buf;
	kind_gen   *k;
	uint8_t    *data;
	size_t		n;

	if (!cid_node_args(env, info, 1, argv, (void **) &k) || !cid_node_get_count(env, argv[0], &n))
		return NULL;
	if (napi_create_buffer(env, n * k->size, (void **) &data, &buf) != napi_ok)
		return cid_node_napi_failed(env, "cannot create a Buffer");
	if (n > 0)
	{
		int			rc = k->fill(k->gen, data, n);

		if (rc < 0)
			return cid_node_gen_failed(env, rc, k->what);
	}
	return buf;
}

/*
 * n IDs as text, one string of n lines that the JavaScript layer splits:
 * one string made in C and split by V8 costs far less than n strings
 * handed over one by one through Node-API.
 */
static napi_value
id_lines(napi_env env, napi_callback_info info)
{
	napi_value	argv[1];
	napi_value	v;
	kind_gen   *k;
	size_t		n;
	size_t		w;
	uint8_t    *bytes;
	char	   *text;
	int			rc;

	if (!cid_node_args(env, info, 1, argv, (void **) &k) || !cid_node_get_count(env, argv[0], &n))
		return NULL;
	w = k->text_len + 1;
	if (n == 0)
		return cid_node_latin1(env, "", 0);
	/* The IDs go in first, the text after them (one byte more: the NUL). */
	bytes = malloc(n * k->size + n * w + 1);
	if (bytes == NULL)
		return cid_node_throw(env, CID_EINVAL, true, "batch of %zu: out of memory", n);
	text = (char *) bytes + n * k->size;
	rc = k->fill(k->gen, bytes, n);
	if (rc < 0)
	{
		free(bytes);
		return cid_node_gen_failed(env, rc, k->what);
	}
	/* The core's batch text where it has one, a newline after each ID. */
	if (k->format == format_ulid)
		cid_ulid_format_many(text, (const cid_ulid *) bytes, n, '\n');
	else if (k->format == format_uuid)
		cid_uuid_format_many(text, (const cid_uuid *) bytes, n, '\n');
	else
		for (size_t i = 0; i < n; i++)
		{
			k->format(text + w * i, bytes + k->size * i);
			text[w * i + k->text_len] = '\n';
		}
	v = cid_node_latin1(env, text, n * w - 1);
	free(bytes);
	return v;
}


/* ------------------------------------------------------------------------
 * Range bounds
 * ------------------------------------------------------------------------ */

static const uint8_t all_ones[16] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};

/*
 * The smallest and largest ID of a kind (data) in the unit of a time: the
 * millisecond (UUIDv7, ULID, UUIDv6), the second (ObjectId, KSUID).
 */
static napi_value
bounds_of(napi_env env, napi_callback_info info)
{
	napi_value	argv[1];
	kind_gen   *k;
	int64_t		ms;
	uint8_t		lo[32],
				hi[32];
	char		text[CID_UUID_STRLEN + 1];
	napi_value	min;
	int			rc;

	if (!cid_node_args(env, info, 1, argv, (void **) &k) || !cid_node_get_time(env, argv[0], &ms))
		return NULL;
	rc = k->at(lo, ms, NULL);
	if (rc == CID_OK)
		rc = k->at(hi, ms, all_ones);
	if (rc != CID_OK)
		return cid_node_throw(env, rc, true, "time %lld ms is outside what a %s can hold (%s)",
							  (long long) ms, k->what, k->span);
	k->format(text, lo);
	min = cid_node_latin1(env, text, k->text_len);
	k->format(text, hi);
	return cid_node_pair(env, min, cid_node_latin1(env, text, k->text_len));
}

bool
cid_node_ids_init(napi_env env, napi_value exports)
{
	static const struct
	{
		const char *suffix;
		napi_callback cb;
	}			shapes[] = {{"", id_string}, {"Into", id_into}, {"Buffer", id_buffer},
	{"Lines", id_lines}};
	static const struct
	{
		const char *prefix;
		kind_gen   *k;
	}			kinds[] = {{"uuidv7", &k_uuidv7}, {"uuidv4", &k_uuidv4}, {"ulid", &k_ulid},
	{"monotonicUlid", &k_ulid_mono}, {"uuidv6", &k_uuidv6}, {"objectid", &k_objectid},
	{"ksuid", &k_ksuid}};
	bool		ok = true;

	pthread_once(&gens_once, init_gens);
	if (gens_status != CID_OK)
	{
		cid_node_throw(env, gens_status, false, "chronoid: cannot start the generators: %s",
					   cid_strerror(gens_status));
		return false;
	}
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		for (size_t j = 0; j < sizeof(shapes) / sizeof(shapes[0]); j++)
		{
			char		name[64];

			snprintf(name, sizeof(name), "%s%s", kinds[i].prefix, shapes[j].suffix);
			ok = ok && cid_node_def_fn(env, exports, name, shapes[j].cb, kinds[i].k);
		}
	return ok &&
		cid_node_def_fn(env, exports, "uuidv7Bounds", bounds_of, &k_uuidv7) &&
		cid_node_def_fn(env, exports, "ulidBounds", bounds_of, &k_ulid) &&
		cid_node_def_fn(env, exports, "uuidv6Bounds", bounds_of, &k_uuidv6) &&
		cid_node_def_fn(env, exports, "objectidBounds", bounds_of, &k_objectid) &&
		cid_node_def_fn(env, exports, "ksuidBounds", bounds_of, &k_ksuid);
}
