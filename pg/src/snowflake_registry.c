/*
 * snowflake_registry.c — the node registry (snowflake.node_registry,
 * docs/cluster.md) as snowflake.nextval() consults it, and the C side of
 * snowflake.check_node(), which alone may record this server's claim.
 */
#include "snowflake_internal.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "utils/builtins.h"

PG_FUNCTION_INFO_V1(chronoid_snowflake_check_node);

/*
 * The registry as this backend last saw it: the node number it checked (0:
 * none yet), whether its claim was found committed, the transaction that
 * made the check when not, and when (clock ms) the check ran.  A claim
 * that replication brings in later is seen at the next check, at most
 * CID_SF_REG_RECHECK_MS after the last.
 */
#define CID_SF_REG_RECHECK_MS	INT64CONST(10000)

static int	sf_reg_node = 0;
static bool sf_reg_confirmed = false;
static LocalTransactionId sf_reg_lxid = InvalidLocalTransactionId;
static int64 sf_reg_checked_ms = 0;

/*
 * The hot path is the comparison at the top; SPI runs on a backend's first
 * ID under a number, once per transaction until the claim is committed,
 * and every CID_SF_REG_RECHECK_MS after that.
 */
void
cid_sf_registry_check(void)
{
	int64		now_ms = cid_sf_clock_ns() / 1000000;
	bool		confirmed;
	bool		isnull;
	int			rc;

	if (likely(sf_reg_node == cid_sf_node))
	{
		if (sf_reg_confirmed)
		{
			if (likely(now_ms - sf_reg_checked_ms < CID_SF_REG_RECHECK_MS &&
					   now_ms >= sf_reg_checked_ms))
				return;
		}
		else if (sf_reg_lxid == cid_sf_current_lxid())
			return;
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

	sf_reg_node = cid_sf_node;
	sf_reg_confirmed = confirmed;
	sf_reg_lxid = cid_sf_current_lxid();
	sf_reg_checked_ms = now_ms;
}

/*
 * snowflake.check_node(), SECURITY DEFINER: verify snowflake.node against
 * the registry and record this server's claim of it.  The node is the
 * module's own variable: calling this function loaded the module, whose
 * definition of snowflake.node drops a placeholder value that a role
 * without the privilege set, so no other number can reach the registry.
 *
 * The claim is inserted only under a conditional ShareUpdateExclusiveLock
 * on snowflake.node_mark (self-conflicting, compatible with minting's
 * RowExclusiveLock; PUBLIC has no privilege to lock the mark): while one
 * transaction holds an uncommitted claim, the others skip inserting
 * instead of waiting for it, and try again in their next transaction.
 */
Datum
chronoid_snowflake_check_node(PG_FUNCTION_ARGS)
{
	Oid			argtypes[2] = {INT4OID, BOOLOID};
	Datum		args[2];
	bool		insert;
	bool		isnull;
	bool		result;
	int			rc;

	(void) fcinfo;
	if (cid_sf_node == 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("snowflake.node is not set")));

	insert = ConditionalLockRelationOid(cid_sf_mark_relid(NULL), ShareUpdateExclusiveLock);
	args[0] = Int32GetDatum(cid_sf_node);
	args[1] = BoolGetDatum(insert);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	rc = SPI_execute_with_args("SELECT snowflake.register_node($1, $2)",
							   2, argtypes, args, NULL, false, 1);
	if (rc != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "snowflake.register_node() failed: %s", SPI_result_code_string(rc));
	result = DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0],
										SPI_tuptable->tupdesc, 1, &isnull));
	SPI_finish();
	PG_RETURN_BOOL(!isnull && result);
}
