/*
 * snowflake_shared.c — the preloaded mode of snowflake.nextval(): one
 * shared slot per (database, sequence) whose body advances by
 * compare-and-swap, with the sequence page as the durable mark, written
 * (with WAL) only when the issued body passes it.
 */
#include "snowflake_int.h"

#include "access/relation.h"
#include "miscadmin.h"
#include "port/atomics.h"
#include "storage/lwlock.h"
#include "utils/guc.h"

/*
 * A slot.  Key (dboid, relid) is written once, under the allocation
 * lock, before the slot is published by nused; it never changes
 * afterwards (slots live as long as the server).  body is the last issued
 * body; mark the highest body the sequence page holds with its WAL record
 * inserted; mark never goes down.  The rest is written under the slot's
 * LWLock (and read without it only as a hint that a sync is due).  Padded
 * so that two sequences never share a cache line.
 */
typedef struct cid_sf_slot
{
	pg_atomic_uint64 body;
	pg_atomic_uint64 mark;
	Oid			dboid;
	Oid			relid;
	int			index;			/* of its LWLock: locks[1 + index] */
	bool		loaded;			/* page read since server start */
	Oid			relfilenode;	/* of the page last read */
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

/* snowflake.max_shared_sequences (PGC_POSTMASTER) */
static int	sf_max_slots = 128;

static sf_shared_state *sf_shared = NULL;
static LWLockPadded *sf_locks = NULL;

static Size
sf_shared_size(void)
{
	return add_size(offsetof(sf_shared_state, slots),
					mul_size(sizeof(sf_padded_slot), sf_max_slots));
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

			pg_atomic_init_u64(&s->body, 0);
			pg_atomic_init_u64(&s->mark, 0);
			s->dboid = InvalidOid;
			s->relid = InvalidOid;
			s->index = i;
			s->loaded = false;
			s->relfilenode = InvalidOid;
			s->page_value = 0;
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

	DefineCustomIntVariable("snowflake.max_shared_sequences",
							"Sequences that get a shared lock-free slot for snowflake.nextval() when preloaded.",
							"Slots are taken per database and sequence on first use and kept until "
							"the server stops; beyond them snowflake.nextval() uses the sequence page.",
							&sf_max_slots,
							128,
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
cid_sf_slot_find(Oid relid)
{
	uint32		n;
	uint32		i;
	cid_sf_slot *s;

	/* Published slots are immutable in their key: search without a lock. */
	n = pg_atomic_read_u32(&sf_shared->nused);
	pg_read_barrier();
	for (i = 0; i < n; i++)
	{
		s = &sf_shared->slots[i].slot;
		if (s->relid == relid && s->dboid == MyDatabaseId)
			return s;
	}

	LWLockAcquire(&sf_locks[0].lock, LW_EXCLUSIVE);
	n = pg_atomic_read_u32(&sf_shared->nused);
	for (; i < n; i++)
	{
		s = &sf_shared->slots[i].slot;
		if (s->relid == relid && s->dboid == MyDatabaseId)
		{
			LWLockRelease(&sf_locks[0].lock);
			return s;
		}
	}
	if (n >= (uint32) sf_max_slots)
	{
		LWLockRelease(&sf_locks[0].lock);
		return NULL;
	}
	s = &sf_shared->slots[n].slot;
	s->dboid = MyDatabaseId;
	s->relid = relid;
	pg_write_barrier();
	pg_atomic_write_u32(&sf_shared->nused, n + 1);
	LWLockRelease(&sf_locks[0].lock);
	return s;
}

/* Raise an atomic to at least v. */
static void
sf_atomic_max(pg_atomic_uint64 *a, uint64 v)
{
	uint64		cur = pg_atomic_read_u64(a);

	while (cur < v)
	{
		if (pg_atomic_compare_exchange_u64(a, &cur, v))
			break;
	}
}

typedef struct sf_sync_arg
{
	cid_sf_slot *slot;
	int64		need;			/* the mark must cover this body */
	Oid			relfilenode;
	int64		mark;			/* out: what was written */
} sf_sync_arg;

/*
 * Under the buffer lock, with the slot's LWLock held: fold a page changed
 * by someone else (core setval()/nextval(), a restart, a rewrite) into the
 * body, then choose the mark to write: one margin above the body, the page
 * and need, and never below the previous mark (a backend may be issuing
 * bodies under it right now).  A setval() backwards is thus overwritten,
 * never followed.
 */
static int64
sf_mark_for(int64 page_last, void *arg)
{
	sf_sync_arg *a = (sf_sync_arg *) arg;
	cid_sf_slot *s = a->slot;
	int64		base;

	if (!s->loaded || page_last != s->page_value ||
		s->relfilenode != a->relfilenode)
		sf_atomic_max(&s->body, (uint64) Max(page_last, 0));
	base = Max((int64) pg_atomic_read_u64(&s->body), page_last);
	base = Max(base, a->need);
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
sf_slot_sync(cid_sf_slot *s, Oid relid, Oid relfilenode, int64 need, bool force)
{
	LWLock	   *lock = &sf_locks[1 + s->index].lock;
	Relation	rel;
	sf_sync_arg a;

	LWLockAcquire(lock, LW_EXCLUSIVE);
	if (!force && s->loaded && s->relfilenode == relfilenode &&
		(int64) pg_atomic_read_u64(&s->mark) >= need)
	{
		/* another backend did it while we waited */
		LWLockRelease(lock);
		return;
	}
	a.slot = s;
	a.need = need;
	a.relfilenode = relfilenode;
	a.mark = 0;
	/* the caller holds RowExclusiveLock for the transaction */
	rel = relation_open(relid, NoLock);
	(void) cid_sf_page_read_write(rel, sf_mark_for, &a);
	relation_close(rel, NoLock);
	s->page_value = a.mark;
	s->loaded = true;
	s->relfilenode = relfilenode;
	pg_write_barrier();
	pg_atomic_write_u64(&s->mark, (uint64) a.mark);
	LWLockRelease(lock);
}

/*
 * check_page: the caller's first ID of a statement.  Core setval() (or
 * nextval()) changes the page behind the slot's back and tells no one, so
 * each statement first reads the page under a share lock: a page that is
 * not what the slot last wrote is folded in (a setval() forward is
 * honoured from the next statement on).
 */
int64
cid_sf_slot_next(cid_sf_slot *s, Oid relid, Oid relfilenode, int64 now_body,
				 bool check_page)
{
	uint64		cur;
	uint64		next;

	if (!s->loaded || s->relfilenode != relfilenode)
		sf_slot_sync(s, relid, relfilenode, 0, false);
	else if (check_page)
	{
		Relation	rel = relation_open(relid, NoLock);
		int64		page_last = cid_sf_page_peek(rel);

		relation_close(rel, NoLock);
		if (page_last != s->page_value)
			sf_slot_sync(s, relid, relfilenode, 0, true);
	}

	cur = pg_atomic_read_u64(&s->body);
	for (;;)
	{
		next = Max((uint64) now_body, cur + 1);
		if (pg_atomic_compare_exchange_u64(&s->body, &cur, next))
			break;
	}
	if (next > pg_atomic_read_u64(&s->mark))
		sf_slot_sync(s, relid, relfilenode, (int64) next, false);
	return (int64) next;
}
