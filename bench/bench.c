/*
 * bench.c — `make bench`: IDs per second of each chronoid scheme with 1 and
 * 2 threads, one at a time and in batches (fill), with and without text,
 * next to baselines measured in the same run (a bare clock read, the
 * kernel's random bytes and, for comparison, OpenSSL's DRBG, libuuid, a
 * textbook mutex Snowflake), as a Markdown table.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <openssl/rand.h>
#include <uuid/uuid.h>

#include "chronoid.h"

#define MAX_THREADS 2
#define MAX_REPS	15
#define FILL_BATCH	256
/*
 * UUIDs and ULIDs per fill call: large enough that the random bytes come
 * in large requests (32 KiB for UUIDv7), as chronoid gen uses them.
 */
#define ID_BATCH	4096
#define PGEDGE_EPOCH_MS INT64_C(1672531200000)	/* 2023-01-01T00:00:00Z */
#define PGEDGE_CAP	4096000.0	/* 4,096 sequence numbers per 1 ms tick */

/* ------------------------------------------------------------------------
 * The schemes.  Each op makes up to n IDs and returns how many (negative:
 * a chronoid status), folding them into *sink so nothing is optimised out.
 * ------------------------------------------------------------------------ */

static cid_snowflake_gen sf_borrow;		/* pgedge, never waits */
static cid_snowflake_gen sf_wait;		/* pgedge, default policies */
static cid_uuidv7_gen v7_gen;
static cid_ulid_gen ulid_gen;
static cid_ulid_gen ulid_mono_gen;
static cid_uuidv6_gen v6_gen;
static cid_objectid_gen oid_gen;

/*
 * CLOCK_REALTIME in nanoseconds, read in place: the same clock read that
 * cid_snowflake_next makes with the default clock (src/clock_internal.h),
 * minus the two call levels of cid_platform_clock.
 */
static inline int64_t
clock_inline(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_REALTIME, &ts) != 0)
		return -1;
	return (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/*
 * The textbook Snowflake: one mutex around the clock read and (last_ms,
 * seq), pgedge layout, borrowing the next millisecond when the sequence
 * runs out (the policy of the non-waiting row, so the two compare).  It
 * reads the clock in place, as cid_snowflake_next does.
 */
static pthread_mutex_t msf_lock = PTHREAD_MUTEX_INITIALIZER;
static int64_t msf_last_ms;
static uint64_t msf_seq;

static uint64_t
msf_next(void)
{
	uint64_t	id;
	int64_t		now_ms;

	pthread_mutex_lock(&msf_lock);
	now_ms = clock_inline() / 1000000 - PGEDGE_EPOCH_MS;
	if (now_ms > msf_last_ms)
	{
		msf_last_ms = now_ms;
		msf_seq = 0;
	}
	else if (++msf_seq > 4095)
	{
		msf_last_ms++;
		msf_seq = 0;
	}
	id = (uint64_t) msf_last_ms << 22 | UINT64_C(1) << 12 | msf_seq;
	pthread_mutex_unlock(&msf_lock);
	return id;
}

static int
op_clock(uint64_t *sink, int n)
{
	for (int i = 0; i < n; i++)
		*sink ^= (uint64_t) cid_platform_clock(NULL);
	return n;
}

static int
op_clock_inline(uint64_t *sink, int n)
{
	for (int i = 0; i < n; i++)
		*sink ^= (uint64_t) clock_inline();
	return n;
}

/*
 * The floor of any thread-safe generator that reads the clock for every ID:
 * the clock read in place plus one atomic read-modify-write on a shared
 * word, and nothing else.
 */
static _Atomic uint64_t floor_word;

static int
op_floor(uint64_t *sink, int n)
{
	for (int i = 0; i < n; i++)
	{
		*sink ^= (uint64_t) clock_inline();
		*sink += atomic_fetch_add_explicit(&floor_word, 1, memory_order_acq_rel);
	}
	return n;
}

static int
sf_loop(cid_snowflake_gen *gen, uint64_t *sink, int n)
{
	for (int i = 0; i < n; i++)
	{
		uint64_t	id;
		int			rc = cid_snowflake_next(gen, &id);

		if (rc < 0)
			return rc;
		*sink ^= id;
	}
	return n;
}

static int
op_sf_borrow(uint64_t *sink, int n)
{
	return sf_loop(&sf_borrow, sink, n);
}

static int
op_sf_wait(uint64_t *sink, int n)
{
	return sf_loop(&sf_wait, sink, n);
}

static int
op_sf_fill(uint64_t *sink, int n)
{
	uint64_t	ids[FILL_BATCH];
	size_t		done = 0;
	int			rc;

	(void) n;
	rc = cid_snowflake_fill(&sf_borrow, ids, FILL_BATCH, &done);
	if (rc < 0)
		return rc;
	*sink ^= ids[0] ^ ids[done - 1];
	return (int) done;
}

static int
op_msf(uint64_t *sink, int n)
{
	for (int i = 0; i < n; i++)
		*sink ^= msf_next();
	return n;
}

static int
op_uuidv7(uint64_t *sink, int n)
{
	for (int i = 0; i < n; i++)
	{
		cid_uuid	u;
		int			rc = cid_uuidv7_next(&v7_gen, &u);

		if (rc < 0)
			return rc;
		*sink ^= u.bytes[15];
	}
	return n;
}

static int
ulid_loop(cid_ulid_gen *gen, uint64_t *sink, int n)
{
	for (int i = 0; i < n; i++)
	{
		cid_ulid	u;
		int			rc = cid_ulid_next(gen, &u);

		if (rc < 0)
			return rc;
		*sink ^= u.bytes[15];
	}
	return n;
}

static int
op_ulid(uint64_t *sink, int n)
{
	return ulid_loop(&ulid_gen, sink, n);
}

static int
op_ulid_mono(uint64_t *sink, int n)
{
	return ulid_loop(&ulid_mono_gen, sink, n);
}

static int
op_uuidv4(uint64_t *sink, int n)
{
	for (int i = 0; i < n; i++)
	{
		cid_uuid	u;
		int			rc = cid_uuidv4_new(&u, NULL);

		if (rc < 0)
			return rc;
		*sink ^= u.bytes[15];
	}
	return n;
}

static int
op_libuuid_random(uint64_t *sink, int n)
{
	for (int i = 0; i < n; i++)
	{
		uuid_t		u;

		uuid_generate_random(u);
		*sink ^= u[15];
	}
	return n;
}

static int
op_libuuid_time(uint64_t *sink, int n)
{
	for (int i = 0; i < n; i++)
	{
		uuid_t		u;

		uuid_generate_time(u);
		*sink ^= u[15];
	}
	return n;
}

/*
 * Batches: each worker thread has its own output buffers (IDs and text),
 * as a caller of the fill functions would.
 */
static _Thread_local cid_uuid tl_uuids[ID_BATCH];
static _Thread_local cid_ulid tl_ulids[ID_BATCH];
static _Thread_local char tl_text[ID_BATCH * (CID_UUID_STRLEN + 1)];

static int
op_v7_fill(uint64_t *sink, int n)
{
	size_t		done = 0;
	int			rc = cid_uuidv7_fill(&v7_gen, tl_uuids, ID_BATCH, &done);

	(void) n;
	if (rc < 0)
		return rc;
	*sink ^= tl_uuids[0].bytes[15] ^ tl_uuids[done - 1].bytes[15];
	return (int) done;
}

static int
op_v7_fill_text(uint64_t *sink, int n)
{
	int			got = op_v7_fill(sink, n);

	if (got > 0)
	{
		cid_uuid_format_many(tl_text, tl_uuids, (size_t) got, '\n');
		*sink ^= (uint64_t) tl_text[got * (CID_UUID_STRLEN + 1) - 2];
	}
	return got;
}

static int
ulid_fill(cid_ulid_gen *gen, uint64_t *sink, bool text)
{
	size_t		done = 0;
	int			rc = cid_ulid_fill(gen, tl_ulids, ID_BATCH, &done);

	if (rc < 0)
		return rc;
	*sink ^= tl_ulids[0].bytes[15] ^ tl_ulids[done - 1].bytes[15];
	if (text)
	{
		cid_ulid_format_many(tl_text, tl_ulids, done, '\n');
		*sink ^= (uint64_t) tl_text[done * (CID_ULID_STRLEN + 1) - 2];
	}
	return (int) done;
}

static int
op_ulid_fill(uint64_t *sink, int n)
{
	(void) n;
	return ulid_fill(&ulid_gen, sink, false);
}

static int
op_ulid_fill_text(uint64_t *sink, int n)
{
	(void) n;
	return ulid_fill(&ulid_gen, sink, true);
}

static int
op_ulid_mono_fill(uint64_t *sink, int n)
{
	(void) n;
	return ulid_fill(&ulid_mono_gen, sink, false);
}

static int
op_ulid_mono_fill_text(uint64_t *sink, int n)
{
	(void) n;
	return ulid_fill(&ulid_mono_gen, sink, true);
}

/*
 * The other kinds, one call per ID and in batches of ID_BATCH: the IDs
 * are written to the thread's buffer either way, so that the two rows
 * differ only in the calls.
 */
static _Thread_local cid_objectid tl_oids[ID_BATCH];
static _Thread_local cid_ksuid tl_ksuids[ID_BATCH];

static int
op_uuidv6(uint64_t *sink, int n)
{
	for (int i = 0; i < n; i++)
	{
		int			rc = cid_uuidv6_next(&v6_gen, &tl_uuids[i]);

		if (rc < 0)
			return rc;
		*sink ^= tl_uuids[i].bytes[15];
	}
	return n;
}

static int
op_uuidv6_fill(uint64_t *sink, int n)
{
	size_t		done = 0;
	int			rc = cid_uuidv6_fill(&v6_gen, tl_uuids, ID_BATCH, &done);

	(void) n;
	if (rc < 0)
		return rc;
	*sink ^= tl_uuids[0].bytes[15] ^ tl_uuids[done - 1].bytes[15];
	return (int) done;
}

static int
op_objectid(uint64_t *sink, int n)
{
	for (int i = 0; i < n; i++)
	{
		int			rc = cid_objectid_next(&oid_gen, &tl_oids[i]);

		if (rc < 0)
			return rc;
		*sink ^= tl_oids[i].bytes[11];
	}
	return n;
}

static int
op_objectid_fill(uint64_t *sink, int n)
{
	size_t		done = 0;
	int			rc = cid_objectid_fill(&oid_gen, tl_oids, ID_BATCH, &done);

	(void) n;
	if (rc < 0)
		return rc;
	*sink ^= tl_oids[0].bytes[11] ^ tl_oids[done - 1].bytes[11];
	return (int) done;
}

static int
op_ksuid(uint64_t *sink, int n)
{
	for (int i = 0; i < n; i++)
	{
		int			rc = cid_ksuid_new(&tl_ksuids[i], NULL);

		if (rc < 0)
			return rc;
		*sink ^= tl_ksuids[i].bytes[19];
	}
	return n;
}

static int
op_ksuid_fill(uint64_t *sink, int n)
{
	int			rc = cid_ksuid_fill(tl_ksuids, ID_BATCH, NULL);

	(void) n;
	if (rc < 0)
		return rc;
	*sink ^= tl_ksuids[0].bytes[19] ^ tl_ksuids[ID_BATCH - 1].bytes[19];
	return ID_BATCH;
}

/*
 * The floor of a batch that draws its random bytes from the kernel: the
 * 8 bytes of a UUIDv7's rand_b, ID_BATCH at a time (one getrandom(2) of
 * 32 KiB), counted as IDs.
 */
static int
op_random8(uint64_t *sink, int n)
{
	(void) n;
	if (cid_random_bytes(tl_uuids, 8 * ID_BATCH) != CID_OK)
		return CID_ERANDOM;
	*sink ^= tl_uuids[0].bytes[3];
	return ID_BATCH;
}

/*
 * A user-space DRBG for comparison: OpenSSL's RAND_bytes (CTR_DRBG over
 * AES, seeded and reseeded from the kernel, reseeded after fork), plugged
 * in as the raw random source with cid_random_set_source() for the rows
 * that name it.  Not what chronoid uses: it shows what the kernel's random
 * bytes cost a batch.
 */
static int
openssl_source(void *buf, size_t len)
{
	unsigned char *p = buf;

	while (len > 0)
	{
		int			n = len > INT32_MAX ? INT32_MAX : (int) len;

		if (RAND_bytes(p, n) != 1)
			return -1;
		p += n;
		len -= (size_t) n;
	}
	return 0;
}

/*
 * Parsing: ID_BATCH texts made once per thread (UUIDv7s, ULIDs), then
 * read back, batch by batch or one text at a time; libuuid's uuid_parse
 * of the same texts for comparison.
 */
static _Thread_local char tl_uuid_text[ID_BATCH * (CID_UUID_STRLEN + 1)];
static _Thread_local char tl_ulid_text[ID_BATCH * (CID_ULID_STRLEN + 1)];
static _Thread_local bool tl_text_ready;

static void
make_texts(void)
{
	cid_uuidv7_gen v7;
	cid_ulid_gen ul;
	size_t		done = 0;

	if (tl_text_ready)
		return;
	if (cid_uuidv7_init(&v7, NULL) != CID_OK || cid_ulid_init(&ul, false, NULL) != CID_OK ||
		cid_uuidv7_fill(&v7, tl_uuids, ID_BATCH, &done) != CID_OK ||
		cid_ulid_fill(&ul, tl_ulids, ID_BATCH, &done) != CID_OK)
	{
		fprintf(stderr, "bench: cannot make texts to parse\n");
		exit(1);
	}
	cid_uuid_format_many(tl_uuid_text, tl_uuids, ID_BATCH, '\n');
	cid_ulid_format_many(tl_ulid_text, tl_ulids, ID_BATCH, '\n');
	tl_text_ready = true;
}

static int
op_uuid_parse_many(uint64_t *sink, int n)
{
	size_t		done = 0;

	(void) n;
	make_texts();
	if (cid_uuid_parse_many(tl_uuids, tl_uuid_text, ID_BATCH, CID_UUID_STRLEN + 1, &done,
							NULL) != CID_OK)
		return CID_ESYNTAX;
	*sink ^= tl_uuids[done - 1].bytes[15];
	return (int) done;
}

static int
op_ulid_parse_many(uint64_t *sink, int n)
{
	size_t		done = 0;

	(void) n;
	make_texts();
	if (cid_ulid_parse_many(tl_ulids, tl_ulid_text, ID_BATCH, CID_ULID_STRLEN + 1, &done,
							NULL) != CID_OK)
		return CID_ESYNTAX;
	*sink ^= tl_ulids[done - 1].bytes[15];
	return (int) done;
}

static int
op_uuid_parse(uint64_t *sink, int n)
{
	make_texts();
	for (int i = 0; i < n; i++)
	{
		cid_uuid	u;

		if (cid_uuid_parse(&u, tl_uuid_text + (size_t) i * (CID_UUID_STRLEN + 1),
						   CID_UUID_STRLEN, NULL) != CID_OK)
			return CID_ESYNTAX;
		*sink ^= u.bytes[15];
	}
	return n;
}

static int
op_libuuid_parse(uint64_t *sink, int n)
{
	make_texts();
	for (int i = 0; i < n; i++)
	{
		char		t[CID_UUID_STRLEN + 1];
		uuid_t		u;

		memcpy(t, tl_uuid_text + (size_t) i * (CID_UUID_STRLEN + 1), CID_UUID_STRLEN);
		t[CID_UUID_STRLEN] = '\0';
		if (uuid_parse(t, u) != 0)
			return CID_ESYNTAX;
		*sink ^= u[15];
	}
	return n;
}

/* The single calls with their text: what a caller printing IDs pays. */
static int
op_v7_text(uint64_t *sink, int n)
{
	for (int i = 0; i < n; i++)
	{
		cid_uuid	u;
		char		t[CID_UUID_STRLEN + 1];
		int			rc = cid_uuidv7_next(&v7_gen, &u);

		if (rc < 0)
			return rc;
		cid_uuid_format(t, &u);
		*sink ^= (uint64_t) t[35];
	}
	return n;
}

static int
op_ulid_mono_text(uint64_t *sink, int n)
{
	for (int i = 0; i < n; i++)
	{
		cid_ulid	u;
		char		t[CID_ULID_STRLEN + 1];
		int			rc = cid_ulid_next(&ulid_mono_gen, &u);

		if (rc < 0)
			return rc;
		cid_ulid_format(t, &u);
		*sink ^= (uint64_t) t[25];
	}
	return n;
}

static int
op_libuuid_time_text(uint64_t *sink, int n)
{
	for (int i = 0; i < n; i++)
	{
		uuid_t		u;
		char		t[37];

		uuid_generate_time(u);
		uuid_unparse_lower(u, t);
		*sink ^= (uint64_t) t[35];
	}
	return n;
}

typedef enum row_id
{
	R_CLOCK,
	R_CLOCK_INLINE,
	R_FLOOR,
	R_SF,
	R_SF_FILL,
	R_MSF,
	R_SF_WAIT,
	R_UUIDV7,
	R_ULID,
	R_ULID_MONO,
	R_UUIDV4,
	R_LIBUUID_RANDOM,
	R_LIBUUID_TIME,
	R_RANDOM8,
	R_V7_FILL,
	R_ULID_FILL,
	R_ULID_MONO_FILL,
	R_V7_TEXT,
	R_ULID_MONO_TEXT,
	R_LIBUUID_TIME_TEXT,
	R_V7_FILL_TEXT,
	R_ULID_FILL_TEXT,
	R_ULID_MONO_FILL_TEXT,
	R_RANDOM8_DRBG,
	R_V7_FILL_DRBG,
	R_V7_FILL_TEXT_DRBG,
	R_UUID_PARSE,
	R_LIBUUID_PARSE,
	R_UUID_PARSE_MANY,
	R_ULID_PARSE_MANY,
	R_UUIDV6,
	R_UUIDV6_FILL,
	R_OBJECTID,
	R_OBJECTID_FILL,
	R_KSUID,
	R_KSUID_FILL,
	NROWS
} row_id;

typedef struct row
{
	const char *name;
	int			(*op) (uint64_t *sink, int n);
	cid_raw_random_fn source;	/* raw random source for the row; NULL: getrandom */
} row;

static const row rows[NROWS] = {
	[R_CLOCK] = {"clock read (cid_platform_clock)", op_clock},
	[R_CLOCK_INLINE] = {"clock read (clock_gettime in place)", op_clock_inline},
	[R_FLOOR] = {"clock in place + one atomic fetch_add (floor)", op_floor},
	[R_SF] = {"snowflake, non-waiting (borrow)", op_sf_borrow},
	[R_SF_FILL] = {"snowflake fill(), 256 per call", op_sf_fill},
	[R_MSF] = {"mutex snowflake (baseline, borrow)", op_msf},
	[R_SF_WAIT] = {"snowflake, wait policy (default)", op_sf_wait},
	[R_UUIDV7] = {"uuidv7", op_uuidv7},
	[R_ULID] = {"ulid", op_ulid},
	[R_ULID_MONO] = {"ulid monotonic", op_ulid_mono},
	[R_UUIDV4] = {"uuidv4", op_uuidv4},
	[R_LIBUUID_RANDOM] = {"libuuid uuid_generate_random", op_libuuid_random},
	[R_LIBUUID_TIME] = {"libuuid uuid_generate_time", op_libuuid_time},
	[R_RANDOM8] = {"8 random bytes per ID, 32 KiB requests (floor)", op_random8},
	[R_V7_FILL] = {"uuidv7 fill(), 4096 per call", op_v7_fill},
	[R_ULID_FILL] = {"ulid fill(), 4096 per call", op_ulid_fill},
	[R_ULID_MONO_FILL] = {"ulid monotonic fill(), 4096 per call", op_ulid_mono_fill},
	[R_V7_TEXT] = {"uuidv7 + format", op_v7_text},
	[R_ULID_MONO_TEXT] = {"ulid monotonic + format", op_ulid_mono_text},
	[R_LIBUUID_TIME_TEXT] = {"libuuid uuid_generate_time + unparse", op_libuuid_time_text},
	[R_V7_FILL_TEXT] = {"uuidv7 fill() + format_many()", op_v7_fill_text},
	[R_ULID_FILL_TEXT] = {"ulid fill() + format_many()", op_ulid_fill_text},
	[R_ULID_MONO_FILL_TEXT] = {"ulid monotonic fill() + format_many()", op_ulid_mono_fill_text},
	[R_RANDOM8_DRBG] = {"8 random bytes per ID, OpenSSL DRBG (comparison)", op_random8, openssl_source},
	[R_V7_FILL_DRBG] = {"uuidv7 fill(), OpenSSL DRBG (comparison)", op_v7_fill, openssl_source},
	[R_V7_FILL_TEXT_DRBG] = {"uuidv7 fill() + format_many(), OpenSSL DRBG (comparison)",
	op_v7_fill_text, openssl_source},
	[R_UUID_PARSE] = {"uuid parse (text to bytes, one call each)", op_uuid_parse},
	[R_LIBUUID_PARSE] = {"libuuid uuid_parse", op_libuuid_parse},
	[R_UUID_PARSE_MANY] = {"uuid parse_many(), 4096 per call", op_uuid_parse_many},
	[R_ULID_PARSE_MANY] = {"ulid parse_many(), 4096 per call", op_ulid_parse_many},
	[R_UUIDV6] = {"uuidv6", op_uuidv6},
	[R_UUIDV6_FILL] = {"uuidv6 fill(), 4096 per call", op_uuidv6_fill},
	[R_OBJECTID] = {"objectid", op_objectid},
	[R_OBJECTID_FILL] = {"objectid fill(), 4096 per call", op_objectid_fill},
	[R_KSUID] = {"ksuid", op_ksuid},
	[R_KSUID_FILL] = {"ksuid fill(), 4096 per call", op_ksuid_fill},
};

/* Fresh generator state for every measurement. */
static void
reset_generators(void)
{
	cid_snowflake_opts o;

	cid_snowflake_opts_default(&o);
	o.on_exhausted = CID_EXHAUST_BORROW;
	/* Far more than a run can borrow at ~100 M IDs/s. */
	o.max_borrow_ticks = UINT64_C(1) << 40;
	if (cid_snowflake_init(&sf_borrow, NULL, 1, &o, NULL) != CID_OK ||
		cid_snowflake_init(&sf_wait, NULL, 1, NULL, NULL) != CID_OK ||
		cid_uuidv7_init(&v7_gen, NULL) != CID_OK ||
		cid_ulid_init(&ulid_gen, false, NULL) != CID_OK ||
		cid_ulid_init(&ulid_mono_gen, true, NULL) != CID_OK ||
		cid_uuidv6_init(&v6_gen, NULL) != CID_OK ||
		cid_objectid_init(&oid_gen, NULL) != CID_OK)
	{
		fprintf(stderr, "bench: generator init failed\n");
		exit(1);
	}
	pthread_mutex_lock(&msf_lock);
	msf_last_ms = 0;
	msf_seq = 0;
	pthread_mutex_unlock(&msf_lock);
}

/* ------------------------------------------------------------------------
 * Measurement: N threads run one op until told to stop.
 * ------------------------------------------------------------------------ */

typedef struct worker
{
	pthread_t	thread;
	const row  *r;
	pthread_barrier_t *start;
	atomic_bool *stop;
	uint64_t	count;
	int64_t		ns;
	int			error;
	uint64_t	sink;
} worker;

static volatile uint64_t global_sink;

static int64_t
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void *
worker_main(void *p)
{
	worker	   *w = p;
	uint64_t	sink = 0;
	uint64_t	count = 0;
	int64_t		t0;

	pthread_barrier_wait(w->start);
	t0 = mono_ns();
	while (!atomic_load_explicit(w->stop, memory_order_relaxed))
	{
		int			got = w->r->op(&sink, 64);

		if (got < 0)
		{
			w->error = got;
			break;
		}
		count += (uint64_t) got;
	}
	w->ns = mono_ns() - t0;
	w->count = count;
	global_sink ^= sink;
	return NULL;
}

/* IDs per second of all threads together; negative: a chronoid status. */
static double
measure(const row *r, int nthreads, double seconds)
{
	worker		w[MAX_THREADS];
	pthread_barrier_t start;
	atomic_bool stop = false;
	struct timespec d;
	double		rate = 0;
	int			error = 0;

	reset_generators();
	cid_random_set_source(r->source);
	pthread_barrier_init(&start, NULL, (unsigned) nthreads + 1);
	for (int i = 0; i < nthreads; i++)
	{
		memset(&w[i], 0, sizeof w[i]);
		w[i].r = r;
		w[i].start = &start;
		w[i].stop = &stop;
		if (pthread_create(&w[i].thread, NULL, worker_main, &w[i]) != 0)
		{
			fprintf(stderr, "bench: pthread_create failed\n");
			exit(1);
		}
	}
	pthread_barrier_wait(&start);
	d.tv_sec = (time_t) seconds;
	d.tv_nsec = (long) ((seconds - (double) d.tv_sec) * 1e9);
	while (nanosleep(&d, &d) != 0 && errno == EINTR)
		;
	atomic_store(&stop, true);
	for (int i = 0; i < nthreads; i++)
	{
		pthread_join(w[i].thread, NULL);
		if (w[i].error)
			error = w[i].error;
		else if (w[i].ns > 0)
			rate += (double) w[i].count * 1e9 / (double) w[i].ns;
	}
	pthread_barrier_destroy(&start);
	cid_random_set_source(NULL);
	return error ? (double) error : rate;
}

static int
cmp_double(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return (x > y) - (x < y);
}

static double
median(double *v, int n)
{
	double		s[MAX_REPS];

	memcpy(s, v, sizeof(double) * (size_t) n);
	qsort(s, (size_t) n, sizeof(double), cmp_double);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/* ------------------------------------------------------------------------
 * Report
 * ------------------------------------------------------------------------ */

static void
cpu_model(char *out, size_t len)
{
	FILE	   *f = fopen("/proc/cpuinfo", "r");
	char		line[256];

	snprintf(out, len, "unknown CPU");
	if (f == NULL)
		return;
	while (fgets(line, sizeof line, f))
	{
		char	   *colon = strchr(line, ':');

		if (strncmp(line, "model name", 10) == 0 && colon != NULL)
		{
			colon += 2;
			colon[strcspn(colon, "\n")] = '\0';
			snprintf(out, len, "%s", colon);
			break;
		}
	}
	fclose(f);
}

static const char *
fmt_rate(char *buf, size_t len, double rate)
{
	if (rate < 0)
		snprintf(buf, len, "error: %s", cid_strerror((int) rate));
	else
		snprintf(buf, len, "%.2f M", rate / 1e6);
	return buf;
}

static void
usage(FILE *f)
{
	fprintf(f, "usage: bench [--quick] [--reps N] [--ms MS]\n"
			"  --quick   3 repetitions of 50 ms (a smoke run)\n"
			"  --reps N  repetitions per cell, median reported (default 5)\n"
			"  --ms MS   length of one repetition (default 250)\n");
}

/* "Nx single call, Mx BASELINE" at 1 thread. */
static void
vs_single(char *buf, size_t len, double med[][MAX_THREADS], int r, int single, int base)
{
	snprintf(buf, len, "%.1fx %s, %.1fx %s", med[r][0] / med[single][0], rows[single].name,
			 med[r][0] / med[base][0], rows[base].name);
}

static const char *
verdict(bool met)
{
	return met ? "met" : "**not met**";
}

int
main(int argc, char **argv)
{
	static double res[NROWS][MAX_THREADS][MAX_REPS];
	double		med[NROWS][MAX_THREADS];
	int			reps = 5;
	double		seconds = 0.25;
	char		cpu[128];
	char		a[64],
				b[64];

	for (int i = 1; i < argc; i++)
	{
		if (strcmp(argv[i], "--quick") == 0)
		{
			reps = 3;
			seconds = 0.05;
		}
		else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
			reps = atoi(argv[++i]);
		else if (strcmp(argv[i], "--ms") == 0 && i + 1 < argc)
			seconds = atoi(argv[++i]) / 1000.0;
		else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
		{
			usage(stdout);
			return 0;
		}
		else
		{
			usage(stderr);
			return 2;
		}
	}
	if (reps < 1 || reps > MAX_REPS || seconds <= 0 || seconds > 10)
	{
		usage(stderr);
		return 2;
	}

	cpu_model(cpu, sizeof cpu);
	printf("chronoid %s benchmark: %ld CPUs (%s); median of %d interleaved "
		   "repetitions of %.0f ms each\n\n",
		   CID_VERSION_STRING, sysconf(_SC_NPROCESSORS_ONLN), cpu, reps, seconds * 1000);
	fflush(stdout);

	/*
	 * Interleave: every cell once per round, so a burst of load from
	 * elsewhere on the machine spreads over all cells instead of spoiling
	 * one.
	 */
	for (int rep = 0; rep < reps; rep++)
		for (int r = 0; r < NROWS; r++)
			for (int t = 0; t < MAX_THREADS; t++)
				res[r][t][rep] = measure(&rows[r], t + 1, seconds);
	for (int r = 0; r < NROWS; r++)
		for (int t = 0; t < MAX_THREADS; t++)
			med[r][t] = median(res[r][t], reps);

	printf("| scheme | IDs/s, 1 thread | IDs/s, 2 threads | ns/ID (1 thread) "
		   "| x clock read | comparison |\n");
	printf("|---|---:|---:|---:|---:|---|\n");
	for (int r = 0; r < NROWS; r++)
	{
		double		r1 = med[r][0],
					r2 = med[r][1];
		double		ns = r1 > 0 ? 1e9 / r1 : 0;
		double		clock_ns = 1e9 / med[R_CLOCK][0];
		char		cmp[128] = "";

		switch (r)
		{
			case R_SF:
			case R_SF_FILL:
				snprintf(cmp, sizeof cmp, "%.1fx / %.1fx mutex snowflake",
						 r1 / med[R_MSF][0], r2 / med[R_MSF][1]);
				break;
			case R_SF_WAIT:
				snprintf(cmp, sizeof cmp, "%.1f%% / %.1f%% of the 4,096,000/s cap",
						 100 * r1 / PGEDGE_CAP, 100 * r2 / PGEDGE_CAP);
				break;
			case R_UUIDV7:
			case R_ULID:
			case R_ULID_MONO:
			case R_UUIDV4:
				snprintf(cmp, sizeof cmp, "%.1fx / %.1fx libuuid random",
						 r1 / med[R_LIBUUID_RANDOM][0], r2 / med[R_LIBUUID_RANDOM][1]);
				break;
			case R_V7_FILL:
				vs_single(cmp, sizeof cmp, med, r, R_UUIDV7, R_LIBUUID_TIME);
				break;
			case R_ULID_FILL:
				vs_single(cmp, sizeof cmp, med, r, R_ULID, R_LIBUUID_RANDOM);
				break;
			case R_ULID_MONO_FILL:
				vs_single(cmp, sizeof cmp, med, r, R_ULID_MONO, R_LIBUUID_RANDOM);
				break;
			case R_V7_TEXT:
			case R_ULID_MONO_TEXT:
				snprintf(cmp, sizeof cmp, "%.1fx / %.1fx libuuid time + unparse",
						 r1 / med[R_LIBUUID_TIME_TEXT][0], r2 / med[R_LIBUUID_TIME_TEXT][1]);
				break;
			case R_V7_FILL_TEXT:
				vs_single(cmp, sizeof cmp, med, r, R_V7_TEXT, R_LIBUUID_TIME_TEXT);
				break;
			case R_ULID_FILL_TEXT:
			case R_ULID_MONO_FILL_TEXT:
				vs_single(cmp, sizeof cmp, med, r, R_ULID_MONO_TEXT, R_LIBUUID_TIME_TEXT);
				break;
			case R_UUID_PARSE:
			case R_UUID_PARSE_MANY:
			case R_ULID_PARSE_MANY:
				snprintf(cmp, sizeof cmp, "%.1fx / %.1fx libuuid uuid_parse",
						 r1 / med[R_LIBUUID_PARSE][0], r2 / med[R_LIBUUID_PARSE][1]);
				break;
			case R_UUIDV6_FILL:
			case R_OBJECTID_FILL:
			case R_KSUID_FILL:
				snprintf(cmp, sizeof cmp, "%.1fx / %.1fx %s", r1 / med[r - 1][0], r2 / med[r - 1][1],
						 rows[r - 1].name);
				break;
			case R_RANDOM8_DRBG:
			case R_V7_FILL_DRBG:
			case R_V7_FILL_TEXT_DRBG:
				snprintf(cmp, sizeof cmp, "%.1fx the same with getrandom",
						 r1 / med[r == R_RANDOM8_DRBG ? R_RANDOM8 :
								  r == R_V7_FILL_DRBG ? R_V7_FILL : R_V7_FILL_TEXT][0]);
				break;
			default:
				break;
		}
		printf("| %s | %s | %s | %.1f | %.2f | %s |\n", rows[r].name,
			   fmt_rate(a, sizeof a, r1), fmt_rate(b, sizeof b, r2),
			   ns, r1 > 0 ? ns / clock_ns : 0, cmp);
	}
	printf("\nComparisons are 1 thread / 2 threads.  Targets (reported, not "
		   "asserted), 1 thread:\n\n");
	{
		double		sf_x_clock = med[R_CLOCK][0] / med[R_SF][0];
		double		sf_x_inline = med[R_CLOCK_INLINE][0] / med[R_SF][0];
		double		sf_x_msf = med[R_SF][0] / med[R_MSF][0];
		double		wait_pct = 100 * med[R_SF_WAIT][0] / PGEDGE_CAP;
		double		v7_x = med[R_UUIDV7][0] / med[R_LIBUUID_RANDOM][0];
		double		ulid_x = med[R_ULID][0] / med[R_LIBUUID_RANDOM][0];

		printf("- non-waiting snowflake within 1.5x of a clock read: %.2fx, %s "
			   "(%.2fx the clock read in place)\n",
			   sf_x_clock, verdict(sf_x_clock <= 1.5 && med[R_SF][0] > 0), sf_x_inline);
		printf("- non-waiting snowflake >= 2x the mutex snowflake: %.2fx "
			   "(2 threads: %.2fx), %s\n",
			   sf_x_msf, med[R_SF][1] / med[R_MSF][1], verdict(sf_x_msf >= 2));
		printf("- fill() faster than one call per ID: %.2fx, %s\n",
			   med[R_SF_FILL][0] / med[R_SF][0], verdict(med[R_SF_FILL][0] > med[R_SF][0]));
		printf("- wait policy >= 95%% of the cap: %.1f%% (2 threads: %.1f%%), %s\n",
			   wait_pct, 100 * med[R_SF_WAIT][1] / PGEDGE_CAP, verdict(wait_pct >= 95));
		printf("- uuidv7 >= 5x libuuid random: %.1fx, %s\n", v7_x, verdict(v7_x >= 5));
		printf("- ulid >= 5x libuuid random: %.1fx, %s\n", ulid_x, verdict(ulid_x >= 5));
	}
	{
		double		clock_ns = 1e9 / med[R_CLOCK_INLINE][0];
		static const struct
		{
			row_id		r;
			double		max_ns;
		}			ns_goals[] = {
			{R_V7_FILL, 5}, {R_ULID_FILL, 5}, {R_ULID_MONO_FILL, 5},
			{R_V7_FILL_TEXT, 10}, {R_ULID_FILL_TEXT, 10}, {R_ULID_MONO_FILL_TEXT, 10},
		};
		static const struct
		{
			row_id		r;
			double		max_x;
		}			x_goals[] = {
			{R_UUIDV7, 1.5}, {R_ULID_MONO_TEXT, 2},
		};

		printf("\nIssue 24's goals, 1 thread (the clock read in place: %.1f ns; "
			   "the kernel's random bytes alone: %.1f ns per 8):\n\n",
			   clock_ns, 1e9 / med[R_RANDOM8][0]);
		for (size_t i = 0; i < sizeof ns_goals / sizeof ns_goals[0]; i++)
		{
			double		ns = 1e9 / med[ns_goals[i].r][0];

			printf("- %s at most %.0f ns/ID: %.1f ns, %s\n", rows[ns_goals[i].r].name,
				   ns_goals[i].max_ns, ns, verdict(med[ns_goals[i].r][0] > 0 && ns <= ns_goals[i].max_ns));
		}
		printf("- with OpenSSL's DRBG as the raw source instead of getrandom (comparison): "
			   "uuidv7 fill() %.1f ns/ID, with format_many() %.1f ns/ID\n",
			   1e9 / med[R_V7_FILL_DRBG][0], 1e9 / med[R_V7_FILL_TEXT_DRBG][0]);
		for (size_t i = 0; i < sizeof x_goals / sizeof x_goals[0]; i++)
		{
			double		x = 1e9 / med[x_goals[i].r][0] / clock_ns;

			printf("- %s at most %.1fx a clock read: %.2fx, %s\n", rows[x_goals[i].r].name,
				   x_goals[i].max_x, x, verdict(med[x_goals[i].r][0] > 0 && x <= x_goals[i].max_x));
		}
	}
	(void) global_sink;
	return 0;
}
