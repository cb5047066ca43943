/*
 * lease_opts.c — a node lease's options as every binding reads them: their
 * names in both spellings, their defaults and ranges, the range of node
 * numbers against the layout, the schema and owner texts, and the words of
 * each refusal, decided here once so that the packages cannot drift apart.
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

/*
 * text for a message: quoted, control bytes as \xNN (a label must not
 * write on the reader's terminal), cut after 64 bytes at a character's
 * start (out holds SHOWN_MAX bytes: 64 bytes shown four times over, a
 * character's last 3 bytes, "...", the quotes).  Returns out.
 */
#define SHOWN_MAX 280

static const char *
shown(char *out, const char *text)
{
	size_t		k = 0;

	out[k++] = '"';
	for (size_t i = 0; text[i] != '\0'; i++)
	{
		unsigned char c = (unsigned char) text[i];

		if (i >= 64 && (c & 0xc0) != 0x80)
		{
			memcpy(out + k, "...", 3);
			k += 3;
			break;
		}
		if (c < 0x20 || c == 0x7f)
			k += (size_t) snprintf(out + k, SHOWN_MAX - k, "\\x%02x", c);
		else
		{
			if (c == '"' || c == '\\')
				out[k++] = '\\';
			out[k++] = (char) c;
		}
	}
	out[k++] = '"';
	out[k] = '\0';
	return out;
}

/* v[i] within [lo, hi], or err says which value and what was expected. */
static bool
in_range(const int64_t *v, int i, int64_t lo, int64_t hi, const char *unit, const char *ctx,
		 bool camel, char *err, size_t errlen)
{
	return cid_bind_in_range(v[i], lo, hi, &cid_bind_lease_opt_names[i], camel, unit, ctx,
							 err, errlen);
}

/* The owner text: at most CID_BIND_LEASE_OWNER_MAX bytes, none a control byte. */
static bool
owner_ok(const char *owner, char *err, size_t errlen)
{
	char		q[SHOWN_MAX];
	size_t		n = strlen(owner);

	/* The library would cut a longer one short without a word. */
	if (n > CID_BIND_LEASE_OWNER_MAX)
	{
		snprintf(err, errlen, "owner %s is %zu bytes long: expected at most %d",
				 shown(q, owner), n, CID_BIND_LEASE_OWNER_MAX);
		return false;
	}
	/* `chronoid lease list` prints it: no escape sequences for its reader. */
	for (size_t i = 0; i < n; i++)
		if ((unsigned char) owner[i] < 0x20 || owner[i] == 0x7f)
		{
			snprintf(err, errlen, "owner %s has a control character at byte %zu: "
					 "expected printable text", shown(q, owner), i);
			return false;
		}
	return true;
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
				q[SHOWN_MAX],
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
	if (schema != NULL && !cid_lease_schema_ok(schema, name))
	{
		snprintf(err, errlen, "schema %s is not a lease schema name: expected lower-case letters, "
				 "digits and _, not starting with a digit, at most %d", shown(q, schema),
				 CID_LEASE_SCHEMA_MAX);
		return CID_EINVAL;
	}
	if (owner != NULL && !owner_ok(owner, err, errlen))
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
