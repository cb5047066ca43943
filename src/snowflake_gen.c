/*
 * snowflake_gen.c — the lock-free Snowflake generator: a pure step that
 * issues from a clock reading (cid_snowflake_next_at), the driver that reads
 * the clock and waits (cid_snowflake_next, with a fetch-and-add fast path
 * under the borrow policy), and batch issue (fill).
 */
#define _POSIX_C_SOURCE 200809L

#include "chronoid.h"
#include "atomic_internal.h"
#include "clock_internal.h"
#include "time_internal.h"

/*
 * gen->state holds the last issued position, tick << seq_bits | sequence.
 * A fresh generator holds STATE_NONE ("nothing issued yet"), so the very
 * first ID, even one at tick 0, is (tick, 0).  All ones is never a real
 * position unless time and sequence together take 64 bits (a 64-bit
 * layout without node or reserved bits), and then it is the very last
 * position of the field: the generator never issues that one ID.  The
 * fetch-and-add path of cid_snowflake_next may leave the state on a
 * position it burnt (never issued): gaps are allowed, duplicates never.
 */
#define STATE_NONE CID_SNOWFLAKE_NONE

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
	atomic_init(cid_atomic_u64(&gen->state), STATE_NONE);
	return CID_OK;
}

int
cid_snowflake_start_after(cid_snowflake_gen *gen, int64_t last_ms)
{
	const cid_layout *l;
	int			sb;
	uint64_t	tick,
				want,
				cur;

	if (gen == NULL)
		return CID_EINVAL;
	l = &gen->layout;
	if (last_ms < l->epoch_ms)
		return CID_OK;
	if (last_ms > cid_layout_max_ms(l))
		return CID_ETIME_RANGE;
	sb = l->bits[CID_FIELD_SEQ];
	tick = (uint64_t) (last_ms - l->epoch_ms) / l->tick_ms;

	/*
	 * The last position of that tick: the next ID comes from a later tick,
	 * and a clock that is behind it meets the behind policy (run ahead,
	 * wait or fail) rather than a tick someone else issued in.  Never
	 * moves the state back: a generator already past the mark stays where
	 * it is.
	 */
	want = (tick << sb) | mask_of(sb);
	cur = atomic_load(cid_atomic_u64(&gen->state));
	while (cur == STATE_NONE || cur < want)
	{
		if (atomic_compare_exchange_weak(cid_atomic_u64(&gen->state), &cur, want))
			break;
	}
	return CID_OK;
}

int64_t
cid_snowflake_last_ms(const cid_snowflake_gen *gen)
{
	const cid_layout *l;
	uint64_t	state;
	uint64_t	tick;

	if (gen == NULL)
		return INT64_MIN;
	state = cid_atomic_u64_load(&gen->state, memory_order_acquire);
	if (state == STATE_NONE)
		return INT64_MIN;
	l = &gen->layout;
	tick = state >> l->bits[CID_FIELD_SEQ];
	/* The tick's last millisecond: whole ticks are what a successor skips. */
	return l->epoch_ms + (int64_t) (tick * l->tick_ms) + (int64_t) l->tick_ms - 1;
}

/* Internal to this file: the clock reading is older than the state. */
#define STALE_READING 1000

/*
 * The clock of gen.  The default one (cid_platform_clock) is read in place
 * rather than through a function pointer and two calls.
 */
static inline int64_t
read_clock(const cid_snowflake_gen *gen)
{
	if (gen->env.clock != NULL)
		return gen->env.clock(gen->env.ctx);
	return cid_clock_realtime_ns();
}

/*
 * The tick of clock reading now_ns, floor((now_ms - epoch) / tick_ms), or
 * CID_ETIME_RANGE when it lies before the epoch or past the time field.
 */
static inline int
tick_of(const cid_layout *l, int64_t now_ns, uint64_t *tick)
{
	int64_t		now_ms = cid_floor_div(now_ns, CID_NS_PER_MS);
	uint64_t	t;

	if (now_ms < l->epoch_ms)
		return CID_ETIME_RANGE;

	/*
	 * A 64-bit division by a variable costs more than the rest of the step,
	 * so the common ticks get constant divisors (which compile to a
	 * multiplication).
	 */
	t = (uint64_t) (now_ms - l->epoch_ms);
	switch (l->tick_ms)
	{
		case 1:
			break;
		case 10:
			t /= 10;
			break;
		default:
			t /= l->tick_ms;
			break;
	}
	if (t > mask_of(l->bits[CID_FIELD_TIME]))
		return CID_ETIME_RANGE;
	*tick = t;
	return CID_OK;
}

/*
 * What to issue after position old (the last one issued, or STATE_NONE) at
 * clock tick now_tick, by the policies: up to want consecutive positions of
 * one tick in *r, and in *next the state that records them.  Returns the
 * status of that run, or a failure or CID_EAGAIN (nothing to issue).  Pure:
 * the callers make the decision stick with one atomic operation.
 */
static inline int
decide(const cid_snowflake_gen *gen, uint64_t old, uint64_t now_tick,
	   uint64_t want, run *r, uint64_t *next)
{
	const cid_layout *l = &gen->layout;
	const cid_snowflake_opts *o = &gen->opts;
	int			seq_bits = l->bits[CID_FIELD_SEQ];
	uint64_t	max_seq = mask_of(seq_bits);
	uint64_t	tick,
				seq,
				count;
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

		/*
		 * cppcheck takes the test above for always true and so this one
		 * for always false; here last_tick >= now_tick, equal included.
		 */
		/* cppcheck-suppress knownConditionTrueFalse */
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
			 * Clock behind, but within the borrow window: this is our own
			 * borrowing (or a rollback we cannot tell from it).
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
		if (tick > mask_of(l->bits[CID_FIELD_TIME]))
			return CID_ETIME_RANGE;
	}

	count = max_seq - seq + 1;
	if (count > want)
		count = want;
	*next = tick << seq_bits | (seq + count - 1);
	if (*next == STATE_NONE)
	{
		/* the all-ones position is the sentinel: never issue it */
		if (--count == 0)
			return CID_ETIME_RANGE;
		(*next)--;
	}
	r->tick = tick;
	r->seq = seq;
	r->count = count;
	return status;
}

/*
 * Reserve up to want consecutive positions in one tick for clock tick
 * now_tick, deciding by the policies.  The whole decision is recomputed
 * from the state word on every CAS retry, so a thread that loses the race
 * simply decides again from the winner's state.
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
reserve(cid_snowflake_gen *gen, uint64_t now_tick, uint64_t want, run *r,
		const uint64_t *seen)
{
	int			seq_bits = gen->layout.bits[CID_FIELD_SEQ];
	uint64_t	old;

	old = seen ? *seen : atomic_load_explicit(cid_atomic_u64(&gen->state), memory_order_acquire);
	for (;;)
	{
		uint64_t	next;
		int			status;

		if (seen != NULL && old != *seen && old != STATE_NONE &&
			(old >> seq_bits) > now_tick)
			return STALE_READING;
		status = decide(gen, old, now_tick, want, r, &next);
		if (status < 0)
			return status;

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
		if (atomic_compare_exchange_weak_explicit(cid_atomic_u64(&gen->state), &old, next,
												  memory_order_acq_rel,
												  memory_order_acquire))
			return status;
	}
}

static inline uint64_t
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
	uint64_t	now_tick;
	int			rc;

	if (gen == NULL || id == NULL)
		return CID_EINVAL;
	rc = tick_of(&gen->layout, now_ns, &now_tick);
	if (rc < 0)
		return rc;
	rc = reserve(gen, now_tick, 1, &r, NULL);
	if (rc >= 0)
		*id = make_id(gen, r.tick, r.seq);
	return rc;
}

int
cid_snowflake_step(const cid_snowflake_gen *gen, uint64_t last, int64_t now_ns,
				   uint64_t *next)
{
	run			r;
	uint64_t	now_tick;
	int			rc;

	if (gen == NULL || next == NULL)
		return CID_EINVAL;
	rc = tick_of(&gen->layout, now_ns, &now_tick);
	if (rc < 0)
		return rc;
	return decide(gen, last, now_tick, 1, &r, next);
}

/*
 * Read the clock and reserve, waiting while the pure step says CID_EAGAIN.
 * The wait is bounded twice: by the clock (max_wait_ms since the first
 * wait, plus one tick when waiting out an exhausted sequence) and by the
 * total sleep asked for, so a clock that never moves cannot hang us.
 *
 * With have_reading, the first round uses the caller's state load seen0
 * and clock reading now0 (taken in that order) instead of its own.
 */
static int
drive(cid_snowflake_gen *gen, uint64_t want, run *r, bool have_reading,
	  uint64_t seen0, int64_t now0)
{
	cid_sleep_fn sleep = gen->env.sleep ? gen->env.sleep : cid_platform_sleep;
	void	   *ctx = gen->env.ctx;
	int64_t		budget_ms = gen->opts.max_wait_ms;
	int64_t		wait_start = 0;
	int64_t		slept = 0;
	bool		waiting = false;

	for (;;)
	{
		uint64_t	seen;
		int64_t		now;
		uint64_t	now_tick;
		int64_t		budget_ns,
					waited,
					need;
		uint64_t	target_ms;
		int			rc;

		if (have_reading)
		{
			seen = seen0;
			now = now0;
			have_reading = false;
		}
		else
		{
			/* load the state before reading the clock: see reserve() */
			seen = atomic_load_explicit(cid_atomic_u64(&gen->state), memory_order_acquire);
			now = read_clock(gen);
		}
		if (now < 0)
			return CID_ECLOCK;
		rc = tick_of(&gen->layout, now, &now_tick);
		if (rc < 0)
			return rc;
		rc = reserve(gen, now_tick, want, r, &seen);
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

/*
 * Fewest positions left before the borrow bound for a fetch-and-add: see
 * cid_snowflake_next.
 */
#define FETCH_ADD_MARGIN 4096

/*
 * Whether gen may issue with fetch-and-add (see cid_snowflake_next): under
 * the borrow policy the carry of +1 out of a used-up sequence into the tick
 * is exactly the borrowing the policy allows, and with time and sequence in
 * at most 63 bits the few positions burnt past the end of the time field
 * cannot wrap the word around to STATE_NONE or 0.
 */
static inline bool
fetch_add_ok(const cid_snowflake_gen *gen)
{
	return gen->opts.on_exhausted == CID_EXHAUST_BORROW &&
		gen->layout.bits[CID_FIELD_TIME] + gen->layout.bits[CID_FIELD_SEQ] <= 63;
}

/*
 * One ID.  Under the borrow policy the common cases, a tick that already
 * has IDs or is borrowed ahead of the clock, take one fetch-and-add instead
 * of a compare-and-swap loop: the state is a position tick << seq_bits |
 * seq, so state + 1 is the next position, carrying into the next tick
 * exactly when the sequence is used up (a borrowed tick).  Under
 * contention it never retries.  The position is checked against the
 * policies after the fact; one that may not be issued is burnt (a gap;
 * gaps are allowed, duplicates never).  So that failing calls do not burn
 * positions (a caller retrying on CID_EEXHAUSTED would push the state ever
 * further ahead of the clock), the fetch-and-add is taken only when the
 * state loaded before the clock read predicts success; only a race between
 * that load and the fetch-and-add burns, one position per racing thread.
 * Everything else, a new tick (the jump to it is not +1) included, goes
 * through reserve()'s compare-and-swap.
 */
int
cid_snowflake_next(cid_snowflake_gen *gen, uint64_t *id)
{
	run			r;
	uint64_t	seen,
				now_tick;
	int64_t		now;
	int			rc;

	if (gen == NULL || id == NULL)
		return CID_EINVAL;
	/* load the state before reading the clock: see reserve() */
	seen = atomic_load_explicit(cid_atomic_u64(&gen->state), memory_order_acquire);
	now = read_clock(gen);
	if (fetch_add_ok(gen) && seen != STATE_NONE && now >= 0 &&
		tick_of(&gen->layout, now, &now_tick) == CID_OK)
	{
		int			seq_bits = gen->layout.bits[CID_FIELD_SEQ];
		uint64_t	max_seq = mask_of(seq_bits);
		uint64_t	last = seen >> seq_bits;
		uint64_t	hi = mask_of(gen->layout.bits[CID_FIELD_TIME]);

		/*
		 * The policies of decide() for a position after a tick that is not
		 * behind the clock: the same tick with sequence left is CID_OK, a
		 * later tick is borrowed, allowed up to tick hi, the smaller of
		 * now_tick + max_borrow_ticks and the end of the time field
		 * (now_tick is within the field).  Near that bound the
		 * compare-and-swap decides: fetch-and-add only while at least a
		 * tick's worth of positions, and at least FETCH_ADD_MARGIN, lies
		 * between the next position and the bound.  Racing fetch-and-adds
		 * then cannot carry the state past the bound (which would make
		 * later calls take it for a clock far behind) unless that many
		 * threads sit between their state load and their fetch-and-add at
		 * the same moment.
		 */
		if (gen->opts.max_borrow_ticks < hi - now_tick)
			hi = now_tick + gen->opts.max_borrow_ticks;
		if (last >= now_tick &&
			seen + (max_seq < FETCH_ADD_MARGIN ? FETCH_ADD_MARGIN : max_seq + 1) <
			(hi << seq_bits | max_seq))
		{
			uint64_t	pos = atomic_fetch_add_explicit(cid_atomic_u64(&gen->state), 1,
														memory_order_acq_rel) + 1;
			uint64_t	tick = pos >> seq_bits;

			/*
			 * The state only grows once something was issued, so the
			 * position before pos is not behind now_tick either.  When its
			 * tick is seen's, a later tick in pos is our own carry, within
			 * the bound by the margin (checked all the same).  A newer
			 * tick may come from a thread that read the clock after us
			 * (our reading is then stale: see reserve()), so that
			 * position is burnt and we start over.
			 */
			if (((pos - 1) >> seq_bits) == last && tick <= hi)
			{
				*id = make_id(gen, tick, pos & max_seq);
				return tick == now_tick ? CID_OK : CID_WTICK_BORROWED;
			}
			rc = drive(gen, 1, &r, false, 0, 0);
		}
		else
			rc = drive(gen, 1, &r, true, seen, now);
	}
	else
		rc = drive(gen, 1, &r, true, seen, now);
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
		int			rc = drive(gen, (uint64_t) (n - have), &r, false, 0, 0);

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
