/*
 * snowflake_space.c — the snowflake ID space of a database: every sequence
 * draws its bodies from one state, so no two snowflakes minted in the
 * database repeat, whatever sequence they come from.  The pure decision
 * (snowflake_decide.c) picks each next state; the state lives in a shared
 * slot (preloaded) or on the page of snowflake.node_mark, which is always
 * its durable mark.
 */
#include "snowflake_internal.h"

#include <string.h>

#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "commands/dbcommands.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/resowner.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"

/* A warning about a clock set back goes out at most this often per backend. */
#define CID_SF_WARN_EVERY_MS	INT64CONST(10000)

/* How long a call waits for a clock that does not advance. */
#define CID_SF_MAX_WAIT_MS		INT64CONST(1000)

/* ------------------------------------------------------------------------
 * snowflake.node_mark
 * ------------------------------------------------------------------------ */

static Oid	sf_mark_relid = InvalidOid;
static Oid	sf_mark_relfilenode = InvalidOid;
static Oid	sf_mark_locked = InvalidOid;	/* locked in transaction sf_mark_lxid */
static Oid	sf_guard_relid = InvalidOid;	/* snowflake.node_mark_guard, if any */
static LocalTransactionId sf_mark_lxid = InvalidLocalTransactionId;
static bool sf_mark_callback = false;

/* A change to pg_class: look the mark up again. */
static void
sf_mark_invalidate(Datum arg, int cacheid, uint32 hashvalue)
{
	(void) arg;
	(void) cacheid;
	(void) hashvalue;
	sf_mark_relid = InvalidOid;
}

/*
 * As a sequence's own lock: once per transaction, owned by the top
 * transaction, so DDL on the mark (and on its guard) waits for minting to
 * commit.
 */
static void
sf_mark_lock(Oid relid, Oid guard)
{
	ResourceOwner save = CurrentResourceOwner;

	CurrentResourceOwner = TopTransactionResourceOwner;
	LockRelationOid(relid, RowExclusiveLock);
	if (OidIsValid(guard))
		LockRelationOid(guard, RowExclusiveLock);
	CurrentResourceOwner = save;
	sf_mark_locked = relid;
	sf_mark_lxid = cid_sf_current_lxid();
}

/*
 * snowflake.node_mark_guard (0.7.0): the highest mark this module logged.
 * A database whose SQL predates it has none, and its mark is then
 * writable by superusers only.
 */
static Oid
sf_guard_lookup(Oid nsp)
{
	Oid			relid = get_relname_relid("node_mark_guard", nsp);

	return OidIsValid(relid) && get_rel_relkind(relid) == RELKIND_SEQUENCE ? relid : InvalidOid;
}

Oid
cid_sf_guard_relid(void)
{
	return sf_guard_relid;
}

Oid
cid_sf_mark_relid(Oid *relfilenode)
{
	if (!sf_mark_callback)
	{
		CacheRegisterSyscacheCallback(RELOID, sf_mark_invalidate, (Datum) 0);
		sf_mark_callback = true;
	}
	/* taking the lock processes invalidations, which may clear the cache */
	if (OidIsValid(sf_mark_relid) && sf_mark_lxid != cid_sf_current_lxid())
		sf_mark_lock(sf_mark_relid, sf_guard_relid);
	while (!OidIsValid(sf_mark_relid))
	{
		Oid			nsp = get_namespace_oid("snowflake", true);
		Oid			relid = OidIsValid(nsp) ? get_relname_relid("node_mark", nsp) : InvalidOid;
		Oid			guard;
		HeapTuple	tup;

		if (!OidIsValid(relid) || get_rel_relkind(relid) != RELKIND_SEQUENCE)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("sequence snowflake.node_mark does not exist"),
					 errdetail("snowflake.nextval() keeps the high-water mark of every "
							   "snowflake of the database in it since chronoid 0.2.0."),
					 errhint("Run ALTER EXTENSION chronoid UPDATE.")));
		guard = sf_guard_lookup(nsp);
		if (sf_mark_locked != relid || sf_mark_lxid != cid_sf_current_lxid() ||
			sf_guard_relid != guard)
			sf_mark_lock(relid, guard);
		tup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
		if (!HeapTupleIsValid(tup))
			continue;			/* dropped meanwhile: look again */
		sf_mark_relfilenode = ((Form_pg_class) GETSTRUCT(tup))->relfilenode;
		ReleaseSysCache(tup);
		sf_guard_relid = guard;
		sf_mark_relid = relid;
	}
	if (relfilenode != NULL)
		*relfilenode = sf_mark_relfilenode;
	return sf_mark_relid;
}

/* ------------------------------------------------------------------------
 * The step with its waits, warnings and errors
 * ------------------------------------------------------------------------ */

typedef struct sf_page_arg
{
	int64		floor;
	int64		block;
} sf_page_arg;

static int
sf_page_decide(int64 page_last, void *arg, int64 *next)
{
	sf_page_arg *a = (sf_page_arg *) arg;

	/* under the buffer lock: the state is read before the clock */
	return cid_sf_decide(page_last, a->floor, a->block, cid_sf_clock_ns(), next);
}

/* ms of a body, as a timestamp's text, for messages. */
static char *
sf_body_text(int64 body)
{
	int64		ms = cid_sf_layout.epoch_ms +
		(body >> cid_sf_layout.bits[CID_FIELD_SEQ]) * cid_sf_layout.tick_ms;

	return DatumGetCString(DirectFunctionCall1(timestamptz_out,
											   TimestampTzGetDatum(cid_pg_unix_ms_to_ts(ms))));
}

static int64
sf_lead_ms(int64 body, int64_t now_ns)
{
	return ((body - cid_sf_body_of_ns(now_ns)) >> cid_sf_layout.bits[CID_FIELD_SEQ]) *
		cid_sf_layout.tick_ms;
}

int64
cid_sf_space_next(int64 floor, int64 block, Oid seqrelid)
{
	static int64 warned_ms = 0;
	Oid			relfilenode;
	Oid			mark_relid = cid_sf_mark_relid(&relfilenode);
	static struct cid_sf_slot *slot = NULL;
	static Oid	slot_db = InvalidOid;
	static bool slot_looked = false;
	int64		next = 0;
	int64_t		wait_start = 0;
	int64		slept_us = 0;
	bool		waited = false;
	int			rc;

	if (!slot_looked || slot_db != MyDatabaseId)
	{
		slot = cid_sf_shared_ready() ? cid_sf_slot_find() : NULL;
		slot_db = MyDatabaseId;
		slot_looked = true;
		if (slot == NULL && cid_sf_shared_ready())
			ereport(WARNING,
					(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
					 errmsg("no shared snowflake slot left for database \"%s\"",
							get_database_name(MyDatabaseId)),
					 errdetail("snowflake.nextval() in this database takes the buffer lock "
							   "of snowflake.node_mark for every ID."),
					 errhint("Raise snowflake.max_shared_databases (now %s) and restart the server.",
							 GetConfigOption("snowflake.max_shared_databases", false, false))));
	}

	for (;;)
	{
		int64_t		now_ns;

		if (slot != NULL)
			rc = cid_sf_slot_step(slot, mark_relid, relfilenode, cid_sf_guard_relid(),
								  floor, block, &next);
		else
		{
			sf_page_arg a;

			a.floor = floor;
			a.block = block;
			rc = cid_sf_page_step(mark_relid, cid_sf_guard_relid(), sf_page_decide, &a, &next);
		}
		if (rc != CID_EEXHAUSTED)
			break;

		/*
		 * The bound: as the core's wait policy, wait for the clock's next
		 * tick, and give up on a clock that does not advance.  The wait
		 * counts by the clock or by the time slept, whichever is more, so
		 * a stopped clock cannot hold a call forever.
		 */
		now_ns = cid_sf_clock_ns();
		if (!waited)
		{
			waited = true;
			wait_start = now_ns;
		}
		else if (Max(now_ns - wait_start, slept_us * 1000) >= CID_SF_MAX_WAIT_MS * 1000000)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("snowflake.nextval() waited " INT64_FORMAT " ms for the clock to advance",
							CID_SF_MAX_WAIT_MS),
					 errdetail("The IDs of this database are snowflake.max_run_ahead (%d ms) "
							   "ahead of the clock.", cid_sf_max_run_ahead)));
		CHECK_FOR_INTERRUPTS();
		{
			long		us = 1000 - (long) ((now_ns / 1000) % 1000);

			pg_usleep(us);
			slept_us += us;
		}
		CHECK_FOR_INTERRUPTS();
	}

	switch (rc)
	{
		case CID_OK:
		case CID_WTICK_BORROWED:
			break;
		case CID_WCLOCK_BEHIND:
			{
				int64_t		now_ns = cid_sf_clock_ns();
				int64		now_ms = now_ns / 1000000;

				if (now_ms - warned_ms >= CID_SF_WARN_EVERY_MS || now_ms < warned_ms)
				{
					warned_ms = now_ms;
					ereport(WARNING,
							(errmsg("snowflake IDs run " INT64_FORMAT " ms ahead of the clock",
									sf_lead_ms(next, now_ns)),
							 errdetail("The last snowflake of this database is at %s, beyond "
									   "snowflake.max_run_ahead (%d ms): the clock was set back, "
									   "or the server restarted after minting ahead of it.",
									   sf_body_text(next), cid_sf_max_run_ahead),
							 errhint("New IDs go on above every earlier one (never a repeat); "
									 "their time is ahead of the clock until it catches up.")));
				}
				break;
			}
		case CID_SF_EFLOOR:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("sequence \"%s\" value " INT64_FORMAT " is too far ahead of the clock for a snowflake",
							get_rel_name(seqrelid), floor),
					 errdetail("Its next ID would lie at %s, " INT64_FORMAT " ms ahead of the clock; "
							   "snowflake.max_run_ahead allows %d ms.",
							   sf_body_text(floor + 1), sf_lead_ms(floor + 1, cid_sf_clock_ns()),
							   cid_sf_max_run_ahead),
					 errhint("Move the sequence back, e.g. SELECT setval('%s', 1): "
							 "snowflakes stay above every earlier one of the database.",
							 quote_qualified_identifier(get_namespace_name(get_rel_namespace(seqrelid)),
														get_rel_name(seqrelid)))));
			break;
		case CID_ETIME_RANGE:
			{
				char		hi[CID_TIME_STRLEN + 1];

				if (cid_time_format(hi, cid_layout_max_ms(&cid_sf_layout)) != CID_OK)
					strcpy(hi, "?");
				ereport(ERROR,
						(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
						 errmsg("the clock is past the last millisecond a snowflake can hold"),
						 errdetail("Snowflakes hold times up to %s; nothing was minted and "
								   "no sequence changed.", hi)));
				break;
			}
		default:
			cid_pg_report(rc, "snowflake.nextval()");
	}
	/* the state is the block's last body; the caller gets its first */
	return next - (block - 1);
}
