/*
 * lease_opts.c — a node lease's options as every binding reads them: their
 * names in both spellings, their defaults and ranges, the range of node
 * numbers against the layout, the schema and owner texts (the lease
 * library's own check, db/lease/lease_text.c), and the words of each
 * refusal, decided here once so that the packages cannot drift apart.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "bind_internal.h"

const cid_bind_opt_name cid_bind_lease_opt_names[CID_BIND_LEASE_NOPTS] = {
	{"ttl_ms", "ttlMs"}, {"grace_ms", "graceMs"}, {"clock_wait_ms", "clockWaitMs"},
	{"lo", "lo"}, {"hi", "hi"}
};

#ifdef CID_BIND_LEASE

#include "lease_internal.h"

/* A day: no lease, margin or wait is meant to outlast one. */
#define DAY_MS INT64_C(86400000)

/* v[i] within [lo, hi], or err says which value and what was expected. */
static bool
in_range(const int64_t *v, int i, int64_t lo, int64_t hi, const char *unit, const char *ctx,
		 bool camel, char *err, size_t errlen)
{
	return cid_bind_in_range(v[i], lo, hi, &cid_bind_lease_opt_names[i], camel, unit, ctx,
							 err, errlen);
}

int
cid_bind_lease_opts(cid_bind_lease_args *a, const cid_layout *layout, const char *conninfo,
					const char *schema, const char *owner,
					const int64_t v[CID_BIND_LEASE_NOPTS],
					const int64_t policy[CID_BIND_POLICY_NOPTS], bool renew, bool camel,
					char *err, size_t errlen)
{
	int64_t		x[CID_BIND_LEASE_NOPTS];
	char		ctx[CID_LAYOUT_NAME_MAX + 32],
				name[CID_LEASE_SCHEMA_MAX + 1];
	int64_t		maxnode;

	memset(a, 0, sizeof(*a));
	cid_lease_opts_default(&a->opts);
	cid_snowflake_opts_default(&a->sf);
	if (layout != NULL)
		a->layout = *layout;
	else if (cid_layout_preset(&a->layout, "pgedge") != CID_OK)
		return snprintf(err, errlen, "no pgedge layout"), CID_ELAYOUT;

	/*
	 * The library's range is int4 in SQL: a layout with more node bits
	 * leases from the first 2^31 - 1 numbers.
	 */
	maxnode = cid_layout_max_node(&a->layout) > INT32_MAX ? INT32_MAX :
		(int64_t) cid_layout_max_node(&a->layout);
	snprintf(ctx, sizeof(ctx), " (layout %s)", a->layout.name);

	/* The defaults where nothing was given. */
	memcpy(x, v, sizeof(x));
	if (x[CID_BIND_LEASE_TTL_MS] == CID_BIND_UNSET)
		x[CID_BIND_LEASE_TTL_MS] = a->opts.ttl_ms;
	if (x[CID_BIND_LEASE_LO] == CID_BIND_UNSET)
		x[CID_BIND_LEASE_LO] = 1;
	if (x[CID_BIND_LEASE_HI] == CID_BIND_UNSET)
		x[CID_BIND_LEASE_HI] = maxnode;

	if (!in_range(x, CID_BIND_LEASE_TTL_MS, 1000, DAY_MS, " ms", "", camel, err, errlen) ||
		(x[CID_BIND_LEASE_GRACE_MS] != CID_BIND_UNSET &&
		 !in_range(x, CID_BIND_LEASE_GRACE_MS, 0, DAY_MS, " ms", "", camel, err, errlen)) ||
		(x[CID_BIND_LEASE_CLOCK_WAIT_MS] != CID_BIND_UNSET &&
		 !in_range(x, CID_BIND_LEASE_CLOCK_WAIT_MS, 0, DAY_MS, " ms", "", camel, err, errlen)) ||
		!in_range(x, CID_BIND_LEASE_LO, 0, maxnode, "", ctx, camel, err, errlen) ||
		!in_range(x, CID_BIND_LEASE_HI, 1, maxnode, "", ctx, camel, err, errlen) ||
		cid_bind_snowflake_policy(&a->sf, policy, camel, err, errlen) != CID_OK)
		return CID_EINVAL;
	if (x[CID_BIND_LEASE_LO] > x[CID_BIND_LEASE_HI])
	{
		snprintf(err, errlen, "lo %" PRId64 " is above hi %" PRId64 ": expected lo <= hi",
				 x[CID_BIND_LEASE_LO], x[CID_BIND_LEASE_HI]);
		return CID_EINVAL;
	}
	/* The library's own check, run here before any connection. */
	if (cid_lease_texts_ok(schema, owner, name, err, errlen) != CID_OK)
		return CID_EINVAL;

	a->opts.conninfo = conninfo;
	a->opts.schema = schema;
	a->opts.owner = owner;
	a->opts.ttl_ms = x[CID_BIND_LEASE_TTL_MS];
	/* Unset stays negative: the library's defaults, derived from the ttl. */
	a->opts.grace_ms = x[CID_BIND_LEASE_GRACE_MS] == CID_BIND_UNSET ? -1 : x[CID_BIND_LEASE_GRACE_MS];
	a->opts.clock_wait_ms = x[CID_BIND_LEASE_CLOCK_WAIT_MS] == CID_BIND_UNSET ? -1 :
		x[CID_BIND_LEASE_CLOCK_WAIT_MS];
	a->opts.lo = (uint64_t) x[CID_BIND_LEASE_LO];
	a->opts.hi = (uint64_t) x[CID_BIND_LEASE_HI];
	a->opts.layout = &a->layout;
	a->opts.sf_opts = &a->sf;
	a->opts.no_renewer = !renew;
	return CID_OK;
}

#endif							/* CID_BIND_LEASE */
