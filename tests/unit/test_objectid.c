/*
 * test_objectid.c — MongoDB ObjectIds: hex text and time against the
 * specification's test plan and MongoDB's documented example, the
 * generator's pure step with an injected clock and random source (counter
 * wrap, time limits, a clock that goes back or stands still, the 2^24
 * period), uniqueness across threads, and new process bytes in a child
 * after fork().
 */
#define _POSIX_C_SOURCE 200809L

#include <sys/wait.h>
#include <unistd.h>

#include "chronoid.h"
#include "tap.h"
#include "testutil.h"

#define NS_PER_S INT64_C(1000000000)

static int
parse(cid_objectid *o, const char *s, size_t *errpos)
{
	return cid_objectid_parse(o, s, strlen(s), errpos);
}

static const char *
text(const cid_objectid *o)
{
	static char buf[CID_OBJECTID_STRLEN + 1];

	cid_objectid_format(buf, o);
	return buf;
}

/* tests/vectors.md, "MongoDB ObjectId" */
static void
test_known_answers(void)
{
	static const struct
	{
		const char *hex;
		int64_t		ms;
		const char *when;
	}			cases[] = {
		{"507f1f77bcf86cd799439011", INT64_C(1350508407000), "2012-10-17T21:13:27.000Z"},
		{"000000000000000000000000", 0, "1970-01-01T00:00:00.000Z"},
		{"7fffffff0000000000000000", INT64_C(2147483647000), "2038-01-19T03:14:07.000Z"},
		{"800000000000000000000000", INT64_C(2147483648000), "2038-01-19T03:14:08.000Z"},
		{"ffffffffffffffffffffffff", INT64_C(4294967295000), "2106-02-07T06:28:15.000Z"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		cid_objectid o;
		char		t[CID_TIME_STRLEN + 1];

		EXPECT_EQ_INT(parse(&o, cases[i].hex, NULL), CID_OK);
		EXPECT_STR(text(&o), cases[i].hex);
		EXPECT_EQ_INT(cid_objectid_unix_ms(&o), cases[i].ms);
		EXPECT_EQ_INT(cid_time_format(t, cid_objectid_unix_ms(&o)), CID_OK);
		EXPECT_STR(t, cases[i].when);
	}
}

static void
test_case_and_errors(void)
{
	cid_objectid o;
	size_t		pos = 99;

	EXPECT_EQ_INT(parse(&o, "507F1F77BCF86CD799439011", NULL), CID_OK);
	EXPECT_STR(text(&o), "507f1f77bcf86cd799439011");
	EXPECT_EQ_INT(parse(&o, "507f1f77bcf86cd79943901", NULL), CID_ELENGTH);
	EXPECT_EQ_INT(parse(&o, "507f1f77bcf86cd7994390111", NULL), CID_ELENGTH);
	EXPECT_EQ_INT(parse(&o, "", NULL), CID_ELENGTH);
	/* a bad character in each of the three words, and the first of two */
	EXPECT_EQ_INT(parse(&o, "g07f1f77bcf86cd799439011", &pos), CID_ESYNTAX);
	EXPECT_EQ_INT(pos, 0);
	EXPECT_EQ_INT(parse(&o, "507f1f77bcf86cd7994390x1", &pos), CID_ESYNTAX);
	EXPECT_EQ_INT(pos, 22);
	EXPECT_EQ_INT(parse(&o, "507f1f77bc-86cd7994390x1", &pos), CID_ESYNTAX);
	EXPECT_EQ_INT(pos, 10);
	EXPECT_EQ_INT(parse(&o, "507f1f77bcf86cd79943901\x80", &pos), CID_ESYNTAX);
	EXPECT_EQ_INT(pos, 23);
	EXPECT_EQ_INT(cid_objectid_parse(NULL, "x", 1, NULL), CID_EINVAL);
}

static void
test_from_ms(void)
{
	static const uint8_t rest[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	cid_objectid o;

	EXPECT_EQ_INT(cid_objectid_from_ms(&o, INT64_C(1350508407999), NULL), CID_OK);
	EXPECT_STR(text(&o), "507f1f77" "0000000000000000");
	EXPECT_EQ_INT(cid_objectid_from_ms(&o, INT64_C(1350508407000), rest), CID_OK);
	EXPECT_STR(text(&o), "507f1f77" "0102030405060708");
	EXPECT_EQ_INT(cid_objectid_from_ms(&o, INT64_C(4294967295999), NULL), CID_OK);
	EXPECT_STR(text(&o), "ffffffff" "0000000000000000");
	EXPECT_EQ_INT(cid_objectid_from_ms(&o, INT64_C(4294967296000), NULL), CID_ETIME_RANGE);
	EXPECT_EQ_INT(cid_objectid_from_ms(&o, -1, NULL), CID_ETIME_RANGE);
	EXPECT_EQ_INT(cid_objectid_from_ms(&o, INT64_MAX, NULL), CID_ETIME_RANGE);
	EXPECT_EQ_INT(cid_objectid_from_ms(NULL, 0, NULL), CID_EINVAL);
}

/* The fake source hands out 0xfc, 0xfd, ...: process bytes fc..00, counter 01 02 03. */
static void
test_generator_step(void)
{
	tu_fake		f = {.now_ns = INT64_C(1350508407) * NS_PER_S + 5, .next_byte = 0xfc};
	cid_env		env = {tu_fake_clock, tu_fake_random, NULL, &f};
	cid_objectid_gen gen;
	cid_objectid o;

	EXPECT_EQ_INT(cid_objectid_init(&gen, &env), CID_OK);
	EXPECT_EQ_INT(f.random_calls, 1);
	EXPECT_EQ_INT(cid_objectid_next_at(&gen, f.now_ns, &o), CID_OK);
	EXPECT_STR(text(&o), "507f1f77" "fcfdfeff00" "010204");
	EXPECT_EQ_INT(cid_objectid_next(&gen, &o), CID_OK);
	EXPECT_STR(text(&o), "507f1f77" "fcfdfeff00" "010205");
	/* no more random bytes after init (no fork here) */
	EXPECT_EQ_INT(f.random_calls, 1);
	/* the time limits: nothing consumed */
	EXPECT_EQ_INT(cid_objectid_next_at(&gen, -1, &o), CID_ETIME_RANGE);
	EXPECT_EQ_INT(cid_objectid_next_at(&gen, INT64_C(4294967296) * NS_PER_S, &o), CID_ETIME_RANGE);
	EXPECT_EQ_INT(cid_objectid_next_at(&gen, INT64_C(4294967296) * NS_PER_S - 1, &o), CID_OK);
	EXPECT_STR(text(&o), "ffffffff" "fcfdfeff00" "010206");
	f.fail_random = true;
	EXPECT_EQ_INT(cid_objectid_init(&gen, &env), CID_ERANDOM);
	f.now_ns = -5;
	f.fail_random = false;
	EXPECT_EQ_INT(cid_objectid_init(&gen, &env), CID_OK);
	/* a negative reading is the clock failing */
	EXPECT_EQ_INT(cid_objectid_next(&gen, &o), CID_ECLOCK);
	EXPECT_EQ_INT(cid_objectid_next(NULL, &o), CID_EINVAL);
	EXPECT_EQ_INT(cid_objectid_init(NULL, &env), CID_EINVAL);
}

/* The specification's test plan: the counter goes from 0xffffff to 0. */
static void
test_counter_wraps(void)
{
	tu_fake		f = {.now_ns = 7 * NS_PER_S, .next_byte = 0xf9};
	cid_env		env = {tu_fake_clock, tu_fake_random, NULL, &f};
	cid_objectid_gen gen;
	cid_objectid o;

	/* bytes f9 fa fb fc fd | fe ff 00: the counter starts at 0xfeff00 */
	EXPECT_EQ_INT(cid_objectid_init(&gen, &env), CID_OK);
	for (int i = 0; i < 0xff; i++)
		EXPECT_EQ_INT(cid_objectid_next_at(&gen, f.now_ns, &o), CID_OK);
	EXPECT_STR(text(&o), "00000007" "f9fafbfcfd" "feffff");
	for (int i = 0; i < 0x10000; i++)
		EXPECT_EQ_INT(cid_objectid_next_at(&gen, f.now_ns, &o), CID_OK);
	EXPECT_STR(text(&o), "00000007" "f9fafbfcfd" "ffffff");
	EXPECT_EQ_INT(cid_objectid_next_at(&gen, f.now_ns, &o), CID_OK);
	/* the process bytes stay: no carry out of the counter */
	EXPECT_STR(text(&o), "00000007" "f9fafbfcfd" "000000");
	EXPECT_EQ_INT(cid_objectid_next_at(&gen, f.now_ns, &o), CID_OK);
	EXPECT_STR(text(&o), "00000007" "f9fafbfcfd" "000001");
}

#define MT_THREADS 4

typedef struct mt_arg
{
	cid_objectid_gen *gen;
	cid_objectid *out;
	size_t		n;
	size_t		errors;
} mt_arg;

static void *
mt_worker(void *p)
{
	mt_arg	   *a = p;

	for (size_t i = 0; i < a->n; i++)
		if (cid_objectid_next_at(a->gen, 99 * NS_PER_S, &a->out[i]) != CID_OK)
			a->errors++;
	return NULL;
}

static int
cmp12(const void *a, const void *b)
{
	return memcmp(a, b, 12);
}

/* The counter of an ObjectId: its last 3 bytes. */
static uint32_t
counter_of(const cid_objectid *o)
{
	return (uint32_t) o->bytes[9] << 16 | (uint32_t) o->bytes[10] << 8 | o->bytes[11];
}

/*
 * A clock that goes back: the seconds follow it (ObjectIds do not
 * increase), the counter does not: it steps on, so the ObjectIds of a
 * second met again differ from the earlier ones of that second.
 */
static void
test_clock_back(void)
{
	tu_fake		f = {.now_ns = 100 * NS_PER_S, .next_byte = 0x10};
	cid_env		env = {tu_fake_clock, tu_fake_random, NULL, &f};
	cid_objectid_gen gen;
	cid_objectid first,
				o;

	/* process bytes 10..14, the counter starts at 0x151617 */
	EXPECT_EQ_INT(cid_objectid_init(&gen, &env), CID_OK);
	EXPECT_EQ_INT(cid_objectid_next(&gen, &first), CID_OK);
	EXPECT_STR(text(&first), "00000064" "1011121314" "151618");
	f.now_ns = 99 * NS_PER_S + NS_PER_S - 1;
	EXPECT_EQ_INT(cid_objectid_next(&gen, &o), CID_OK);
	EXPECT_STR(text(&o), "00000063" "1011121314" "151619");
	EXPECT(memcmp(o.bytes, first.bytes, 12) < 0);
	/* back in the first one's second: the counter has moved on */
	f.now_ns = 100 * NS_PER_S;
	EXPECT_EQ_INT(cid_objectid_next(&gen, &o), CID_OK);
	EXPECT_STR(text(&o), "00000064" "1011121314" "15161a");
	/* far back, to 1970: still a valid ObjectId, the counter steps */
	f.now_ns = 0;
	EXPECT_EQ_INT(cid_objectid_next(&gen, &o), CID_OK);
	EXPECT_STR(text(&o), "00000000" "1011121314" "15161b");
	EXPECT_EQ_INT(f.random_calls, 1);
}

/*
 * A clock that jumps back and forth between a few seconds, or stands
 * still, against the rule: the seconds are the clock's, the counter is
 * the start + 1 per ObjectId whatever the clock did, the process bytes
 * never change; so no ObjectId repeats while fewer than 2^24 are made.
 */
static void
test_clock_walk_model(void)
{
	uint64_t	rng = 0xd1b54a32d192ed03u;
	size_t		n = tu_scale(200000, 20000);
	size_t		wrong = 0,
				dups = 0,
				back = 0;
	tu_fake		f = {.now_ns = 1000 * NS_PER_S, .next_byte = 0x40};
	cid_env		env = {tu_fake_clock, tu_fake_random, NULL, &f};
	cid_objectid_gen gen;
	cid_objectid *all = calloc(n, sizeof(cid_objectid));
	uint32_t	start;

	if (all == NULL)
	{
		EXPECT(all != NULL);
		return;
	}
	/* process bytes 40..44, counter start 0x454647 */
	EXPECT_EQ_INT(cid_objectid_init(&gen, &env), CID_OK);
	start = 0x454647;
	for (size_t i = 0; i < n; i++)
	{
		uint64_t	x = tu_rng_next(&rng);
		int64_t		before = f.now_ns;

		/* within 1000 .. 1004 s, sub-second steps either way */
		f.now_ns = 1000 * NS_PER_S + (int64_t) (x % (uint64_t) (5 * NS_PER_S));
		if (f.now_ns / NS_PER_S < before / NS_PER_S)
			back++;
		if (cid_objectid_next(&gen, &all[i]) != CID_OK ||
			cid_objectid_unix_ms(&all[i]) != f.now_ns / NS_PER_S * 1000 ||
			memcmp(all[i].bytes + 4, "\x40\x41\x42\x43\x44", 5) != 0 ||
			counter_of(&all[i]) != ((start + (uint32_t) i + 1) & 0xffffff))
			wrong++;
	}
	qsort(all, n, sizeof(cid_objectid), cmp12);
	for (size_t i = 1; i < n; i++)
		if (memcmp(&all[i - 1], &all[i], 12) == 0)
			dups++;
	EXPECT_EQ_U64(wrong, 0);
	EXPECT_EQ_U64(dups, 0);
	EXPECT(back > n / 4);
	free(all);
}

/*
 * One second read many times: every ObjectId of it distinct, the counter
 * through all 2^24 values once; the 2^24 + 1st is the first again (the
 * limit the header states: 16,777,216 ObjectIds per second, per process).
 */
static void
test_same_second_period(void)
{
	tu_fake		f = {.now_ns = 5 * NS_PER_S, .next_byte = 0};
	cid_env		env = {tu_fake_clock, tu_fake_random, NULL, &f};
	cid_objectid_gen gen;
	cid_objectid first,
				o;
	uint32_t	expect;
	size_t		wrong = 0;

	/* process bytes 00..04, counter start 0x050607 */
	EXPECT_EQ_INT(cid_objectid_init(&gen, &env), CID_OK);
	EXPECT_EQ_INT(cid_objectid_next_at(&gen, f.now_ns, &first), CID_OK);
	EXPECT_EQ_INT(counter_of(&first), 0x050608);
	expect = 0x050608;
	for (uint32_t i = 1; i < (UINT32_C(1) << 24); i++)
	{
		expect = (expect + 1) & 0xffffff;
		if (cid_objectid_next_at(&gen, f.now_ns, &o) != CID_OK || counter_of(&o) != expect ||
			memcmp(o.bytes, first.bytes, 9) != 0)
			wrong++;
	}
	EXPECT_EQ_U64(wrong, 0);
	EXPECT_EQ_INT(counter_of(&o), 0x050607);
	EXPECT_EQ_INT(cid_objectid_next_at(&gen, f.now_ns, &o), CID_OK);
	EXPECT(memcmp(o.bytes, first.bytes, 12) == 0);
}

/* Threads sharing one generator in one second: every counter value once. */
static void
test_threads_unique(void)
{
	size_t		per = tu_scale(200000, 20000);
	cid_objectid *all = calloc(MT_THREADS * per, sizeof(cid_objectid));
	pthread_t	th[MT_THREADS];
	mt_arg		args[MT_THREADS];
	cid_objectid_gen gen;
	size_t		errors = 0,
				dups = 0;

	if (all == NULL)
	{
		EXPECT(all != NULL);
		return;
	}
	EXPECT_EQ_INT(cid_objectid_init(&gen, NULL), CID_OK);
	for (int t = 0; t < MT_THREADS; t++)
	{
		args[t] = (mt_arg) {&gen, all + t * per, per, 0};
		EXPECT_EQ_INT(pthread_create(&th[t], NULL, mt_worker, &args[t]), 0);
	}
	for (int t = 0; t < MT_THREADS; t++)
	{
		pthread_join(th[t], NULL);
		errors += args[t].errors;
	}
	qsort(all, MT_THREADS * per, sizeof(cid_objectid), cmp12);
	for (size_t i = 1; i < MT_THREADS * per; i++)
		if (memcmp(&all[i - 1], &all[i], 12) == 0)
			dups++;
	EXPECT_EQ_U64(errors, 0);
	EXPECT_EQ_U64(dups, 0);
	/* one process: the same 5 bytes throughout */
	EXPECT(memcmp(all[0].bytes + 4, all[MT_THREADS * per - 1].bytes + 4, 5) == 0);
	free(all);
}

/*
 * The specification's test plan: after fork() the child's process bytes
 * differ from its parent's (both sides use the generator the parent made,
 * on the platform's random source).
 */
static void
test_fork_new_process_bytes(void)
{
	cid_objectid_gen gen;
	cid_objectid parent,
				child,
				parent_after;
	int			fds[2];
	pid_t		pid;
	int			status = 0;

	EXPECT_EQ_INT(cid_objectid_init(&gen, NULL), CID_OK);
	EXPECT_EQ_INT(cid_objectid_next(&gen, &parent), CID_OK);
	EXPECT_EQ_INT(pipe(fds), 0);
	pid = fork();
	if (pid == 0)
	{
		int			ok = cid_objectid_next(&gen, &child) == CID_OK &&
			write(fds[1], child.bytes, 12) == 12;

		_exit(ok ? 0 : 1);
	}
	EXPECT(pid > 0);
	close(fds[1]);
	EXPECT_EQ_INT(read(fds[0], child.bytes, 12), 12);
	close(fds[0]);
	EXPECT_EQ_INT(waitpid(pid, &status, 0), pid);
	EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	EXPECT(memcmp(parent.bytes + 4, child.bytes + 4, 5) != 0);
	/* the parent keeps its own */
	EXPECT_EQ_INT(cid_objectid_next(&gen, &parent_after), CID_OK);
	EXPECT(memcmp(parent.bytes + 4, parent_after.bytes + 4, 5) == 0);
}

int
main(void)
{
	TAP_CASE(test_known_answers);
	TAP_CASE(test_case_and_errors);
	TAP_CASE(test_from_ms);
	TAP_CASE(test_generator_step);
	TAP_CASE(test_counter_wraps);
	TAP_CASE(test_clock_back);
	TAP_CASE(test_clock_walk_model);
	TAP_CASE(test_same_second_period);
	TAP_CASE(test_threads_unique);
	TAP_CASE(test_fork_new_process_bytes);
	return tap_done();
}
