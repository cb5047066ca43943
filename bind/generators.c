/*
 * generators.c — the process's generators behind the module-level functions,
 * their fork rule, and the table of the kinds they make (one, a batch,
 * the text, the bounds of a time): the same for every binding.
 */
#define _GNU_SOURCE

#include <pthread.h>
#include <stdlib.h>

#include "bind_internal.h"

cid_bind_gens cid_bind_gen;
uint64_t	cid_bind_fork_generation;

static pthread_once_t start_once = PTHREAD_ONCE_INIT;
static int	start_status = CID_OK;

/*
 * In the child of a fork: the random bytes are the core's business
 * (src/random.c discards the parent's buffer), the monotonic ULID's last
 * value is not: a child that went on from it would mint the parent's next
 * ULIDs, so it starts afresh (a new random start in the millisecond).
 * Its spin lock is reset too, in case another thread held it at the fork.
 */
static void
after_fork_child(void)
{
	cid_bind_fork_generation++;
	/* Cannot fail: gen is not NULL and env NULL is the platform's. */
	if (cid_ulid_init(&cid_bind_gen.ulid_mono, true, NULL) < 0)
		abort();
}

static void
start(void)
{
	int			rc;

	/* The ObjectId's process bytes are the first random bytes drawn. */
	cid_bind_random_start();
	rc = cid_uuidv7_init(&cid_bind_gen.uuidv7, NULL);
	if (rc == CID_OK)
		rc = cid_ulid_init(&cid_bind_gen.ulid, false, NULL);
	if (rc == CID_OK)
		rc = cid_ulid_init(&cid_bind_gen.ulid_mono, true, NULL);
	if (rc == CID_OK)
		rc = cid_uuidv6_init(&cid_bind_gen.uuidv6, NULL);
	if (rc == CID_OK)
		rc = cid_objectid_init(&cid_bind_gen.objectid, NULL);
	if (rc == CID_OK && pthread_atfork(NULL, NULL, after_fork_child) != 0)
		rc = CID_EINVAL;
	start_status = rc;
}

int
cid_bind_start(void)
{
	pthread_once(&start_once, start);
	return start_status;
}

/* ------------------------------------------------------------------------
 * The kinds: one ID into its bytes, n of them, text, the bounds of a time
 * ------------------------------------------------------------------------ */

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


#define UUIDV7_SPAN "1970-01-01T00:00:00.000Z .. 10889-08-02T05:31:50.655Z"
#define KIND_UUID(what, nx, fl, gen, at, span) \
	{what, nx, fl, gen, 16, CID_UUID_STRLEN, format_uuid, at, span}
#define KIND_ULID(what, gen) {what, next_ulid, fill_ulid, gen, 16, CID_ULID_STRLEN, format_ulid, \
	at_ulid, UUIDV7_SPAN}

const cid_bind_kind cid_bind_uuidv7 = KIND_UUID("UUIDv7", next_uuidv7, fill_uuidv7, &cid_bind_gen.uuidv7,
												at_uuidv7, UUIDV7_SPAN);
const cid_bind_kind cid_bind_uuidv4 = KIND_UUID("UUIDv4", next_uuidv4, fill_uuidv4, NULL, NULL, NULL);
const cid_bind_kind cid_bind_uuidv6 = KIND_UUID("UUIDv6", next_uuidv6, fill_uuidv6, &cid_bind_gen.uuidv6,
												at_uuidv6,
												"1582-10-15T00:00:00.000Z .. 5236-03-31T21:21:00.684Z");
const cid_bind_kind cid_bind_ulid = KIND_ULID("ULID", &cid_bind_gen.ulid);
const cid_bind_kind cid_bind_ulid_mono = KIND_ULID("monotonic ULID", &cid_bind_gen.ulid_mono);
const cid_bind_kind cid_bind_objectid = {"ObjectId", next_objectid, fill_objectid, &cid_bind_gen.objectid,
	sizeof(cid_objectid), CID_OBJECTID_STRLEN, format_objectid, at_objectid,
"1970-01-01T00:00:00.000Z .. 2106-02-07T06:28:15.999Z"};
const cid_bind_kind cid_bind_ksuid = {"KSUID", next_ksuid, fill_ksuid, NULL, sizeof(cid_ksuid),
	CID_KSUID_STRLEN, format_ksuid, at_ksuid,
"2014-05-13T16:53:20.000Z .. 2150-06-19T23:21:35.999Z"};

void
cid_bind_format_many(const cid_bind_kind *k, char *text, const uint8_t *bytes, size_t n, char sep)
{
	size_t		w = k->text_len + 1;

	if (k->format == format_ulid)
		cid_ulid_format_many(text, (const cid_ulid *) bytes, n, sep);
	else if (k->format == format_uuid)
		cid_uuid_format_many(text, (const cid_uuid *) bytes, n, sep);
	else
		for (size_t i = 0; i < n; i++)
		{
			k->format(text + w * i, bytes + k->size * i);
			text[w * i + k->text_len] = sep;
		}
}
