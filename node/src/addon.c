/*
 * addon.c — the Node-API face of libchronoid: UUIDv7, UUIDv4 and ULID
 * generators, inspection, conversion and range bounds.  Arguments are read
 * and checked here, the IDs come from cid_* calls, nothing is encoded here.
 * The generators are process-wide, so every worker_thread of a process
 * draws from the same ones (the core's generators are thread-safe).
 */
#define _GNU_SOURCE

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addon.h"

static cid_uuidv7_gen uuidv7_gen;
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

	rc = cid_uuidv7_init(&uuidv7_gen, NULL);
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
 * Errors
 * ------------------------------------------------------------------------ */

const char *
cid_node_code(int status)
{
	switch (status)
	{
		case CID_EINVAL:
			return "CHRONOID_EINVAL";
		case CID_ENODE:
			return "CHRONOID_ENODE";
		case CID_ELAYOUT:
			return "CHRONOID_ELAYOUT";
		case CID_ESYNTAX:
			return "CHRONOID_ESYNTAX";
		case CID_ELENGTH:
			return "CHRONOID_ELENGTH";
		case CID_EOVERFLOW:
			return "CHRONOID_EOVERFLOW";
		case CID_ETIME_RANGE:
			return "CHRONOID_ETIME_RANGE";
		case CID_ECLOCK_BACKWARDS:
			return "CHRONOID_ECLOCK_BACKWARDS";
		case CID_EDRIFT:
			return "CHRONOID_EDRIFT";
		case CID_EWAIT_TIMEOUT:
			return "CHRONOID_EWAIT_TIMEOUT";
		case CID_EEXHAUSTED:
			return "CHRONOID_EEXHAUSTED";
		case CID_EMONOTONIC_OVERFLOW:
			return "CHRONOID_EMONOTONIC_OVERFLOW";
		case CID_ERANDOM:
			return "CHRONOID_ERANDOM";
		case CID_ECLOCK:
			return "CHRONOID_ECLOCK";
		case CID_ENOTIME:
			return "CHRONOID_ENOTIME";
		case CID_EUNKNOWN:
			return "CHRONOID_EUNKNOWN";
		case CID_ENODE_HELD:
			return "CHRONOID_ENODE_HELD";
		case CID_ECLAIM:
			return "CHRONOID_ECLAIM";
		case CID_EFORKED:
			return "CHRONOID_EFORKED";
	}
	return "CHRONOID_ERROR";
}

napi_value
cid_node_throw(napi_env env, int status, bool range, const char *fmt,...)
{
	char		msg[1024];
	va_list		ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (range)
		napi_throw_range_error(env, cid_node_code(status), msg);
	else
		napi_throw_error(env, cid_node_code(status), msg);
	return NULL;
}

static const char *
type_name(napi_env env, napi_value v)
{
	napi_valuetype t = napi_undefined;
	bool		is = false;

	napi_typeof(env, v, &t);
	switch (t)
	{
		case napi_undefined:
			return "undefined";
		case napi_null:
			return "null";
		case napi_boolean:
			return "a boolean";
		case napi_number:
			return "a number";
		case napi_string:
			return "a string";
		case napi_symbol:
			return "a symbol";
		case napi_function:
			return "a function";
		case napi_bigint:
			return "a bigint";
		case napi_external:
			return "an external";
		case napi_object:
			break;
	}
	if (napi_is_array(env, v, &is) == napi_ok && is)
		return "an array";
	if (napi_is_date(env, v, &is) == napi_ok && is)
		return "a Date";
	if (napi_is_typedarray(env, v, &is) == napi_ok && is)
		return "a typed array";
	return "an object";
}

napi_value
cid_node_type_error(napi_env env, napi_value v, const char *what, const char *expected)
{
	char		msg[512];

	snprintf(msg, sizeof(msg), "%s must be %s, got %s", what, expected, type_name(env, v));
	napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", msg);
	return NULL;
}

napi_value
cid_node_napi_failed(napi_env env, const char *where)
{
	bool		pending = false;

	/* A call that failed because an exception is already pending (e.g.
	 * out of memory) keeps that exception. */
	if (napi_is_exception_pending(env, &pending) == napi_ok && !pending)
		napi_throw_error(env, "CHRONOID_ERROR", where);
	return NULL;
}

void
cid_node_quote(char *out, const char *s, size_t len)
{
	size_t		k = 0;
	size_t		shown = len > 60 ? 60 : len;

	out[k++] = '"';
	for (size_t i = 0; i < shown; i++)
	{
		unsigned char c = (unsigned char) s[i];

		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\')
			out[k++] = (char) c;
		else
			k += (size_t) snprintf(out + k, 8, "\\x%02x", c);
	}
	out[k++] = '"';
	if (shown < len)
		k += (size_t) snprintf(out + k, 40, "... (%zu bytes)", len);
	out[k] = '\0';
}

/* ------------------------------------------------------------------------
 * Arguments
 * ------------------------------------------------------------------------ */

const char *
cid_node_number_text(char *buf, size_t cap, double d)
{
	if (isnan(d))
		snprintf(buf, cap, "NaN");
	else if (isinf(d))
		snprintf(buf, cap, "%sInfinity", d < 0 ? "-" : "");
	else
		snprintf(buf, cap, "%.17g", d);
	return buf;
}

bool
cid_node_get_text(napi_env env, napi_value v, const char *what, char *buf,
				  size_t cap, size_t *len)
{
	napi_valuetype t;
	size_t		full = 0;

	if (napi_typeof(env, v, &t) != napi_ok || t != napi_string)
	{
		cid_node_type_error(env, v, what, "a string");
		return false;
	}
	if (napi_get_value_string_utf8(env, v, NULL, 0, &full) != napi_ok)
	{
		cid_node_napi_failed(env, "cannot read a string");
		return false;
	}
	if (full >= cap)
	{
		char		q[CID_NODE_QUOTE_MAX];

		napi_get_value_string_utf8(env, v, buf, cap, len);
		cid_node_quote(q, buf, *len);
		cid_node_throw(env, CID_ELENGTH, false, "%s %s is too long: %zu bytes, at most %zu",
					   what, q, full, cap - 1);
		return false;
	}
	napi_get_value_string_utf8(env, v, buf, cap, len);
	return true;
}

bool
cid_node_get_count(napi_env env, napi_value v, size_t *n)
{
	napi_valuetype t;
	double		d = 0;

	if (napi_typeof(env, v, &t) != napi_ok || t != napi_number)
	{
		cid_node_type_error(env, v, "the batch size", "a number");
		return false;
	}
	napi_get_value_double(env, v, &d);
	if (!(d >= 0 && d <= CID_NODE_MAX_BATCH) || d != floor(d))
	{
		char		num[32];

		cid_node_throw(env, CID_EINVAL, true,
					   "batch size %s is out of range: expected an integer from 0 to %u",
					   cid_node_number_text(num, sizeof(num), d), CID_NODE_MAX_BATCH);
		return false;
	}
	*n = (size_t) d;
	return true;
}

/* The largest |ms| a Date can hold (ECMA-262: 8.64e15). */
#define MAX_DATE_MS 8.64e15

static bool
ms_from_double(napi_env env, double d, const char *what, int64_t *unix_ms)
{
	if (!(d >= -MAX_DATE_MS && d <= MAX_DATE_MS) || d != floor(d))
	{
		char		num[32];

		cid_node_throw(env, CID_ETIME_RANGE, true,
					   "%s %s is not a time: expected an integer number of Unix ms "
					   "(or a valid Date)", what, cid_node_number_text(num, sizeof(num), d));
		return false;
	}
	*unix_ms = (int64_t) d;
	return true;
}

bool
cid_node_get_time(napi_env env, napi_value v, int64_t *unix_ms)
{
	napi_valuetype t;
	bool		is_date = false;
	double		d = 0;

	if (napi_typeof(env, v, &t) != napi_ok)
		return cid_node_napi_failed(env, "typeof"), false;
	if (t == napi_number)
	{
		napi_get_value_double(env, v, &d);
		return ms_from_double(env, d, "time", unix_ms);
	}
	if (t == napi_object && napi_is_date(env, v, &is_date) == napi_ok && is_date)
	{
		napi_get_date_value(env, v, &d);
		return ms_from_double(env, d, "Date", unix_ms);
	}
	if (t == napi_string)
	{
		char		buf[CID_NODE_MAX_TEXT];
		char		q[CID_NODE_QUOTE_MAX];
		size_t		len = 0;
		size_t		pos = 0;
		int			rc;

		if (!cid_node_get_text(env, v, "time", buf, sizeof(buf), &len))
			return false;
		rc = cid_time_parse(unix_ms, buf, len, &pos);
		if (rc != CID_OK)
		{
			cid_node_quote(q, buf, len);
			if (rc == CID_ESYNTAX)
				cid_node_throw(env, rc, false,
							   "invalid time %s: unexpected character at position %zu "
							   "(expected YYYY-MM-DD, YYYY-MM-DDTHH:MM:SS[.fff]Z or Unix ms)",
							   q, pos);
			else
				cid_node_throw(env, rc, true, "invalid time %s: %s", q, cid_strerror(rc));
			return false;
		}
		return true;
	}
	cid_node_type_error(env, v, "time", "a Date, a number of Unix ms or a string");
	return false;
}

bool
cid_node_get_limit(napi_env env, napi_value v, const char *what, int64_t *out)
{
	napi_valuetype t;
	double		d = 0;

	napi_typeof(env, v, &t);
	if (t == napi_undefined || t == napi_null)
		return true;
	if (t != napi_number)
	{
		cid_node_type_error(env, v, what, "a number");
		return false;
	}
	napi_get_value_double(env, v, &d);
	if (!(d >= 0 && d <= 9007199254740991.0) || d != floor(d))
	{
		char		num[32];

		cid_node_throw(env, CID_EINVAL, true, "%s %s is out of range: expected a non-negative integer",
					   what, cid_node_number_text(num, sizeof(num), d));
		return false;
	}
	*out = (int64_t) d;
	return true;
}

bool
cid_node_get_opt_text(napi_env env, napi_value v, const char *what, char *buf, size_t cap,
					  const char **out)
{
	napi_valuetype t;
	size_t		len = 0;

	napi_typeof(env, v, &t);
	*out = NULL;
	if (t == napi_undefined || t == napi_null)
		return true;
	if (!cid_node_get_text(env, v, what, buf, cap, &len))
		return false;
	if (strlen(buf) != len)
	{
		char		q[CID_NODE_QUOTE_MAX];

		cid_node_quote(q, buf, len);
		cid_node_throw(env, CID_EINVAL, false, "%s %s contains a NUL character", what, q);
		return false;
	}
	*out = buf;
	return true;
}

bool
cid_node_dup_text(napi_env env, napi_value v, const char *what, char **out)
{
	char		buf[4096];
	const char *text;

	*out = NULL;
	if (!cid_node_get_opt_text(env, v, what, buf, sizeof(buf), &text))
		return false;
	if (text == NULL)
		return true;
	*out = strdup(text);
	if (*out == NULL)
		cid_node_throw(env, CID_EINVAL, false, "out of memory");
	return *out != NULL;
}

bool
cid_node_get_layout(napi_env env, napi_value v, cid_layout *layout)
{
	napi_valuetype t;
	char		buf[CID_NODE_MAX_TEXT];
	char		err[256];
	char		q[CID_NODE_QUOTE_MAX];
	size_t		len = 0;
	int			rc;

	if (napi_typeof(env, v, &t) != napi_ok)
		return cid_node_napi_failed(env, "typeof"), false;
	if (t == napi_undefined || t == napi_null)
		rc = cid_layout_preset(layout, "pgedge");
	else
	{
		if (!cid_node_get_text(env, v, "layout", buf, sizeof(buf), &len))
			return false;
		if (strlen(buf) != len)
		{
			cid_node_quote(q, buf, len);
			cid_node_throw(env, CID_ELAYOUT, false, "invalid layout %s: it contains a NUL character", q);
			return false;
		}
		rc = cid_layout_resolve(layout, buf, err, sizeof(err));
		if (rc != CID_OK)
		{
			cid_node_throw(env, CID_ELAYOUT, false, "invalid layout: %s", err);
			return false;
		}
	}
	if (rc != CID_OK)
	{
		cid_node_throw(env, rc, false, "layout: %s", cid_strerror(rc));
		return false;
	}
	return true;
}

/* ------------------------------------------------------------------------
 * Small builders
 * ------------------------------------------------------------------------ */

static napi_value
latin1(napi_env env, const char *s, size_t len)
{
	napi_value	v;

	if (napi_create_string_latin1(env, s, len, &v) != napi_ok)
		return cid_node_napi_failed(env, "cannot create a string");
	return v;
}

napi_value
cid_node_number(napi_env env, double d)
{
	napi_value	v = NULL;

	napi_create_double(env, d, &v);
	return v;
}

static napi_value
date(napi_env env, int64_t ms)
{
	napi_value	v = NULL;

	napi_create_date(env, (double) ms, &v);
	return v;
}

static bool
set(napi_env env, napi_value obj, const char *key, napi_value v)
{
	return v != NULL && napi_set_named_property(env, obj, key, v) == napi_ok;
}

napi_value
cid_node_bigint(napi_env env, uint64_t id)
{
	napi_value	v;

	if (napi_create_bigint_int64(env, (int64_t) id, &v) != napi_ok)
		return cid_node_napi_failed(env, "cannot create a BigInt");
	return v;
}

napi_value
cid_node_bigint64_array(napi_env env, size_t n, uint64_t **data)
{
	napi_value	ab,
				arr;

	if (napi_create_arraybuffer(env, n * 8, (void **) data, &ab) != napi_ok ||
		napi_create_typedarray(env, napi_bigint64_array, n, ab, 0, &arr) != napi_ok)
		return cid_node_napi_failed(env, "cannot create a BigInt64Array");
	return arr;
}

static napi_value
uuid_string(napi_env env, const cid_uuid *u)
{
	char		buf[CID_UUID_STRLEN + 1];

	cid_uuid_format(buf, u);
	return latin1(env, buf, CID_UUID_STRLEN);
}

static napi_value
ulid_string(napi_env env, const cid_ulid *u)
{
	char		buf[CID_ULID_STRLEN + 1];

	cid_ulid_format(buf, u);
	return latin1(env, buf, CID_ULID_STRLEN);
}

static napi_value
buffer_of(napi_env env, const void *bytes, size_t len)
{
	napi_value	v;
	void	   *data;

	if (napi_create_buffer_copy(env, len, bytes, &data, &v) != napi_ok)
		return cid_node_napi_failed(env, "cannot create a Buffer");
	return v;
}

napi_value
cid_node_layout_object(napi_env env, const cid_layout *layout)
{
	napi_value	obj;
	char		spec[256];
	int			total = 0;

	if (napi_create_object(env, &obj) != napi_ok)
		return cid_node_napi_failed(env, "cannot create an object");
	for (int i = 0; i < 4; i++)
		total += layout->bits[i];
	if (cid_layout_format(spec, sizeof(spec), layout) < 0)
		spec[0] = '\0';
	if (!set(env, obj, "name", latin1(env, layout->name, strlen(layout->name))) ||
		!set(env, obj, "spec", latin1(env, spec, strlen(spec))) ||
		!set(env, obj, "bits", cid_node_number(env, total)) ||
		!set(env, obj, "timeBits", cid_node_number(env, layout->bits[CID_FIELD_TIME])) ||
		!set(env, obj, "nodeBits", cid_node_number(env, layout->bits[CID_FIELD_NODE])) ||
		!set(env, obj, "sequenceBits", cid_node_number(env, layout->bits[CID_FIELD_SEQ])) ||
		!set(env, obj, "reservedBits", cid_node_number(env, layout->bits[CID_FIELD_RESERVED])) ||
		!set(env, obj, "tickMs", cid_node_number(env, layout->tick_ms)) ||
		!set(env, obj, "epoch", date(env, layout->epoch_ms)) ||
		!set(env, obj, "epochMs", cid_node_number(env, (double) layout->epoch_ms)) ||
		!set(env, obj, "maxNode", cid_node_number(env, (double) cid_layout_max_node(layout))) ||
		!set(env, obj, "maxMs", cid_node_number(env, (double) cid_layout_max_ms(layout))))
		return cid_node_napi_failed(env, "cannot build the layout object");
	return obj;
}

bool
cid_node_def_method(napi_env env, napi_value obj, const char *name, napi_callback cb, void *data,
					napi_finalize fin, int *refs)
{
	napi_value	fn;

	if (napi_create_function(env, name, NAPI_AUTO_LENGTH, cb, data, &fn) != napi_ok ||
		napi_add_finalizer(env, fn, data, fin, NULL, NULL) != napi_ok)
		return false;
	(*refs)++;
	return napi_set_named_property(env, obj, name, fn) == napi_ok;
}

napi_value
cid_node_promise_work(napi_env env, const char *name, napi_async_execute_callback execute,
					  napi_async_complete_callback complete, void *data,
					  napi_deferred *deferred, napi_async_work *work)
{
	napi_value	promise,
				resource;

	if (napi_create_string_utf8(env, name, NAPI_AUTO_LENGTH, &resource) != napi_ok ||
		napi_create_async_work(env, NULL, resource, execute, complete, data, work) != napi_ok)
		return cid_node_napi_failed(env, "cannot create the work for the thread pool");
	if (napi_create_promise(env, deferred, &promise) != napi_ok)
	{
		napi_delete_async_work(env, *work);
		return cid_node_napi_failed(env, "cannot create a Promise");
	}
	return promise;
}

napi_value
cid_node_mint_next(napi_env env, napi_callback_info info)
{
	void	   *data = NULL;
	const cid_node_minter *m;
	void	   *gen;
	uint64_t	id;
	int			rc;

	if (napi_get_cb_info(env, info, NULL, NULL, NULL, &data) != napi_ok)
		return cid_node_napi_failed(env, "cannot read the arguments");
	m = *(const cid_node_minter *const *) data;
	gen = m->open(env, data);
	if (gen == NULL)
		return NULL;
	rc = m->next(gen, &id);
	if (rc < 0)
		return m->failed(env, rc, data);
	return cid_node_bigint(env, id);
}

napi_value
cid_node_mint_batch(napi_env env, napi_callback_info info)
{
	size_t		argc = 1;
	napi_value	argv[1];
	napi_value	arr;
	void	   *data = NULL;
	const cid_node_minter *m;
	void	   *gen;
	uint64_t   *ids;
	size_t		n;

	if (napi_get_cb_info(env, info, &argc, argv, NULL, &data) != napi_ok)
		return cid_node_napi_failed(env, "cannot read the arguments");
	if (argc < 1)
		napi_get_undefined(env, &argv[0]);
	if (!cid_node_get_count(env, argv[0], &n))
		return NULL;
	m = *(const cid_node_minter *const *) data;
	gen = m->open(env, data);
	if (gen == NULL)
		return NULL;
	arr = cid_node_bigint64_array(env, n, &ids);
	if (arr != NULL && n > 0)
	{
		int			rc = m->fill(gen, ids, n);

		if (rc < 0)
			return m->failed(env, rc, data);
	}
	return arr;
}

/* Data pointer and argument count of a call. */
static bool
args(napi_env env, napi_callback_info info, size_t want, napi_value *argv, void **data)
{
	size_t		argc = want;

	if (napi_get_cb_info(env, info, &argc, argv, NULL, data) != napi_ok)
	{
		cid_node_napi_failed(env, "cannot read the arguments");
		return false;
	}
	/* Missing arguments read as undefined. */
	for (size_t i = argc; i < want; i++)
		napi_get_undefined(env, &argv[i]);
	return true;
}

static napi_value
gen_failed(napi_env env, int rc, const char *what)
{
	return cid_node_throw(env, rc, false, "%s: %s", what, cid_strerror(rc));
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

static kind_gen k_uuidv7 = KIND_UUID("UUIDv7", next_uuidv7, fill_uuidv7, &uuidv7_gen, at_uuidv7,
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
		return gen_failed(env, rc, k->what);
	k->format(text, b);
	return latin1(env, text, k->text_len);
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

	if (!args(env, info, 1, argv, (void **) &k))
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
		return gen_failed(env, rc, k->what);
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

	if (!args(env, info, 1, argv, (void **) &k) || !cid_node_get_count(env, argv[0], &n))
		return NULL;
	if (napi_create_buffer(env, n * k->size, (void **) &data, &buf) != napi_ok)
		return cid_node_napi_failed(env, "cannot create a Buffer");
	if (n > 0)
	{
		int			rc = k->fill(k->gen, data, n);

		if (rc < 0)
			return gen_failed(env, rc, k->what);
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

	if (!args(env, info, 1, argv, (void **) &k) || !cid_node_get_count(env, argv[0], &n))
		return NULL;
	w = k->text_len + 1;
	if (n == 0)
		return latin1(env, "", 0);
	/* The IDs go in first, the text after them (one byte more: the NUL). */
	bytes = malloc(n * k->size + n * w + 1);
	if (bytes == NULL)
		return cid_node_throw(env, CID_EINVAL, true, "batch of %zu: out of memory", n);
	text = (char *) bytes + n * k->size;
	rc = k->fill(k->gen, bytes, n);
	if (rc < 0)
	{
		free(bytes);
		return gen_failed(env, rc, k->what);
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
	v = latin1(env, text, n * w - 1);
	free(bytes);
	return v;
}

/* ------------------------------------------------------------------------
 * Parsing IDs given as text or bytes
 * ------------------------------------------------------------------------ */

static napi_value
parse_failed(napi_env env, int rc, const char *kind, const char *s, size_t len,
			 size_t pos, const char *expected)
{
	char		q[CID_NODE_QUOTE_MAX];

	cid_node_quote(q, s, len);
	if (rc == CID_ESYNTAX && pos < len)
	{
		unsigned char c = (unsigned char) s[pos];

		if (c >= 0x20 && c < 0x7f)
			return cid_node_throw(env, rc, false, "invalid %s %s: character '%c' at position %zu (expected %s)",
								  kind, q, c, pos, expected);
		return cid_node_throw(env, rc, false, "invalid %s %s: byte 0x%02x at position %zu (expected %s)",
							  kind, q, c, pos, expected);
	}
	if (rc == CID_ELENGTH)
	{
		size_t		chars = 0;

		/* Characters, not bytes: UTF-8 continuation bytes do not count. */
		for (size_t i = 0; i < len; i++)
			chars += ((unsigned char) s[i] & 0xc0) != 0x80;
		return cid_node_throw(env, rc, false, "invalid %s %s: %zu characters (expected %s)",
							  kind, q, chars, expected);
	}
	return cid_node_throw(env, rc, false, "invalid %s %s: %s (expected %s)", kind, q,
						  cid_strerror(rc), expected);
}

#define UUID_EXPECTED "36 characters 8-4-4-4-12 of hex digits, 32 hex digits, or either in braces"
#define ULID_EXPECTED "26 characters of Crockford base32, at most 7ZZZZZZZZZZZZZZZZZZZZZZZZZ"

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
							as_ulid ? ULID_EXPECTED : UUID_EXPECTED), false;
	return true;
}

static napi_value
uuid_to_ulid(napi_env env, napi_callback_info info)
{
	napi_value	argv[1];
	cid_uuid	u;
	cid_ulid	l;

	if (!args(env, info, 1, argv, NULL) || !get_id16(env, argv[0], false, u.bytes))
		return NULL;
	cid_ulid_from_uuid(&l, &u);
	return ulid_string(env, &l);
}

static napi_value
ulid_to_uuid(napi_env env, napi_callback_info info)
{
	napi_value	argv[1];
	cid_uuid	u;
	cid_ulid	l;

	if (!args(env, info, 1, argv, NULL) || !get_id16(env, argv[0], true, l.bytes))
		return NULL;
	cid_ulid_to_uuid(&u, &l);
	return uuid_string(env, &u);
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

	if (!args(env, info, 1, argv, &to_v6) || !get_id16(env, argv[0], false, in.bytes))
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
	return uuid_string(env, &out);
}

/* ------------------------------------------------------------------------
 * TypeID: a type prefix and a UUID in lower-case base32 (cid_typeid_*)
 * ------------------------------------------------------------------------ */

#define TYPEID_PREFIX_EXPECTED "at most 63 characters of a-z and '_', starting and ending with a letter"
#define TYPEID_EXPECTED "a prefix of a-z and '_' and a '_', then 26 lower-case base32 digits " \
	"(0-9, a-z without i, l, o, u), at most 7zzzzzzzzzzzzzzzzzzzzzzzzz"

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
		return parse_failed(env, rc, "TypeID prefix", buf, *len, pos, TYPEID_PREFIX_EXPECTED), false;
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
		return parse_failed(env, rc, "TypeID", buf, *len, pos, TYPEID_EXPECTED), false;
	return true;
}

/* A TypeID's text of length n from cid_typeid_*, or its failure. */
static napi_value
typeid_value(napi_env env, int n, const char *buf)
{
	if (n < 0)
		return gen_failed(env, n, "typeid");
	return latin1(env, buf, (size_t) n);
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

	if (!args(env, info, 1, argv, NULL) || !get_prefix(env, argv[0], prefix, &plen))
		return NULL;
	n = cid_typeid_next(&uuidv7_gen, buf, sizeof(buf), prefix, plen, NULL);
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

	if (!args(env, info, 2, argv, NULL) || !get_prefix(env, argv[0], prefix, &plen) ||
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

	if (!args(env, info, 2, argv, NULL) || !get_typeid(env, argv[0], buf, &len, &u, &plen))
		return NULL;
	if (napi_typeof(env, argv[1], &t) == napi_ok && t != napi_undefined)
	{
		char		q[CID_NODE_QUOTE_MAX];

		if (!get_prefix(env, argv[1], want, &wlen))
			return NULL;
		cid_node_quote(q, buf, len);
		if (wlen != plen || memcmp(want, buf, plen) != 0)
			return cid_node_throw(env, CID_EINVAL, false, "TypeID %s has prefix \"%.*s\", not \"%s\"",
								  q, (int) plen, buf, want);
	}
	return uuid_string(env, &u);
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

	if (!args(env, info, 1, argv, NULL) || !get_typeid(env, argv[0], buf, &len, &u, &plen))
		return NULL;
	if (napi_create_object(env, &obj) != napi_ok)
		return cid_node_napi_failed(env, "cannot create an object");
	if (!set(env, obj, "prefix", latin1(env, buf, plen)) || !set(env, obj, "uuid", uuid_string(env, &u)))
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
	ok = set(env, obj, "kind", latin1(env, kind, strlen(kind))) &&
		set(env, obj, "time", ci->has_time ? date(env, ci->unix_ms) : null) &&
		set(env, obj, "unixMs", ci->has_time ? cid_node_number(env, (double) ci->unix_ms) : null);
	if (ok && ci->kind == CID_KIND_UUID)
		ok = set(env, obj, "id", uuid_string(env, (const cid_uuid *) ci->bytes)) &&
			set(env, obj, "version", ci->version >= 0 ? cid_node_number(env, ci->version) : null) &&
			set(env, obj, "bytes", buffer_of(env, ci->bytes, 16));
	else if (ok && ci->kind == CID_KIND_ULID)
		ok = set(env, obj, "id", ulid_string(env, (const cid_ulid *) ci->bytes)) &&
			set(env, obj, "bytes", buffer_of(env, ci->bytes, 16));
	else if (ok && ci->kind == CID_KIND_OBJECTID)
	{
		cid_objectid o;
		char		text[CID_OBJECTID_STRLEN + 1];

		memcpy(o.bytes, ci->bytes, sizeof(o.bytes));
		cid_objectid_format(text, &o);
		ok = set(env, obj, "id", latin1(env, text, CID_OBJECTID_STRLEN)) &&
			set(env, obj, "bytes", buffer_of(env, ci->bytes, sizeof(o.bytes)));
	}
	else if (ok && ci->kind == CID_KIND_KSUID)
	{
		cid_ksuid	k;
		char		text[CID_KSUID_STRLEN + 1];

		memcpy(k.bytes, ci->bytes, sizeof(k.bytes));
		cid_ksuid_format(text, &k);
		ok = set(env, obj, "id", latin1(env, text, CID_KSUID_STRLEN)) &&
			set(env, obj, "bytes", buffer_of(env, ci->bytes, sizeof(k.bytes)));
	}
	else if (ok)
	{
		char		dec[24];

		snprintf(dec, sizeof(dec), "%lld", (long long) (int64_t) ci->snowflake);
		ok = set(env, obj, "id", latin1(env, dec, strlen(dec))) &&
			set(env, obj, "value", cid_node_bigint(env, ci->snowflake)) &&
			set(env, obj, "node", ci->has_node ? cid_node_number(env, (double) ci->node) : null) &&
			set(env, obj, "sequence", cid_node_number(env, (double) ci->sequence)) &&
			set(env, obj, "layout", latin1(env, layout->name, strlen(layout->name)));
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

	if (!args(env, info, 2, argv, NULL) || !cid_node_get_layout(env, argv[1], &layout))
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
			char		q[CID_NODE_QUOTE_MAX];

			cid_node_quote(q, buf, len);
			return cid_node_throw(env, rc, false,
								  "%s is no known ID form (expected a UUID, a ULID, a "
								  "decimal snowflake, a 24-hex ObjectId or a 27-character KSUID)", q);
		}
		if (rc != CID_OK)
			return parse_failed(env, rc, "ID", buf, len, pos,
								len == CID_OBJECTID_STRLEN ? "a MongoDB ObjectId (24 hex digits)" :
								len == CID_KSUID_STRLEN ? "a KSUID (27 base62 characters)" :
								"a UUID, a ULID or a decimal snowflake of the layout");
		return info_object(env, &ci, &layout);
	}
}

/* ------------------------------------------------------------------------
 * Range bounds
 * ------------------------------------------------------------------------ */

static napi_value
bounds_pair(napi_env env, napi_value min, napi_value max)
{
	napi_value	obj;

	if (min == NULL || max == NULL)
		return NULL;
	if (napi_create_object(env, &obj) != napi_ok || !set(env, obj, "min", min) ||
		!set(env, obj, "max", max))
		return cid_node_napi_failed(env, "cannot build the bounds");
	return obj;
}

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

	if (!args(env, info, 1, argv, (void **) &k) || !cid_node_get_time(env, argv[0], &ms))
		return NULL;
	rc = k->at(lo, ms, NULL);
	if (rc == CID_OK)
		rc = k->at(hi, ms, all_ones);
	if (rc != CID_OK)
		return cid_node_throw(env, rc, true, "time %lld ms is outside what a %s can hold (%s)",
							  (long long) ms, k->what, k->span);
	k->format(text, lo);
	min = latin1(env, text, k->text_len);
	k->format(text, hi);
	return bounds_pair(env, min, latin1(env, text, k->text_len));
}

static napi_value
snowflake_bounds(napi_env env, napi_callback_info info)
{
	napi_value	argv[2];
	cid_layout	layout;
	int64_t		ms;
	uint64_t	lo,
				hi;
	int			rc;

	if (!args(env, info, 2, argv, NULL) || !cid_node_get_time(env, argv[0], &ms) ||
		!cid_node_get_layout(env, argv[1], &layout))
		return NULL;
	rc = cid_snowflake_min_at(&lo, &layout, ms);
	if (rc == CID_OK)
		rc = cid_snowflake_max_at(&hi, &layout, ms);
	if (rc != CID_OK)
	{
		char		from[CID_TIME_STRLEN + 1] = "?",
					to[CID_TIME_STRLEN + 1] = "?";

		if (cid_time_format(from, layout.epoch_ms) != CID_OK)
			from[0] = '\0';
		if (cid_time_format(to, cid_layout_max_ms(&layout)) != CID_OK)
			to[0] = '\0';
		return cid_node_throw(env, rc, true, "time %lld ms is outside layout \"%s\" (%s .. %s)",
							  (long long) ms, layout.name, from, to);
	}
	return bounds_pair(env, cid_node_bigint(env, lo), cid_node_bigint(env, hi));
}

/* ------------------------------------------------------------------------
 * Layouts and facts
 * ------------------------------------------------------------------------ */

static napi_value
layout_info(napi_env env, napi_callback_info info)
{
	napi_value	argv[1];
	cid_layout	layout;

	if (!args(env, info, 1, argv, NULL) || !cid_node_get_layout(env, argv[0], &layout))
		return NULL;
	return cid_node_layout_object(env, &layout);
}

static napi_value
claim_dir(napi_env env, napi_callback_info info)
{
	const char *d = cid_node_claim_dir();
	napi_value	v;

	(void) info;
	if (napi_create_string_utf8(env, d, strlen(d), &v) != napi_ok)
		return cid_node_napi_failed(env, "cannot create a string");
	return v;
}

static bool
def_fn(napi_env env, napi_value exports, const char *name, napi_callback cb, void *data)
{
	napi_value	fn;

	return napi_create_function(env, name, NAPI_AUTO_LENGTH, cb, data, &fn) == napi_ok &&
		napi_set_named_property(env, exports, name, fn) == napi_ok;
}

static napi_value
init(napi_env env, napi_value exports)
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
	napi_value	presets;
	bool		ok = true;

	pthread_once(&gens_once, init_gens);
	if (gens_status != CID_OK)
		return cid_node_throw(env, gens_status, false, "chronoid: cannot start the generators: %s",
							  cid_strerror(gens_status));

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		for (size_t j = 0; j < sizeof(shapes) / sizeof(shapes[0]); j++)
		{
			char		name[64];

			snprintf(name, sizeof(name), "%s%s", kinds[i].prefix, shapes[j].suffix);
			ok = ok && def_fn(env, exports, name, shapes[j].cb, kinds[i].k);
		}
	ok = ok && def_fn(env, exports, "uuidToUlid", uuid_to_ulid, NULL) &&
		def_fn(env, exports, "ulidToUuid", ulid_to_uuid, NULL) &&
		def_fn(env, exports, "uuidv1ToV6", uuid_v1_v6, (void *) "v1") &&
		def_fn(env, exports, "uuidv6ToV1", uuid_v1_v6, NULL) &&
		def_fn(env, exports, "typeid", typeid_new, NULL) &&
		def_fn(env, exports, "typeidFromUuid", typeid_from_uuid, NULL) &&
		def_fn(env, exports, "typeidToUuid", typeid_to_uuid, NULL) &&
		def_fn(env, exports, "parseTypeid", typeid_parse, NULL) &&
		def_fn(env, exports, "inspect", inspect, NULL) &&
		def_fn(env, exports, "uuidv7Bounds", bounds_of, &k_uuidv7) &&
		def_fn(env, exports, "ulidBounds", bounds_of, &k_ulid) &&
		def_fn(env, exports, "uuidv6Bounds", bounds_of, &k_uuidv6) &&
		def_fn(env, exports, "objectidBounds", bounds_of, &k_objectid) &&
		def_fn(env, exports, "ksuidBounds", bounds_of, &k_ksuid) &&
		def_fn(env, exports, "snowflakeBounds", snowflake_bounds, NULL) &&
		def_fn(env, exports, "layout", layout_info, NULL) &&
		def_fn(env, exports, "claimDir", claim_dir, NULL) &&
		cid_node_snowflake_init(env, exports) &&
		cid_node_lease_init(env, exports) &&
		cid_node_block_init(env, exports);
	if (!ok)
		return cid_node_napi_failed(env, "chronoid: cannot define the functions");

	if (napi_create_array(env, &presets) != napi_ok)
		return cid_node_napi_failed(env, "cannot create an array");
	for (uint32_t i = 0; cid_layout_preset_names[i] != NULL; i++)
		ok = ok && napi_set_element(env, presets, i,
									latin1(env, cid_layout_preset_names[i],
										   strlen(cid_layout_preset_names[i]))) == napi_ok;
	ok = ok && set(env, exports, "presets", presets) &&
		set(env, exports, "version", latin1(env, cid_version(), strlen(cid_version()))) &&
		set(env, exports, "maxBatch", cid_node_number(env, CID_NODE_MAX_BATCH));
	if (!ok)
		return cid_node_napi_failed(env, "chronoid: cannot define the constants");
	return exports;
}

/* The macro defines node_api_module_get_api_version_v1 without a prototype. */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
NAPI_MODULE_INIT()
{
	return init(env, exports);
}
