/*
 * snowflake_int.h — private interface between the snowflake files of the
 * extension: the sequence page access (snowflake_seqpage.c) and the shared
 * slots of the preloaded mode (snowflake_shared.c).
 */
#ifndef SNOWFLAKE_INT_H
#define SNOWFLAKE_INT_H

#include "cid_pg.h"

#include "storage/proc.h"
#include "utils/rel.h"

/*
 * How far ahead of the issued body a WAL record puts the sequence: one
 * second of bodies (1000 ms << 12 counter bits).  Steady use writes about
 * one WAL record per second per sequence; after a crash, IDs resume up to
 * one second ahead of the clock.
 */
#define CID_SF_MARGIN	(INT64CONST(1000) << 12)

/*
 * The non-preloaded step, under the sequence buffer's exclusive lock:
 * body = max(now_body, last + 1), WAL-logging a new mark (body + margin)
 * when body passes the logged one or a checkpoint came since.  Returns the
 * body; the caller holds RowExclusiveLock on the sequence.
 */
int64		cid_sf_page_next(Oid relid, int64 now_body);

/* A catalog change: the page path reads its sequence's buffer again. */
void		cid_sf_page_forget(void);

/*
 * The preloaded mode's page access: read the sequence's last taken body
 * (last_value, or last_value - 1 before the first call), then, if mark >
 * 0, store mark as last_value (called) with a WAL record, in one hold of
 * the buffer lock.  Returns the body read.
 */
int64		cid_sf_page_read_write(Relation rel, int64 (*mark_for) (int64 page_last, void *arg),
								   void *arg);

/* The last taken body, read under a share lock (no change). */
int64		cid_sf_page_peek(Relation rel);

/*
 * This backend's local transaction id: what the per-transaction caches of
 * the snowflake files are keyed on (17 moved it into MyProc->vxid).
 */
static inline LocalTransactionId
cid_sf_current_lxid(void)
{
#if PG_VERSION_NUM >= 170000
	return MyProc->vxid.lxid;
#else
	return MyProc->lxid;
#endif
}

/* snowflake_shared.c: register the shared slots (from _PG_init). */
void		cid_sf_shared_init(void);

/* True once the preloaded shared slots exist in this server. */
bool		cid_sf_shared_ready(void);

/*
 * A sequence's shared slot, or NULL when every slot is taken (the caller
 * then uses the page path).  Slots live as long as the server.
 */
struct cid_sf_slot;
struct cid_sf_slot *cid_sf_slot_find(Oid relid);

/*
 * The preloaded step: the next body from the slot, lock-free unless a new
 * mark must be persisted (then under the slot's LWLock, through rel).
 * relfilenode is the sequence's current one (a change means a rewrite:
 * ALTER SEQUENCE RESTART, TRUNCATE ... RESTART IDENTITY); check_page
 * asks to compare the page with the slot first (once per statement).
 */
int64		cid_sf_slot_next(struct cid_sf_slot *slot, Oid relid, Oid relfilenode,
							 int64 now_body, bool check_page);

#endif							/* SNOWFLAKE_INT_H */
