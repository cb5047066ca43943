/*
 * kinds.c — the kinds of ID the module-level functions make (one, a batch,
 * the text, the bounds of a time) over a set of generators the binding
 * passes: pure calls of the core, no OS, so that the WebAssembly module
 * compiles it with its own set as the packages do with the process's.
 */
#include "bind_internal.h"

int
cid_bind_gens_init(cid_bind_gens *g, const cid_env *env)
{
	int			rc;

	g->env = env;
	rc = cid_uuidv7_init(&g->uuidv7, env);
	if (rc == CID_OK)
		rc = cid_ulid_init(&g->ulid, false, env);
	if (rc == CID_OK)
		rc = cid_ulid_init(&g->ulid_mono, true, env);
	if (rc == CID_OK)
		rc = cid_uuidv6_init(&g->uuidv6, env);
	if (rc == CID_OK)
		rc = cid_objectid_init(&g->objectid, env);
	return rc;
}

/* ------------------------------------------------------------------------
 * One ID into its bytes, n of them
 * ------------------------------------------------------------------------ */

/*
 * A kind's two steps, one ID and n, as calls of the core over g (the set),
 * out and n: its generator's in the set, or for a kind without state
 * (UUIDv4, KSUID) the set's clock and random source.
 */
#define STEPS(name, next_call, fill_call) \
static int \
next_##name(cid_bind_gens *g, uint8_t *out) \
{ \
	return next_call; \
} \
static int \
fill_##name(cid_bind_gens *g, uint8_t *out, size_t n) \
{ \
	return fill_call; \
}

STEPS(uuidv7, cid_uuidv7_next(&g->uuidv7, (cid_uuid *) out),
	  cid_uuidv7_fill(&g->uuidv7, (cid_uuid *) out, n, NULL))
STEPS(ulid, cid_ulid_next(&g->ulid, (cid_ulid *) out),
	  cid_ulid_fill(&g->ulid, (cid_ulid *) out, n, NULL))
STEPS(ulid_mono, cid_ulid_next(&g->ulid_mono, (cid_ulid *) out),
	  cid_ulid_fill(&g->ulid_mono, (cid_ulid *) out, n, NULL))
STEPS(uuidv6, cid_uuidv6_next(&g->uuidv6, (cid_uuid *) out),
	  cid_uuidv6_fill(&g->uuidv6, (cid_uuid *) out, n, NULL))
STEPS(objectid, cid_objectid_next(&g->objectid, (cid_objectid *) out),
	  cid_objectid_fill(&g->objectid, (cid_objectid *) out, n, NULL))
STEPS(uuidv4, cid_uuidv4_new((cid_uuid *) out, g->env), cid_uuidv4_fill((cid_uuid *) out, n, g->env))
STEPS(ksuid, cid_ksuid_new((cid_ksuid *) out, g->env), cid_ksuid_fill((cid_ksuid *) out, n, g->env))

/* ------------------------------------------------------------------------
 * Text
 * ------------------------------------------------------------------------ */

/* A kind's text: the core's formatter of its type T. */
#define FORMAT(name, T, format_fn) \
static void \
format_##name(char *out, const uint8_t *bytes) \
{ \
	format_fn(out, (const T *) bytes); \
}

FORMAT(uuid, cid_uuid, cid_uuid_format)
FORMAT(ulid, cid_ulid, cid_ulid_format)
FORMAT(objectid, cid_objectid, cid_objectid_format)
FORMAT(ksuid, cid_ksuid, cid_ksuid_format)

/* ------------------------------------------------------------------------
 * The bounds of a time
 * ------------------------------------------------------------------------ */

/*
 * The smallest (rest NULL) or largest (rest all ones) ID of the time unit
 * holding ms: the core's from_ms steps, the pure halves of the generators.
 */
#define AT(name, T, from_ms_fn) \
static int \
at_##name(uint8_t *out, int64_t ms, const uint8_t *rest) \
{ \
	return from_ms_fn((T *) out, ms, rest); \
}

AT(uuidv7, cid_uuid, cid_uuidv7_from_ms)
AT(ulid, cid_ulid, cid_ulid_from_ms)
AT(objectid, cid_objectid, cid_objectid_from_ms)
AT(ksuid, cid_ksuid, cid_ksuid_from_ms)

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

/* ------------------------------------------------------------------------
 * The table
 * ------------------------------------------------------------------------ */

#define UUIDV7_SPAN "1970-01-01T00:00:00.000Z .. 10889-08-02T05:31:50.655Z"
#define KIND_UUID(what, nx, fl, at, span) \
	{what, nx, fl, 16, CID_UUID_STRLEN, format_uuid, at, span}
#define KIND_ULID(what, nx, fl) {what, nx, fl, 16, CID_ULID_STRLEN, format_ulid, at_ulid, UUIDV7_SPAN}

const cid_bind_kind cid_bind_uuidv7 = KIND_UUID("UUIDv7", next_uuidv7, fill_uuidv7, at_uuidv7, UUIDV7_SPAN);
const cid_bind_kind cid_bind_uuidv4 = KIND_UUID("UUIDv4", next_uuidv4, fill_uuidv4, NULL, NULL);
const cid_bind_kind cid_bind_uuidv6 = KIND_UUID("UUIDv6", next_uuidv6, fill_uuidv6, at_uuidv6,
												"1582-10-15T00:00:00.000Z .. 5236-03-31T21:21:00.684Z");
const cid_bind_kind cid_bind_ulid = KIND_ULID("ULID", next_ulid, fill_ulid);
const cid_bind_kind cid_bind_ulid_mono = KIND_ULID("monotonic ULID", next_ulid_mono, fill_ulid_mono);
const cid_bind_kind cid_bind_objectid = {"ObjectId", next_objectid, fill_objectid,
	sizeof(cid_objectid), CID_OBJECTID_STRLEN, format_objectid, at_objectid,
"1970-01-01T00:00:00.000Z .. 2106-02-07T06:28:15.999Z"};
const cid_bind_kind cid_bind_ksuid = {"KSUID", next_ksuid, fill_ksuid, sizeof(cid_ksuid),
	CID_KSUID_STRLEN, format_ksuid, at_ksuid,
"2014-05-13T16:53:20.000Z .. 2150-06-19T23:21:35.999Z"};
