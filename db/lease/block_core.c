/*
 * block_core.c — the pure parts of the block allocator: options and their
 * bounds, when to prefetch, and the block size that follows the rate at
 * which values are taken.  No libpq, no clock: the unit tests call them
 * with the numbers they choose.
 */
#include <string.h>

#include "block_internal.h"
#include "lease_internal.h"

void
cid_block_opts_default(cid_block_opts *opts)
{
	if (opts == NULL)
		return;
	memset(opts, 0, sizeof(*opts));
	opts->target_ms = 60000;
	opts->min_size = 16;
	opts->max_size = 1000000;
	opts->prefetch_pct = 10;
	opts->wait_ms = 10000;
	opts->timeout_ms = 10000;
}

int
cid_block_get_cfg(cid_block_cfg *c, const cid_block_opts *opts, char *errbuf, size_t errlen)
{
	const cid_block_opts *o = &c->o;

	if (opts == NULL || opts->sequence == NULL || opts->sequence[0] == '\0')
	{
		cid_pq_seterr(errbuf, errlen, "no sequence given (a schema-qualified name, such as public.order_ids)");
		return CID_EINVAL;
	}
	c->o = *opts;
	if (o->target_ms < 10 || o->target_ms > 86400000)
	{
		cid_pq_seterr(errbuf, errlen, "target %lld ms is out of range (10 ms .. 24 h)",
					  (long long) o->target_ms);
		return CID_EINVAL;
	}
	if (o->min_size < 1 || o->max_size > CID_BLOCK_MAX_SIZE || o->min_size > o->max_size)
	{
		cid_pq_seterr(errbuf, errlen, "block sizes %lld .. %lld are out of range (1 <= min <= max <= %lld)",
					  (long long) o->min_size, (long long) o->max_size,
					  (long long) CID_BLOCK_MAX_SIZE);
		return CID_EINVAL;
	}
	if (o->initial_size < 0 || o->initial_size > CID_BLOCK_MAX_SIZE)
	{
		cid_pq_seterr(errbuf, errlen, "initial block size %lld is out of range (0 = default, 1 .. %lld)",
					  (long long) o->initial_size, (long long) CID_BLOCK_MAX_SIZE);
		return CID_EINVAL;
	}
	if (o->prefetch_pct < 0 || o->prefetch_pct > 99)
	{
		cid_pq_seterr(errbuf, errlen, "prefetch at %d %% is out of range (0 .. 99)", o->prefetch_pct);
		return CID_EINVAL;
	}
	if (o->wait_ms < 0 || o->wait_ms > 86400000)
	{
		cid_pq_seterr(errbuf, errlen, "wait %lld ms is out of range (0 .. 24 h)", (long long) o->wait_ms);
		return CID_EINVAL;
	}
	if (o->timeout_ms < 100 || o->timeout_ms > 86400000)
	{
		cid_pq_seterr(errbuf, errlen, "timeout %lld ms is out of range (100 ms .. 24 h)",
					  (long long) o->timeout_ms);
		return CID_EINVAL;
	}
	c->conninfo = (o->conninfo != NULL && o->conninfo[0] != '\0') ? o->conninfo : NULL;
	return CID_OK;
}

static int64_t
clamp(int64_t v, int64_t lo, int64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

int64_t
cid_block_first_size(const cid_block_opts *o)
{
	return clamp(o->initial_size > 0 ? o->initial_size : 1000, o->min_size, o->max_size);
}

int64_t
cid_block_size_for(int64_t used, int64_t elapsed_ns, int64_t target_ms,
				   int64_t prev, int64_t min, int64_t max)
{
	double		want;

	if (elapsed_ns < 1000000)
		elapsed_ns = 1000000;
	if (used < 0)
		used = 0;
	/* values per ns times the target: doubles, no overflow at any rate */
	want = (double) used * ((double) target_ms * 1e6) / (double) elapsed_ns;
	if (want > (double) prev * 4)
		want = (double) prev * 4;
	if (want < (double) prev / 4)
		want = (double) prev / 4;
	if (want > (double) max)
		return max;
	if (want < (double) min)
		return min;
	return clamp((int64_t) (want + 0.5), min, max);
}

bool
cid_block_prefetch_due(int64_t first, int64_t n, int64_t next, int pct)
{
	/* used * 100 >= n * pct, in doubles: n may be a billion */
	return (double) (next - first) * 100.0 >= (double) n * (double) pct;
}
