/*
 * snowflake_decide.c — the pure decision of the snowflake ID space: its
 * next state by the core's step and policies (borrowing up to
 * snowflake.max_run_ahead, running ahead of a clock set back), and the
 * clock it reads.  Both homes of the state call it: the shared slot
 * (preload_snowflake.c) and the mark's page (snowflake_space.c).
 */
#include "snowflake_internal.h"

/*
 * The core generator whose policies the decision applies (its state is
 * never used): the layout with node 0, borrowing up to the run-ahead bound,
 * and running ahead of a clock set back without limit, since refusing to
 * mint would be an outage and minting above the mark is never a repeat.
 */
static cid_snowflake_gen sf_policy;
static int	sf_policy_bound = -1;

static void
sf_policy_refresh(void)
{
	cid_snowflake_opts o;

	if (likely(sf_policy_bound == cid_sf_max_run_ahead))
		return;
	cid_snowflake_opts_default(&o);
	o.on_exhausted = CID_EXHAUST_BORROW;
	o.max_borrow_ticks = (uint64_t) cid_sf_max_run_ahead / cid_sf_layout.tick_ms;
	o.on_behind = CID_BEHIND_RUN_AHEAD;
	o.max_drift_ms = INT64_MAX;
	if (cid_snowflake_init(&sf_policy, &cid_sf_layout, 0, &o, NULL) != CID_OK)
		elog(ERROR, "chronoid: cannot set up the snowflake policy");
	sf_policy_bound = cid_sf_max_run_ahead;
}

int64_t
cid_sf_clock_ns(void)
{
	const cid_env *env = cid_pg_env();
	int64_t		ns = env->clock(env->ctx);
	int64_t		epoch_ns = (int64_t) cid_sf_layout.epoch_ms * INT64CONST(1000000);

	if (ns < 0)
		ereport(ERROR,
				(errcode(ERRCODE_SYSTEM_ERROR),
				 errmsg("could not read the system clock")));
	return ns < epoch_ns ? epoch_ns : ns;
}

int64
cid_sf_body_of_ns(int64_t ns)
{
	int64		ms = ns / 1000000 - cid_sf_layout.epoch_ms;

	return (ms / cid_sf_layout.tick_ms) << cid_sf_layout.bits[CID_FIELD_SEQ];
}

int
cid_sf_decide(int64 last, int64 floor, int64 block, int64_t now_ns, int64 *next)
{
	uint64_t	seqmask = ((uint64_t) 1 << cid_sf_layout.bits[CID_FIELD_SEQ]) - 1;
	uint64_t	pos;
	int			rc;

	sf_policy_refresh();
	if (floor > last)
	{
		int64		bound = (int64) cid_sf_max_run_ahead / cid_sf_layout.tick_ms;

		/* a floor the clock has not reached yet may lead by the bound only */
		if (floor > cid_sf_body_of_ns(now_ns) + (bound << cid_sf_layout.bits[CID_FIELD_SEQ]))
			return CID_SF_EFLOOR;
		last = floor;
	}
	rc = cid_snowflake_step(&sf_policy, last < 0 ? CID_SNOWFLAKE_NONE : (uint64_t) last,
							now_ns, &pos);
	if (rc < 0)
		return rc;

	/*
	 * A block that would cross into the next tick starts there instead, as
	 * if this tick's counters were used up (so the run-ahead bound holds):
	 * pgEdge moves a count past 4095 to the next millisecond, and a caller
	 * adding up to block - 1 to an ID (Hibernate's pooled-lo) must not
	 * carry into the node bits.
	 */
	if ((pos & seqmask) + (uint64_t) (block - 1) > seqmask)
	{
		int			rc2 = cid_snowflake_step(&sf_policy, pos | seqmask, now_ns, &pos);

		if (rc2 < 0)
			return rc2;
		if (rc != CID_WCLOCK_BEHIND)
			rc = rc2;
	}
	*next = (int64) (pos + (uint64_t) (block - 1));
	return rc;
}
