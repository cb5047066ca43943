/*
 * lease.c — Snowflake node numbers leased from PostgreSQL, for
 * JavaScript: libchronoid_lease itself (db/lease, compiled into the addon
 * as the core is), not a second implementation of its protocol.  Acquiring,
 * setting up and releasing talk to the server, so they run on libuv's
 * thread pool and return Promises; minting (cid_lease_next/fill: the
 * fence is one monotonic clock read and atomic loads) is synchronous.  The
 * library's own thread renews the lease in the background.  Built only
 * where libpq's header is (CHRONOID_NODE_LEASE); elsewhere the functions
 * reject with CHRONOID_ENOLEASE.
 */
#define _GNU_SOURCE

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addon.h"

#ifdef CHRONOID_NODE_LEASE
#include "chronoid_lease.h"

/*
 * What JavaScript passes in: strings copied, for the pool thread; the
 * options checked (bind/lease_opts.c) into b, which points at them.
 */
typedef struct lease_args
{
	char	   *conninfo;
	char	   *schema;
	char	   *owner;
	cid_bind_lease_args b;
} lease_args;

/* One JavaScript lease object: its functions share this. */
typedef struct lease_handle
{
	const cid_node_minter *minter;	/* first: see addon.h */
	cid_lease  *lease;			/* NULL once handed to release */
	int			fn_refs;
	char		layout_name[CID_LAYOUT_NAME_MAX];
} lease_handle;

/* The pool's job: what to do, its inputs and its outcome. */
typedef enum lease_op
{
	OP_SETUP,
	OP_ACQUIRE,
	OP_RELEASE
} lease_op;

typedef struct lease_work
{
	lease_op	op;
	lease_args	a;
	cid_lease  *lease;			/* acquired, or to release */
	int			status;
	char		err[512];
	napi_deferred deferred;
	napi_async_work work;
} lease_work;

static void
args_free(lease_args *a)
{
	free(a->conninfo);
	free(a->schema);
	free(a->owner);
}

static napi_value
throw_lease(napi_env env, int status, const char *what, const lease_handle *h)
{
	char		msg[512];

	snprintf(msg, sizeof(msg), "%s (leased node %" PRIu64 "): %s", what,
			 h->lease ? cid_lease_node(h->lease) : 0, cid_lease_strerror(status));
	napi_throw(env, cid_node_error(env, status, msg));
	return NULL;
}

/* ------------------------------------------------------------------------
 * Minting
 * ------------------------------------------------------------------------ */

static lease_handle *
handle_of(napi_env env, napi_callback_info info)
{
	void	   *data = NULL;

	if (napi_get_cb_info(env, info, NULL, NULL, NULL, &data) != napi_ok)
		return cid_node_napi_failed(env, "cannot read the arguments"), NULL;
	if (data != NULL && ((lease_handle *) data)->lease == NULL)
	{
		napi_throw(env, cid_node_error(env, CID_ELEASE_RELEASED, "this lease was released"));
		return NULL;
	}
	return data;
}

static void *
l_open(napi_env env, void *data)
{
	lease_handle *h = data;

	if (h->lease == NULL)
		napi_throw(env, cid_node_error(env, CID_ELEASE_RELEASED, "this lease was released"));
	return h->lease;
}

static int
l_mint(void *lease, uint64_t *id)
{
	return cid_lease_next(lease, id);
}

/* The whole batch or nothing: a batch the fence cut is burnt. */
static int
l_fill(void *lease, uint64_t *ids, size_t n)
{
	return cid_lease_fill(lease, ids, n, NULL);
}

static napi_value
l_failed(napi_env env, int status, void *data)
{
	return throw_lease(env, status, "snowflake", data);
}

static const cid_node_minter lease_minter = {l_open, l_mint, l_fill, l_failed};

/*
 * { code, remainingMs }: code null while the lease may mint, else what
 * minting would fail with; ms until the local deadline (0 once fenced).
 */
static napi_value
l_state(napi_env env, napi_callback_info info)
{
	lease_handle *h = handle_of(env, info);
	napi_value	obj,
				code,
				left;
	int64_t		ns;
	int			rc;

	if (h == NULL)
		return NULL;
	rc = cid_lease_status(h->lease);
	ns = cid_lease_remaining_ns(h->lease);
	if (rc == CID_OK)
		napi_get_null(env, &code);
	else
		napi_create_string_utf8(env, cid_node_code(rc), NAPI_AUTO_LENGTH, &code);
	napi_create_double(env, rc == CID_OK && ns > 0 ? (double) ns / 1e6 : 0, &left);
	if (napi_create_object(env, &obj) != napi_ok || napi_set_named_property(env, obj, "code", code) != napi_ok ||
		napi_set_named_property(env, obj, "remainingMs", left) != napi_ok)
		return cid_node_napi_failed(env, "cannot describe the lease");
	return obj;
}

/* ------------------------------------------------------------------------
 * The pool: setup, acquire, release
 * ------------------------------------------------------------------------ */

static void
work_execute(napi_env env, void *data)
{
	lease_work *w = data;

	(void) env;
	w->err[0] = '\0';
	switch (w->op)
	{
		case OP_SETUP:
			w->status = cid_lease_setup(&w->a.b.opts, w->err, sizeof(w->err));
			break;
		case OP_ACQUIRE:
			w->status = cid_lease_acquire(&w->lease, &w->a.b.opts, w->err, sizeof(w->err));
			break;
		case OP_RELEASE:
			w->status = cid_lease_release(w->lease, w->err, sizeof(w->err));
			w->lease = NULL;
			break;
	}
}

static void
fn_finalize(napi_env env, void *data, void *hint)
{
	lease_handle *h = data;

	(void) env;
	(void) hint;
	if (--h->fn_refs == 0)
	{
		/* Dropped without release: stop renewing, let the row lapse. */
		cid_lease_free(h->lease);
		free(h);
	}
}

static napi_value l_release(napi_env env, napi_callback_info info);

static napi_value
lease_object(napi_env env, cid_lease *lease, const cid_layout *layout)
{
	lease_handle *h = calloc(1, sizeof(*h));
	napi_value	obj,
				v;

	if (h == NULL)
	{
		cid_lease_free(lease);
		return cid_node_error(env, CID_EINVAL, "out of memory");
	}
	h->minter = &lease_minter;
	h->lease = lease;
	snprintf(h->layout_name, sizeof(h->layout_name), "%s", layout->name);
	if (napi_create_object(env, &obj) != napi_ok)
	{
		cid_lease_free(lease);
		free(h);
		return cid_node_error(env, CID_EINVAL, "cannot create an object");
	}
	if (!cid_node_def_method(env, obj, "next", cid_node_mint_next, h, fn_finalize, &h->fn_refs) ||
		!cid_node_def_method(env, obj, "batch", cid_node_mint_batch, h, fn_finalize, &h->fn_refs) ||
		!cid_node_def_method(env, obj, "state", l_state, h, fn_finalize, &h->fn_refs) ||
		!cid_node_def_method(env, obj, "release", l_release, h, fn_finalize, &h->fn_refs))
	{
		if (h->fn_refs == 0)
		{
			cid_lease_free(lease);
			free(h);
		}
		return cid_node_error(env, CID_EINVAL, "cannot define the lease's functions");
	}
	napi_create_bigint_uint64(env, cid_lease_node(lease), &v);
	napi_set_named_property(env, obj, "node", v);
	napi_create_string_utf8(env, cid_lease_holder(lease), NAPI_AUTO_LENGTH, &v);
	napi_set_named_property(env, obj, "holder", v);
	napi_create_double(env, (double) cid_lease_not_before_ms(lease), &v);
	napi_set_named_property(env, obj, "notBeforeMs", v);
	napi_set_named_property(env, obj, "layout", cid_node_layout_object(env, layout));
	return obj;
}

static void
work_complete(napi_env env, napi_status st, void *data)
{
	lease_work *w = data;
	napi_value	v = NULL;
	bool		ok = st == napi_ok && w->status >= 0;

	if (!ok)
	{
		char		msg[700],
					why[600];

		snprintf(msg, sizeof(msg), "%s: %s",
				 w->op == OP_SETUP ? "lease setup" : w->op == OP_ACQUIRE ? "lease" : "lease release",
				 cid_bind_failure(why, sizeof(why), w->status, w->err));
		v = cid_node_error(env, w->status, msg);
		napi_reject_deferred(env, w->deferred, v);
	}
	else
	{
		if (w->op == OP_ACQUIRE)
		{
			v = lease_object(env, w->lease, &w->a.b.layout);
			if (v != NULL)
			{
				bool		is_err = false;

				napi_is_error(env, v, &is_err);
				if (is_err)
				{
					napi_reject_deferred(env, w->deferred, v);
					v = NULL;
				}
			}
		}
		else
			napi_get_undefined(env, &v);
		if (v != NULL)
			napi_resolve_deferred(env, w->deferred, v);
	}
	napi_delete_async_work(env, w->work);
	args_free(&w->a);
	free(w);
}

static napi_value
queue(napi_env env, lease_work *w)
{
	napi_value	promise = cid_node_promise_work(env, "chronoid.lease", work_execute, work_complete, w,
												&w->deferred, &w->work);

	if (promise != NULL && napi_queue_async_work(env, w->work) != napi_ok)
	{
		napi_delete_async_work(env, w->work);
		promise = cid_node_napi_failed(env, "cannot queue the lease's work");
	}
	if (promise == NULL)
	{
		args_free(&w->a);
		free(w);
	}
	return promise;
}

static napi_value
l_release(napi_env env, napi_callback_info info)
{
	lease_handle *h = handle_of(env, info);
	lease_work *w;

	if (h == NULL)
		return NULL;
	w = calloc(1, sizeof(*w));
	if (w == NULL)
		return cid_node_throw(env, CID_EINVAL, false, "out of memory");
	w->op = OP_RELEASE;
	/* From here the pool owns the lease; this object mints no more. */
	w->lease = h->lease;
	h->lease = NULL;
	return queue(env, w);
}

/*
 * lease(op, layout, conninfo, schema, owner, renew, ttlMs, graceMs,
 * clockWaitMs, lo, hi, onBehind, maxDriftMs, maxWaitMs, onExhausted,
 * maxBorrowTicks): a Promise.  op 0 = setup, 1 = acquire.  The integer
 * options come in cid_bind_lease_opt's order, then cid_bind_policy_opt's;
 * bind/lease_opts.c checks them (and the texts) here, so that a bad one
 * throws before any connection is tried.
 */
static napi_value
lease_start(napi_env env, napi_callback_info info)
{
	enum
	{
		NARGS = 6 + CID_BIND_LEASE_NOPTS + CID_BIND_POLICY_NOPTS
	};
	napi_value	argv[NARGS];
	size_t		argc = NARGS;
	int64_t		v[CID_BIND_LEASE_NOPTS],
				pol[CID_BIND_POLICY_NOPTS];
	cid_layout	layout;
	lease_work *w;
	double		op = 0;
	bool		renew = true;
	int			rc;

	if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok)
		return cid_node_napi_failed(env, "cannot read the arguments");
	for (size_t i = argc; i < NARGS; i++)
		napi_get_undefined(env, &argv[i]);
	if (!cid_node_get_layout(env, argv[1], &layout))
		return NULL;
	for (int i = 0; i < CID_BIND_LEASE_NOPTS; i++)
	{
		v[i] = CID_BIND_UNSET;
		if (!cid_node_get_int(env, argv[6 + i], cid_bind_lease_opt_names[i].camel, &v[i]))
			return NULL;
	}
	if (!cid_node_get_policy(env, argv + 6 + CID_BIND_LEASE_NOPTS, pol))
		return NULL;
	if (napi_get_value_bool(env, argv[5], &renew) != napi_ok)
		renew = true;
	w = calloc(1, sizeof(*w));
	if (w == NULL)
		return cid_node_throw(env, CID_EINVAL, false, "out of memory");
	napi_get_value_double(env, argv[0], &op);
	w->op = op == 0 ? OP_SETUP : OP_ACQUIRE;
	if (!cid_node_dup_text(env, argv[2], "conninfo", &w->a.conninfo) ||
		!cid_node_dup_text(env, argv[3], "schema", &w->a.schema) ||
		!cid_node_dup_text(env, argv[4], "owner", &w->a.owner))
	{
		args_free(&w->a);
		free(w);
		return NULL;
	}
	rc = cid_bind_lease_opts(&w->a.b, &layout, w->a.conninfo, w->a.schema, w->a.owner, v, pol,
							 renew, true, w->err, sizeof(w->err));
	if (rc != CID_OK)
	{
		napi_value	r = cid_node_throw(env, rc, true, "lease: %s", w->err);

		args_free(&w->a);
		free(w);
		return r;
	}
	return queue(env, w);
}

#else							/* !CHRONOID_NODE_LEASE */

static napi_value
lease_start(napi_env env, napi_callback_info info)
{
	(void) info;
	return cid_node_no_lease(env, "node leases");
}

#endif

bool
cid_node_lease_init(napi_env env, napi_value exports)
{
	napi_value	fn,
				v;

	return napi_create_function(env, "lease", NAPI_AUTO_LENGTH, lease_start, NULL, &fn) == napi_ok &&
		napi_set_named_property(env, exports, "lease", fn) == napi_ok &&
#ifdef CHRONOID_NODE_LEASE
		napi_get_boolean(env, true, &v) == napi_ok &&
#else
		napi_get_boolean(env, false, &v) == napi_ok &&
#endif
		napi_set_named_property(env, exports, "hasLease", v) == napi_ok;
}
