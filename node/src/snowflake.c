/*
 * snowflake.c — Snowflake generators for JavaScript.  A process mints
 * under one (scope, node number) through one C generator: every
 * generator object made for that pair in any worker_thread shares it (so
 * IDs stay unique and increasing across threads), and the first one takes
 * the node claim: host-wide (cid_node_claim_acquire), which keeps other
 * processes and other copies of the addon off the number, or with
 * claim: false this process's own (cid_node_claim_local).  Either carries
 * the number's mark, so a generator made after the last one closed starts
 * after that one's last tick.  The pair's generator and claim live while
 * any object uses them.
 */
#define _GNU_SOURCE

#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addon.h"

/* One (scope, node) of this process: its generator and claim. */
typedef struct sf_entry
{
	struct sf_entry *next;
	int			refs;			/* objects using it (registry lock) */
	char		scope[CID_CLAIM_SCOPE_MAX + 1];
	uint64_t	node;
	char		spec[256];		/* canonical layout spec */
	cid_snowflake_opts opts;
	cid_node_claim *claim;		/* host-wide, or this process's (local) */
	bool		host;			/* claim is host-wide */
	cid_snowflake_gen gen;
} sf_entry;

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static sf_entry *registry;

/* One JavaScript generator object: its functions share this. */
typedef struct sf_handle
{
	const cid_node_minter *minter;	/* first: see addon.h */
	sf_entry   *entry;
	int			fn_refs;		/* live function objects (one JS thread) */
	bool		closed;
} sf_handle;

static void
entry_unref(sf_entry *e)
{
	bool		last;

	pthread_mutex_lock(&registry_lock);
	last = --e->refs == 0;
	if (last)
	{
		for (sf_entry **pp = &registry; *pp != NULL; pp = &(*pp)->next)
			if (*pp == e)
			{
				*pp = e->next;
				break;
			}
	}
	pthread_mutex_unlock(&registry_lock);
	if (last)
	{
		cid_node_claim_release(e->claim);
		free(e);
	}
}

static void
handle_close(sf_handle *h)
{
	if (!h->closed)
	{
		h->closed = true;
		entry_unref(h->entry);
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
			 h->entry->node);
	napi_throw_error(env, "CHRONOID_ECLOSED", msg);
	return NULL;
}

static napi_value
mint_failed(napi_env env, int rc, void *data)
{
	const sf_handle *h = data;

	return cid_node_throw(env, rc, false, "snowflake (node %" PRIu64 ", layout \"%s\"): %s",
						  h->entry->node, h->entry->gen.layout.name, cid_strerror(rc));
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
	return h->entry;
}

/*
 * The claim's mark must cover an ID before it leaves: a generator made
 * for the number next, here or in another process, starts after it.
 */
static int
covered(sf_entry *e, int rc)
{
	int			cover;

	if (rc < 0)
		return rc;
	cover = cid_node_claim_cover(e->claim, &e->gen);
	return cover < 0 ? cover : rc;
}

static int
sf_mint(void *entry, uint64_t *id)
{
	sf_entry   *e = entry;

	return covered(e, cid_snowflake_next(&e->gen, id));
}

/* Runs of a tick's sequence numbers reserved with one atomic operation. */
static int
sf_fill(void *entry, uint64_t *ids, size_t n)
{
	sf_entry   *e = entry;

	return covered(e, cid_snowflake_fill(&e->gen, ids, n, NULL));
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
	uint64_t	max = cid_layout_max_node(layout);

	napi_typeof(env, v, &t);
	if (t == napi_number)
	{
		double		d = 0;

		napi_get_value_double(env, v, &d);
		if (!(d >= 0 && d <= 9007199254740991.0) || d != floor(d))
		{
			char		num[32];

			cid_node_throw(env, CID_ENODE, true,
						   "node %s is not a node number: expected an integer from 0 to %" PRIu64
						   " (layout \"%s\")", cid_node_number_text(num, sizeof(num), d), max,
						   layout->name);
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
			cid_node_throw(env, CID_ENODE, true,
						   "node BigInt is out of range: expected 0 to %" PRIu64 " (layout \"%s\")",
						   max, layout->name);
			return false;
		}
		*node = w;
		return true;
	}
	cid_node_type_error(env, v, "node", "a number or a BigInt");
	return false;
}

static bool
get_int(napi_env env, napi_value v, const char *what, int lo, int hi, int *out)
{
	int64_t		x = *out;

	if (!cid_node_get_limit(env, v, what, &x))
		return false;
	if (x < lo || x > hi)
	{
		cid_node_throw(env, CID_EINVAL, true, "%s %lld is out of range: expected %d to %d",
					   what, (long long) x, lo, hi);
		return false;
	}
	*out = (int) x;
	return true;
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

static bool
same_config(const sf_entry *e, const char *spec, const cid_snowflake_opts *o)
{
	return strcmp(e->spec, spec) == 0 && e->opts.on_behind == o->on_behind &&
		e->opts.max_drift_ms == o->max_drift_ms && e->opts.max_wait_ms == o->max_wait_ms &&
		e->opts.on_exhausted == o->on_exhausted && e->opts.max_borrow_ticks == o->max_borrow_ticks;
}

/*
 * Claim (scope, node) for e, host-wide or in this process, and start e's
 * generator after the claim's mark; the claim it replaces (a local one
 * when a host-wide one is asked for) is released.  Registry held.  Throws
 * and returns false on failure.
 */
static bool
entry_claim(napi_env env, sf_entry *e, bool host, const char *claim_dir)
{
	cid_node_claim *c = NULL;
	char		msg[512];
	long		holder = 0;
	int			rc;

	if (host)
		rc = cid_node_claim_acquire(&c, e->scope, e->node, claim_dir, &holder, msg, sizeof(msg));
	else
		rc = cid_node_claim_local(&c, e->scope, e->node, msg, sizeof(msg));
	if (rc == CID_OK)
	{
		rc = cid_node_claim_start(c, &e->gen);
		if (rc != CID_OK)
		{
			snprintf(msg, sizeof(msg), "node %" PRIu64 " of scope \"%s\": the last holder's "
					 "mark (%" PRId64 " ms) lies past the layout's time field",
					 e->node, e->scope, cid_node_claim_mark_ms(c));
			cid_node_claim_release(c);
		}
	}
	if (rc != CID_OK)
	{
		if (rc == CID_ENODE_HELD)
			strncat(msg, ": give every process its own node number (or a lease), "
					"or another claim scope", sizeof(msg) - strlen(msg) - 1);
		claim_failed(env, rc, msg, holder);
		return false;
	}
	cid_node_claim_release(e->claim);
	e->claim = c;
	e->host = host;
	return true;
}

/*
 * The entry of (scope, node), made if new, with a host-wide claim when
 * asked and it has none yet; NULL after throwing.
 */
static sf_entry *
entry_get(napi_env env, const char *scope, uint64_t node, const cid_layout *layout,
		  const char *spec, const cid_snowflake_opts *opts, bool claim, const char *claim_dir)
{
	sf_entry   *e;
	int			rc;

	pthread_mutex_lock(&registry_lock);
	for (e = registry; e != NULL; e = e->next)
		if (e->node == node && strcmp(e->scope, scope) == 0)
			break;
	if (e != NULL && !same_config(e, spec, opts))
	{
		pthread_mutex_unlock(&registry_lock);
		cid_node_throw(env, CID_ENODE_HELD, false,
					   "node %" PRIu64 " of scope \"%s\" is already in use in this process with "
					   "layout \"%s\" and other settings: one process mints under one number "
					   "with one layout and one set of policies", node, scope, e->spec);
		return NULL;
	}
	if (e == NULL)
	{
		e = calloc(1, sizeof(*e));
		if (e == NULL)
		{
			pthread_mutex_unlock(&registry_lock);
			cid_node_throw(env, CID_EINVAL, false, "out of memory");
			return NULL;
		}
		snprintf(e->scope, sizeof(e->scope), "%s", scope);
		snprintf(e->spec, sizeof(e->spec), "%s", spec);
		e->node = node;
		e->opts = *opts;
		rc = cid_snowflake_init(&e->gen, layout, node, opts, NULL);
		if (rc != CID_OK)
		{
			pthread_mutex_unlock(&registry_lock);
			free(e);
			cid_node_throw(env, rc, false, "snowflake generator: %s", cid_strerror(rc));
			return NULL;
		}
		if (!entry_claim(env, e, claim, claim_dir))
		{
			pthread_mutex_unlock(&registry_lock);
			free(e);
			return NULL;
		}
		e->next = registry;
		registry = e;
	}
	else if (claim && !e->host && !entry_claim(env, e, true, claim_dir))
	{
		/* The entry stays, with its local claim, for its users. */
		pthread_mutex_unlock(&registry_lock);
		return NULL;
	}
	e->refs++;
	pthread_mutex_unlock(&registry_lock);
	return e;
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
	char		spec[256];
	bool		claim = true;
	int			behind = CID_BEHIND_RUN_AHEAD;
	int			exhaust = CID_EXHAUST_WAIT;
	int64_t		borrow;
	sf_handle  *h;
	sf_entry   *e;
	napi_value	obj,
				v;

	if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok)
		return cid_node_napi_failed(env, "cannot read the arguments");
	for (size_t i = argc; i < 10; i++)
		napi_get_undefined(env, &argv[i]);
	cid_snowflake_opts_default(&opts);
	borrow = (int64_t) opts.max_borrow_ticks;
	if (!cid_node_get_layout(env, argv[0], &layout) || !get_node(env, argv[1], &layout, &node) ||
		!cid_node_get_opt_text(env, argv[2], "scope", scope_buf, sizeof(scope_buf), &scope) ||
		!cid_node_get_opt_text(env, argv[4], "claimDir", dir_buf, sizeof(dir_buf), &dir) ||
		!get_int(env, argv[5], "onBehind", 0, 2, &behind) ||
		!cid_node_get_limit(env, argv[6], "maxDriftMs", &opts.max_drift_ms) ||
		!cid_node_get_limit(env, argv[7], "maxWaitMs", &opts.max_wait_ms) ||
		!get_int(env, argv[8], "onExhausted", 0, 1, &exhaust) ||
		!cid_node_get_limit(env, argv[9], "maxBorrowTicks", &borrow))
		return NULL;
	if (napi_get_value_bool(env, argv[3], &claim) != napi_ok)
		claim = true;
	opts.on_behind = (cid_behind_policy) behind;
	opts.on_exhausted = (cid_exhaust_policy) exhaust;
	opts.max_borrow_ticks = (uint64_t) borrow;
	if (node > cid_layout_max_node(&layout))
		return cid_node_throw(env, CID_ENODE, true,
							  "node %" PRIu64 " is out of range for layout \"%s\": expected 0 to %" PRIu64
							  " (%d node bits)", node, layout.name, cid_layout_max_node(&layout),
							  layout.bits[CID_FIELD_NODE]);
	if (scope == NULL)
		scope = "default";
	if (cid_layout_format(spec, sizeof(spec), &layout) < 0)
		snprintf(spec, sizeof(spec), "%s", layout.name);

	e = entry_get(env, scope, node, &layout, spec, &opts, claim, dir);
	if (e == NULL)
		return NULL;
	h = calloc(1, sizeof(*h));
	if (h == NULL)
	{
		entry_unref(e);
		return cid_node_throw(env, CID_EINVAL, false, "out of memory");
	}
	h->minter = &sf_minter;
	h->entry = e;
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
	if (e->host)
		napi_create_string_utf8(env, cid_node_claim_path(e->claim), NAPI_AUTO_LENGTH, &v);
	else
		napi_get_null(env, &v);
	if (napi_set_named_property(env, obj, "claimPath", v) != napi_ok)
		return cid_node_napi_failed(env, "cannot describe the generator");
	return obj;
}

bool
cid_node_snowflake_init(napi_env env, napi_value exports)
{
	napi_value	fn;

	return napi_create_function(env, "snowflake", NAPI_AUTO_LENGTH, sf_create, NULL, &fn) == napi_ok &&
		napi_set_named_property(env, exports, "snowflake", fn) == napi_ok;
}
