/*
 * snowflake_seqpage.c — read-modify-write of a sequence's single tuple for
 * snowflake.nextval() (the ID space's mark, snowflake.node_mark) the way
 * core nextval_internal() does it (PostgreSQL src/backend/commands/
 * sequence.c), with a WAL record per time margin instead of per
 * SEQ_LOG_VALS values; and the share-locked read of a floor.
 */
#include "snowflake_internal.h"

#include "access/htup_details.h"
#include "access/relation.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "access/xloginsert.h"
#include "common/int.h"
#include "commands/sequence.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/bufpage.h"
#include "storage/proc.h"
#include "utils/builtins.h"
#include "utils/resowner.h"

/*
 * The special space of a sequence page holds this magic; core's
 * sequence.c keeps both private (SEQ_MAGIC, sequence_magic), unchanged
 * since PostgreSQL 7.
 */
#define SF_SEQ_MAGIC	0x1717

typedef struct sf_sequence_magic
{
	uint32		magic;
} sf_sequence_magic;

/*
 * The tuple of the sequence page in buf, which the caller has pinned and
 * exclusively locked.  As core's read_seq_tuple(): a leftover xmax (from
 * SELECT FOR UPDATE on a sequence in old releases) is cleared.
 */
static Form_pg_sequence_data
sf_locked_tuple(const char *relname, Buffer buf, HeapTupleData *tup)
{
	Page		page;
	ItemId		lp;
	sf_sequence_magic *sm;

	page = BufferGetPage(buf);
	sm = (sf_sequence_magic *) PageGetSpecialPointer(page);
	if (sm->magic != SF_SEQ_MAGIC)
		elog(ERROR, "bad magic number in sequence \"%s\": %08X",
			 relname, sm->magic);
	lp = PageGetItemId(page, FirstOffsetNumber);
	Assert(ItemIdIsNormal(lp));
	tup->t_data = (HeapTupleHeader) PageGetItem(page, lp);
	tup->t_len = ItemIdGetLength(lp);
	if (HeapTupleHeaderGetRawXmax(tup->t_data) != InvalidTransactionId)
	{
		HeapTupleHeaderSetXmax(tup->t_data, InvalidTransactionId);
		tup->t_data->t_infomask &= ~HEAP_XMAX_COMMITTED;
		tup->t_data->t_infomask |= HEAP_XMAX_INVALID;
		MarkBufferDirtyHint(buf, true);
	}
	return (Form_pg_sequence_data) GETSTRUCT(tup);
}

static Form_pg_sequence_data
sf_read_tuple(Relation rel, Buffer *buf, HeapTupleData *tup)
{
	*buf = ReadBuffer(rel, 0);
	LockBuffer(*buf, BUFFER_LOCK_EXCLUSIVE);
	return sf_locked_tuple(RelationGetRelationName(rel), *buf, tup);
}

/*
 * Store last/log_cnt in the tuple; when wal, first WAL-log the tuple
 * as it would be with last_value = logged_value (what replay
 * restores after a crash), exactly the record core writes (XLOG_SEQ_LOG:
 * xl_seq_rec then the tuple), so standard redo applies it.
 */
static void
sf_write_tuple_logged(bool wal, const xl_seq_rec *xlrec, Buffer buf,
					  HeapTupleData *tup, Form_pg_sequence_data seq, int64 last,
					  int64 log_cnt, int64 logged_value)
{
	/* So that this transaction's commit flushes the record (as core). */
	if (wal)
		GetTopTransactionId();

	START_CRIT_SECTION();
	MarkBufferDirty(buf);
	if (wal)
	{
		XLogRecPtr	recptr;

		XLogBeginInsert();
		XLogRegisterBuffer(0, buf, REGBUF_WILL_INIT);
		seq->last_value = logged_value;
		seq->is_called = true;
		seq->log_cnt = 0;
		XLogRegisterData((char *) xlrec, sizeof(xl_seq_rec));
		XLogRegisterData((char *) tup->t_data, tup->t_len);
		recptr = XLogInsert(RM_SEQ_ID, XLOG_SEQ_LOG);
		PageSetLSN(BufferGetPage(buf), recptr);
	}
	seq->last_value = last;
	seq->is_called = true;
	seq->log_cnt = log_cnt;
	END_CRIT_SECTION();
}

/* As above; logged_value 0 (a snowflake body is never 0) means no record. */
static void
sf_write_tuple(bool needs_wal, const xl_seq_rec *xlrec, Buffer buf,
			   HeapTupleData *tup, Form_pg_sequence_data seq, int64 last,
			   int64 log_cnt, int64 logged_value)
{
	sf_write_tuple_logged(logged_value > 0 && needs_wal, xlrec, buf, tup, seq,
						  last, log_cnt, logged_value);
}

/* The WAL record header naming rel's storage. */
static void
sf_xlrec(Relation rel, xl_seq_rec *xlrec)
{
	/* 16 renamed RelFileNode to RelFileLocator */
#if PG_VERSION_NUM >= 160000
	xlrec->locator = rel->rd_locator;
#else
	xlrec->node = rel->rd_node;
#endif
}

/* ------------------------------------------------------------------------
 * The mark's guard, snowflake.node_mark_guard (0.7.0)
 *
 * The database's owner may setval() the mark, so that its restore brings
 * the dumped mark back; the guard, which only this module writes, keeps
 * the highest mark ever logged, so a mark set back (a restore of an older
 * dump, a mistake) never lowers the ID space.  A page is intact while
 * what it covers (last_value + log_cnt: the mark its WAL record holds)
 * reaches the guard.  Every mark this module logs goes to the guard too,
 * and before bodies are issued under a page that covers more than the
 * guard (a setval() forward, core nextval() of the mark logging its own
 * record), the guard is raised to it: so the guard covers every body
 * issued, and a page set back covers less than the guard, which is then
 * the last body.
 * ------------------------------------------------------------------------ */

/*
 * The page LSN at which this backend last found the mark intact, and the
 * relation: a page set back by setval() gets a new LSN (setval() logs
 * it), so an unchanged LSN spares reading the guard.
 */
static XLogRecPtr sf_intact_lsn = InvalidXLogRecPtr;
static Oid	sf_intact_relid = InvalidOid;

/* The highest mark this module logs: the layout's last body and a margin. */
static int64
sf_last_loggable(void)
{
	return (INT64CONST(1) << (cid_sf_layout.bits[CID_FIELD_TIME] +
							  cid_sf_layout.bits[CID_FIELD_SEQ])) - 1 + CID_SF_MARGIN;
}

/* The guard's value (-1 before the first mark); the caller holds its lock. */
static int64
sf_guard_read(Oid guard)
{
	Relation	rel = relation_open(guard, NoLock);
	int64		v = cid_sf_page_peek(rel);

	relation_close(rel, NoLock);
	return v;
}

/* Raise the guard to mark (never lower it), with a WAL record. */
static void
sf_guard_raise(Oid guard, int64 mark)
{
	Relation	rel;
	Buffer		buf;
	HeapTupleData tup;
	Form_pg_sequence_data seq;
	xl_seq_rec	xlrec;

	if (!OidIsValid(guard))
		return;
	rel = relation_open(guard, NoLock);
	buf = ReadBuffer(rel, 0);
	LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
	seq = sf_locked_tuple(RelationGetRelationName(rel), buf, &tup);
	if (!seq->is_called || seq->last_value < mark)
	{
		sf_xlrec(rel, &xlrec);
		sf_write_tuple_logged(RelationNeedsWAL(rel), &xlrec, buf, &tup, seq, mark, 0, mark);
	}
	UnlockReleaseBuffer(buf);
	relation_close(rel, NoLock);
}

/*
 * The last body of the ID space from the mark's locked page: the page's,
 * or the guard's when the page was set back below it.
 */
static int64
sf_guarded_last(Oid relid, Buffer buf, Form_pg_sequence_data seq, Oid guard)
{
	int64		last = seq->is_called ? seq->last_value : seq->last_value - 1;
	int64		covered = seq->is_called ? seq->last_value + seq->log_cnt : last;
	XLogRecPtr	lsn = PageGetLSN(BufferGetPage(buf));
	int64		g;

	if (!OidIsValid(guard) || (sf_intact_relid == relid && sf_intact_lsn == lsn))
		return last;

	/*
	 * A mark set past the layout's end (by its owner since 0.7.0) holds no
	 * ID: every call fails, and neither the guard nor a preloaded slot
	 * takes it, so that setting it back is believed again.
	 */
	if (last > sf_last_loggable())
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("snowflake.node_mark value " INT64_FORMAT " lies past the last snowflake", last),
				 errdetail("Snowflake bodies end at " INT64_FORMAT "; nothing was minted.",
						   sf_last_loggable() - CID_SF_MARGIN),
				 errhint("Set the mark back to the last ID's body: SELECT setval('snowflake.node_mark', ...).")));
	g = sf_guard_read(guard);
	if (covered >= g)
	{
		if (covered > g && covered <= sf_last_loggable())
			sf_guard_raise(guard, covered);
		sf_intact_relid = relid;
		sf_intact_lsn = lsn;
		return last;
	}
	return Max(last, g);
}

/*
 * The page path keeps its sequence's buffer pinned for the rest of the
 * transaction, so that a call only locks and changes it: no relcache or
 * buffer-mapping lookup per ID.  No relcache reference is kept (DROP in
 * the same transaction still works); the pin is given back before commit
 * (before dropped storage goes) and by the resource owner on abort.
 */
static struct
{
	bool		valid;
	bool		stale;			/* a catalog change since: read again */
	Oid			relid;
	LocalTransactionId lxid;
	Buffer		buf;
	bool		needs_wal;
	xl_seq_rec	xlrec;
	NameData	relname;
}			sf_held;

static void
sf_held_release(void)
{
	if (sf_held.valid && sf_held.lxid == cid_sf_current_lxid() &&
		TopTransactionResourceOwner != NULL)
	{
		ResourceOwner save = CurrentResourceOwner;

		CurrentResourceOwner = TopTransactionResourceOwner;
		ReleaseBuffer(sf_held.buf);
		CurrentResourceOwner = save;
	}
	sf_held.valid = false;
}

static void
sf_held_xact(XactEvent event, void *arg)
{
	(void) arg;
	if (!sf_held.valid)
		return;
	if (event == XACT_EVENT_PRE_COMMIT || event == XACT_EVENT_PRE_PREPARE)
		sf_held_release();
	else if (event == XACT_EVENT_ABORT || event == XACT_EVENT_PARALLEL_ABORT ||
			 event == XACT_EVENT_COMMIT || event == XACT_EVENT_PREPARE)
		sf_held.valid = false;	/* the resource owner has it */
}

void
cid_sf_page_forget(void)
{
	sf_held.stale = true;
}

/*
 * The page keeps core's meaning: last_value is the last body taken and
 * log_cnt how many more are covered by WAL, so core nextval() on the same
 * sequence stays consistent with it.  A new record is due when the body
 * passes last_value + log_cnt, or when no record came since the last
 * checkpoint's redo pointer (a crash would restore the checkpointed page,
 * not our later in-memory values: core's rule).  Nothing is written when
 * decide fails or asks to wait.
 */
int
cid_sf_page_step(Oid relid, Oid guard, cid_sf_decide_fn decide, void *arg, int64 *next)
{
	static bool registered = false;
	HeapTupleData tup;
	Form_pg_sequence_data seq;
	int64		last;
	int64		body = 0;
	int64		covered;
	int64		logged = 0;
	int			rc;

	if (sf_held.valid &&
		(sf_held.stale || sf_held.relid != relid || sf_held.lxid != cid_sf_current_lxid()))
		sf_held_release();
	if (!sf_held.valid)
	{
		Relation	rel;
		ResourceOwner save = CurrentResourceOwner;

		if (!registered)
		{
			RegisterXactCallback(sf_held_xact, NULL);
			registered = true;
		}
		/* the caller holds RowExclusiveLock for the transaction */
		rel = relation_open(relid, NoLock);
		CurrentResourceOwner = TopTransactionResourceOwner;
		sf_held.buf = ReadBuffer(rel, 0);
		CurrentResourceOwner = save;
		sf_held.needs_wal = RelationNeedsWAL(rel);
		sf_xlrec(rel, &sf_held.xlrec);
		namestrcpy(&sf_held.relname, RelationGetRelationName(rel));
		relation_close(rel, NoLock);
		sf_held.relid = relid;
		sf_held.lxid = cid_sf_current_lxid();
		sf_held.stale = false;
		sf_held.valid = true;
	}

	LockBuffer(sf_held.buf, BUFFER_LOCK_EXCLUSIVE);
	/* an error in decide releases the lock with the transaction's abort */
	seq = sf_locked_tuple(NameStr(sf_held.relname), sf_held.buf, &tup);
	last = sf_guarded_last(relid, sf_held.buf, seq, guard);
	rc = decide(last, arg, &body);
	if (rc >= 0)
	{
		covered = seq->is_called ? seq->last_value + seq->log_cnt : 0;
		if (body > covered || PageGetLSN(BufferGetPage(sf_held.buf)) <= GetRedoRecPtr())
		{
			logged = body + CID_SF_MARGIN;
			sf_write_tuple(sf_held.needs_wal, &sf_held.xlrec, sf_held.buf, &tup, seq,
						   body, CID_SF_MARGIN, logged);
		}
		else
			sf_write_tuple(sf_held.needs_wal, &sf_held.xlrec, sf_held.buf, &tup, seq,
						   body, covered - body, 0);
		/* under the mark's lock, so guards are raised in the marks' order */
		if (logged > 0)
			sf_guard_raise(guard, logged);
		sf_intact_relid = relid;
		sf_intact_lsn = PageGetLSN(BufferGetPage(sf_held.buf));
		*next = body;
	}
	LockBuffer(sf_held.buf, BUFFER_LOCK_UNLOCK);
	return rc;
}

int64
cid_sf_page_read_write(Relation rel, Oid guard,
					   int64 (*mark_for) (int64 page_last, void *arg), void *arg)
{
	Buffer		buf;
	HeapTupleData tup;
	Form_pg_sequence_data seq;
	int64		last;
	int64		mark;

	xl_seq_rec	xlrec;

	seq = sf_read_tuple(rel, &buf, &tup);
	last = sf_guarded_last(RelationGetRelid(rel), buf, seq, guard);
	mark = mark_for(last, arg);

	/*
	 * A page set back below its guard is written up to it even when the
	 * guard covers what the slot needs: a pg_dump must not find it low.
	 */
	if (mark <= 0 && last > (seq->is_called ? seq->last_value : seq->last_value - 1))
		mark = last;
	if (mark > 0)
	{
		sf_xlrec(rel, &xlrec);
		sf_write_tuple(RelationNeedsWAL(rel), &xlrec, buf, &tup, seq, mark, 0, mark);
		sf_guard_raise(guard, mark);
	}
	UnlockReleaseBuffer(buf);
	return last;
}

bool
cid_sf_page_reserve(Relation rel, int64 n, int64 maxv, int64 *first, int64 *left)
{
	Buffer		buf;
	HeapTupleData tup;
	Form_pg_sequence_data seq;
	int64		next;
	int64		last;
	bool		wal = RelationNeedsWAL(rel);
	xl_seq_rec	xlrec;

	seq = sf_read_tuple(rel, &buf, &tup);

	/*
	 * After the first nextval() last_value was handed out; before it,
	 * last_value (the START) is next.  MAXVALUE itself taken: none left.
	 */
	if (seq->is_called && seq->last_value >= maxv)
		*left = 0;
	else
	{
		next = seq->is_called ? seq->last_value + 1 : seq->last_value;
		*first = next;
		/* maxv - next + 1 values remain; it may exceed int64: saturate */
		if (pg_sub_s64_overflow(maxv, next, left) || *left == PG_INT64_MAX)
			*left = PG_INT64_MAX;
		else
			*left += 1;
	}
	if (*left < n)
	{
		UnlockReleaseBuffer(buf);
		return false;
	}
	last = *first + (n - 1);

	/*
	 * The record restores last_value = last after a crash, so replay
	 * never gives the block again; log_cnt 0 makes the next nextval()
	 * log its own.
	 */
	sf_xlrec(rel, &xlrec);
	sf_write_tuple_logged(wal, &xlrec, buf, &tup, seq, last, 0, last);
	UnlockReleaseBuffer(buf);

	/*
	 * Core nextval() leaves its record to the commit's flush, which a
	 * rollback or synchronous_commit = off skips: the caller may use a
	 * block whatever becomes of its transaction, so the record is on disk
	 * before the block is returned (one flush per block).
	 */
	if (wal)
		XLogFlush(XactLastRecEnd);
	return true;
}

int64
cid_sf_page_peek(Relation rel)
{
	Buffer		buf;
	Page		page;
	ItemId		lp;
	HeapTupleData tup;
	Form_pg_sequence_data seq;
	int64		last;

	buf = ReadBuffer(rel, 0);
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buf);
	if (((sf_sequence_magic *) PageGetSpecialPointer(page))->magic != SF_SEQ_MAGIC)
		elog(ERROR, "bad magic number in sequence \"%s\"",
			 RelationGetRelationName(rel));
	lp = PageGetItemId(page, FirstOffsetNumber);
	tup.t_data = (HeapTupleHeader) PageGetItem(page, lp);
	tup.t_len = ItemIdGetLength(lp);
	seq = (Form_pg_sequence_data) GETSTRUCT(&tup);
	last = seq->is_called ? seq->last_value : seq->last_value - 1;
	UnlockReleaseBuffer(buf);
	return last;
}
