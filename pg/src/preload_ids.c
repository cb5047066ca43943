/*
 * preload_ids.c — preloaded mode: one UUIDv7 and one monotonic ULID
 * generator for the whole server in shared memory, so their IDs strictly
 * increase across all sessions, and a durable high-water mark in
 * $PGDATA/pg_chronoid.state so that they keep increasing across a crash or
 * a restart with the clock set back.
 *
 * The mark of each generator is a Unix millisecond such that every ID it
 * has issued lies in an earlier millisecond.  A backend that issues an ID
 * at or past the mark first moves the mark to that millisecond plus
 * MARK_MARGIN_MS and makes the file durable (new file, fsync, rename,
 * fsync of the directory), then returns the ID: at most about one file
 * write per generator per MARK_MARGIN_MS while the clock runs normally.
 * At server start (and at the postmaster's reinitialisation after a
 * crash) the generators resume at their marks, above everything issued
 * before, whatever the clock says.
 */
/* postgres.h first (through chronoid_internal.h), as in every backend file. */
#include "preload_ids_internal.h"
#include "atomic_internal.h"

#include <fcntl.h>
#include <unistd.h>

#include "miscadmin.h"
#include "port/atomics.h"
#include "storage/fd.h"
#include "storage/lwlock.h"

#define STATE_FILE "pg_chronoid.state"
#define STATE_TMP "pg_chronoid.state.tmp"
#define STATE_HEADER "chronoid state 1\n"

/*
 * How far past an issued millisecond the mark is moved.  Larger means
 * fewer file writes (one per margin under steady load) but, after a
 * crash, new IDs that run up to this far ahead of the clock until it
 * catches up.
 */
#define MARK_MARGIN_MS INT64CONST(1000)

/* Largest 48-bit millisecond (RFC 9562 section 5.7, ULID spec). */
#define MAX_MS ((INT64CONST(1) << 48) - 1)

typedef struct SharedIds
{
	/*
	 * The core's generator structs, initialised with a NULL env (no
	 * function pointers in shared memory: each backend passes its own
	 * clock reading and random bytes to the pure _at steps).  The UUIDv7
	 * state is one lock-free 64-bit atomic; lock-free atomics are
	 * address-free, so they work across processes mapping the segment at
	 * different addresses.  The ULID state is guarded by the core's
	 * atomic_flag spin lock, held for a few instructions without any call
	 * that could raise an error; a backend killed while holding it makes
	 * the postmaster reinitialise shared memory (crash restart), so no
	 * one waits on it forever.
	 */
	cid_uuidv7_gen v7;
	char		pad1[PG_CACHE_LINE_SIZE];
	cid_ulid_gen ulid;
	char		pad2[PG_CACHE_LINE_SIZE];
	/* Durable marks (Unix ms): every issued ID's ms is below its mark. */
	pg_atomic_uint64 v7_mark;
	pg_atomic_uint64 ulid_mark;
} SharedIds;

static SharedIds *ids = NULL;
static LWLock *mark_lock = NULL;

static Size
preload_ids_size(void)
{
	return sizeof(SharedIds);
}

/* Reads the marks; both 0 when there is no file yet (first start). */
static void
read_state_file(uint64 *v7_mark, uint64 *ulid_mark)
{
	char		buf[256];
	int			fd;
	ssize_t		len;
	unsigned long long v7;
	unsigned long long ul;
	int			end = 0;

	*v7_mark = 0;
	*ulid_mark = 0;
	fd = BasicOpenFile(STATE_FILE, O_RDONLY | PG_BINARY);
	if (fd < 0)
	{
		if (errno == ENOENT)
			return;
		ereport(FATAL,
				(errcode_for_file_access(),
				 errmsg("could not open file \"%s\": %m", STATE_FILE)));
	}
	len = read(fd, buf, sizeof(buf) - 1);
	if (len < 0)
	{
		int			save = errno;

		close(fd);
		errno = save;
		ereport(FATAL,
				(errcode_for_file_access(),
				 errmsg("could not read file \"%s\": %m", STATE_FILE)));
	}
	close(fd);
	buf[len] = '\0';

	/*
	 * The file is only ever replaced by rename, so it is whole or absent;
	 * anything else was written by someone else.  Refuse to start rather
	 * than risk handing out IDs below earlier ones.
	 */
	/*
	 * sscanf cannot report an out-of-range number, but both values are
	 * range-checked next and the file is only ever written by us.
	 */
	/* NOLINTNEXTLINE(cert-err34-c) */
	if (sscanf(buf, STATE_HEADER "uuidv7 %llu\nulid %llu\n%n", &v7, &ul, &end) != 2 ||
		end != len || v7 > (unsigned long long) MAX_MS + 1 ||
		ul > (unsigned long long) MAX_MS + 1)
		ereport(FATAL,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("invalid chronoid state file \"%s\"", STATE_FILE),
				 errdetail("Expected \"%suuidv7 <ms>\\nulid <ms>\\n\".",
						   "chronoid state 1\\n"),
				 errhint("Restore the file, or remove it to let UUIDv7 and "
						 "ULID generation restart from the clock.")));
	*v7_mark = v7;
	*ulid_mark = ul;
}

/*
 * Replaces the file with both marks, durably: write a new file, then
 * durable_rename() fsyncs it, renames it over the old one and fsyncs the
 * directory.  Any failure is an ERROR (the caller's ID is not returned).
 */
static void
write_state_file(uint64 v7_mark, uint64 ulid_mark)
{
	char		buf[128];
	int			len;
	int			fd;

	len = snprintf(buf, sizeof(buf), STATE_HEADER "uuidv7 %llu\nulid %llu\n",
				   (unsigned long long) v7_mark,
				   (unsigned long long) ulid_mark);
	fd = OpenTransientFile(STATE_TMP, O_WRONLY | O_CREAT | O_TRUNC | PG_BINARY);
	if (fd < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not create file \"%s\": %m", STATE_TMP)));
	errno = 0;
	if (write(fd, buf, len) != len)
	{
		int			save = errno;

		CloseTransientFile(fd);
		/* a short write without errno is most likely a full disk */
		errno = save ? save : ENOSPC;
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not write file \"%s\": %m", STATE_TMP)));
	}
	if (CloseTransientFile(fd) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not close file \"%s\": %m", STATE_TMP)));
	(void) durable_rename(STATE_TMP, STATE_FILE, ERROR);
}

/*
 * Makes sure an ID of millisecond ms survives a crash: if ms is at or
 * past mark, move the mark (under the lock, re-checked, as another
 * backend may have moved it meanwhile) and write the file before the ID
 * is returned.  The shared mark is raised only once the file is durable,
 * so a backend that sees ms below it needs no write.
 */
static void
make_durable(pg_atomic_uint64 *mark, int64 ms)
{
	uint64		next;

	if ((uint64) ms < pg_atomic_read_u64(mark))
		return;
	LWLockAcquire(mark_lock, LW_EXCLUSIVE);
	if ((uint64) ms >= pg_atomic_read_u64(mark))
	{
		next = (uint64) Min(ms + MARK_MARGIN_MS, MAX_MS + 1);
		write_state_file(mark == &ids->v7_mark ? next : pg_atomic_read_u64(&ids->v7_mark),
						 mark == &ids->ulid_mark ? next : pg_atomic_read_u64(&ids->ulid_mark));
		pg_atomic_write_u64(mark, next);
	}
	LWLockRelease(mark_lock);
}

/*
 * In the postmaster at server start and after a crash (found false: a
 * new segment), or in an EXEC_BACKEND child (found true: just attach).
 */
static void
preload_ids_startup(void *zone, LWLockPadded *locks, bool found)
{
	uint64		v7_mark;
	uint64		ulid_mark;
	uint8_t		rand[10];
	cid_ulid	seed;

	ids = (SharedIds *) zone;
	mark_lock = &locks[0].lock;
	if (found)
		return;

	read_state_file(&v7_mark, &ulid_mark);
	if (cid_uuidv7_init(&ids->v7, NULL) != CID_OK ||
		cid_ulid_init(&ids->ulid, true, NULL) != CID_OK)
		elog(FATAL, "chronoid: could not initialise the shared generators");
	pg_atomic_init_u64(&ids->v7_mark, v7_mark);
	pg_atomic_init_u64(&ids->ulid_mark, ulid_mark);

	/*
	 * Resume above the marks.  The UUIDv7 state is the last issued
	 * (ms << 12 | fraction), before any shift (chronoid.h): setting it to
	 * (mark, 0) makes the next value above every ID of earlier
	 * milliseconds.  The ULID generator is seeded by one step at the mark
	 * whose result is never handed out; its random part has the top bit
	 * clear, so a clock far behind the mark leaves 2^79 increments before
	 * the ULID spec's overflow error.
	 */
	if (v7_mark > 0)
		atomic_store(cid_atomic_u64(&ids->v7.state), v7_mark << 12);
	if (ulid_mark > 0)
	{
		if (!pg_strong_random(rand, sizeof(rand)))
			ereport(FATAL,
					(errmsg("chronoid: could not generate random bytes")));
		rand[0] &= 0x7f;
		if (cid_ulid_next_at(&ids->ulid, (int64_t) Min(ulid_mark, (uint64) MAX_MS),
							 rand, &seed) != CID_OK)
			elog(FATAL, "chronoid: could not seed the shared ULID generator");
	}
	if (v7_mark > 0 || ulid_mark > 0)
		ereport(LOG,
				(errmsg("chronoid: UUIDv7 and ULID generators resume at the "
						"marks in \"%s\" (Unix ms %llu and %llu)", STATE_FILE,
						(unsigned long long) v7_mark,
						(unsigned long long) ulid_mark)));
}

static const cid_pg_shmem_part preload_ids_part = {
	.name = "chronoid_ids",
	.size = preload_ids_size,
	.nlwlocks = 1,
	.startup = preload_ids_startup
};

void
cid_pg_preload_ids_init(void)
{
	/*
	 * Only a lock-free (hence address-free) 64-bit atomic may live in
	 * shared memory; where there is none, stay per-session.
	 */
	if (ATOMIC_LONG_LOCK_FREE != 2 && ATOMIC_LLONG_LOCK_FREE != 2)
		return;
	cid_pg_shmem_register(&preload_ids_part);
}

bool
cid_pg_preload_ids_ready(void)
{
	return ids != NULL;
}

int
cid_pg_shared_uuidv7_next(int64_t now_ns, int64_t shift_us,
						  const uint8_t rand_b[8], cid_uuid *out)
{
	int			rc = cid_uuidv7_next_at(&ids->v7, now_ns, shift_us, rand_b, out);

	/*
	 * The unshifted state (at least this call's value, maybe a later
	 * one's) carries the millisecond the mark must cover; a shifted UUID's
	 * own time does not.
	 */
	if (rc >= 0)
		make_durable(&ids->v7_mark,
					 (int64) (atomic_load_explicit(cid_atomic_u64(&ids->v7.state),
												   memory_order_relaxed) >> 12));
	return rc;
}

int
cid_pg_shared_ulid_next(int64_t now_ms, const uint8_t rand[10], cid_ulid *out)
{
	int			rc = cid_ulid_next_at(&ids->ulid, now_ms, rand, out);

	if (rc >= 0)
		make_durable(&ids->ulid_mark, cid_ulid_unix_ms(out));
	return rc;
}
