/*
 * snowflake_funcs.c — the snowflake schema's C functions (pgEdge snowflake
 * 2.6 compatible): snowflake.nextval/currval over a sequence used as a
 * durable high-water mark, the GUC snowflake.node, and the decoders.
 */
#include "snowflake_int.h"

#include <string.h>

#include "access/htup_details.h"
#include "access/relation.h"
#include "access/xact.h"
#include "catalog/pg_class.h"
#include "catalog/pg_sequence.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "storage/proc.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/guc.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/resowner.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"

PG_FUNCTION_INFO_V1(snowflake_nextval);
PG_FUNCTION_INFO_V1(snowflake_currval);
PG_FUNCTION_INFO_V1(snowflake_get_epoch);
PG_FUNCTION_INFO_V1(snowflake_get_count);
PG_FUNCTION_INFO_V1(snowflake_get_node);
PG_FUNCTION_INFO_V1(snowflake_to_timestamp);
PG_FUNCTION_INFO_V1(snowflake_from_timestamp);
PG_FUNCTION_INFO_V1(snowflake_format);

/* snowflake.node; 0 (the boot value) means "not set". */
static int	snowflake_node = 0;

/* The pgEdge 2.6 layout, filled once by cid_pg_snowflake_init(). */
static cid_layout sf_layout;

/*
 * Per-sequence session state: the last snowflake this session got from it
 * (snowflake.currval), whether the sequence passed sf_check_sequence()
 * since the last catalog change to pg_class or pg_sequence, the role whose
 * privileges were checked, the transaction that holds its lock, and its
 * shared slot (preloaded mode).
 */
typedef struct sf_seq_entry
{
	Oid			relid;			/* hash key */
	bool		has_last;
	int64		last;
	bool		checked;
	bool		temp;			/* temporary sequence: no read-only
								 * restriction (as core nextval), no slot */
	Oid			relfilenode;
	Oid			acl_ok_user;	/* InvalidOid: check again */
	LocalTransactionId lxid;	/* lock held by this transaction */
	TimestampTz page_stmt;		/* statement that compared page and slot */
	bool		slot_looked;
	struct cid_sf_slot *slot;	/* NULL: the page path */
} sf_seq_entry;

static HTAB *sf_seqs = NULL;

/* The entry of the last call: a statement usually repeats its sequence. */
static sf_seq_entry *sf_last_entry = NULL;

/*
 * The node registry (snowflake.node_registry, docs/cluster.md), as this
 * backend last saw it: the node number it checked (0: none yet), whether
 * its claim was found committed, the transaction that made the claim
 * when not, and when (ms of the ID body) the check ran.  A claim that
 * replication brings in later is seen at the next check, at most
 * CID_SF_REG_RECHECK_MS after the last.
 */
#define CID_SF_REG_RECHECK_MS	INT64CONST(10000)

static int	sf_reg_node = 0;
static bool sf_reg_confirmed = false;
static LocalTransactionId sf_reg_lxid = InvalidLocalTransactionId;
static int64 sf_reg_checked_ms = 0;

/*
 * 0 is allowed only as the built-in default, so an unset node is visible
 * to nextval (which then refuses) while SET and postgresql.conf can only
 * give 1 .. 1023.
 */
static bool
snowflake_node_check(int *newval, void **extra, GucSource source)
{
	(void) extra;
	if (*newval == 0 && source != PGC_S_DEFAULT)
	{
		GUC_check_errdetail("snowflake.node must be between 1 and %d.",
							(int) cid_layout_max_node(&sf_layout));
		return false;
	}
	return true;
}

void
cid_pg_snowflake_init(void)
{
	if (cid_layout_preset(&sf_layout, "pgedge") != CID_OK)
		elog(ERROR, "chronoid: the pgedge snowflake layout is missing");

	/*
	 * PGC_SUSET: a node number is an identity; a role that could change it
	 * could mint IDs that collide with another node's.
	 */
	DefineCustomIntVariable("snowflake.node",
							"Node number embedded in every snowflake this server mints.",
							"Must be unique per node of a cluster (1 .. 1023); "
							"snowflake.nextval() refuses to run while it is unset.",
							&snowflake_node,
							0,
							0,
							(int) cid_layout_max_node(&sf_layout),
							PGC_SUSET,
							0,
							snowflake_node_check,
							NULL,
							NULL);

	cid_sf_shared_init();

#if PG_VERSION_NUM >= 150000
	MarkGUCPrefixReserved("snowflake");
#else
	EmitWarningsOnPlaceholders("snowflake");
#endif
}

/* ------------------------------------------------------------------------
 * Decoding
 * ------------------------------------------------------------------------ */

/*
 * Split a snowflake; a value the layout cannot produce (negative: bit 63
 * set) is an error naming it, never decoded into garbage.
 */
static void
sf_decode(cid_snowflake_parts *parts, int64 id)
{
	int			rc;

	if (id < 0)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("snowflake " INT64_FORMAT " is out of range", id),
				 errdetail("Snowflakes are non-negative bigints: bit 63 is always 0.")));
	rc = cid_snowflake_decode(parts, &sf_layout, (uint64_t) id);
	if (rc < 0)
		ereport(ERROR,
				(errcode(cid_pg_sqlstate(rc)),
				 errmsg("snowflake " INT64_FORMAT " cannot be decoded: %s",
						id, cid_strerror(rc))));
}

Datum
snowflake_get_epoch(PG_FUNCTION_ARGS)
{
	cid_snowflake_parts parts;
	char		buf[48];

	sf_decode(&parts, PG_GETARG_INT64(0));

	/* Unix seconds with exactly three decimals, as pgEdge prints them. */
	snprintf(buf, sizeof(buf), INT64_FORMAT ".%03d",
			 (int64) (parts.unix_ms / 1000), (int) (parts.unix_ms % 1000));
	PG_RETURN_DATUM(DirectFunctionCall3(numeric_in,
										CStringGetDatum(buf),
										ObjectIdGetDatum(InvalidOid),
										Int32GetDatum(-1)));
}

Datum
snowflake_get_count(PG_FUNCTION_ARGS)
{
	cid_snowflake_parts parts;

	sf_decode(&parts, PG_GETARG_INT64(0));
	PG_RETURN_INT32((int32) parts.sequence);
}

Datum
snowflake_get_node(PG_FUNCTION_ARGS)
{
	cid_snowflake_parts parts;

	sf_decode(&parts, PG_GETARG_INT64(0));
	PG_RETURN_INT32((int32) parts.node);
}

Datum
snowflake_to_timestamp(PG_FUNCTION_ARGS)
{
	cid_snowflake_parts parts;

	sf_decode(&parts, PG_GETARG_INT64(0));
	PG_RETURN_TIMESTAMPTZ(cid_pg_unix_ms_to_ts(parts.unix_ms));
}

/* The smallest snowflake of the millisecond holding ts (any node). */
Datum
snowflake_from_timestamp(PG_FUNCTION_ARGS)
{
	TimestampTz ts = PG_GETARG_TIMESTAMPTZ(0);
	int64		unix_ms;
	uint64_t	id;
	int			rc;

	unix_ms = cid_pg_ts_to_unix_ms(ts, true, "a snowflake");
	rc = cid_snowflake_min_at(&id, &sf_layout, unix_ms);
	if (rc < 0)
	{
		char		lo[CID_TIME_STRLEN + 1] = "?";
		char		hi[CID_TIME_STRLEN + 1] = "?";

		if (cid_time_format(lo, sf_layout.epoch_ms) != CID_OK ||
			cid_time_format(hi, cid_layout_max_ms(&sf_layout)) != CID_OK)
		{
			strcpy(lo, "?");
			strcpy(hi, "?");
		}
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("timestamp with time zone \"%s\" is out of range for a snowflake",
						DatumGetCString(DirectFunctionCall1(timestamptz_out,
															TimestampTzGetDatum(ts)))),
				 errdetail("Snowflakes hold times from %s to %s.", lo, hi)));
	}
	PG_RETURN_INT64((int64) id);
}

/*
 * jsonb like pgEdge 2.6: the node under "id" (what pgEdge prints) and
 * under "node" (what its documentation names), "ts" as the timestamptz's
 * text in the session's DateStyle and TimeZone, and "count".
 */
Datum
snowflake_format(PG_FUNCTION_ARGS)
{
	cid_snowflake_parts parts;
	char	   *ts;
	char	   *json;

	sf_decode(&parts, PG_GETARG_INT64(0));
	ts = DatumGetCString(DirectFunctionCall1(timestamptz_out,
											 TimestampTzGetDatum(cid_pg_unix_ms_to_ts(parts.unix_ms))));
	json = psprintf("{\"id\": %d, \"ts\": \"%s\", \"node\": %d, \"count\": %d}",
					(int) parts.node, ts, (int) parts.node, (int) parts.sequence);
	PG_RETURN_DATUM(DirectFunctionCall1(jsonb_in, CStringGetDatum(json)));
}

/* ------------------------------------------------------------------------
 * nextval / currval
 * ------------------------------------------------------------------------ */

/* schema.name, quoted as needed, for hints that are meant to be run. */
static char *
sf_qualified_name(Oid relid)
{
	return quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)),
									  get_rel_name(relid));
}

/*
 * What snowflake.nextval() needs of a sequence.  It reads and writes the
 * page itself, so INCREMENT and CACHE do not shape its IDs; but the page
 * must be able to hold every body (MAXVALUE: 53 bits plus the WAL margin,
 * else core setval() of pg_dump's restore would refuse the value), and
 * INCREMENT must be positive, since core nextval() on the same sequence
 * then logs its values ahead upwards, which our log_cnt reading relies on.
 */
static void
sf_check_sequence(Oid relid, sf_seq_entry *e)
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
	e->temp = (classform->relpersistence == RELPERSISTENCE_TEMP);
	e->relfilenode = classform->relfilenode;
	ReleaseSysCache(tup);

	if (relkind != RELKIND_SEQUENCE)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a sequence", get_rel_name(relid)),
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
	if (maxv < (INT64CONST(1) << (sf_layout.bits[CID_FIELD_TIME] +
								  sf_layout.bits[CID_FIELD_SEQ])) - 1 + CID_SF_MARGIN)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("sequence \"%s\" cannot be used for snowflakes",
						get_rel_name(relid)),
				 errdetail("Its MAXVALUE " INT64_FORMAT " cannot hold the "
						   "millisecond and counter of a snowflake.", maxv),
				 errhint("ALTER SEQUENCE %s AS bigint NO MAXVALUE",
						 sf_qualified_name(relid))));
}

/*
 * Run snowflake.check_node(): it raises when another server claimed
 * snowflake.node earlier, else registers this server's claim.  The hot
 * path is the comparison at the top; SPI runs on a backend's first ID
 * under a number, once per transaction until the claim is committed, and
 * every CID_SF_REG_RECHECK_MS after that.  True when it ran (and took
 * time: the caller reads the clock again).
 */
static bool
sf_registry_check(int64 now_body)
{
	int64		now_ms = now_body >> sf_layout.bits[CID_FIELD_SEQ];
	bool		confirmed;
	bool		isnull;
	int			rc;

	if (likely(sf_reg_node == snowflake_node))
	{
		if (sf_reg_confirmed)
		{
			if (likely(Abs(now_ms - sf_reg_checked_ms) < CID_SF_REG_RECHECK_MS))
				return false;
		}
		else if (sf_reg_lxid == cid_sf_current_lxid())
			return false;
	}

	/* a failed check leaves nothing verified */
	sf_reg_node = 0;
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	rc = SPI_execute("SELECT snowflake.check_node()", false, 1);
	if (rc != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "snowflake.check_node() failed: %s", SPI_result_code_string(rc));
	confirmed = DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0],
										   SPI_tuptable->tupdesc, 1, &isnull));
	if (isnull)
		confirmed = false;
	SPI_finish();

	sf_reg_node = snowflake_node;
	sf_reg_confirmed = confirmed;
	sf_reg_lxid = cid_sf_current_lxid();
	sf_reg_checked_ms = now_ms;
	return true;
}

/* The body (tick << counter bits) of the current millisecond. */
static int64
sf_now_body(void)
{
	const cid_env *env = cid_pg_env();
	int64_t		ns = env->clock(env->ctx);
	int64		ms;

	if (ns < 0)
		ereport(ERROR,
				(errcode(ERRCODE_SYSTEM_ERROR),
				 errmsg("could not read the system clock")));
	ms = ns / 1000000;
	if (ms < sf_layout.epoch_ms)
		return 0;				/* clock before 2023: the sequence leads */
	return ((ms - sf_layout.epoch_ms) / sf_layout.tick_ms) << sf_layout.bits[CID_FIELD_SEQ];
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
		e->temp = false;
		e->relfilenode = InvalidOid;
		e->acl_ok_user = InvalidOid;
		e->lxid = InvalidLocalTransactionId;
		e->page_stmt = 0;
		e->slot_looked = false;
		e->slot = NULL;
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
 * The sequence is the durable high-water mark of body = tick << 12 |
 * counter, and body = max(clock body, last body + 1), so every ID is above
 * every earlier one whatever the clock does.  Without preload, the page is
 * read and written under its buffer lock (snowflake_seqpage.c); with it,
 * a shared slot hands bodies out lock-free (snowflake_shared.c).
 */
Datum
snowflake_nextval(PG_FUNCTION_ARGS)
{
	Oid			relid = sf_seq_arg(fcinfo, "snowflake.nextval()");
	sf_seq_entry *e;
	int			seqbits = sf_layout.bits[CID_FIELD_SEQ];
	int64		now_body;
	int64		v;
	cid_snowflake_parts parts;
	uint64_t	id;
	int			rc;

	if (snowflake_node == 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("snowflake.node is not set"),
				 errhint("Set snowflake.node in postgresql.conf to a number "
						 "between 1 and %d that is unique per node, then reload.",
						 (int) cid_layout_max_node(&sf_layout))));

	e = sf_entry(relid, true);
	/* taking the lock may process invalidations: check after it */
	sf_lock_sequence(e);
	if (!e->checked)
	{
		sf_check_sequence(relid, e);
		e->checked = true;
	}

	/* The same refusals as core nextval(). */
	if (!e->temp)
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

	if (!e->slot_looked && !e->temp && cid_sf_shared_ready())
	{
		static bool warned = false;

		e->slot = cid_sf_slot_find(relid);
		e->slot_looked = true;
		if (e->slot == NULL && !warned)
		{
			warned = true;
			ereport(WARNING,
					(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
					 errmsg("no shared snowflake slot left for sequence \"%s\"",
							get_rel_name(relid)),
					 errdetail("snowflake.nextval() of this sequence takes the sequence's "
							   "buffer lock for every ID until the server restarts."),
					 errhint("Raise snowflake.max_shared_sequences (now %s) and restart the server.",
							 GetConfigOption("snowflake.max_shared_sequences", false, false))));
		}
	}

	/* refuse a number another server claimed first (node registry) */
	now_body = sf_now_body();
	if (sf_registry_check(now_body))
		now_body = sf_now_body();

	if (e->slot != NULL)
	{
		/* statement start: as fine as core setval() can be noticed */
		TimestampTz stmt = GetCurrentStatementStartTimestamp();
		bool		check_page = (stmt != e->page_stmt);

		e->page_stmt = stmt;
		v = cid_sf_slot_next(e->slot, relid, e->relfilenode, now_body,
							 check_page);
	}
	else
		v = cid_sf_page_next(relid, now_body);

	/*
	 * A counter past 4095 has carried into the millisecond: the ID's time
	 * runs ahead of the clock, and no ID repeats.
	 */
	memset(&parts, 0, sizeof(parts));
	parts.unix_ms = sf_layout.epoch_ms +
		(int64) (v >> seqbits) * (int64) sf_layout.tick_ms;
	parts.node = (uint64_t) snowflake_node;
	parts.sequence = (uint64_t) (v & ((INT64CONST(1) << seqbits) - 1));
	rc = cid_snowflake_compose(&id, &sf_layout, &parts);
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
snowflake_currval(PG_FUNCTION_ARGS)
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
