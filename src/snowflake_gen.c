/*
 * snowflake_gen.c — the lock-free Snowflake generator: a pure step that
 * issues from a clock reading (cid_snowflake_next_at), the driver that reads
 * the clock and waits (cid_snowflake_next), and batch issue (fill).
 */
#include "chronoid.h"
#include "cid_internal_time.h"

/*
 * gen->state holds the last issued position, tick << seq_bits | sequence.
 * A fresh generator holds STATE_NONE ("nothing issued yet"), so the very
 * first ID, even one at tick 0, is (tick, 0).  All ones is never a real
 * position unless time and sequence together take 64 bits (a 64-bit
 * layout without node or reserved bits), and then it is the very last
 * position of the field: the generator never issues that one ID.
 */
#define STATE_NONE UINT64_MAX

/* A run of consecutive sequence numbers reserved in one tick. */
typedef struct run
{
	uint64_t	tick;
	uint64_t	seq;			/* first sequence number of the run */
	uint64_t	count;
	uint64_t	wait_tick;		/* CID_EAGAIN: the tick the clock must reach */
	bool		exhausted;		/* CID_EAGAIN: waiting out a full tick */
} run;

static uint64_t
mask_of(int bits)
{
	return (UINT64_C(1) << bits) - 1;
}

void
cid_snowflake_opts_default(cid_snowflake_opts *opts)
{
	if (opts == NULL)
		return;
	opts->on_behind = CID_BEHIND_RUN_AHEAD;
	opts->max_drift_ms = 1000;
	opts->max_wait_ms = 1000;
	opts->on_exhausted = CID_EXHAUST_WAIT;
	opts->max_borrow_ticks = 1000;
}

int
cid_snowflake_init(cid_snowflake_gen *gen, const cid_layout *layout,
				   uint64_t node, const cid_snowflake_opts *opts,
				   const cid_env *env)
{
	cid_layout	l;

	if (gen == NULL)
		return CID_EINVAL;
	if (layout == NULL)
	{
		if (cid_layout_preset(&l, "pgedge") != CID_OK)
			return CID_ELAYOUT;
	}
	else
		l = *layout;
	if (cid_layout_validate(&l, NULL, 0) != CID_OK)
		return CID_ELAYOUT;
	if (node > cid_layout_max_node(&l))
		return CID_ENODE;
	if (opts != NULL)
	{
		if ((int) opts->on_behind < CID_BEHIND_RUN_AHEAD ||
			(int) opts->on_behind > CID_BEHIND_FAIL ||
			(int) opts->on_exhausted < CID_EXHAUST_WAIT ||
			(int) opts->on_exhausted > CID_EXHAUST_BORROW ||
			opts->max_drift_ms < 0 || opts->max_wait_ms < 0)
			return CID_EINVAL;
		gen->opts = *opts;
	}
	else
		cid_snowflake_opts_default(&gen->opts);
	gen->layout = l;
	gen->node = node;
	if (env != NULL)
		gen->env = *env;
	else
	{
		gen->env.clock = NULL;
		gen->env.random = NULL;
		gen->env.sleep = NULL;
		gen->env.ctx = NULL;
	}
	atomic_init(&gen->state, STATE_NONE);
	return CID_OK;
}

/* Internal to this file: the clock reading is older than the state. */
#define STALE_READING 1000

/*
 * Reserve up to want consecutive positions in one tick for clock reading
 * now_ns, deciding by the policies.  The whole decision is recomputed from
 * the state word on every CAS retry, so a thread that loses the race simply
 * decides again from the winner's state.
 *
 * seen, when not NULL, is the state the driver loaded before it read the
 * clock.  Another thread that wins the race may have read the clock after
 * us and issued on a later tick; our reading is then merely stale, not a
 * clock that went back, so instead of applying a clock-behind policy we
 * return STALE_READING and the driver reads the clock again.  Against the
 * state loaded before the reading, "behind" is real: whoever issued it read
 * the clock before we did.
 */
static int
reserve(cid_snowflake_gen *gen, int64_t now_ns, uint64_t want, run *r,
		const uint64_t *seen)
{
	const cid_layout *l = &gen->layout;
	const cid_snowflake_opts *o = &gen->opts;
	int			seq_bits = l->bits[CID_FIELD_SEQ];
	uint64_t	max_seq = mask_of(seq_bits);
	uint64_t	max_tick = mask_of(l->bits[CID_FIELD_TIME]);
	int64_t		now_ms = cid_floor_div(now_ns, CID_NS_PER_MS);
	uint64_t	now_tick;
	uint64_t	old;

	if (now_ms < l->epoch_ms)
		return CID_ETIME_RANGE;
	/*
	 * A 64-bit division by a variable costs more than the rest of the step,
	 * so the common ticks get constant divisors (which compile to a
	 * multiplication).
	 */
	now_tick = (uint64_t) (now_ms - l->epoch_ms);
	switch (l->tick_ms)
	{
		case 1:
			break;
		case 10:
			now_tick /= 10;
			break;
		default:
			now_tick /= l->tick_ms;
			break;
	}
	if (now_tick > max_tick)
		return CID_ETIME_RANGE;

	old = seen ? *seen : atomic_load_explicit(&gen->state, memory_order_acquire);
	for (;;)
	{
		uint64_t	tick,
					seq,
					count,
					next;
		int			status = CID_OK;

		if (old == STATE_NONE || (old >> seq_bits) < now_tick)
		{
			/* a tick nobody has issued in yet */
			tick = now_tick;
			seq = 0;
		}
		else
		{
			uint64_t	last_tick = old >> seq_bits;
			uint64_t	last_seq = old & max_seq;
			bool		roll = last_seq == max_seq;
			uint64_t	ahead;

			/* the position right after the last one issued */
			tick = roll ? last_tick + 1 : last_tick;
			seq = roll ? 0 : last_seq + 1;
			ahead = tick - now_tick;

			if (last_tick > now_tick && seen != NULL && old != *seen)
				return STALE_READING;
			if (last_tick == now_tick)
			{
				if (roll)
				{
					if (o->on_exhausted == CID_EXHAUST_WAIT)
					{
						r->wait_tick = last_tick + 1;
						r->exhausted = true;
						return CID_EAGAIN;
					}
					if (ahead > o->max_borrow_ticks)
						return CID_EEXHAUSTED;
					status = CID_WTICK_BORROWED;
				}
			}
			else if (o->on_exhausted == CID_EXHAUST_BORROW &&
					 last_tick - now_tick <= o->max_borrow_ticks)
			{
				/*
				 * Clock behind, but within the borrow window: this is our
				 * own borrowing (or a rollback we cannot tell from it).
				 */
				if (ahead > o->max_borrow_ticks)
					return CID_EEXHAUSTED;
				status = CID_WTICK_BORROWED;
			}
			else if (o->on_behind == CID_BEHIND_RUN_AHEAD)
			{
				/* bound the tick actually issued, so IDs stay within drift */
				if (ahead > (uint64_t) o->max_drift_ms / l->tick_ms)
					return CID_EDRIFT;
				status = CID_WCLOCK_BEHIND;
			}
			else if (o->on_behind == CID_BEHIND_WAIT)
			{
				r->wait_tick = last_tick;
				r->exhausted = false;
				return CID_EAGAIN;
			}
			else
				return CID_ECLOCK_BACKWARDS;
			if (tick > max_tick)
				return CID_ETIME_RANGE;
		}

		count = max_seq - seq + 1;
		if (count > want)
			count = want;
		next = tick << seq_bits | (seq + count - 1);
		if (next == STATE_NONE)
		{
			/* the all-ones position is the sentinel: never issue it */
			if (--count == 0)
				return CID_ETIME_RANGE;
			next--;
		}

		/*
		 * One compare-and-swap on the one state word.  Every successful CAS
		 * replaces exactly the value it read with a larger one, so the
		 * word's modification order is a strictly increasing chain of
		 * positions, and no two threads can reserve from the same value:
		 * IDs are unique and increase in issue order, whatever the thread.
		 * acq_rel (acquire on failure) makes whatever a thread did before
		 * issuing visible to a thread that issues after it; uniqueness
		 * itself needs only the atomicity of the CAS.
		 */
		if (atomic_compare_exchange_weak_explicit(&gen->state, &old, next,
												  memory_order_acq_rel,
												  memory_order_acquire))
		{
			r->tick = tick;
			r->seq = seq;
			r->count = count;
			return status;
		}
	}
}

static uint64_t
make_id(const cid_snowflake_gen *gen, uint64_t tick, uint64_t seq)
{
	const cid_layout *l = &gen->layout;
	uint64_t	id = tick << l->shift[CID_FIELD_TIME] | seq << l->shift[CID_FIELD_SEQ];

	if (l->bits[CID_FIELD_NODE] != 0)
		id |= gen->node << l->shift[CID_FIELD_NODE];
	return id;
}

int
cid_snowflake_next_at(cid_snowflake_gen *gen, int64_t now_ns, uint64_t *id)
{
	run			r;
	int			rc;

	if (gen == NULL || id == NULL)
		return CID_EINVAL;
	rc = reserve(gen, now_ns, 1, &r, NULL);
	if (rc >= 0)
		*id = make_id(gen, r.tick, r.seq);
	return rc;
}

/*
 * Read the clock and reserve, waiting while the pure step says CID_EAGAIN.
 * The wait is bounded twice: by the clock (max_wait_ms since the first
 * wait, plus one tick when waiting out an exhausted sequence) and by the
 * total sleep asked for, so a clock that never moves cannot hang us.
 */
static int
drive(cid_snowflake_gen *gen, uint64_t want, run *r)
{
	cid_clock_fn clock = gen->env.clock ? gen->env.clock : cid_platform_clock;
	cid_sleep_fn sleep = gen->env.sleep ? gen->env.sleep : cid_platform_sleep;
	void	   *ctx = gen->env.ctx;
	int64_t		budget_ms = gen->opts.max_wait_ms;
	int64_t		wait_start = 0;
	int64_t		slept = 0;
	bool		waiting = false;

	for (;;)
	{
		/* load the state before reading the clock: see reserve() */
		uint64_t	seen = atomic_load_explicit(&gen->state, memory_order_acquire);
		int64_t		now = clock(ctx);
		int64_t		budget_ns,
					waited,
					need;
		uint64_t	target_ms;
		int			rc;

		if (now < 0)
			return CID_ECLOCK;
		rc = reserve(gen, now, want, r, &seen);
		if (rc == STALE_READING)
			continue;
		if (rc != CID_EAGAIN)
			return rc;
		if (!waiting)
		{
			waiting = true;
			wait_start = now;
			if (r->exhausted && budget_ms <= INT64_MAX - gen->layout.tick_ms)
				budget_ms += gen->layout.tick_ms;
		}
		budget_ns = budget_ms > INT64_MAX / CID_NS_PER_MS ?
			INT64_MAX : budget_ms * CID_NS_PER_MS;
		waited = now - wait_start > slept ? now - wait_start : slept;
		if (waited >= budget_ns)
			return CID_EWAIT_TIMEOUT;

		/*
		 * Sleep until the start of the tick we wait for, within the budget.
		 * That tick lies after the clock reading, which is not negative, so
		 * its start is positive and fits uint64 arithmetic.
		 */
		target_ms = (uint64_t) gen->layout.epoch_ms + r->wait_tick * gen->layout.tick_ms;
		if (target_ms > (uint64_t) INT64_MAX / CID_NS_PER_MS)
			need = budget_ns - waited;
		else
			need = (int64_t) target_ms * CID_NS_PER_MS - now;
		if (need <= 0)
			continue;			/* the clock got there meanwhile */
		if (need > budget_ns - waited)
			need = budget_ns - waited;
		sleep(ctx, need);
		slept += need;
	}
}

int
cid_snowflake_next(cid_snowflake_gen *gen, uint64_t *id)
{
	run			r;
	int			rc;

	if (gen == NULL || id == NULL)
		return CID_EINVAL;
	rc = drive(gen, 1, &r);
	if (rc >= 0)
		*id = make_id(gen, r.tick, r.seq);
	return rc;
}

int
cid_snowflake_fill(cid_snowflake_gen *gen, uint64_t *ids, size_t n,
				   size_t *done)
{
	size_t		have = 0;
	int			remark = CID_OK;

	if (done != NULL)
		*done = 0;
	if (gen == NULL || (ids == NULL && n > 0))
		return CID_EINVAL;
	while (have < n)
	{
		run			r;
		int			rc = drive(gen, (uint64_t) (n - have), &r);

		if (rc < 0)
		{
			if (done != NULL)
				*done = have;
			return rc;
		}
		if (remark == CID_OK)
			remark = rc;
		for (uint64_t i = 0; i < r.count; i++)
			ids[have++] = make_id(gen, r.tick, r.seq + i);
	}
	if (done != NULL)
		*done = have;
	return remark;
}
