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

static napi_value
id_string(napi_env env, napi_callback_info info)
{
	const cid_bind_kind *k;
	uint8_t		b[32];			/* the largest kind, KSUID, has 20 */
	char		text[CID_UUID_STRLEN + 1];	/* the longest text */
	int			rc;

	if (napi_get_cb_info(env, info, NULL, NULL, NULL, (void **) &k) != napi_ok)
		return cid_node_napi_failed(env, "cannot read the arguments");
	rc = k->next(&cid_bind_gen, b);
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
	const cid_bind_kind *k;
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
	rc = k->next(&cid_bind_gen, data);
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
	const cid_bind_kind *k;
	uint8_t    *data;
	size_t		n;

	if (!cid_node_args(env, info, 1, argv, (void **) &k) || !cid_node_get_count(env, argv[0], &n))
		return NULL;
	if (napi_create_buffer(env, n * k->size, (void **) &data, &buf) != napi_ok)
		return cid_node_napi_failed(env, "cannot create a Buffer");
	if (n > 0)
	{
		int			rc = k->fill(&cid_bind_gen, data, n);

		if (rc < 0)
			return cid_node_gen_failed(env, rc, k->what);
	}
	return buf;
}

/*
 * n IDs as text: one JSON array of strings that the JavaScript layer
 * parses (bind/batch_json.c says why JSON).  One string made in C and
 * parsed by V8 costs far less than n strings handed over one by one
 * through Node-API.
 */
static napi_value
id_json(napi_env env, napi_callback_info info)
{
	napi_value	argv[1];
	napi_value	v;
	const cid_bind_kind *k;
	size_t		n;
	size_t		len;
	uint8_t    *bytes;
	char	   *text;
	int			rc;

	if (!cid_node_args(env, info, 1, argv, (void **) &k) || !cid_node_get_count(env, argv[0], &n))
		return NULL;
	/* The IDs go in first, their text after them. */
	bytes = malloc(n * k->size + CID_BIND_JSON_BYTES(n, k->text_len));
	if (bytes == NULL)
		return cid_node_throw(env, CID_EINVAL, true, "batch of %zu: out of memory", n);
	text = (char *) bytes + n * k->size;
	rc = n == 0 ? CID_OK : k->fill(&cid_bind_gen, bytes, n);
	if (rc < 0)
	{
		free(bytes);
		return cid_node_gen_failed(env, rc, k->what);
	}
	len = cid_bind_json(k, text, bytes, n);
	v = cid_node_latin1(env, text, len);
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
	const cid_bind_kind *k;
	int64_t		ms;
	uint8_t		lo[32],
				hi[32];
	char		text[CID_UUID_STRLEN + 1];
	char		msg[256];
	napi_value	min;
	int			rc;

	if (!cid_node_args(env, info, 1, argv, (void **) &k) || !cid_node_get_time(env, argv[0], &ms))
		return NULL;
	rc = k->at(lo, ms, NULL);
	if (rc == CID_OK)
		rc = k->at(hi, ms, all_ones);
	if (rc != CID_OK)
		return cid_node_throw(env, rc, true, "%s",
							  cid_bind_time_outside(msg, sizeof(msg), ms, k->what, k->span));
	k->format(text, lo);
	min = cid_node_latin1(env, text, k->text_len);
	k->format(text, hi);
	return cid_node_pair(env, min, cid_node_latin1(env, text, k->text_len));
}

/*
 * An ID of kind data (UUIDv7, ULID) for a given time: backfills of old rows,
 * deterministic tests.  The time's millisecond and fresh random bits, with
 * no generator state: IDs of one millisecond come in no order, and the
 * generators' own IDs neither wait for nor step past these.
 */
static napi_value
id_at(napi_env env, napi_callback_info info)
{
	napi_value	argv[1];
	const cid_bind_kind *k;
	int64_t		ms;
	uint8_t		rest[16],
				out[32];
	char		text[CID_UUID_STRLEN + 1];
	char		msg[256];
	int			rc;

	if (!cid_node_args(env, info, 1, argv, (void **) &k) || !cid_node_get_time(env, argv[0], &ms))
		return NULL;
	if ((rc = cid_random_bytes(rest, sizeof(rest))) != CID_OK)
		return cid_node_throw(env, rc, false, "%s: no random bytes: %s", k->what, cid_strerror(rc));
	if ((rc = k->at(out, ms, rest)) != CID_OK)
		return cid_node_throw(env, rc, true, "%s",
							  cid_bind_time_outside(msg, sizeof(msg), ms, k->what, k->span));
	k->format(text, out);
	return cid_node_latin1(env, text, k->text_len);
}

bool
cid_node_ids_init(napi_env env, napi_value exports)
{
	static const struct
	{
		const char *suffix;
		napi_callback cb;
	}			shapes[] = {{"", id_string}, {"Into", id_into}, {"Buffer", id_buffer},
	{"Json", id_json}};
	static const struct
	{
		const char *prefix;
		const cid_bind_kind *k;
	}			kinds[] = {{"uuidv7", &cid_bind_uuidv7}, {"uuidv4", &cid_bind_uuidv4},
	{"ulid", &cid_bind_ulid}, {"monotonicUlid", &cid_bind_ulid_mono},
	{"uuidv6", &cid_bind_uuidv6}, {"objectid", &cid_bind_objectid}, {"ksuid", &cid_bind_ksuid}};
	bool		ok = true;
	int			rc = cid_bind_start();

	if (rc != CID_OK)
	{
		cid_node_throw(env, rc, false, "chronoid: cannot start the generators: %s",
					   cid_strerror(rc));
		return false;
	}
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		for (size_t j = 0; j < sizeof(shapes) / sizeof(shapes[0]); j++)
		{
			char		name[64];

			snprintf(name, sizeof(name), "%s%s", kinds[i].prefix, shapes[j].suffix);
			ok = ok && cid_node_def_fn(env, exports, name, shapes[j].cb, (void *) kinds[i].k);
		}
	return ok &&
		cid_node_def_fn(env, exports, "uuidv7Bounds", bounds_of, (void *) &cid_bind_uuidv7) &&
		cid_node_def_fn(env, exports, "ulidBounds", bounds_of, (void *) &cid_bind_ulid) &&
		cid_node_def_fn(env, exports, "uuidv6Bounds", bounds_of, (void *) &cid_bind_uuidv6) &&
		cid_node_def_fn(env, exports, "objectidBounds", bounds_of, (void *) &cid_bind_objectid) &&
		cid_node_def_fn(env, exports, "ksuidBounds", bounds_of, (void *) &cid_bind_ksuid) &&
		cid_node_def_fn(env, exports, "uuidv7At", id_at, (void *) &cid_bind_uuidv7) &&
		cid_node_def_fn(env, exports, "ulidAt", id_at, (void *) &cid_bind_ulid);
}
