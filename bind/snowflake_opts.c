/*
 * snowflake_opts.c — a Snowflake generator's policy options as every
 * binding reads them (a generator's, a lease's): their names in both
 * spellings and their ranges, with the words of each refusal.  Needs
 * nothing but the core, so that the WebAssembly glue compiles it too.
 */
#include <inttypes.h>
#include <stdio.h>

#include "bind_internal.h"

const cid_bind_opt_name cid_bind_policy_opt_names[CID_BIND_POLICY_NOPTS] = {
	/* Python's Snowflake calls the clock policy on_behind. */
	{"on_behind", "onClockBehind"}, {"max_drift_ms", "maxDriftMs"},
	{"max_wait_ms", "maxWaitMs"}, {"on_exhausted", "onExhausted"},
	{"max_borrow_ticks", "maxBorrowTicks"}
};

/* The largest ms the generator turns into ns without overflow. */
#define MAX_POLICY_MS (INT64_MAX / 1000000)

bool
cid_bind_in_range(int64_t v, int64_t lo, int64_t hi, const cid_bind_opt_name *name,
				  bool camel, const char *unit, const char *ctx, char *err, size_t errlen)
{
	if (v >= lo && v <= hi)
		return true;
	snprintf(err, errlen, "%s %" PRId64 " is out of range: expected %" PRId64 "..%" PRId64 "%s%s",
			 camel ? name->camel : name->snake, v, lo, hi, unit, ctx);
	return false;
}

int
cid_bind_snowflake_policy(cid_snowflake_opts *opts, const int64_t v[CID_BIND_POLICY_NOPTS],
						  bool camel, char *err, size_t errlen)
{
	static const struct
	{
		int64_t		lo;
		int64_t		hi;
		const char *unit;
	}			range[CID_BIND_POLICY_NOPTS] = {
		{CID_BEHIND_RUN_AHEAD, CID_BEHIND_FAIL, ""}, {0, MAX_POLICY_MS, " ms"},
		{0, MAX_POLICY_MS, " ms"}, {CID_EXHAUST_WAIT, CID_EXHAUST_BORROW, ""},
		{0, UINT32_MAX, ""}
	};

	for (int i = 0; i < CID_BIND_POLICY_NOPTS; i++)
		if (v[i] != CID_BIND_UNSET &&
			!cid_bind_in_range(v[i], range[i].lo, range[i].hi, &cid_bind_policy_opt_names[i],
							   camel, range[i].unit, "", err, errlen))
			return CID_EINVAL;
	if (v[CID_BIND_POLICY_ON_BEHIND] != CID_BIND_UNSET)
		opts->on_behind = (cid_behind_policy) v[CID_BIND_POLICY_ON_BEHIND];
	if (v[CID_BIND_POLICY_MAX_DRIFT_MS] != CID_BIND_UNSET)
		opts->max_drift_ms = v[CID_BIND_POLICY_MAX_DRIFT_MS];
	if (v[CID_BIND_POLICY_MAX_WAIT_MS] != CID_BIND_UNSET)
		opts->max_wait_ms = v[CID_BIND_POLICY_MAX_WAIT_MS];
	if (v[CID_BIND_POLICY_ON_EXHAUSTED] != CID_BIND_UNSET)
		opts->on_exhausted = (cid_exhaust_policy) v[CID_BIND_POLICY_ON_EXHAUSTED];
	if (v[CID_BIND_POLICY_MAX_BORROW_TICKS] != CID_BIND_UNSET)
		opts->max_borrow_ticks = (uint64_t) v[CID_BIND_POLICY_MAX_BORROW_TICKS];
	return CID_OK;
}
