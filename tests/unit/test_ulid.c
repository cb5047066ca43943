/*
 * test_ulid.c — ULID text against the spec's vectors and limits, the UUID
 * retyping, and the plain and monotonic generators with an injected clock
 * and random source.
 */
#include "chronoid.h"
#include "tap.h"
#include "testutil.h"

#define MAX_MS ((INT64_C(1) << 48) - 1)

static int
parse(cid_ulid *u, const char *s, size_t *errpos)
{
	return cid_ulid_parse(u, s, strlen(s), errpos);
}

static const char *
ulid_text(const cid_ulid *u)
{
	static char buf[CID_ULID_STRLEN + 1];

	cid_ulid_format(buf, u);
	return buf;
}

static const char *
uuid_text(const cid_uuid *u)
{
	static char buf[CID_UUID_STRLEN + 1];

	cid_uuid_format(buf, u);
	return buf;
}

/* the seed of the reproducible "random" values (tu_rng_next) */
static uint64_t rng_state = 0x0123456789ABCDEFu;

static void
test_spec_vectors(void)
{
	static const struct
	{
		const char *ulid;
		const char *uuid;
		int64_t		ms;
	}			cases[] = {
		{"01ARZ3NDEKTSV4RRFFQ69G5FAV", "01563e3a-b5d3-d676-4c61-efb99302bd5b",
		INT64_C(1469922850259)},
		{"01AN4Z07BY79KA1307SR9X4MV3", "015549f0-1d7e-3a66-a08c-07ce13d25363",
		INT64_C(1465824320894)},
		{"01GV5PA9EQG7D82Q3Y4PKBZSYV", "0186cb65-25d7-81da-815c-7e25a6bfe7db",
		INT64_C(1678449649111)},
		{"00000000000000000000000000", "00000000-0000-0000-0000-000000000000", 0},
		{"7ZZZZZZZZZZZZZZZZZZZZZZZZZ", "ffffffff-ffff-ffff-ffff-ffffffffffff",
		INT64_C(281474976710655)},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		cid_ulid	u,
					back;
		cid_uuid	uu;

		EXPECT_EQ_INT(parse(&u, cases[i].ulid, NULL), CID_OK);
		EXPECT_STR(ulid_text(&u), cases[i].ulid);
		EXPECT_EQ_INT(cid_ulid_unix_ms(&u), cases[i].ms);
		cid_ulid_to_uuid(&uu, &u);
		EXPECT_STR(uuid_text(&uu), cases[i].uuid);
		EXPECT_EQ_INT(cid_uuid_parse(&uu, cases[i].uuid, CID_UUID_STRLEN, NULL), CID_OK);
		cid_ulid_from_uuid(&back, &uu);
		EXPECT_STR(ulid_text(&back), cases[i].ulid);
	}
}

static void
test_ulid_as_uuid_is_not_v7(void)
{
	cid_ulid	u;
	cid_uuid	uu;
	int64_t		ms = 42;

	/* the spec example's nibbles say version 8, and no time */
	EXPECT_EQ_INT(parse(&u, "01GV5PA9EQG7D82Q3Y4PKBZSYV", NULL), CID_OK);
	cid_ulid_to_uuid(&uu, &u);
	EXPECT_EQ_INT(cid_uuid_version(&uu), 8);
	EXPECT_EQ_INT(cid_uuid_unix_ms(&ms, &uu), CID_ENOTIME);
	/* and this one is not even of the RFC variant */
	EXPECT_EQ_INT(parse(&u, "01ARZ3NDEKTSV4RRFFQ69G5FAV", NULL), CID_OK);
	cid_ulid_to_uuid(&uu, &u);
	EXPECT_EQ_INT(cid_uuid_version(&uu), -1);
}

static void
test_lower_and_mixed_case(void)
{
	cid_ulid	u;

	EXPECT_EQ_INT(parse(&u, "01arz3ndektsv4rrffq69g5fav", NULL), CID_OK);
	EXPECT_STR(ulid_text(&u), "01ARZ3NDEKTSV4RRFFQ69G5FAV");
	EXPECT_EQ_INT(parse(&u, "7zzzzzzzzzzzzzzzzzzzzzzzzz", NULL), CID_OK);
	EXPECT_STR(ulid_text(&u), "7ZZZZZZZZZZZZZZZZZZZZZZZZZ");
	EXPECT_EQ_INT(parse(&u, "01gV5pA9eQg7D82q3Y4pKbZsYv", NULL), CID_OK);
	EXPECT_STR(ulid_text(&u), "01GV5PA9EQG7D82Q3Y4PKBZSYV");
}

static void
test_overflow(void)
{
	cid_ulid	u;
	size_t		pos = 99;

	EXPECT_EQ_INT(parse(&u, "80000000000000000000000000", &pos), CID_EOVERFLOW);
	EXPECT_EQ_INT(pos, 0);
	EXPECT_EQ_INT(parse(&u, "ZZZZZZZZZZZZZZZZZZZZZZZZZZ", NULL), CID_EOVERFLOW);
	EXPECT_EQ_INT(parse(&u, "8ZZZZZZZZZZZZZZZZZZZZZZZZZ", NULL), CID_EOVERFLOW);
	EXPECT_EQ_INT(parse(&u, "z0000000000000000000000000", NULL), CID_EOVERFLOW);
}

static void
test_excluded_letters(void)
{
	static const char excluded[] = "ILOUilou";

	for (size_t k = 0; k < sizeof(excluded) - 1; k++)
	{
		/* the bad letter at a different place each time */
		for (size_t at = 0; at < CID_ULID_STRLEN; at += 5)
		{
			char		s[] = "01ARZ3NDEKTSV4RRFFQ69G5FAV";
			cid_ulid	u;
			size_t		pos = 99;

			s[at] = excluded[k];
			EXPECT_EQ_INT(parse(&u, s, &pos), CID_ESYNTAX);
			EXPECT_EQ_INT(pos, at);
		}
	}
}

static void
test_syntax_and_length(void)
{
	cid_ulid	u;
	size_t		pos = 99;

	EXPECT_EQ_INT(parse(&u, "01ARZ3NDEKTSV4RRFFQ69G5FA", &pos), CID_ELENGTH);
	EXPECT_EQ_INT(parse(&u, "01ARZ3NDEKTSV4RRFFQ69G5FAVX", &pos), CID_ELENGTH);
	EXPECT_EQ_INT(parse(&u, "", &pos), CID_ELENGTH);
	EXPECT_EQ_INT(pos, 99);
	/* the first bad character wins, before any overflow check */
	EXPECT_EQ_INT(parse(&u, "9-ARZ3NDEKTSV4RRFFQ69G5F!V", &pos), CID_ESYNTAX);
	EXPECT_EQ_INT(pos, 1);
	EXPECT_EQ_INT(parse(&u, "01ARZ3NDEKTSV4RRFFQ69G5FA ", &pos), CID_ESYNTAX);
	EXPECT_EQ_INT(pos, 25);
	EXPECT_EQ_INT(cid_ulid_parse(&u, "01ARZ3NDEK\0SV4RRFFQ69G5FAV", 26, &pos), CID_ESYNTAX);
	EXPECT_EQ_INT(pos, 10);
	/* bytes above 127 are not letters */
	EXPECT_EQ_INT(parse(&u, "01ARZ3NDEKTSV4RRFFQ69G5FA\xc5", &pos), CID_ESYNTAX);
	EXPECT_EQ_INT(pos, 25);
	/* only len characters are read */
	EXPECT_EQ_INT(cid_ulid_parse(&u, "01ARZ3NDEKTSV4RRFFQ69G5FAV??", 26, &pos), CID_OK);
}

static void
test_from_ms(void)
{
	cid_ulid	u;
	uint8_t		rand[10];

	EXPECT_EQ_INT(cid_ulid_from_ms(&u, INT64_C(1678449649111), NULL), CID_OK);
	EXPECT_STR(ulid_text(&u), "01GV5PA9EQ0000000000000000");
	memset(rand, 0xff, sizeof(rand));
	EXPECT_EQ_INT(cid_ulid_from_ms(&u, MAX_MS, rand), CID_OK);
	EXPECT_STR(ulid_text(&u), "7ZZZZZZZZZZZZZZZZZZZZZZZZZ");
	EXPECT_EQ_INT(cid_ulid_from_ms(&u, 0, rand), CID_OK);
	EXPECT_STR(ulid_text(&u), "0000000000ZZZZZZZZZZZZZZZZ");
	EXPECT_EQ_INT(cid_ulid_from_ms(&u, MAX_MS + 1, NULL), CID_ETIME_RANGE);
	EXPECT_EQ_INT(cid_ulid_from_ms(&u, -1, NULL), CID_ETIME_RANGE);
	EXPECT_EQ_INT(cid_ulid_from_ms(&u, INT64_MIN, NULL), CID_ETIME_RANGE);
}

static void
test_round_trip_random(void)
{
	cid_ulid	prev;
	char		prev_text[CID_ULID_STRLEN + 1];
	int			bad = 0;

	for (int n = 0; n < 100000; n++)
	{
		cid_ulid	a,
					b;
		char		text[CID_ULID_STRLEN + 1];
		char		mixed[CID_ULID_STRLEN + 1];
		uint64_t	hi = tu_rng_next(&rng_state),
					lo = tu_rng_next(&rng_state);

		for (int i = 0; i < 8; i++)
		{
			a.bytes[i] = (uint8_t) (hi >> (56 - 8 * i));
			a.bytes[8 + i] = (uint8_t) (lo >> (56 - 8 * i));
		}
		cid_ulid_format(text, &a);
		/* lower-case some letters on odd rounds */
		memcpy(mixed, text, sizeof(text));
		if (n % 2)
			for (int i = 1; i < CID_ULID_STRLEN; i += 3)
				if (mixed[i] >= 'A' && mixed[i] <= 'Z')
					mixed[i] = (char) (mixed[i] - 'A' + 'a');
		if (strlen(text) != CID_ULID_STRLEN || text[0] > '7' ||
			cid_ulid_parse(&b, mixed, CID_ULID_STRLEN, NULL) != CID_OK ||
			memcmp(a.bytes, b.bytes, 16) != 0)
			bad++;
		/* text order is byte order */
		if (n > 0 &&
			(memcmp(prev.bytes, a.bytes, 16) < 0) != (strcmp(prev_text, text) < 0))
			bad++;
		prev = a;
		memcpy(prev_text, text, sizeof(text));
	}
	EXPECT_EQ_INT(bad, 0);
}

/* A monotonic generator whose last ULID is the given one; its ms. */
static int64_t
seed_monotonic(cid_ulid_gen *gen, const char *text)
{
	cid_ulid	u,
				out;

	EXPECT_EQ_INT(cid_ulid_init(gen, true, NULL), CID_OK);
	EXPECT_EQ_INT(parse(&u, text, NULL), CID_OK);
	EXPECT_EQ_INT(cid_ulid_next_at(gen, cid_ulid_unix_ms(&u), u.bytes + 6, &out), CID_OK);
	EXPECT_STR(ulid_text(&out), text);
	return cid_ulid_unix_ms(&u);
}

static void
test_monotonic_increment(void)
{
	cid_ulid_gen gen;
	cid_ulid	u;
	int64_t		ms;

	ms = seed_monotonic(&gen, "01BX5ZZKBKACTAV9WEVGEMMVRZ");
	EXPECT_EQ_INT(cid_ulid_next_at(&gen, ms, NULL, &u), CID_OK);
	EXPECT_STR(ulid_text(&u), "01BX5ZZKBKACTAV9WEVGEMMVS0");
	EXPECT_EQ_INT(cid_ulid_next_at(&gen, ms, NULL, &u), CID_OK);
	EXPECT_STR(ulid_text(&u), "01BX5ZZKBKACTAV9WEVGEMMVS1");
	/* carry through many bytes */
	EXPECT_EQ_INT(seed_monotonic(&gen, "01BX5ZZKBK000ZZZZZZZZZZZZZ"), ms);
	EXPECT_EQ_INT(cid_ulid_next_at(&gen, ms, NULL, &u), CID_OK);
	EXPECT_STR(ulid_text(&u), "01BX5ZZKBK0010000000000000");
}

static void
test_monotonic_overflow(void)
{
	cid_ulid_gen gen;
	cid_ulid	u;
	uint8_t		rand[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
	int64_t		ms;

	ms = seed_monotonic(&gen, "01BX5ZZKBKZZZZZZZZZZZZZZZY");
	EXPECT_EQ_INT(cid_ulid_next_at(&gen, ms, rand, &u), CID_OK);
	EXPECT_STR(ulid_text(&u), "01BX5ZZKBKZZZZZZZZZZZZZZZZ");
	memset(&u, 0, sizeof(u));
	EXPECT_EQ_INT(cid_ulid_next_at(&gen, ms, rand, &u), CID_EMONOTONIC_OVERFLOW);
	/* nothing changed: the same call fails again, also with the clock behind */
	EXPECT_EQ_INT(cid_ulid_next_at(&gen, ms, rand, &u), CID_EMONOTONIC_OVERFLOW);
	EXPECT_EQ_INT(cid_ulid_next_at(&gen, ms - 5, rand, &u), CID_EMONOTONIC_OVERFLOW);
	/* the next millisecond starts afresh with the given bytes */
	EXPECT_EQ_INT(cid_ulid_next_at(&gen, ms + 1, rand, &u), CID_OK);
	EXPECT_EQ_INT(cid_ulid_unix_ms(&u), ms + 1);
	EXPECT(memcmp(u.bytes + 6, rand, 10) == 0);
}

static void
test_monotonic_clock_backwards(void)
{
	cid_ulid_gen gen;
	cid_ulid	a,
				b,
				c;
	uint8_t		rand[10] = {0};
	int64_t		ms;

	ms = seed_monotonic(&gen, "01BX5ZZKBKACTAV9WEVGEMMVRZ");
	EXPECT_EQ_INT(cid_ulid_next_at(&gen, ms, rand, &a), CID_OK);
	/* one second back: the last ms is kept and the random part steps */
	EXPECT_EQ_INT(cid_ulid_next_at(&gen, ms - 1000, rand, &b), CID_OK);
	EXPECT_STR(ulid_text(&b), "01BX5ZZKBKACTAV9WEVGEMMVS1");
	EXPECT(memcmp(a.bytes, b.bytes, 16) < 0);
	EXPECT_EQ_INT(cid_ulid_next_at(&gen, 0, rand, &c), CID_OK);
	EXPECT_EQ_INT(cid_ulid_unix_ms(&c), ms);
	EXPECT(memcmp(b.bytes, c.bytes, 16) < 0);
}

static void
test_monotonic_new_ms(void)
{
	cid_ulid_gen gen;
	cid_ulid	u;
	uint8_t		rand[10] = {0x80, 1, 2, 3, 4, 5, 6, 7, 8, 9};

	EXPECT_EQ_INT(cid_ulid_init(&gen, true, NULL), CID_OK);
	/* a fresh generator needs randomness: NULL is a bad argument */
	EXPECT_EQ_INT(cid_ulid_next_at(&gen, 1000, NULL, &u), CID_EINVAL);
	EXPECT_EQ_INT(cid_ulid_next_at(&gen, 1000, rand, &u), CID_OK);
	EXPECT_EQ_INT(cid_ulid_unix_ms(&u), 1000);
	EXPECT(memcmp(u.bytes + 6, rand, 10) == 0);
	/* a later ms takes the new bytes, even when they are smaller */
	rand[0] = 0;
	EXPECT_EQ_INT(cid_ulid_next_at(&gen, 1001, rand, &u), CID_OK);
	EXPECT_EQ_INT(cid_ulid_unix_ms(&u), 1001);
	EXPECT(memcmp(u.bytes + 6, rand, 10) == 0);
	/* and needs them */
	EXPECT_EQ_INT(cid_ulid_next_at(&gen, 1002, NULL, &u), CID_EINVAL);
	/* ms range */
	EXPECT_EQ_INT(cid_ulid_next_at(&gen, -1, rand, &u), CID_ETIME_RANGE);
	EXPECT_EQ_INT(cid_ulid_next_at(&gen, MAX_MS + 1, rand, &u), CID_ETIME_RANGE);
	EXPECT_EQ_INT(cid_ulid_next_at(&gen, MAX_MS, rand, &u), CID_OK);
	EXPECT_EQ_INT(cid_ulid_unix_ms(&u), MAX_MS);
}

static void
test_plain_mode(void)
{
	cid_ulid_gen gen;
	cid_ulid	u;
	uint8_t		rand[10] = {9, 8, 7, 6, 5, 4, 3, 2, 1, 0};

	EXPECT_EQ_INT(cid_ulid_init(&gen, false, NULL), CID_OK);
	EXPECT_EQ_INT(cid_ulid_next_at(&gen, 5000, rand, &u), CID_OK);
	EXPECT(memcmp(u.bytes + 6, rand, 10) == 0);
	/* same ms, smaller bytes: taken as they are (random order) */
	rand[0] = 0;
	EXPECT_EQ_INT(cid_ulid_next_at(&gen, 5000, rand, &u), CID_OK);
	EXPECT_EQ_INT(cid_ulid_unix_ms(&u), 5000);
	EXPECT(memcmp(u.bytes + 6, rand, 10) == 0);
	/* clock behind: the clock's ms */
	EXPECT_EQ_INT(cid_ulid_next_at(&gen, 10, rand, &u), CID_OK);
	EXPECT_EQ_INT(cid_ulid_unix_ms(&u), 10);
	EXPECT_EQ_INT(cid_ulid_next_at(&gen, 10, NULL, &u), CID_EINVAL);
}

static void
test_next_with_env(void)
{
	tu_fake		f = {INT64_C(1469922850259) * 1000000 + 999999, 0x10, false, 0};
	cid_env		env = {tu_fake_clock, tu_fake_random, NULL, &f};
	cid_ulid_gen gen;
	cid_ulid	u;
	cid_uuid	uu;

	EXPECT_EQ_INT(cid_ulid_init(&gen, true, &env), CID_OK);
	EXPECT_EQ_INT(cid_ulid_next(&gen, &u), CID_OK);
	EXPECT_EQ_INT(cid_ulid_unix_ms(&u), INT64_C(1469922850259));
	cid_ulid_to_uuid(&uu, &u);
	EXPECT_STR(uuid_text(&uu), "01563e3a-b5d3-1011-1213-141516171819");
	EXPECT_EQ_INT(f.random_calls, 1);
	/* same ms: an increment, no random bytes drawn */
	EXPECT_EQ_INT(cid_ulid_next(&gen, &u), CID_OK);
	cid_ulid_to_uuid(&uu, &u);
	EXPECT_STR(uuid_text(&uu), "01563e3a-b5d3-1011-1213-14151617181a");
	EXPECT_EQ_INT(f.random_calls, 1);
	/* a new ms with a failing source */
	f.now_ns += 1000000;
	f.fail_random = true;
	EXPECT_EQ_INT(cid_ulid_next(&gen, &u), CID_ERANDOM);
	f.fail_random = false;
	EXPECT_EQ_INT(cid_ulid_next(&gen, &u), CID_OK);
	EXPECT_EQ_INT(cid_ulid_unix_ms(&u), INT64_C(1469922850260));
	f.now_ns = -1;
	EXPECT_EQ_INT(cid_ulid_next(&gen, &u), CID_ECLOCK);

	/* plain mode draws 10 bytes every time */
	f.now_ns = 7 * 1000000;
	f.random_calls = 0;
	f.next_byte = 0;
	EXPECT_EQ_INT(cid_ulid_init(&gen, false, &env), CID_OK);
	EXPECT_EQ_INT(cid_ulid_next(&gen, &u), CID_OK);
	EXPECT_EQ_INT(cid_ulid_next(&gen, &u), CID_OK);
	EXPECT_EQ_INT(f.random_calls, 2);
	EXPECT_EQ_INT(f.next_byte, 20);
	EXPECT_EQ_INT(u.bytes[6], 10);
	EXPECT_EQ_INT(cid_ulid_unix_ms(&u), 7);
}

static void
test_platform_default(void)
{
	cid_ulid_gen gen;
	cid_ulid	a,
				b;

	EXPECT_EQ_INT(cid_ulid_init(&gen, true, NULL), CID_OK);
	EXPECT_EQ_INT(cid_ulid_next(&gen, &a), CID_OK);
	EXPECT_EQ_INT(cid_ulid_next(&gen, &b), CID_OK);
	EXPECT(memcmp(a.bytes, b.bytes, 16) < 0);
	EXPECT(cid_ulid_unix_ms(&b) > INT64_C(1735689600000));
	EXPECT_EQ_INT(cid_ulid_init(&gen, false, NULL), CID_OK);
	EXPECT_EQ_INT(cid_ulid_next(&gen, &a), CID_OK);
	EXPECT_EQ_INT(cid_ulid_next(&gen, &b), CID_OK);
	EXPECT(memcmp(a.bytes + 6, b.bytes + 6, 10) != 0);
}

int
main(void)
{
	TAP_CASE(test_spec_vectors);
	TAP_CASE(test_ulid_as_uuid_is_not_v7);
	TAP_CASE(test_lower_and_mixed_case);
	TAP_CASE(test_overflow);
	TAP_CASE(test_excluded_letters);
	TAP_CASE(test_syntax_and_length);
	TAP_CASE(test_from_ms);
	TAP_CASE(test_round_trip_random);
	TAP_CASE(test_monotonic_increment);
	TAP_CASE(test_monotonic_overflow);
	TAP_CASE(test_monotonic_clock_backwards);
	TAP_CASE(test_monotonic_new_ms);
	TAP_CASE(test_plain_mode);
	TAP_CASE(test_next_with_env);
	TAP_CASE(test_platform_default);
	return tap_done();
}
