/*
 * snowflake.c — Snowflake generators for JavaScript, over the core's
 * claimed generators (cid_claimed_snowflake): every generator object made
 * for one (scope, node) in any worker_thread shares the process's one C
 * generator of the pair, which holds the node claim (host-wide, or with
 * claim: false this process's own) and covers every ID with its mark.
 */
#define _GNU_SOURCE

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addon.h"

/* One JavaScript generator object: its functions share this. */
typedef struct sf_handle
{
	const cid_node_minter *minter;	/* first: see addon.h */
	cid_claimed_snowflake *gen;	/* the process's generator of (scope, node) */
	uint64_t	node;
	int			fn_refs;		/* live function objects (one JS thread) */
	bool		closed;
} sf_handle;

static void
handle_close(sf_handle *h)
{
	if (!h->closed)
	{
		h->closed = true;
		cid_claimed_snowflake_close(h->gen);
	}
}

static void
fn_finalize(napi_env env, void *data, void *hint)
{
	sf_handle  *h = data;

	(void) env;
	(void) hint;
	if (--h->fn_refs == 0)
	{
		handle_close(h);
		free(h);
	}
}

static napi_value
closed_error(napi_env env, const sf_handle *h)
{
	char		msg[160];

	snprintf(msg, sizeof(msg), "this snowflake generator (node %" PRIu64 ") was closed",
			 h->node);
	napi_throw_error(env, "CHRONOID_ECLOSED", msg);
	return NULL;
}

static napi_value
mint_failed(napi_env env, int rc, void *data)
{
	const sf_handle *h = data;

	return cid_node_throw(env, rc, false, "snowflake (node %" PRIu64 ", layout \"%s\"): %s",
						  h->node, cid_claimed_snowflake_gen(h->gen)->layout.name, cid_strerror(rc));
}

static void *
sf_open(napi_env env, void *data)
{
	sf_handle  *h = data;

	if (h->closed)
	{
		closed_error(env, h);
		return NULL;
	}
	return h->gen;
}

static int
sf_mint(void *gen, uint64_t *id)
{
	return cid_claimed_snowflake_next(gen, id);
}

/* Runs of a tick's sequence numbers reserved with one atomic operation. */
static int
sf_fill(void *gen, uint64_t *ids, size_t n)
{
	return cid_claimed_snowflake_fill(gen, ids, n, NULL);
}

static const cid_node_minter sf_minter = {sf_open, sf_mint, sf_fill, mint_failed};

static sf_handle *
this_handle(napi_env env, napi_callback_info info)
{
	void	   *data = NULL;

	if (napi_get_cb_info(env, info, NULL, NULL, NULL, &data) != napi_ok)
		return cid_node_napi_failed(env, "cannot read the arguments"), NULL;
	return data;
}

static napi_value
sf_close(napi_env env, napi_callback_info info)
{
	sf_handle  *h = this_handle(env, info);
	napi_value	undef;

	if (h == NULL)
		return NULL;
	handle_close(h);
	napi_get_undefined(env, &undef);
	return undef;
}

/* ------------------------------------------------------------------------
 * Creation
 * ------------------------------------------------------------------------ */

/* A node number: a number (safe integer) or a BigInt, 0 .. 2^64-1. */
static bool
get_node(napi_env env, napi_value v, const cid_layout *layout, uint64_t *node)
{
	napi_valuetype t;

	napi_typeof(env, v, &t);
	if (t == napi_number)
	{
		double		d = 0;

		napi_get_value_double(env, v, &d);
		if (!(d >= 0 && d <= 9007199254740991.0) || d != floor(d))
		{
			char		msg[256];

			cid_node_throw(env, CID_ENODE, true, "%s",
						   cid_bind_bad_node(msg, sizeof(msg), false, d, layout));
			return false;
		}
		*node = (uint64_t) d;
		return true;
	}
	if (t == napi_bigint)
	{
		int			sign = 0;
		size_t		words = 1;
		uint64_t	w = 0;

		napi_get_value_bigint_words(env, v, &sign, &words, &w);
		if (sign || words > 1)
		{
			char		msg[256];

			cid_node_throw(env, CID_ENODE, true, "%s",
						   cid_bind_bad_node(msg, sizeof(msg), true, 0, layout));
			return false;
		}
		*node = w;
		return true;
	}
	cid_node_type_error(env, v, "node", "a number or a BigInt");
	return false;
}

static napi_value
claim_failed(napi_env env, int rc, const char *msg, long holder)
{
	napi_value	code,
				text,
				err,
				pid;

	if (napi_create_string_utf8(env, cid_node_code(rc), NAPI_AUTO_LENGTH, &code) != napi_ok ||
		napi_create_string_utf8(env, msg, NAPI_AUTO_LENGTH, &text) != napi_ok ||
		napi_create_error(env, code, text, &err) != napi_ok)
		return cid_node_napi_failed(env, "cannot create an Error");
	if (rc == CID_ENODE_HELD && holder > 0 &&
		napi_create_int64(env, holder, &pid) == napi_ok)
		napi_set_named_property(env, err, "holderPid", pid);
	napi_throw(env, err);
	return NULL;
}

/*
 * snowflake(layout, node, scope, claim, claimDir, onBehind, maxDriftMs,
 * maxWaitMs, onExhausted, maxBorrowTicks): { next, batch, close, node,
 * scope, layout, claimPath }.  The JavaScript layer turns
 * the options object into these and the policy names into numbers.
 */
static napi_value
sf_create(napi_env env, napi_callback_info info)
{
	napi_value	argv[10];
	size_t		argc = 10;
	cid_layout	layout;
	cid_snowflake_opts opts;
	uint64_t	node = 0;
	char		scope_buf[CID_NODE_MAX_TEXT];
	char		dir_buf[4096];
	const char *scope;
	const char *dir;
	bool		claim = true;
	int64_t		pol[CID_BIND_POLICY_NOPTS];
	char		err[256];
	sf_handle  *h;
	cid_claimed_snowflake *gen;
	napi_value	obj,
				v;

	if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok)
		return cid_node_napi_failed(env, "cannot read the arguments");
	for (size_t i = argc; i < 10; i++)
		napi_get_undefined(env, &argv[i]);
	cid_snowflake_opts_default(&opts);
	if (!cid_node_get_layout(env, argv[0], &layout) || !get_node(env, argv[1], &layout, &node) ||
		!cid_node_get_opt_text(env, argv[2], "scope", scope_buf, sizeof(scope_buf), &scope) ||
		!cid_node_get_opt_text(env, argv[4], "claimDir", dir_buf, sizeof(dir_buf), &dir) ||
		!cid_node_get_policy(env, argv + 5, pol))
		return NULL;
	if (cid_bind_snowflake_policy(&opts, pol, true, err, sizeof(err)) != CID_OK)
		return cid_node_throw(env, CID_EINVAL, true, "%s", err);
	if (napi_get_value_bool(env, argv[3], &claim) != napi_ok)
		claim = true;
	if (node > cid_layout_max_node(&layout))
		return cid_node_throw(env, CID_ENODE, true, "%s",
							  cid_bind_node_outside(err, sizeof(err), node, &layout));
	if (scope == NULL)
		scope = "default";
	{
		char		msg[768];
		long		holder = 0;
		int			rc = cid_bind_claim(&gen, &node, scope, node, node, &layout, &opts, claim, dir,
										&holder, msg, sizeof(msg));

		if (rc != CID_OK)
			return claim_failed(env, rc, msg, holder);
	}
	h = calloc(1, sizeof(*h));
	if (h == NULL)
	{
		cid_claimed_snowflake_close(gen);
		return cid_node_throw(env, CID_EINVAL, false, "out of memory");
	}
	h->minter = &sf_minter;
	h->gen = gen;
	h->node = node;
	if (napi_create_object(env, &obj) != napi_ok)
	{
		handle_close(h);
		free(h);
		return cid_node_napi_failed(env, "cannot create an object");
	}
	/* From here the functions' finalizers own h. */
	if (!cid_node_def_method(env, obj, "next", cid_node_mint_next, h, fn_finalize, &h->fn_refs) ||
		!cid_node_def_method(env, obj, "batch", cid_node_mint_batch, h, fn_finalize, &h->fn_refs) ||
		!cid_node_def_method(env, obj, "close", sf_close, h, fn_finalize, &h->fn_refs))
	{
		if (h->fn_refs == 0)
		{
			handle_close(h);
			free(h);
		}
		return cid_node_napi_failed(env, "cannot define the generator's functions");
	}
	if (napi_set_named_property(env, obj, "layout", cid_node_layout_object(env, &layout)) != napi_ok ||
		napi_create_string_utf8(env, scope, NAPI_AUTO_LENGTH, &v) != napi_ok ||
		napi_set_named_property(env, obj, "scope", v) != napi_ok ||
		napi_create_bigint_uint64(env, node, &v) != napi_ok ||
		napi_set_named_property(env, obj, "node", v) != napi_ok)
		return cid_node_napi_failed(env, "cannot describe the generator");
	if (claim)
		napi_create_string_utf8(env, cid_claimed_snowflake_path(gen), NAPI_AUTO_LENGTH, &v);
	else
		napi_get_null(env, &v);
	if (napi_set_named_property(env, obj, "claimPath", v) != napi_ok)
		return cid_node_napi_failed(env, "cannot describe the generator");
	return obj;
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

	if (!cid_node_args(env, info, 2, argv, NULL) || !cid_node_get_time(env, argv[0], &ms) ||
		!cid_node_get_layout(env, argv[1], &layout))
		return NULL;
	rc = cid_snowflake_min_at(&lo, &layout, ms);
	if (rc == CID_OK)
		rc = cid_snowflake_max_at(&hi, &layout, ms);
	if (rc != CID_OK)
	{
		char		msg[256];

		return cid_node_throw(env, rc, true, "%s",
							  cid_bind_time_outside_layout(msg, sizeof(msg), ms, &layout));
	}
	return cid_node_pair(env, cid_node_bigint(env, lo), cid_node_bigint(env, hi));
}

/* ------------------------------------------------------------------------
 * Layouts and facts
 * ------------------------------------------------------------------------ */

static napi_value
layout_info(napi_env env, napi_callback_info info)
{
	napi_value	argv[1];
	cid_layout	layout;

	if (!cid_node_args(env, info, 1, argv, NULL) || !cid_node_get_layout(env, argv[0], &layout))
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

bool
cid_node_snowflake_init(napi_env env, napi_value exports)
{
	return cid_node_def_fn(env, exports, "snowflake", sf_create, NULL) &&
		cid_node_def_fn(env, exports, "snowflakeBounds", snowflake_bounds, NULL) &&
		cid_node_def_fn(env, exports, "layout", layout_info, NULL) &&
		cid_node_def_fn(env, exports, "claimDir", claim_dir, NULL);
}
