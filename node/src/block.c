/*
 * block.c — values of a PostgreSQL sequence reserved a block at a time,
 * for JavaScript: libchronoid_lease's allocator (cid_block_*, db/lease,
 * compiled into the addon as the leases are), not a second implementation.
 * Opening connects and reserves the first block, closing joins the
 * prefetching thread: both run on libuv's thread pool and return
 * Promises.  next() is synchronous (a mutex around a few instructions) and
 * waits, holding up the event loop, only when no value is in hand (at
 * most waitMs); nextAsync() answers from the block in hand at once and
 * waits on the pool otherwise.  Built only where libpq's header is
 * (CHRONOID_NODE_LEASE); elsewhere blockOpen() rejects CHRONOID_ENOLEASE.
 */
#define _GNU_SOURCE

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addon.h"

#ifdef CHRONOID_NODE_LEASE
#include "chronoid_lease.h"

/* Longest sequence name or conninfo read. */
#define BLOCK_MAX_TEXT 4096

/* One JavaScript allocator object: its functions share this. */
typedef struct block_handle
{
	cid_block  *blk;			/* NULL once closed */
	int			refs;			/* live functions + work on the pool */
	int			pending;		/* nextAsync() calls on the pool */
	struct block_work *closing;	/* close() waiting for them */
	char		name[CID_BIND_QUOTE_MAX];	/* the sequence, quoted */
} block_handle;

typedef enum block_op
{
	OP_OPEN,
	OP_NEXT,
	OP_FREE
} block_op;

typedef struct block_work
{
	block_op	op;
	block_handle *h;			/* NULL for OP_OPEN */
	cid_block  *blk;
	char	   *sequence;		/* OP_OPEN's options, copied for the pool */
	char	   *conninfo;
	cid_block_opts opts;
	int64_t		id;
	int			status;
	char		err[512];
	napi_deferred deferred;
	napi_async_work work;
} block_work;

static void
work_free(block_work *w)
{
	free(w->sequence);
	free(w->conninfo);
	free(w);
}

static void *
free_thread(void *blk)
{
	cid_block_free(blk);
	return NULL;
}

/*
 * Free an allocator that JavaScript dropped without close(): joining its
 * thread may wait for a statement (timeoutMs), so not on the thread that
 * collects garbage.
 */
static void
free_detached(cid_block *blk)
{
	pthread_t	t;

	if (pthread_create(&t, NULL, free_thread, blk) == 0)
		pthread_detach(t);
	else
		cid_block_free(blk);
}

static void
unref(block_handle *h)
{
	if (--h->refs > 0)
		return;
	if (h->blk != NULL)
		free_detached(h->blk);
	free(h);
}

static void
fn_finalize(napi_env env, void *data, void *hint)
{
	(void) env;
	(void) hint;
	unref(data);
}

/* An Error for a failed status: what failed, why, and the server's words. */
static napi_value
block_error(napi_env env, int status, const char *name, const char *what, const char *detail)
{
	char		msg[1024];

	snprintf(msg, sizeof(msg), "BlockAllocator %s%s: %s%s%s", name, what, cid_lease_strerror(status),
			 detail[0] ? ": " : "", detail);
	if (status == CID_EBLOCK_FORKED)
		strncat(msg, "; a child process opens its own", sizeof(msg) - strlen(msg) - 1);
	return cid_node_error(env, status, msg);
}

static block_handle *
handle_of(napi_env env, napi_callback_info info, size_t *argc, napi_value *argv)
{
	void	   *data = NULL;

	if (napi_get_cb_info(env, info, argc, argv, NULL, &data) != napi_ok)
		return cid_node_napi_failed(env, "cannot read the arguments"), NULL;
	return data;
}

/* The error of a call after close(), as a closed Snowflake's. */
static napi_value
closed_error(napi_env env, const block_handle *h)
{
	napi_value	code,
				text,
				err = NULL;
	char		msg[CID_BIND_QUOTE_MAX + 64];

	snprintf(msg, sizeof(msg), "this BlockAllocator of %s was closed", h->name);
	if (napi_create_string_utf8(env, "CHRONOID_ECLOSED", NAPI_AUTO_LENGTH, &code) == napi_ok &&
		napi_create_string_utf8(env, msg, NAPI_AUTO_LENGTH, &text) == napi_ok)
		napi_create_error(env, code, text, &err);
	return err;
}

static bool
check_open(napi_env env, block_handle *h)
{
	if (h->blk != NULL)
		return true;
	napi_throw(env, closed_error(env, h));
	return false;
}

/* ------------------------------------------------------------------------
 * next(), stats(): on the JavaScript thread
 * ------------------------------------------------------------------------ */

static napi_value
value_or_throw(napi_env env, block_handle *h, int status, int64_t id, const char *detail)
{
	napi_value	v;

	if (status < 0)
	{
		napi_throw(env, block_error(env, status, h->name, ".next()", detail));
		return NULL;
	}
	if (napi_create_bigint_int64(env, id, &v) != napi_ok)
		return cid_node_napi_failed(env, "cannot create a BigInt");
	return v;
}

/* cid_block_next, and on failure the reason into err ("" when none). */
static int
take(cid_block *blk, int64_t *id, char *err, size_t len)
{
	int			rc = cid_block_next(blk, id);

	err[0] = '\0';
	/* After fork() the allocator is the parent's: not even its message. */
	if (rc < 0 && rc != CID_EBLOCK_FORKED)
		cid_block_errmsg(blk, err, len);
	return rc;
}

static napi_value
b_next(napi_env env, napi_callback_info info)
{
	block_handle *h = handle_of(env, info, NULL, NULL);
	char		err[256];
	int64_t		id = 0;
	int			rc;

	if (h == NULL || !check_open(env, h))
		return NULL;
	rc = take(h->blk, &id, err, sizeof(err));
	return value_or_throw(env, h, rc, id, err);
}

static napi_value
b_stats(napi_env env, napi_callback_info info)
{
	block_handle *h = handle_of(env, info, NULL, NULL);
	cid_block_stats st;
	napi_value	obj;

	if (h == NULL || !check_open(env, h))
		return NULL;
	cid_block_get_stats(h->blk, &st);
	if (napi_create_object(env, &obj) != napi_ok ||
		napi_set_named_property(env, obj, "issued", cid_node_number(env, (double) st.issued)) != napi_ok ||
		napi_set_named_property(env, obj, "blocks", cid_node_number(env, (double) st.blocks)) != napi_ok ||
		napi_set_named_property(env, obj, "failures", cid_node_number(env, (double) st.failures)) != napi_ok ||
		napi_set_named_property(env, obj, "waits", cid_node_number(env, (double) st.waits)) != napi_ok ||
		napi_set_named_property(env, obj, "inHand", cid_node_number(env, (double) st.in_hand)) != napi_ok ||
		napi_set_named_property(env, obj, "size", cid_node_number(env, (double) st.size)) != napi_ok)
		return cid_node_napi_failed(env, "cannot describe the allocator");
	return obj;
}

/* ------------------------------------------------------------------------
 * The pool: open, nextAsync, close
 * ------------------------------------------------------------------------ */

static void
work_execute(napi_env env, void *data)
{
	block_work *w = data;

	(void) env;
	w->err[0] = '\0';
	switch (w->op)
	{
		case OP_OPEN:
			w->opts.sequence = w->sequence;
			w->opts.conninfo = w->conninfo;
			w->status = cid_block_open(&w->blk, &w->opts, w->err, sizeof(w->err));
			break;
		case OP_NEXT:
			w->status = take(w->blk, &w->id, w->err, sizeof(w->err));
			break;
		case OP_FREE:
			cid_block_free(w->blk);
			w->status = CID_OK;
			break;
	}
}

static napi_value allocator_object(napi_env env, cid_block *blk, const char *sequence);

static void
settle(napi_env env, napi_deferred d, napi_value v)
{
	bool		is_err = false;
	napi_value	e;

	if (v != NULL)
	{
		napi_is_error(env, v, &is_err);
		if (is_err)
			napi_reject_deferred(env, d, v);
		else
			napi_resolve_deferred(env, d, v);
		return;
	}
	/* A Node-API failure left an exception pending: reject with it. */
	if (napi_get_and_clear_last_exception(env, &e) == napi_ok && e != NULL)
		napi_reject_deferred(env, d, e);
}

static void
work_complete(napi_env env, napi_status st, void *data)
{
	block_work *w = data;
	block_handle *h = w->h;
	napi_value	v = NULL;
	char		name[CID_BIND_QUOTE_MAX];

	if (st != napi_ok && w->status >= 0)
		w->status = CID_EINVAL;
	switch (w->op)
	{
		case OP_OPEN:
			cid_bind_quote(name, w->sequence, strlen(w->sequence));
			if (w->status < 0)
				v = block_error(env, w->status, name, "", w->err);
			else
				v = allocator_object(env, w->blk, w->sequence);
			break;
		case OP_NEXT:
			if (w->status < 0)
				v = block_error(env, w->status, h->name, ".nextAsync()", w->err);
			else if (napi_create_bigint_int64(env, w->id, &v) != napi_ok)
				v = NULL;
			/* The last call out: a close() waiting for it goes ahead. */
			if (--h->pending == 0 && h->closing != NULL)
			{
				if (napi_queue_async_work(env, h->closing->work) != napi_ok)
					free_detached(h->closing->blk);
				h->closing = NULL;
			}
			break;
		case OP_FREE:
			napi_get_undefined(env, &v);
			break;
	}
	settle(env, w->deferred, v);
	napi_delete_async_work(env, w->work);
	if (h != NULL)
		unref(h);
	work_free(w);
}

/* A Promise for w on the pool; w is freed here when that fails. */
static napi_value
start(napi_env env, block_work *w, bool queue_now)
{
	napi_value	promise = cid_node_promise_work(env, "chronoid.block", work_execute, work_complete, w,
												&w->deferred, &w->work);

	if (promise != NULL && queue_now && napi_queue_async_work(env, w->work) != napi_ok)
	{
		napi_delete_async_work(env, w->work);
		promise = cid_node_napi_failed(env, "cannot queue the allocator's work");
	}
	if (promise == NULL)
		work_free(w);
	return promise;
}

static block_work *
new_work(napi_env env, block_op op, block_handle *h)
{
	block_work *w = calloc(1, sizeof(*w));

	if (w == NULL)
		return cid_node_throw(env, CID_EINVAL, false, "out of memory"), NULL;
	w->op = op;
	w->h = h;
	w->blk = h != NULL ? h->blk : NULL;
	return w;
}

/*
 * nextAsync(): a Promise of the next value.  With a value in hand it is
 * taken here (no wait is possible: only this thread takes from this
 * allocator); otherwise the wait for the next block happens on the pool.
 */
static napi_value
b_next_async(napi_env env, napi_callback_info info)
{
	block_handle *h = handle_of(env, info, NULL, NULL);
	cid_block_stats st;
	block_work *w;
	napi_value	promise;

	if (h == NULL)
		return NULL;
	st.in_hand = 0;
	if (h->blk != NULL)
		cid_block_get_stats(h->blk, &st);
	if (h->blk == NULL || st.in_hand > 0)
	{
		napi_deferred d;
		napi_value	v = NULL;

		if (napi_create_promise(env, &d, &promise) != napi_ok)
			return cid_node_napi_failed(env, "cannot create a Promise");
		if (h->blk == NULL)
			v = closed_error(env, h);
		else
		{
			int64_t		id = 0;
			char		err[256];
			int			rc = take(h->blk, &id, err, sizeof(err));

			if (rc < 0)
				v = block_error(env, rc, h->name, ".nextAsync()", err);
			else
				napi_create_bigint_int64(env, id, &v);
		}
		settle(env, d, v);
		return promise;
	}
	w = new_work(env, OP_NEXT, h);
	if (w == NULL)
		return NULL;
	promise = start(env, w, true);
	if (promise != NULL)
	{
		h->refs++;
		h->pending++;
	}
	return promise;
}

/*
 * close(): a Promise; stops the prefetching thread and closes the
 * connection on the pool (after any nextAsync() still waiting).  The
 * values in hand are lost (gaps).  Again: resolves at once.
 */
static napi_value
b_close(napi_env env, napi_callback_info info)
{
	block_handle *h = handle_of(env, info, NULL, NULL);
	block_work *w;
	napi_value	promise;

	if (h == NULL)
		return NULL;
	if (h->blk == NULL)
	{
		napi_deferred d;
		napi_value	v;

		if (napi_create_promise(env, &d, &promise) != napi_ok)
			return cid_node_napi_failed(env, "cannot create a Promise");
		napi_get_undefined(env, &v);
		napi_resolve_deferred(env, d, v);
		return promise;
	}
	w = new_work(env, OP_FREE, h);
	if (w == NULL)
		return NULL;
	promise = start(env, w, h->pending == 0);
	if (promise == NULL)
		return NULL;
	/* From here the work owns the allocator; next() refuses. */
	h->blk = NULL;
	h->refs++;
	if (h->pending > 0)
		h->closing = w;
	return promise;
}

static napi_value
allocator_object(napi_env env, cid_block *blk, const char *sequence)
{
	block_handle *h = calloc(1, sizeof(*h));
	napi_value	obj,
				v;

	if (h == NULL || napi_create_object(env, &obj) != napi_ok)
	{
		free(h);
		free_detached(blk);
		return cid_node_error(env, CID_EINVAL, "out of memory");
	}
	h->blk = blk;
	cid_bind_quote(h->name, sequence, strlen(sequence));
	if (!cid_node_def_method(env, obj, "next", b_next, h, fn_finalize, &h->refs) ||
		!cid_node_def_method(env, obj, "nextAsync", b_next_async, h, fn_finalize, &h->refs) ||
		!cid_node_def_method(env, obj, "stats", b_stats, h, fn_finalize, &h->refs) ||
		!cid_node_def_method(env, obj, "close", b_close, h, fn_finalize, &h->refs))
	{
		if (h->refs == 0)
		{
			free_detached(blk);
			free(h);
		}
		return cid_node_error(env, CID_EINVAL, "cannot define the allocator's functions");
	}
	if (napi_create_string_utf8(env, sequence, NAPI_AUTO_LENGTH, &v) == napi_ok)
		napi_set_named_property(env, obj, "sequence", v);
	return obj;
}

/*
 * blockOpen(sequence, conninfo, targetMs, minSize, maxSize, initialSize,
 * prefetchPct, waitMs, timeoutMs): a Promise of the allocator's functions.
 * The options are checked here, by the library's own check, so that a
 * bad one throws before any connection is tried.
 */
static napi_value
block_open(napi_env env, napi_callback_info info)
{
	napi_value	argv[2 + CID_BIND_BLOCK_NOPTS];
	size_t		argc = 2 + CID_BIND_BLOCK_NOPTS;
	uint64_t	v[CID_BIND_BLOCK_NOPTS];
	block_work *w;
	napi_valuetype t;

	if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok)
		return cid_node_napi_failed(env, "cannot read the arguments");
	for (size_t i = argc; i < 2 + CID_BIND_BLOCK_NOPTS; i++)
		napi_get_undefined(env, &argv[i]);
	if (napi_typeof(env, argv[0], &t) != napi_ok || t != napi_string)
		return cid_node_type_error(env, argv[0], "the sequence",
								   "a string (a schema-qualified name such as \"public.order_ids\")");
	w = new_work(env, OP_OPEN, NULL);
	if (w == NULL)
		return NULL;
	cid_bind_block_defaults(v);
	for (int i = 0; i < CID_BIND_BLOCK_NOPTS; i++)
	{
		int64_t		x = (int64_t) v[i];

		if (!cid_node_get_limit(env, argv[2 + i], cid_bind_block_opt_names[i].camel, &x))
			return work_free(w), NULL;
		v[i] = (uint64_t) x;
	}
	if (!cid_node_dup_text(env, argv[0], "the sequence", &w->sequence) ||
		!cid_node_dup_text(env, argv[1], "conninfo", &w->conninfo))
		return work_free(w), NULL;
	if (cid_bind_block_opts(&w->opts, w->sequence, w->conninfo, v, w->err,
							sizeof(w->err)) != CID_OK)
	{
		napi_value	r = cid_node_throw(env, CID_EINVAL, true, "BlockAllocator: %s", w->err);

		work_free(w);
		return r;
	}
	return start(env, w, true);
}

#else							/* !CHRONOID_NODE_LEASE */

static napi_value
block_open(napi_env env, napi_callback_info info)
{
	(void) info;
	return cid_node_no_lease(env, "block allocators");
}

#endif

bool
cid_node_block_init(napi_env env, napi_value exports)
{
	napi_value	fn;

	return napi_create_function(env, "blockOpen", NAPI_AUTO_LENGTH, block_open, NULL, &fn) == napi_ok &&
		napi_set_named_property(env, exports, "blockOpen", fn) == napi_ok;
}
