/*
 * snowflake_nextval.c — snowflake.nextval() and snowflake.currval(): the
 * per-sequence preamble core nextval() has (lock, privileges, read-only
 * and parallel refusals), the sequence's value read as a floor once per
 * statement, then the next body of the database's ID space
 * (snowflake_space.c) composed with snowflake.node.
 */
#include "snowflake_internal.h"

#include <string.h>

#include "access/htup_details.h"
#include "access/relation.h"
#include "access/xact.h"
#include "catalog/pg_class.h"
#include "catalog/pg_sequence.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/resowner.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"

PG_FUNCTION_INFO_V1(chronoid_snowflake_nextval);
PG_FUNCTION_INFO_V1(chronoid_snowflake_currval);

/*
 * Per-sequence session state: the last snowflake this session got from it
 * (snowflake.currval), whether the sequence passed sf_check_sequence()
 * since the last catalog change to pg_class or pg_sequence, the role whose
 * privileges were checked, the transaction that holds its lock, and its
 * value as read for the current statement (the floor).
 */
typedef struct sf_seq_entry
{
	Oid			relid;			/* hash key */
	bool		has_last;
	int64		last;
	bool		checked;
	int64		block;			/* bodies reserved per ID: INCREMENT, capped */
	Oid			acl_ok_user;	/* InvalidOid: check again */
	LocalTransactionId lxid;	/* lock held by this transaction */
	LocalTransactionId floor_lxid;	/* floor read in this transaction, */
	TimestampTz floor_stmt;		/* in the statement that started then */
	int64		floor;
} sf_seq_entry;

static HTAB *sf_seqs = NULL;

/* The entry of the last call: a statement usually repeats its sequence. */
static sf_seq_entry *sf_last_entry = NULL;

/* schema.name, quoted as needed, for hints that are meant to be run. */
static char *
sf_qualified_name(Oid relid)
{
	return quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)),
									  get_rel_name(relid));
}

/*
 * What snowflake.nextval() needs of a sequence.  Its value is a floor for
 * the next ID (setval() forward moves the sequence's IDs past it), so it
 * must be able to hold every body, as a floor of 53 bits plus the margin
 * that 0.1.0 wrote into it (MAXVALUE), and count upwards (INCREMENT), as
 * pgEdge's sequences do.  The ID space's own mark is not a sequence to
 * mint from.  Returns how many bodies each of its IDs reserves.
 */
static int64
sf_check_sequence(Oid relid)
{
	HeapTuple	tup;
	Form_pg_class classform;
	Form_pg_sequence seqform;
	char		relkind;
	int64		incr;
	int64		maxv;

	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	if (!HeapTupleIsValid(tup))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid)));
	classform = (Form_pg_class) GETSTRUCT(tup);
	relkind = classform->relkind;
	ReleaseSysCache(tup);

	if (relkind != RELKIND_SEQUENCE)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a sequence", get_rel_name(relid)),
				 errhint("snowflake.nextval() takes a sequence, such as snowflake.id_seq.")));

	if (relid == cid_sf_mark_relid(NULL))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("snowflake.node_mark is the mark of the snowflake ID space, not a sequence to mint from"),
				 errhint("snowflake.nextval() takes a sequence, such as snowflake.id_seq.")));

	tup = SearchSysCache1(SEQRELID, ObjectIdGetDatum(relid));
	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for sequence %u", relid);
	seqform = (Form_pg_sequence) GETSTRUCT(tup);
	incr = seqform->seqincrement;
	maxv = seqform->seqmax;
	ReleaseSysCache(tup);

	if (incr < 1)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("sequence \"%s\" cannot be used for snowflakes",
						get_rel_name(relid)),
				 errdetail("Its INCREMENT is " INT64_FORMAT "; snowflake.nextval() "
						   "needs an ascending sequence.", incr),
				 errhint("ALTER SEQUENCE %s INCREMENT BY 1",
						 sf_qualified_name(relid))));

	/* 41 bits of time and 12 of counter, plus the margin logged ahead */
	if (maxv < (INT64CONST(1) << (cid_sf_layout.bits[CID_FIELD_TIME] +
								  cid_sf_layout.bits[CID_FIELD_SEQ])) - 1 + CID_SF_MARGIN)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("sequence \"%s\" cannot be used for snowflakes",
						get_rel_name(relid)),
				 errdetail("Its MAXVALUE " INT64_FORMAT " cannot hold the "
						   "millisecond and counter of a snowflake.", maxv),
				 errhint("ALTER SEQUENCE %s AS bigint NO MAXVALUE",
						 sf_qualified_name(relid))));

	/*
	 * pgEdge steps a sequence's count within a millisecond by its
	 * INCREMENT, moving to the next millisecond once the count would pass
	 * the counter's range; one tick's worth or more gives each ID a tick of
	 * its own.
	 */
	return Min(incr, INT64CONST(1) << cid_sf_layout.bits[CID_FIELD_SEQ]);
}

/* A change to pg_class or pg_sequence: check every sequence again. */
static void
sf_invalidate(Datum arg, int cacheid, uint32 hashvalue)
{
	HASH_SEQ_STATUS status;
	sf_seq_entry *e;

	(void) arg;
	(void) cacheid;
	(void) hashvalue;
	cid_sf_page_forget();
	if (sf_seqs == NULL)
		return;
	hash_seq_init(&status, sf_seqs);
	while ((e = (sf_seq_entry *) hash_seq_search(&status)) != NULL)
	{
		e->checked = false;
		e->acl_ok_user = InvalidOid;
	}
}

/* A change to roles or memberships: check privileges again. */
static void
sf_invalidate_acl(Datum arg, int cacheid, uint32 hashvalue)
{
	HASH_SEQ_STATUS status;
	sf_seq_entry *e;

	(void) arg;
	(void) cacheid;
	(void) hashvalue;
	if (sf_seqs == NULL)
		return;
	hash_seq_init(&status, sf_seqs);
	while ((e = (sf_seq_entry *) hash_seq_search(&status)) != NULL)
		e->acl_ok_user = InvalidOid;
}

static sf_seq_entry *
sf_entry(Oid relid, bool create)
{
	sf_seq_entry *e;
	bool		found;

	/* dynahash never moves or frees an entry of this table */
	if (sf_last_entry != NULL && sf_last_entry->relid == relid)
		return sf_last_entry;
	if (sf_seqs == NULL)
	{
		HASHCTL		ctl;

		if (!create)
			return NULL;
		memset(&ctl, 0, sizeof(ctl));
		ctl.keysize = sizeof(Oid);
		ctl.entrysize = sizeof(sf_seq_entry);
		ctl.hcxt = TopMemoryContext;
		sf_seqs = hash_create("snowflake sequences", 16, &ctl,
							  HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
		CacheRegisterSyscacheCallback(RELOID, sf_invalidate, (Datum) 0);
		CacheRegisterSyscacheCallback(SEQRELID, sf_invalidate, (Datum) 0);
		CacheRegisterSyscacheCallback(AUTHOID, sf_invalidate_acl, (Datum) 0);
		CacheRegisterSyscacheCallback(AUTHMEMROLEMEM, sf_invalidate_acl, (Datum) 0);
	}
	e = (sf_seq_entry *) hash_search(sf_seqs, &relid,
									 create ? HASH_ENTER : HASH_FIND, &found);
	if (create && !found)
	{
		e->has_last = false;
		e->last = 0;
		e->checked = false;
		e->block = 1;
		e->acl_ok_user = InvalidOid;
		e->lxid = InvalidLocalTransactionId;
		e->floor_lxid = InvalidLocalTransactionId;
		e->floor_stmt = 0;
		e->floor = -1;
	}
	if (e != NULL)
		sf_last_entry = e;
	return e;
}

static Oid
sf_seq_arg(FunctionCallInfo fcinfo, const char *fname)
{
	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("sequence argument of %s must not be null", fname),
				 errhint("Leave the argument out to use snowflake.id_seq.")));
	return PG_GETARG_OID(0);
}

/*
 * As core's lock_and_open_sequence(): RowExclusiveLock (fast-path
 * eligible, compatible with core nextval()/setval()), taken once per
 * transaction and owned by the top transaction.
 */
static void
sf_lock_sequence(sf_seq_entry *e)
{
	LocalTransactionId thislxid = cid_sf_current_lxid();

	if (e->lxid != thislxid)
	{
		ResourceOwner save = CurrentResourceOwner;

		CurrentResourceOwner = TopTransactionResourceOwner;
		LockRelationOid(e->relid, RowExclusiveLock);
		CurrentResourceOwner = save;
		e->lxid = thislxid;
	}
}

/*
 * The sequence's value as a floor, read once per statement under a share
 * lock: core setval() (forward) and nextval() move it without telling us,
 * and its next ID must then come out above it.  A setval() backwards, a
 * RESTART or a rewrite only lowers a floor, which never lowers the ID
 * space.
 */
static int64
sf_floor(sf_seq_entry *e)
{
	TimestampTz stmt = GetCurrentStatementStartTimestamp();
	LocalTransactionId lxid = cid_sf_current_lxid();

	if (e->floor_stmt != stmt || e->floor_lxid != lxid)
	{
		Relation	rel = relation_open(e->relid, NoLock);

		e->floor = cid_sf_page_peek(rel);
		relation_close(rel, NoLock);
		e->floor_stmt = stmt;
		e->floor_lxid = lxid;
	}
	return e->floor;
}

/*
 * Every snowflake of a database draws its body (tick << 12 | counter) from
 * one ID space, so none repeats across sequences; each is above the
 * sequence's floor and every earlier one.  docs/postgresql.md describes
 * both modes.
 */
Datum
chronoid_snowflake_nextval(PG_FUNCTION_ARGS)
{
	Oid			relid = sf_seq_arg(fcinfo, "snowflake.nextval()");
	sf_seq_entry *e;
	int			seqbits = cid_sf_layout.bits[CID_FIELD_SEQ];
	int64		v;
	cid_snowflake_parts parts;
	uint64_t	id;
	int			rc;

	if (cid_sf_node == 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("snowflake.node is not set"),
				 errhint("Set snowflake.node in postgresql.conf to a number "
						 "between 1 and %d that is unique per node, then reload.",
						 (int) cid_layout_max_node(&cid_sf_layout))));

	e = sf_entry(relid, true);
	/* taking the lock may process invalidations: check after it */
	sf_lock_sequence(e);
	if (!e->checked)
	{
		e->block = sf_check_sequence(relid);
		e->checked = true;
	}

	/*
	 * As core nextval(), but for temporary sequences too: their IDs come
	 * from the database's ID space, which a read-only transaction (or a
	 * standby) cannot advance.
	 */
	PreventCommandIfReadOnly("snowflake.nextval()");
	PreventCommandIfParallelMode("snowflake.nextval()");

	/*
	 * As core nextval(): USAGE or UPDATE.  The answer is kept until a
	 * change to pg_class, roles or memberships, or another current role.
	 */
	if (e->acl_ok_user != GetUserId())
	{
		if (pg_class_aclcheck(relid, GetUserId(), ACL_USAGE | ACL_UPDATE) != ACLCHECK_OK)
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("permission denied for sequence %s",
							get_rel_name(relid))));
		e->acl_ok_user = GetUserId();
	}

	/* refuse a number another server claimed first (node registry) */
	cid_sf_registry_check();

	v = cid_sf_space_next(sf_floor(e), e->block, relid);

	/*
	 * A counter past 4095 has carried into the millisecond: the ID's time
	 * runs ahead of the clock (at most snowflake.max_run_ahead, unless the
	 * clock was set back), and no ID repeats.
	 */
	memset(&parts, 0, sizeof(parts));
	parts.unix_ms = cid_sf_layout.epoch_ms +
		(int64) (v >> seqbits) * (int64) cid_sf_layout.tick_ms;
	parts.node = (uint64_t) cid_sf_node;
	parts.sequence = (uint64_t) (v & ((INT64CONST(1) << seqbits) - 1));
	rc = cid_snowflake_compose(&id, &cid_sf_layout, &parts);
	if (rc < 0)
		ereport(ERROR,
				(errcode(cid_pg_sqlstate(rc)),
				 errmsg("sequence \"%s\" value " INT64_FORMAT " makes no snowflake: %s",
						get_rel_name(relid), v, cid_strerror(rc))));

	/* dynahash never moves an entry: e is still valid */
	e->has_last = true;
	e->last = (int64) id;
	PG_RETURN_INT64((int64) id);
}

/* The last snowflake this session got from the sequence. */
Datum
chronoid_snowflake_currval(PG_FUNCTION_ARGS)
{
	Oid			relid = sf_seq_arg(fcinfo, "snowflake.currval()");
	char		relkind = get_rel_relkind(relid);
	sf_seq_entry *e;

	/* As core currval(): the kind first, then the privilege. */
	if (relkind == '\0')
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid)));
	if (relkind != RELKIND_SEQUENCE)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a sequence", get_rel_name(relid)),
				 errhint("snowflake.currval() takes a sequence, such as snowflake.id_seq.")));
	if (pg_class_aclcheck(relid, GetUserId(), ACL_SELECT | ACL_USAGE) != ACLCHECK_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for sequence %s",
						get_rel_name(relid))));

	e = sf_entry(relid, false);
	if (e == NULL || !e->has_last)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("snowflake.currval of sequence \"%s\" is not yet defined in this session",
						get_rel_name(relid))));
	PG_RETURN_INT64(e->last);
}
