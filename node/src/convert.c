/*
 * convert.c — what every file of the Node-API glue shares: errors thrown
 * with a stable code, arguments read and checked with messages that name
 * the value, JavaScript values built from the core's, and the machinery of
 * methods, Promises and Snowflake minting.  It calls nothing of the glue
 * above it.
 */
#define _GNU_SOURCE

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addon.h"

/* ------------------------------------------------------------------------
 * Errors
 * ------------------------------------------------------------------------ */

const char *
cid_node_code(int status)
{
	return cid_bind_status_of(status)->code;
}

/*
 * An Error object, not thrown: code cid_node_code(status), message msg
 * (the Promises of leases and block allocators reject with it).
 */
napi_value
cid_node_error(napi_env env, int status, const char *msg)
{
	napi_value	code,
				text,
				err = NULL;

	if (napi_create_string_utf8(env, cid_node_code(status), NAPI_AUTO_LENGTH, &code) == napi_ok &&
		napi_create_string_utf8(env, msg, NAPI_AUTO_LENGTH, &text) == napi_ok)
		napi_create_error(env, code, text, &err);
	return err;
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

/* ------------------------------------------------------------------------
 * Arguments
 * ------------------------------------------------------------------------ */

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
		char		q[CID_BIND_QUOTE_MAX];

		napi_get_value_string_utf8(env, v, buf, cap, len);
		cid_bind_quote(q, buf, *len);
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
	if (!(d >= 0 && d <= (double) CID_BIND_MAX_BATCH) || d != floor(d))
	{
		char		msg[128];

		cid_node_throw(env, CID_EINVAL, true, "%s", cid_bind_bad_count(msg, sizeof(msg), d));
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
		char		msg[128];

		cid_node_throw(env, CID_ETIME_RANGE, true, "%s",
					   cid_bind_bad_time(msg, sizeof(msg), what, d));
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
		char		q[CID_BIND_QUOTE_MAX];
		size_t		len = 0;
		size_t		pos = 0;
		int			rc;

		if (!cid_node_get_text(env, v, "time", buf, sizeof(buf), &len))
			return false;
		rc = cid_time_parse(unix_ms, buf, len, &pos);
		if (rc != CID_OK)
		{
			cid_bind_quote(q, buf, len);
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

/*
 * An integer option within [lo, 2^53 - 1] (undefined or null: *out
 * untouched); anything else throws, saying that expected was wanted.
 */
static bool
get_integer(napi_env env, napi_value v, const char *what, double lo, const char *expected,
			int64_t *out)
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
	if (!(d >= lo && d <= 9007199254740991.0) || d != floor(d))
	{
		char		msg[256];

		cid_node_throw(env, CID_EINVAL, true, "%s",
					   cid_bind_bad_integer(msg, sizeof(msg), what, d, expected));
		return false;
	}
	*out = (int64_t) d;
	return true;
}

bool
cid_node_get_limit(napi_env env, napi_value v, const char *what, int64_t *out)
{
	return get_integer(env, v, what, 0, "a non-negative integer", out);
}

bool
cid_node_get_int(napi_env env, napi_value v, const char *what, int64_t *out)
{
	return get_integer(env, v, what, -9007199254740991.0, CID_BIND_SAFE_INTEGER_EXPECTED, out);
}

bool
cid_node_get_policy(napi_env env, const napi_value *argv, int64_t *v)
{
	for (int i = 0; i < CID_BIND_POLICY_NOPTS; i++)
	{
		v[i] = CID_BIND_UNSET;
		if (!cid_node_get_int(env, argv[i], cid_bind_policy_opt_names[i].camel, &v[i]))
			return false;
	}
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
		char		q[CID_BIND_QUOTE_MAX];

		cid_bind_quote(q, buf, len);
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
	char		q[CID_BIND_QUOTE_MAX];
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
			cid_bind_quote(q, buf, len);
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

napi_value
cid_node_latin1(napi_env env, const char *s, size_t len)
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

napi_value
cid_node_date(napi_env env, int64_t ms)
{
	napi_value	v = NULL;

	napi_create_date(env, (double) ms, &v);
	return v;
}

bool
cid_node_set(napi_env env, napi_value obj, const char *key, napi_value v)
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

napi_value
cid_node_uuid_string(napi_env env, const cid_uuid *u)
{
	char		buf[CID_UUID_STRLEN + 1];

	cid_uuid_format(buf, u);
	return cid_node_latin1(env, buf, CID_UUID_STRLEN);
}

napi_value
cid_node_ulid_string(napi_env env, const cid_ulid *u)
{
	char		buf[CID_ULID_STRLEN + 1];

	cid_ulid_format(buf, u);
	return cid_node_latin1(env, buf, CID_ULID_STRLEN);
}

napi_value
cid_node_buffer(napi_env env, const void *bytes, size_t len)
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
	if (!cid_node_set(env, obj, "name", cid_node_latin1(env, layout->name, strlen(layout->name))) ||
		!cid_node_set(env, obj, "spec", cid_node_latin1(env, spec, strlen(spec))) ||
		!cid_node_set(env, obj, "bits", cid_node_number(env, total)) ||
		!cid_node_set(env, obj, "timeBits", cid_node_number(env, layout->bits[CID_FIELD_TIME])) ||
		!cid_node_set(env, obj, "nodeBits", cid_node_number(env, layout->bits[CID_FIELD_NODE])) ||
		!cid_node_set(env, obj, "sequenceBits", cid_node_number(env, layout->bits[CID_FIELD_SEQ])) ||
		!cid_node_set(env, obj, "reservedBits", cid_node_number(env, layout->bits[CID_FIELD_RESERVED])) ||
		!cid_node_set(env, obj, "tickMs", cid_node_number(env, layout->tick_ms)) ||
		!cid_node_set(env, obj, "epoch", cid_node_date(env, layout->epoch_ms)) ||
		!cid_node_set(env, obj, "epochMs", cid_node_number(env, (double) layout->epoch_ms)) ||
		!cid_node_set(env, obj, "maxNode", cid_node_number(env, (double) cid_layout_max_node(layout))) ||
		!cid_node_set(env, obj, "maxMs", cid_node_number(env, (double) cid_layout_max_ms(layout))))
		return cid_node_napi_failed(env, "cannot build the layout object");
	return obj;
}

napi_value
cid_node_pair(napi_env env, napi_value min, napi_value max)
{
	napi_value	obj;

	if (min == NULL || max == NULL)
		return NULL;
	if (napi_create_object(env, &obj) != napi_ok || !cid_node_set(env, obj, "min", min) ||
		!cid_node_set(env, obj, "max", max))
		return cid_node_napi_failed(env, "cannot build the bounds");
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
bool
cid_node_args(napi_env env, napi_callback_info info, size_t want, napi_value *argv, void **data)
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

napi_value
cid_node_gen_failed(napi_env env, int rc, const char *what)
{
	return cid_node_throw(env, rc, false, "%s: %s", what, cid_strerror(rc));
}

bool
cid_node_def_fn(napi_env env, napi_value exports, const char *name, napi_callback cb, void *data)
{
	napi_value	fn;

	return napi_create_function(env, name, NAPI_AUTO_LENGTH, cb, data, &fn) == napi_ok &&
		napi_set_named_property(env, exports, name, fn) == napi_ok;
}

napi_value
cid_node_no_lease(napi_env env, const char *what)
{
	napi_value	promise,
				code,
				text,
				err;
	napi_deferred d;
	char		msg[256];

	snprintf(msg, sizeof(msg), "chronoid was built without libpq: %s need libpq's header "
			 "when the addon is built (Debian: libpq-dev)", what);
	if (napi_create_promise(env, &d, &promise) != napi_ok ||
		napi_create_string_utf8(env, "CHRONOID_ENOLEASE", NAPI_AUTO_LENGTH, &code) != napi_ok ||
		napi_create_string_utf8(env, msg, NAPI_AUTO_LENGTH, &text) != napi_ok ||
		napi_create_error(env, code, text, &err) != napi_ok)
		return cid_node_napi_failed(env, "cannot create the error");
	napi_reject_deferred(env, d, err);
	return promise;
}
