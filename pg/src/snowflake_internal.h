/*
 * snowflake_internal.h — private interface between the snowflake files of the
 * extension: the GUCs (snowflake_funcs.c), the database's ID space
 * (snowflake_space.c), the sequence page access (snowflake_seqpage.c), the
 * shared slots of the preloaded mode (preload_snowflake.c) and the node
 * registry (snowflake_registry.c).
 *
 * A body is a snowflake without its node: tick << 12 | counter, the
 * position the core's generator state holds.  Every sequence of a database
 * draws its bodies from one ID space whose durable high-water mark is the
 * sequence snowflake.node_mark; a user's sequence only sets a floor.
 */
#ifndef CID_PG_SNOWFLAKE_INTERNAL_H
#define CID_PG_SNOWFLAKE_INTERNAL_H

#include "chronoid_internal.h"

#include "storage/proc.h"
#include "utils/rel.h"

/*
 * How far ahead of the issued body a WAL record puts the mark: one second
 * of bodies (1000 ms << 12 counter bits).  Steady use writes about one WAL
 * record per second per database; after a crash, IDs resume up to one
 * second ahead of the last one issued.
 */
#define CID_SF_MARGIN	(INT64CONST(1000) << 12)

/* snowflake.node (0: unset), snowflake.max_run_ahead (ms), the layout. */
extern int	cid_sf_node;
extern int	cid_sf_max_run_ahead;
extern cid_layout cid_sf_layout;

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

/* ------------------------------------------------------------------------
 * snowflake_space.c: the ID space of the current database
 * ------------------------------------------------------------------------ */

/*
 * The OID of snowflake.node_mark, locked (RowExclusiveLock) for the rest
 * of the transaction; its relfilenode in *relfilenode when not NULL.  An
 * extension whose SQL predates it (0.1.0) is an error naming the fix.
 */
Oid			cid_sf_mark_relid(Oid *relfilenode);

/*
 * The OID of snowflake.node_mark_guard as the last cid_sf_mark_relid()
 * found it (locked with the mark), InvalidOid for SQL older than 0.7.0.
 * It keeps the highest mark logged, so that a mark set back by setval()
 * (the database owner's restore) never lowers the ID space.
 */
Oid			cid_sf_guard_relid(void);

/*
 * The next body of the ID space, above floor (a sequence's last_value,
 * -1 for none) and above every body issued before in this database, with
 * the block bodies from it on reserved for the caller (a sequence's
 * INCREMENT, at most one tick's counters): a block always lies within one
 * tick, so a sequence's successive counts within a millisecond step by
 * its INCREMENT, and an INCREMENT of a whole tick or more moves each ID
 * to a tick of its own.  Waits at snowflake.max_run_ahead; errors (state
 * unchanged) for a clock past the layout's range and for a floor beyond
 * the run-ahead bound (seqrelid names the sequence in that message).
 */
int64		cid_sf_space_next(int64 floor, int64 block, Oid seqrelid);

/*
 * snowflake_decide.c: the clock reading the step uses, in ns (a clock
 * before the epoch reads as it), and the body of its tick's first count.
 */
int64_t		cid_sf_clock_ns(void);
int64		cid_sf_body_of_ns(int64_t ns);

/* Outcome of cid_sf_decide() for a floor beyond the bound (not a core status). */
#define CID_SF_EFLOOR	(-1000)

/*
 * The pure decision both modes share: the space's next state after last
 * (the state; -1 for none yet) and floor for clock reading now_ns, by the
 * core's policies (borrow up to snowflake.max_run_ahead, then
 * CID_EEXHAUSTED: wait; run ahead of a clock set back: CID_WCLOCK_BEHIND),
 * or CID_SF_EFLOOR when floor lies beyond the bound.  The new state is the
 * last body of a block of block bodies (1 to one tick's counters) within
 * one tick; the body issued is the block's first, *next - (block - 1).
 */
int			cid_sf_decide(int64 last, int64 floor, int64 block, int64_t now_ns,
						  int64 *next);

/* ------------------------------------------------------------------------
 * snowflake_seqpage.c: a sequence's single tuple
 * ------------------------------------------------------------------------ */

/*
 * The non-preloaded step, under the mark sequence's exclusive buffer lock:
 * decide(page_last, arg, &next) and, when it returns a status >= 0, store
 * next, WAL-logging a new mark (next + margin) when next passes the logged
 * one or a checkpoint came since, and raising the guard (InvalidOid: none)
 * to it.  page_last is the guard's value when the page was set back below
 * it.  Returns decide's status, *next set when it is >= 0.  The caller
 * holds RowExclusiveLock on the sequence and the guard.
 */
typedef int (*cid_sf_decide_fn) (int64 page_last, void *arg, int64 *next);
int			cid_sf_page_step(Oid relid, Oid guard, cid_sf_decide_fn decide, void *arg,
							 int64 *next);

/* A catalog change: the page path reads its sequence's buffer again. */
void		cid_sf_page_forget(void);

/*
 * The preloaded mode's page access: read the sequence's last taken body
 * (last_value, or last_value - 1 before the first call; the guard's value
 * when the page was set back below it), then, if mark > 0, store mark as
 * last_value (called) with a WAL record and raise the guard to it, in one
 * hold of the buffer lock.  Returns the body read.
 */
int64		cid_sf_page_read_write(Relation rel, Oid guard,
								   int64 (*mark_for) (int64 page_last, void *arg), void *arg);

/* The last taken body, read under a share lock (no change). */
int64		cid_sf_page_peek(Relation rel);

/*
 * nextval_block()'s page access (sequences of INCREMENT 1): in
 * one hold of the buffer lock, the value nextval() would return next
 * (*first) and, when n values up to maxv remain, make the last of them the
 * sequence's last value with a WAL record that is flushed before the
 * return.  Returns true when reserved; false with *left (values that
 * remain, >= 0) and nothing written otherwise.
 */
bool		cid_sf_page_reserve(Relation rel, int64 n, int64 maxv,
								int64 *first, int64 *left);

/* ------------------------------------------------------------------------
 * preload_snowflake.c: the preloaded mode
 * ------------------------------------------------------------------------ */

/* Register the shared slots (from _PG_init). */
void		cid_sf_shared_init(void);

/* True once the preloaded shared slots exist in this server. */
bool		cid_sf_shared_ready(void);

/*
 * The current database's shared slot, or NULL when every slot is taken by
 * a live database (the caller then uses the page path).
 */
struct cid_sf_slot;
struct cid_sf_slot *cid_sf_slot_find(void);

/*
 * The preloaded step: cid_sf_decide() made to stick by compare-and-swap
 * on the slot, lock-free unless a new mark must be persisted (then under
 * the slot's LWLock, in the page of mark_relid, whose relfilenode the
 * caller passes: a rewrite makes the slot read the page again).  Returns
 * the decision's status, *next set when it is >= 0.
 */
int			cid_sf_slot_step(struct cid_sf_slot *slot, Oid mark_relid,
							 Oid relfilenode, Oid guard, int64 floor, int64 block,
							 int64 *next);

/* ------------------------------------------------------------------------
 * snowflake_registry.c: the node registry (docs/cluster.md)
 * ------------------------------------------------------------------------ */

/*
 * Refuse a node number another server claimed first and register this
 * server's claim: runs snowflake.check_node() on a backend's first ID
 * under a number, then once per transaction until the claim is seen
 * committed, then every 10 s.
 */
void		cid_sf_registry_check(void);

#endif							/* CID_PG_SNOWFLAKE_INTERNAL_H */
