/*
 * sequence_block.c — nextval_block(): n consecutive values of a
 * sequence in one call, as n nextval() calls would give them to one
 * session alone, reserved under the sequence's buffer lock and WAL-logged
 * before they are returned (docs/block.md).
 */
#include "snowflake_internal.h"

#include "access/htup_details.h"
#include "access/relation.h"
#include "access/genam.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/dependency.h"
#include "catalog/indexing.h"
#include "catalog/pg_class.h"
#include "catalog/pg_depend.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_sequence.h"
#include "commands/extension.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "tcop/utility.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"

PG_FUNCTION_INFO_V1(chronoid_nextval_block);

/*
 * The largest block.  More than a billion IDs in one call is far more
 * likely a mistake (a size in bytes, a timestamp) than a need, and would
 * burn them for good; a server that needs more calls again.
 */
#define CID_PG_BLOCK_MAX INT64CONST(1000000000)

static char *
block_seq_name(Relation rel)
{
	return quote_qualified_identifier(get_namespace_name(RelationGetNamespace(rel)),
									  RelationGetRelationName(rel));
}

/*
 * True when proc is chronoid's snowflake.nextval(): a member of the
 * extension (ext) whose C symbol is the one that mints snowflakes.  By
 * identity, not by name: a look-alike in another schema is not it.
 */
static bool
block_is_snowflake_nextval(Oid proc, Oid ext)
{
	HeapTuple	tup;
	bool		isnull;
	Datum		src;
	bool		result = false;

	if (!OidIsValid(ext) || getExtensionOfObject(ProcedureRelationId, proc) != ext)
		return false;
	tup = SearchSysCache1(PROCOID, ObjectIdGetDatum(proc));
	if (!HeapTupleIsValid(tup))
		return false;
	src = SysCacheGetAttr(PROCOID, tup, Anum_pg_proc_prosrc, &isnull);
	if (!isnull)
		result = strcmp(TextDatumGetCString(src), "chronoid_snowflake_nextval") == 0;
	ReleaseSysCache(tup);
	return result;
}

/*
 * The object that passes relid to chronoid's snowflake.nextval(): a
 * column default, a view, anything whose recorded dependencies name both
 * the sequence and the function (as a default or a view's rule records
 * them), described for a message; NULL for none.
 */
static char *
block_snowflake_user_of(Oid relid, Oid ext)
{
	Relation	depRel;
	ScanKeyData key[2];
	SysScanDesc scan;
	HeapTuple	tup;
	char	   *found = NULL;

	depRel = table_open(DependRelationId, AccessShareLock);
	ScanKeyInit(&key[0], Anum_pg_depend_refclassid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(RelationRelationId));
	ScanKeyInit(&key[1], Anum_pg_depend_refobjid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(relid));
	scan = systable_beginscan(depRel, DependReferenceIndexId, true, NULL, 2, key);
	while (found == NULL && HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		Form_pg_depend dep = (Form_pg_depend) GETSTRUCT(tup);
		ScanKeyData ikey[2];
		SysScanDesc iscan;
		HeapTuple	itup;

		/* what else it depends on: is chronoid's function one? */
		ScanKeyInit(&ikey[0], Anum_pg_depend_classid, BTEqualStrategyNumber, F_OIDEQ,
					ObjectIdGetDatum(dep->classid));
		ScanKeyInit(&ikey[1], Anum_pg_depend_objid, BTEqualStrategyNumber, F_OIDEQ,
					ObjectIdGetDatum(dep->objid));
		iscan = systable_beginscan(depRel, DependDependerIndexId, true, NULL, 2, ikey);
		while (HeapTupleIsValid(itup = systable_getnext(iscan)))
		{
			Form_pg_depend d = (Form_pg_depend) GETSTRUCT(itup);

			if (d->refclassid == ProcedureRelationId &&
				block_is_snowflake_nextval(d->refobjid, ext))
			{
				ObjectAddress user;

				user.classId = dep->classid;
				user.objectId = dep->objid;
				user.objectSubId = 0;
				found = getObjectDescription(&user, false);
				break;
			}
		}
		systable_endscan(iscan);
	}
	systable_endscan(scan);
	table_close(depRel, AccessShareLock);
	return found;
}

/*
 * Refuse a sequence whose value is a floor of snowflakes: one of
 * chronoid's own (snowflake.id_seq, snowflake.node_mark, the mark's
 * guard: members of the extension that nextval_block() belongs to), or
 * one a column default or a view passes to snowflake.nextval().  Moving
 * such a sequence by a block moves the next snowflake of everyone who
 * mints from it: a billion values are four minutes of snowflakes, and a
 * loop of calls would put them years ahead of the clock.
 */
static void
block_refuse_snowflake_floor(Relation rel, Oid self)
{
	Oid			relid = RelationGetRelid(rel);
	Oid			ext = getExtensionOfObject(ProcedureRelationId, self);
	char	   *user;

	if (OidIsValid(ext) && getExtensionOfObject(RelationRelationId, relid) == ext)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("sequence %s is a floor of snowflakes, not a sequence to reserve from",
						block_seq_name(rel)),
				 errdetail("It belongs to the chronoid extension: snowflake.nextval() reads it "
						   "as a floor for the snowflakes of the database, and a block would "
						   "move them ahead of the clock for everyone.")));
	user = block_snowflake_user_of(relid, ext);
	if (user != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("sequence %s is a floor of snowflakes, not a sequence to reserve from",
						block_seq_name(rel)),
				 errdetail("The %s passes it to snowflake.nextval(), which reads it as a floor "
						   "for the snowflakes it makes; a block would move them ahead of the clock.",
						   user),
				 errhint("Reserve blocks from a sequence of their own.")));
}

/*
 * The sequence's MAXVALUE, after the refusals: a sequence whose blocks
 * could overlap nextval()'s values or one another's, or come back after a
 * crash.
 */
static int64
block_check_sequence(Relation rel)
{
	HeapTuple	tup;
	Form_pg_sequence seqform;
	int64		incr;
	int64		maxv;
	bool		cycle;
	Oid			relid = RelationGetRelid(rel);

	if (rel->rd_rel->relkind != RELKIND_SEQUENCE)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a sequence", RelationGetRelationName(rel)),
				 errhint("nextval_block() reserves values of a sequence.")));
	if (rel->rd_rel->relpersistence == RELPERSISTENCE_UNLOGGED)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("sequence %s is unlogged", block_seq_name(rel)),
				 errdetail("A crash resets an unlogged sequence, which would hand out its blocks again."),
				 errhint("ALTER SEQUENCE %s SET LOGGED", block_seq_name(rel))));

	tup = SearchSysCache1(SEQRELID, ObjectIdGetDatum(relid));
	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for sequence %u", relid);
	seqform = (Form_pg_sequence) GETSTRUCT(tup);
	incr = seqform->seqincrement;
	maxv = seqform->seqmax;
	cycle = seqform->seqcycle;
	ReleaseSysCache(tup);

	/*
	 * A sequence with INCREMENT k > 1 is usually a hi/lo allocator's:
	 * each nextval() caller owns the k - 1 values around its value, which a
	 * block of consecutive values would overlap.  A descending one would
	 * give blocks that count down, which no allocator here expects.
	 */
	if (incr != 1)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("sequence %s has INCREMENT " INT64_FORMAT "; blocks need INCREMENT 1",
						block_seq_name(rel), incr),
				 errdetail("A block is consecutive values; nextval() callers of a sequence "
						   "with another INCREMENT may own the values between its steps."),
				 errhint("Reserve blocks from a sequence of their own, or ALTER SEQUENCE %s INCREMENT BY 1 if no caller relies on the step.",
						 block_seq_name(rel))));
	if (cycle)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("sequence %s is CYCLE", block_seq_name(rel)),
				 errdetail("After its MAXVALUE it would start again and hand out blocks already given."),
				 errhint("ALTER SEQUENCE %s NO CYCLE", block_seq_name(rel))));
	return maxv;
}

/*
 * nextval_block(seq regclass, n int8,
 *               OUT first_id int8, OUT last_id int8)
 */
Datum
chronoid_nextval_block(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	int64		n = PG_GETARG_INT64(1);
	Relation	rel;
	int64		maxv;
	int64		first = 0;
	int64		left = 0;
	TupleDesc	desc;
	Datum		values[2];
	bool		nulls[2] = {false, false};

	if (n < 1 || n > CID_PG_BLOCK_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("block size " INT64_FORMAT " is out of range", n),
				 errdetail("A block holds 1 to " INT64_FORMAT " values.", CID_PG_BLOCK_MAX)));

	/*
	 * As core nextval(): RowExclusiveLock for the transaction (it blocks
	 * only ALTER and DROP SEQUENCE, not other callers), then the kind, the
	 * privilege and the refusals of a read-only or parallel transaction.
	 * The privilege: a block of one is a nextval() (USAGE or UPDATE); a
	 * larger block moves the sequence as setval() does, so it needs what
	 * setval() needs (UPDATE).  With USAGE alone a role could otherwise
	 * push a shared sequence a billion values per call, or use up an
	 * integer one in three.
	 */
	if (get_rel_relkind(relid) == '\0')
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid)));
	rel = relation_open(relid, RowExclusiveLock);
	maxv = block_check_sequence(rel);
	block_refuse_snowflake_floor(rel, fcinfo->flinfo->fn_oid);
	if (pg_class_aclcheck(relid, GetUserId(), ACL_USAGE | ACL_UPDATE) != ACLCHECK_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for sequence %s",
						RelationGetRelationName(rel))));
	if (n > 1 && pg_class_aclcheck(relid, GetUserId(), ACL_UPDATE) != ACLCHECK_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to reserve a block of " INT64_FORMAT " values of sequence %s",
						n, block_seq_name(rel)),
				 errdetail("A block of more than one value needs UPDATE on the sequence, "
						   "the privilege setval() needs; USAGE allows blocks of one."),
				 errhint("GRANT UPDATE ON SEQUENCE %s to the role that reserves blocks.",
						 block_seq_name(rel))));
	PreventCommandIfReadOnly("nextval_block()");
	PreventCommandIfParallelMode("nextval_block()");

	if (!cid_sf_page_reserve(rel, n, maxv, &first, &left))
		ereport(ERROR,
				(errcode(ERRCODE_SEQUENCE_GENERATOR_LIMIT_EXCEEDED),
				 errmsg("sequence %s has " INT64_FORMAT " values left before its MAXVALUE " INT64_FORMAT
						", fewer than the block of " INT64_FORMAT,
						block_seq_name(rel), left, maxv, n),
				 errhint("Ask for a smaller block, or ALTER SEQUENCE %s MAXVALUE to a larger value.",
						 block_seq_name(rel))));
	relation_close(rel, NoLock);

	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	desc = BlessTupleDesc(desc);
	values[0] = Int64GetDatum(first);
	values[1] = Int64GetDatum(first + (n - 1));
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(desc, values, nulls)));
}
