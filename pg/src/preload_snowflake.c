/*
 * preload_snowflake.c — the preloaded mode of snowflake.nextval(): one
 * shared slot per database holding its ID space's state, advanced by
 * compare-and-swap, with the page of snowflake.node_mark as the durable
 * mark, written (with WAL) only when the issued body passes it.
 */
#include "snowflake_internal.h"

#include "access/relation.h"
#include "miscadmin.h"
#include "port/atomics.h"
#include "storage/lwlock.h"
#include "utils/guc.h"
#include "utils/syscache.h"

/*
 * A slot.  dboid is written under the allocation lock, before the slot is
 * published (by nused, or by the dboid store itself when a dropped
 * database's slot is reused); the rest of the key and the load state are
 * written under the slot's LWLock.  state is the last issued body (-1:
 * none), mark the highest body the page of snowflake.node_mark holds with
 * its WAL record inserted; neither ever goes down while the server runs.
 * Padded so that two databases never share a cache line.
 */
typedef struct cid_sf_slot
{
	pg_atomic_uint64 state;
	pg_atomic_uint64 mark;
	Oid			dboid;
	int			index;			/* of its LWLock: locks[1 + index] */
	bool		loaded;			/* page read since the slot was taken */
	Oid			relid;			/* snowflake.node_mark last read */
	Oid			relfilenode;	/* its storage then */
	int64		page_value;		/* last_value as we last wrote it */
} cid_sf_slot;

typedef union sf_padded_slot
{
	cid_sf_slot slot;
	char		pad[PG_CACHE_LINE_SIZE * 2];
} sf_padded_slot;

typedef struct sf_shared_state
{
	pg_atomic_uint32 nused;
	sf_padded_slot slots[FLEXIBLE_ARRAY_MEMBER];
} sf_shared_state;

/* snowflake.max_shared_databases (PGC_POSTMASTER) */
static int	sf_max_slots = 64;

static sf_shared_state *sf_shared = NULL;
static LWLockPadded *sf_locks = NULL;

/* state and mark hold int64 bodies; -1 (none) is stored as all ones */
#define SF_NONE		PG_UINT64_MAX

static int64
sf_load(pg_atomic_uint64 *a)
{
	uint64		v = pg_atomic_read_u64(a);

	return v == SF_NONE ? -1 : (int64) v;
}

static Size
sf_shared_size(void)
{
	return add_size(offsetof(sf_shared_state, slots),
					mul_size(sizeof(sf_padded_slot), sf_max_slots));
}

static void
sf_slot_reset(cid_sf_slot *s)
{
	pg_atomic_write_u64(&s->state, SF_NONE);
	pg_atomic_write_u64(&s->mark, 0);
	s->loaded = false;
	s->relid = InvalidOid;
	s->relfilenode = InvalidOid;
	s->page_value = 0;
}

static void
sf_shared_startup(void *zone, LWLockPadded *locks, bool found)
{
	sf_shared = (sf_shared_state *) zone;
	sf_locks = locks;
	if (!found)
	{
		int			i;

		pg_atomic_init_u32(&sf_shared->nused, 0);
		for (i = 0; i < sf_max_slots; i++)
		{
			cid_sf_slot *s = &sf_shared->slots[i].slot;

			pg_atomic_init_u64(&s->state, SF_NONE);
			pg_atomic_init_u64(&s->mark, 0);
			s->dboid = InvalidOid;
			s->index = i;
			sf_slot_reset(s);
		}
	}
}

static cid_pg_shmem_part sf_part = {
	"chronoid snowflake",
	sf_shared_size,
	0,
	sf_shared_startup
};

void
cid_sf_shared_init(void)
{
	if (!process_shared_preload_libraries_in_progress)
		return;

	DefineCustomIntVariable("snowflake.max_shared_databases",
							"Databases whose snowflake.nextval() gets a shared lock-free slot when preloaded.",
							"A database takes a slot on its first snowflake and keeps it until it is "
							"dropped; beyond them snowflake.nextval() locks the page of snowflake.node_mark.",
							&sf_max_slots,
							64,
							1,
							65536,
							PGC_POSTMASTER,
							0,
							NULL,
							NULL,
							NULL);
	/* lock 0 allocates slots; lock 1 + i guards slot i */
	sf_part.nlwlocks = 1 + sf_max_slots;
	cid_pg_shmem_register(&sf_part);
}

bool
cid_sf_shared_ready(void)
{
	return sf_shared != NULL && cid_pg_shmem_ready();
}

cid_sf_slot *
cid_sf_slot_find(void)
{
	uint32		n;
	uint32		i;
	cid_sf_slot *s;

	/* A published slot's dboid changes only when its database is gone. */
	n = pg_atomic_read_u32(&sf_shared->nused);
	pg_read_barrier();
	for (i = 0; i < n; i++)
	{
		s = &sf_shared->slots[i].slot;
		if (s->dboid == MyDatabaseId)
			return s;
	}

	LWLockAcquire(&sf_locks[0].lock, LW_EXCLUSIVE);
	n = pg_atomic_read_u32(&sf_shared->nused);
	for (i = 0; i < n; i++)
	{
		s = &sf_shared->slots[i].slot;
		if (s->dboid == MyDatabaseId)
		{
			LWLockRelease(&sf_locks[0].lock);
			return s;
		}
	}
	if (n < (uint32) sf_max_slots)
	{
		s = &sf_shared->slots[n].slot;
		s->dboid = MyDatabaseId;
		pg_write_barrier();
		pg_atomic_write_u32(&sf_shared->nused, n + 1);
		LWLockRelease(&sf_locks[0].lock);
		return s;
	}

	LWLockRelease(&sf_locks[0].lock);

	/*
	 * All taken: reuse the slot of a dropped database.  No backend of it
	 * is left to use the slot (DROP DATABASE waits for them), and ours
	 * finds it only after the reset (the barrier before the dboid store).
	 * The catalog is read without holding an LWLock; the candidate is
	 * checked again under the allocation lock.
	 */
	for (i = 0; i < n; i++)
	{
		Oid			gone = sf_shared->slots[i].slot.dboid;

		if (SearchSysCacheExists1(DATABASEOID, ObjectIdGetDatum(gone)))
			continue;
		LWLockAcquire(&sf_locks[0].lock, LW_EXCLUSIVE);
		s = &sf_shared->slots[i].slot;
		if (s->dboid == gone)
		{
			LWLock	   *lock = &sf_locks[1 + s->index].lock;

			LWLockAcquire(lock, LW_EXCLUSIVE);
			sf_slot_reset(s);
			pg_write_barrier();
			s->dboid = MyDatabaseId;
			LWLockRelease(lock);
			LWLockRelease(&sf_locks[0].lock);
			return s;
		}
		LWLockRelease(&sf_locks[0].lock);
	}
	return NULL;
}

/* Raise an atomic to at least v. */
static void
sf_atomic_max(pg_atomic_uint64 *a, int64 v)
{
	uint64		cur = pg_atomic_read_u64(a);

	while (cur == SF_NONE || (int64) cur < v)
	{
		if (pg_atomic_compare_exchange_u64(a, &cur, (uint64) v))
			break;
	}
}

typedef struct sf_sync_arg
{
	cid_sf_slot *slot;
	int64		need;			/* the mark must cover this body */
	Oid			relid;
	Oid			relfilenode;
	int64		mark;			/* out: what was written */
} sf_sync_arg;

/*
 * Under the buffer lock, with the slot's LWLock held: fold a page changed
 * by someone else (a backend on the page path, a restart, a restore's
 * setval(), a rewrite) into the state, then choose the mark to write: one
 * margin above the state, the page and need, and never below the previous
 * mark (a backend may be issuing bodies under it right now).  So the state
 * never goes down, even when the page does.
 */
static int64
sf_mark_for(int64 page_last, void *arg)
{
	sf_sync_arg *a = (sf_sync_arg *) arg;
	cid_sf_slot *s = a->slot;
	int64		base;

	if (!s->loaded || page_last != s->page_value ||
		s->relid != a->relid || s->relfilenode != a->relfilenode)
		sf_atomic_max(&s->state, page_last);

	/*
	 * A page that already covers everything the slot has issued or may
	 * issue under its published mark is the mark as it is (the first use
	 * after a start or a crash): nothing is written, so a call that then
	 * fails (a clock past the layout's end) leaves no trace.
	 */
	if (Max(Max(sf_load(&s->state), a->need), (int64) pg_atomic_read_u64(&s->mark)) <= page_last)
	{
		a->mark = page_last;
		return 0;
	}
	base = Max(sf_load(&s->state), page_last);
	base = Max(base, a->need);
	base = Max(base, 0);
	a->mark = Max(base + CID_SF_MARGIN, (int64) pg_atomic_read_u64(&s->mark));
	return a->mark;
}

/*
 * Slow path, under the slot's LWLock: (re)read the page and write a mark
 * covering need.  The mark is published after its WAL record is inserted,
 * so a backend that issues a body under it and then commits flushes that
 * record with its own commit (WAL positions are reserved in order).
 */
static void
sf_slot_sync(cid_sf_slot *s, Oid relid, Oid relfilenode, Oid guard, int64 need,
			 bool force)
{
	LWLock	   *lock = &sf_locks[1 + s->index].lock;
	Relation	rel;
	sf_sync_arg a;

	LWLockAcquire(lock, LW_EXCLUSIVE);
	if (!force && s->loaded && s->relid == relid && s->relfilenode == relfilenode &&
		(int64) pg_atomic_read_u64(&s->mark) >= need)
	{
		/* another backend did it while we waited */
		LWLockRelease(lock);
		return;
	}
	a.slot = s;
	a.need = need;
	a.relid = relid;
	a.relfilenode = relfilenode;
	a.mark = 0;
	/* the caller holds RowExclusiveLock for the transaction */
	rel = relation_open(relid, NoLock);
	(void) cid_sf_page_read_write(rel, guard, sf_mark_for, &a);
	relation_close(rel, NoLock);
	s->page_value = a.mark;
	s->loaded = true;
	s->relid = relid;
	s->relfilenode = relfilenode;
	pg_write_barrier();
	pg_atomic_write_u64(&s->mark, (uint64) a.mark);
	LWLockRelease(lock);
}

int
cid_sf_slot_step(cid_sf_slot *s, Oid mark_relid, Oid relfilenode, Oid guard,
				 int64 floor, int64 block, int64 *next)
{
	static LocalTransactionId checked_lxid = InvalidLocalTransactionId;
	int64		body = 0;
	int			rc;

	if (!s->loaded || s->relid != mark_relid || s->relfilenode != relfilenode)
		sf_slot_sync(s, mark_relid, relfilenode, guard, 0, false);
	else if (OidIsValid(guard) && checked_lxid != cid_sf_current_lxid())
	{
		/*
		 * Once per transaction, a page that someone else changed by
		 * setval() (the owner may since 0.7.0: its restore) is read again
		 * at once.  Set forward, it says IDs up to there were used
		 * elsewhere (a restore into a database that minted since the
		 * start), so the state must pass it now, not once the slot's own
		 * mark runs out; set back, it is written up again, so that a
		 * pg_dump finds the mark, not the lowered value.
		 */
		Relation	rel = relation_open(mark_relid, NoLock);
		int64		page = cid_sf_page_peek(rel);

		relation_close(rel, NoLock);
		checked_lxid = cid_sf_current_lxid();
		if (page != s->page_value)
			sf_slot_sync(s, mark_relid, relfilenode, guard, 0, true);
	}

	for (;;)
	{
		uint64		cur = pg_atomic_read_u64(&s->state);
		int64_t		now_ns;

		/*
		 * The state is loaded before the clock is read (as the core's
		 * driver does): whoever issued it read the clock earlier, so a
		 * state ahead of this reading is a clock that really went back.
		 */
		pg_read_barrier();
		now_ns = cid_sf_clock_ns();
		rc = cid_sf_decide(cur == SF_NONE ? -1 : (int64) cur, floor, block, now_ns,
						   &body);
		if (rc < 0)
			return rc;
		if (pg_atomic_compare_exchange_u64(&s->state, &cur, (uint64) body))
			break;
	}
	if (body > (int64) pg_atomic_read_u64(&s->mark))
		sf_slot_sync(s, mark_relid, relfilenode, guard, body, false);
	*next = body;
	return rc;
}
