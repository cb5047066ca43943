/*
 * block_opts.c — a block allocator's options as every binding reads them: their
 * names, defaults, and the check of the values before any connection (the
 * allocator's own check, db/lease/block_core.c, so that one set of rules
 * and messages serves the C API, the command and the packages).
 */
#include <stdio.h>

#include "bind_internal.h"

const cid_bind_opt_name cid_bind_block_opt_names[CID_BIND_BLOCK_NOPTS] = {
	{"target_ms", "targetMs"}, {"min_size", "minSize"}, {"max_size", "maxSize"},
	{"initial_size", "initialSize"}, {"prefetch_pct", "prefetchPct"}, {"wait_ms", "waitMs"},
	{"timeout_ms", "timeoutMs"}
};

#ifdef CID_BIND_LEASE

#include "block_internal.h"

void
cid_bind_block_defaults(uint64_t v[CID_BIND_BLOCK_NOPTS])
{
	cid_block_opts o;

	cid_block_opts_default(&o);
	v[0] = (uint64_t) o.target_ms;
	v[1] = (uint64_t) o.min_size;
	v[2] = (uint64_t) o.max_size;
	v[3] = (uint64_t) o.initial_size;
	v[4] = (uint64_t) o.prefetch_pct;
	v[5] = (uint64_t) o.wait_ms;
	v[6] = (uint64_t) o.timeout_ms;
}

int
cid_bind_block_opts(cid_block_opts *opts, const char *sequence, const char *conninfo,
					const uint64_t v[CID_BIND_BLOCK_NOPTS], char *err, size_t errlen)
{
	cid_block_cfg cfg;

	for (int i = 0; i < CID_BIND_BLOCK_NOPTS; i++)
		if (v[i] > CID_BIND_MAX_OPTION)
		{
			snprintf(err, errlen, "%s %llu is out of range", cid_bind_block_opt_names[i].snake,
					 (unsigned long long) v[i]);
			return CID_EINVAL;
		}
	cid_block_opts_default(opts);
	opts->sequence = sequence;
	opts->conninfo = conninfo;
	opts->target_ms = (int64_t) v[0];
	opts->min_size = (int64_t) v[1];
	opts->max_size = (int64_t) v[2];
	opts->initial_size = (int64_t) v[3];
	/* Above 99 is refused by the check: only keep it from wrapping. */
	opts->prefetch_pct = v[4] > 1000 ? 1000 : (int) v[4];
	opts->wait_ms = (int64_t) v[5];
	opts->timeout_ms = (int64_t) v[6];
	return cid_block_get_cfg(&cfg, opts, err, errlen);
}

#endif							/* CID_BIND_LEASE */
