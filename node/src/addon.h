/*
 * addon.h — what the files of the Node-API glue share (convert.c): argument
 * readers, error throwers and value builders; and each file's init.  Every function that finds a bad argument throws a
 * JavaScript exception and returns false (or NULL); the caller then
 * returns NULL to JavaScript at once.
 */
#ifndef CID_NODE_ADDON_H
#define CID_NODE_ADDON_H

#define NAPI_VERSION 8
#include <node_api.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bind_internal.h"
#include "chronoid.h"
#include "compiler_internal.h"


/* Longest text argument read (IDs, layouts, times); longer is an error. */
#define CID_NODE_MAX_TEXT 256

/* The stable `code` of a status, e.g. "CHRONOID_ENODE" (bind/errors.c). */
const char *cid_node_code(int status);

/*
 * Throw an Error (or RangeError when range is true) with code
 * cid_node_code(status) and a printf message.  Returns NULL for "return
 * throw_status(...)".
 */
napi_value	cid_node_throw(napi_env env, int status, bool range, const char *fmt,...)
			CID_PRINTF(4, 5);

/* TypeError ERR_INVALID_ARG_TYPE: "<what> must be <expected>, got <type>". */
napi_value	cid_node_type_error(napi_env env, napi_value v, const char *what,
								const char *expected);

/* A Node-API call failed where it cannot for valid input: throw, NULL. */
napi_value	cid_node_napi_failed(napi_env env, const char *where);

/*
 * Read a string argument into buf (cap bytes, NUL-terminated); *len its
 * UTF-8 length.  TypeError when v is not a string; Error CHRONOID_ELENGTH
 * when it is longer than cap - 1 bytes.
 */
bool		cid_node_get_text(napi_env env, napi_value v, const char *what,
							  char *buf, size_t cap, size_t *len);

/* A batch size: an integer 0 .. CID_BIND_MAX_BATCH (RangeError otherwise). */
bool		cid_node_get_count(napi_env env, napi_value v, size_t *n);

/*
 * An instant as Unix ms: a Date, a number of ms (an integer) or text
 * (cid_time_parse: RFC 3339 UTC or an integer of ms).
 */
bool		cid_node_get_time(napi_env env, napi_value v, int64_t *unix_ms);

/* A layout: undefined/null = "pgedge", else a preset name or a spec. */
bool		cid_node_get_layout(napi_env env, napi_value v, cid_layout *layout);

/* JavaScript object of a layout: name, spec, bits, maxNode, epoch ... */
napi_value	cid_node_layout_object(napi_env env, const cid_layout *layout);

/*
 * Read up to want arguments of a call into argv (missing ones read as
 * undefined) and its data pointer into *data (when not NULL).
 */
bool		cid_node_args(napi_env env, napi_callback_info info, size_t want,
						  napi_value *argv, void **data);

/* Throw "<what>: <cid_strerror(rc)>" for a generator's failure; NULL. */
napi_value	cid_node_gen_failed(napi_env env, int rc, const char *what);

/* A Latin-1 string of len bytes (NULL after throwing). */
napi_value	cid_node_latin1(napi_env env, const char *s, size_t len);

/* A Date of Unix ms (NULL when it cannot be made). */
napi_value	cid_node_date(napi_env env, int64_t ms);

/* obj[key] = v; false when v is NULL (a builder failed) or setting fails. */
bool		cid_node_set(napi_env env, napi_value obj, const char *key, napi_value v);

/* Canonical text of a UUID, a ULID (NULL after throwing). */
napi_value	cid_node_uuid_string(napi_env env, const cid_uuid *u);
napi_value	cid_node_ulid_string(napi_env env, const cid_ulid *u);

/* A new Buffer holding a copy of len bytes (NULL after throwing). */
napi_value	cid_node_buffer(napi_env env, const void *bytes, size_t len);

/* [min, max]: a range's bounds (NULL when either is). */
napi_value	cid_node_pair(napi_env env, napi_value min, napi_value max);

/* A Number (NULL when it cannot be made: the caller's set then fails). */
napi_value	cid_node_number(napi_env env, double d);

/* BigInt of a Snowflake, signed as PostgreSQL's bigint reads it. */
napi_value	cid_node_bigint(napi_env env, uint64_t id);

/*
 * A BigInt64Array of n elements for a batch; *data is where the IDs go.
 * NULL after throwing.
 */
napi_value	cid_node_bigint64_array(napi_env env, size_t n, uint64_t **data);

/* A non-negative integer option (undefined or null: *out untouched). */
bool		cid_node_get_limit(napi_env env, napi_value v, const char *what, int64_t *out);

/*
 * An integer option of either sign, at most 2^53 - 1 from zero, whose
 * range the caller checks (undefined or null: *out untouched).
 */
bool		cid_node_get_int(napi_env env, napi_value v, const char *what, int64_t *out);

/*
 * The Snowflake policy's CID_BIND_POLICY_NOPTS arguments (onBehind and
 * onExhausted as numbers, maxDriftMs, maxWaitMs, maxBorrowTicks, in
 * cid_bind_policy_opt's order) into v, CID_BIND_UNSET where undefined;
 * their ranges are cid_bind_snowflake_policy's.  false after throwing.
 */
bool		cid_node_get_policy(napi_env env, const napi_value *argv, int64_t *v);

/*
 * An optional string (undefined or null: *out = NULL) with no NUL inside,
 * into buf (cap bytes).
 */
bool		cid_node_get_opt_text(napi_env env, napi_value v, const char *what,
								  char *buf, size_t cap, const char **out);

/*
 * An optional string argument copied with malloc (*out NULL when undefined
 * or null); false after throwing.
 */
bool		cid_node_dup_text(napi_env env, napi_value v, const char *what, char **out);

/*
 * A Promise (its deferred in *deferred) and async work (*work, not yet
 * queued) that runs execute on libuv's thread pool and complete on the
 * JavaScript thread.  NULL after throwing.
 */
napi_value	cid_node_promise_work(napi_env env, const char *name,
								  napi_async_execute_callback execute,
								  napi_async_complete_callback complete, void *data,
								  napi_deferred *deferred, napi_async_work *work);

/*
 * An Error object (not thrown) with code cid_node_code(status) and msg;
 * NULL when it cannot be made.
 */
napi_value	cid_node_error(napi_env env, int status, const char *msg);

/*
 * A Promise rejected with CHRONOID_ENOLEASE: this build has no libpq, so
 * what (plural: "node leases") cannot work.
 */
napi_value	cid_node_no_lease(napi_env env, const char *what);

/*
 * What next() and batch() need from a kind of Snowflake generator object
 * (snowflake.c, lease.c).  The object's data struct starts with a pointer
 * to its minter, so that one pair of functions serves both kinds.
 */
typedef struct cid_node_minter
{
	/* The generator to mint from, or NULL after throwing (closed, released). */
	void	   *(*open) (napi_env env, void *data);
	int			(*next) (void *gen, uint64_t *id);
	int			(*fill) (void *gen, uint64_t *ids, size_t n);
	/* Throw for a failed status; returns NULL. */
	napi_value	(*failed) (napi_env env, int status, void *data);
} cid_node_minter;

/* next(): a BigInt.  batch(n): a BigInt64Array.  data: see above. */
napi_value	cid_node_mint_next(napi_env env, napi_callback_info info);
napi_value	cid_node_mint_batch(napi_env env, napi_callback_info info);

/*
 * Define obj.name as a function over data that keeps data alive: each
 * such function counts in *refs, and fin runs when one is collected (it
 * frees data when the count reaches 0).
 */
bool		cid_node_def_method(napi_env env, napi_value obj, const char *name, napi_callback cb,
								void *data, napi_finalize fin, int *refs);

/* Define obj.name as a function over data (no finalizer). */
bool		cid_node_def_fn(napi_env env, napi_value obj, const char *name, napi_callback cb,
							void *data);

/*
 * Define the ID functions and their bounds (ids.c) on exports; starts the
 * process-wide generators (false after throwing when they cannot).
 */
bool		cid_node_ids_init(napi_env env, napi_value exports);

/* Define the conversions, the TypeID functions and inspect (parse.c). */
bool		cid_node_parse_init(napi_env env, napi_value exports);

/* Define snowflake(), snowflakeBounds, layout and claimDir (snowflake.c). */
bool		cid_node_snowflake_init(napi_env env, napi_value exports);

/* Define lease() and hasLease (lease.c) on exports. */
bool		cid_node_lease_init(napi_env env, napi_value exports);

/* Define blockOpen() (block.c) on exports. */
bool		cid_node_block_init(napi_env env, napi_value exports);

#endif							/* CID_NODE_ADDON_H */
