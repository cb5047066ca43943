/*
 * test_typeid.c — TypeID text against every case of the spec's valid.yml
 * and invalid.yml (jetify-com/typeid, spec 0.3.0; tests/vectors.md), the
 * prefix rules at their edges, the buffer limits, the agreement with the
 * ULID digits, random round trips, and generation over a UUIDv7
 * generator with an injected clock and random source.
 */
#include "chronoid.h"
#include "tap.h"
#include "testutil.h"

#define NS_PER_MS INT64_C(1000000)

static const char *
uuid_text(const cid_uuid *u)
{
	static char buf[CID_UUID_STRLEN + 1];

	cid_uuid_format(buf, u);
	return buf;
}

static int
parse(cid_uuid *u, size_t *plen, const char *s, size_t *errpos)
{
	return cid_typeid_parse(u, plen, s, strlen(s), errpos);
}

/* valid.yml: every case decodes to its prefix and UUID and encodes back. */
static void
test_spec_valid(void)
{
	static const struct
	{
		const char *name;
		const char *typeid;
		const char *prefix;
		const char *uuid;
	}			cases[] = {
		{"nil", "00000000000000000000000000", "", "00000000-0000-0000-0000-000000000000"},
		{"one", "00000000000000000000000001", "", "00000000-0000-0000-0000-000000000001"},
		{"ten", "0000000000000000000000000a", "", "00000000-0000-0000-0000-00000000000a"},
		{"sixteen", "0000000000000000000000000g", "", "00000000-0000-0000-0000-000000000010"},
		{"thirty-two", "00000000000000000000000010", "", "00000000-0000-0000-0000-000000000020"},
		{"max-valid", "7zzzzzzzzzzzzzzzzzzzzzzzzz", "", "ffffffff-ffff-ffff-ffff-ffffffffffff"},
		{"valid-alphabet", "prefix_0123456789abcdefghjkmnpqrs", "prefix",
		"0110c853-1d09-52d8-d73e-1194e95b5f19"},
		{"valid-uuidv7", "prefix_01h455vb4pex5vsknk084sn02q", "prefix",
		"01890a5d-ac96-774b-bcce-b302099a8057"},
		{"prefix-underscore", "pre_fix_00000000000000000000000000", "pre_fix",
		"00000000-0000-0000-0000-000000000000"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		cid_uuid	u,
					want;
		size_t		plen = SIZE_MAX;
		char		text[CID_TYPEID_STRLEN_MAX + 1];

		printf("# valid: %s\n", cases[i].name);
		EXPECT_EQ_INT(parse(&u, &plen, cases[i].typeid, NULL), CID_OK);
		EXPECT_EQ_INT(plen, strlen(cases[i].prefix));
		EXPECT(strncmp(cases[i].typeid, cases[i].prefix, plen) == 0);
		EXPECT_STR(uuid_text(&u), cases[i].uuid);
		EXPECT_EQ_INT(cid_uuid_parse(&want, cases[i].uuid, CID_UUID_STRLEN, NULL), CID_OK);
		EXPECT_EQ_INT(cid_typeid_format(text, sizeof(text), cases[i].prefix,
										strlen(cases[i].prefix), &want),
					  (int) strlen(cases[i].typeid));
		EXPECT_STR(text, cases[i].typeid);
	}
}

/*
 * invalid.yml: every case is refused.  The status and position are
 * chronoid's (the spec only says "invalid"): the first problem from the
 * left, as chronoid.h documents.
 */
static void
test_spec_invalid(void)
{
	static const struct
	{
		const char *name;
		const char *typeid;
		int			rc;
		size_t		errpos;
	}			cases[] = {
		{"prefix-uppercase", "PREFIX_00000000000000000000000000", CID_ESYNTAX, 0},
		{"prefix-numeric", "12345_00000000000000000000000000", CID_ESYNTAX, 0},
		{"prefix-period", "pre.fix_00000000000000000000000000", CID_ESYNTAX, 3},
		{"prefix-non-ascii", "pr\xc3\xa9" "fix_00000000000000000000000000", CID_ESYNTAX, 2},
		{"prefix-spaces", "  prefix_00000000000000000000000000", CID_ESYNTAX, 0},
		{"prefix-64-chars",
			"abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijkl_00000000000000000000000000",
		CID_ELENGTH, 63},
		{"separator-empty-prefix", "_00000000000000000000000000", CID_ESYNTAX, 0},
		{"separator-empty", "_", CID_ESYNTAX, 0},
		{"suffix-short", "prefix_1234567890123456789012345", CID_ELENGTH, 7},
		{"suffix-long", "prefix_123456789012345678901234567", CID_ELENGTH, 7},
		{"suffix-spaces", "prefix_1234567890123456789012345 ", CID_ESYNTAX, 32},
		{"suffix-uppercase", "prefix_0123456789ABCDEFGHJKMNPQRS", CID_ESYNTAX, 17},
		{"suffix-hyphens", "prefix_123456789-123456789-123456", CID_ESYNTAX, 16},
		{"suffix-wrong-alphabet", "prefix_ooooooiiiiiiuuuuuuulllllll", CID_ESYNTAX, 7},
		{"suffix-ambiguous-crockford", "prefix_i23456789ol23456789oi23456", CID_ESYNTAX, 7},
		{"suffix-hyphens-crockford", "prefix_123456789-0123456789-0123456", CID_ELENGTH, 7},
		{"suffix-overflow", "prefix_8zzzzzzzzzzzzzzzzzzzzzzzzz", CID_EOVERFLOW, 7},
		{"prefix-underscore-start", "_prefix_00000000000000000000000000", CID_ESYNTAX, 0},
		{"prefix-underscore-end", "prefix__00000000000000000000000000", CID_ESYNTAX, 6},
		{"empty", "", CID_ELENGTH, 0},
		{"prefix-empty", "prefix_", CID_ELENGTH, 7},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		cid_uuid	u;
		size_t		plen = 12345;
		size_t		errpos = SIZE_MAX;

		printf("# invalid: %s\n", cases[i].name);
		memset(u.bytes, 0xAB, 16);
		EXPECT_EQ_INT(parse(&u, &plen, cases[i].typeid, &errpos), cases[i].rc);
		EXPECT_EQ_INT(errpos, cases[i].errpos);
		/* a refusal leaves the outputs alone */
		EXPECT_EQ_INT(plen, 12345);
		EXPECT_EQ_INT(u.bytes[0], 0xAB);
	}
}

/* The spec's regex ^([a-z]([a-z_]{0,61}[a-z])?)?$ at its edges. */
static void
test_prefix_rules(void)
{
	char		p[80];
	size_t		errpos = SIZE_MAX;

	EXPECT_EQ_INT(cid_typeid_prefix_check("", 0, NULL), CID_OK);
	EXPECT_EQ_INT(cid_typeid_prefix_check(NULL, 0, NULL), CID_OK);
	EXPECT_EQ_INT(cid_typeid_prefix_check(NULL, 1, NULL), CID_EINVAL);
	EXPECT_EQ_INT(cid_typeid_prefix_check("a", 1, NULL), CID_OK);
	EXPECT_EQ_INT(cid_typeid_prefix_check("a_b", 3, NULL), CID_OK);
	EXPECT_EQ_INT(cid_typeid_prefix_check("my__type", 8, NULL), CID_OK);
	EXPECT_EQ_INT(cid_typeid_prefix_check("_", 1, &errpos), CID_ESYNTAX);
	EXPECT_EQ_INT(errpos, 0);
	EXPECT_EQ_INT(cid_typeid_prefix_check("ab_", 3, &errpos), CID_ESYNTAX);
	EXPECT_EQ_INT(errpos, 2);
	EXPECT_EQ_INT(cid_typeid_prefix_check("user1", 5, &errpos), CID_ESYNTAX);
	EXPECT_EQ_INT(errpos, 4);
	EXPECT_EQ_INT(cid_typeid_prefix_check("a{", 2, &errpos), CID_ESYNTAX);
	EXPECT_EQ_INT(errpos, 1);
	EXPECT_EQ_INT(cid_typeid_prefix_check("a`", 2, &errpos), CID_ESYNTAX);
	EXPECT_EQ_INT(errpos, 1);
	EXPECT_EQ_INT(cid_typeid_prefix_check("ab\0c", 4, &errpos), CID_ESYNTAX);
	EXPECT_EQ_INT(errpos, 2);

	/* 63 letters pass, 64 do not; a bad character before 63 wins */
	memset(p, 'q', sizeof(p));
	EXPECT_EQ_INT(cid_typeid_prefix_check(p, 63, NULL), CID_OK);
	p[62] = '_';
	EXPECT_EQ_INT(cid_typeid_prefix_check(p, 63, &errpos), CID_ESYNTAX);
	EXPECT_EQ_INT(errpos, 62);
	EXPECT_EQ_INT(cid_typeid_prefix_check(p, 64, NULL), CID_ELENGTH);
	p[62] = 'q';
	EXPECT_EQ_INT(cid_typeid_prefix_check(p, 64, &errpos), CID_ELENGTH);
	EXPECT_EQ_INT(errpos, 63);
	p[10] = 'Q';
	EXPECT_EQ_INT(cid_typeid_prefix_check(p, 70, &errpos), CID_ESYNTAX);
	EXPECT_EQ_INT(errpos, 10);

	/* every byte: only a-z anywhere, '_' only inside */
	for (int c = 0; c < 256; c++)
	{
		char		three[3] = {'a', (char) c, 'a'};
		bool		ok = (c >= 'a' && c <= 'z') || c == '_';

		EXPECT_EQ_INT(cid_typeid_prefix_check(three, 3, NULL), ok ? CID_OK : CID_ESYNTAX);
		EXPECT_EQ_INT(cid_typeid_prefix_check(three + 1, 1, NULL),
					  (c >= 'a' && c <= 'z') ? CID_OK : CID_ESYNTAX);
	}
}

/* Buffers: exactly enough works, one byte less is refused untouched. */
static void
test_format_limits(void)
{
	cid_uuid	u;
	char		out[CID_TYPEID_STRLEN_MAX + 2];
	char		prefix[CID_TYPEID_PREFIX_MAX + 1];

	memset(u.bytes, 0xFF, 16);
	memset(out, '#', sizeof(out));
	EXPECT_EQ_INT(cid_typeid_format(out, 4 + 1 + 26, "user", 4, &u), CID_EINVAL);
	EXPECT_EQ_INT(out[0], '#');
	EXPECT_EQ_INT(cid_typeid_format(out, 4 + 1 + 26 + 1, "user", 4, &u), 31);
	EXPECT_STR(out, "user_7zzzzzzzzzzzzzzzzzzzzzzzzz");
	EXPECT_EQ_INT(cid_typeid_format(out, 26, "", 0, &u), CID_EINVAL);
	EXPECT_EQ_INT(cid_typeid_format(out, 27, NULL, 0, &u), 26);
	EXPECT_STR(out, "7zzzzzzzzzzzzzzzzzzzzzzzzz");
	EXPECT_EQ_INT(cid_typeid_format(NULL, 27, "", 0, &u), CID_EINVAL);
	EXPECT_EQ_INT(cid_typeid_format(out, 27, "", 0, NULL), CID_EINVAL);
	EXPECT_EQ_INT(cid_typeid_format(out, sizeof(out), "User", 4, &u), CID_ESYNTAX);
	EXPECT_EQ_INT(cid_typeid_format(out, sizeof(out), "user_", 5, &u), CID_ESYNTAX);

	memset(prefix, 'z', sizeof(prefix));
	EXPECT_EQ_INT(cid_typeid_format(out, CID_TYPEID_STRLEN_MAX + 1, prefix,
									CID_TYPEID_PREFIX_MAX, &u), CID_TYPEID_STRLEN_MAX);
	EXPECT_EQ_INT(strlen(out), CID_TYPEID_STRLEN_MAX);
	EXPECT_EQ_INT(cid_typeid_format(out, sizeof(out), prefix, CID_TYPEID_PREFIX_MAX + 1, &u),
				  CID_ELENGTH);
}

/* Arguments and the parse's own edges beyond the spec's cases. */
static void
test_parse_edges(void)
{
	cid_uuid	u;
	size_t		errpos = SIZE_MAX;
	size_t		plen = 0;

	EXPECT_EQ_INT(cid_typeid_parse(NULL, NULL, "00000000000000000000000000", 26, NULL), CID_EINVAL);
	EXPECT_EQ_INT(cid_typeid_parse(&u, NULL, NULL, 1, NULL), CID_EINVAL);
	EXPECT_EQ_INT(cid_typeid_parse(&u, NULL, NULL, 0, &errpos), CID_ELENGTH);
	/* prefix_len may be NULL; the text need not be NUL-terminated */
	EXPECT_EQ_INT(cid_typeid_parse(&u, NULL, "ab_7zzzzzzzzzzzzzzzzzzzzzzzzzXYZ", 29, NULL), CID_OK);
	EXPECT_EQ_INT(u.bytes[15], 0xFF);
	/* mixed: uppercase after an earlier bad character reports the earlier */
	EXPECT_EQ_INT(parse(&u, &plen, "a_0-23456789ABCDEFGHJKMNPQRS", &errpos), CID_ESYNTAX);
	EXPECT_EQ_INT(errpos, 3);
	/* an upper-case letter before a bad one is the first problem */
	EXPECT_EQ_INT(parse(&u, &plen, "a_0A23456789abcdefghjkmnpq-s", &errpos), CID_ESYNTAX);
	EXPECT_EQ_INT(errpos, 3);
	/* an upper-case letter beats an overflow (a later syntax error) */
	EXPECT_EQ_INT(parse(&u, &plen, "a_8Zzzzzzzzzzzzzzzzzzzzzzzzz", &errpos), CID_ESYNTAX);
	EXPECT_EQ_INT(errpos, 3);
	/* the ULID's upper-case text is no TypeID */
	EXPECT_EQ_INT(parse(&u, &plen, "01ARZ3NDEKTSV4RRFFQ69G5FAV", &errpos), CID_ESYNTAX);
	EXPECT_EQ_INT(errpos, 2);
	/* a '_' inside the suffix makes it the separator */
	EXPECT_EQ_INT(parse(&u, &plen, "user_0000000000000_000000000000", &errpos), CID_ESYNTAX);
	EXPECT_EQ_INT(errpos, 5);
}

/* The TypeID suffix is the ULID text of the same 128 bits, in lower case. */
static void
test_same_digits_as_ulid(void)
{
	uint64_t	rng = 0x7E57CAFEF00Du;

	for (int i = 0; i < 1000; i++)
	{
		cid_uuid	u;
		cid_ulid	l;
		char		t[CID_TYPEID_STRLEN_MAX + 1];
		char		lt[CID_ULID_STRLEN + 1];

		for (int k = 0; k < 16; k += 8)
		{
			uint64_t	r = tu_rng_next(&rng);

			memcpy(u.bytes + k, &r, 8);
		}
		cid_ulid_from_uuid(&l, &u);
		cid_ulid_format(lt, &l);
		EXPECT_EQ_INT(cid_typeid_format(t, sizeof(t), "", 0, &u), 26);
		for (int k = 0; k < 26; k++)
			lt[k] = (char) (lt[k] >= 'A' && lt[k] <= 'Z' ? lt[k] + 32 : lt[k]);
		EXPECT_STR(t, lt);
	}
}

/*
 * The spec's property: encode(decode(x)) == x, for random bits under
 * random valid prefixes of every length 0 .. 63.
 */
static void
test_round_trip_random(void)
{
	uint64_t	rng = 0x0123456789ABCDEFu;
	size_t		n = tu_scale(20000, 2000);

	for (size_t i = 0; i < n; i++)
	{
		cid_uuid	u,
					back;
		char		prefix[CID_TYPEID_PREFIX_MAX];
		char		t[CID_TYPEID_STRLEN_MAX + 1];
		char		t2[CID_TYPEID_STRLEN_MAX + 1];
		size_t		plen = i % (CID_TYPEID_PREFIX_MAX + 1);
		size_t		got = SIZE_MAX;
		int			len;

		for (int k = 0; k < 16; k += 8)
		{
			uint64_t	r = tu_rng_next(&rng);

			memcpy(u.bytes + k, &r, 8);
		}
		for (size_t k = 0; k < plen; k++)
		{
			uint64_t	r = tu_rng_next(&rng) % 27;

			prefix[k] = (char) (r == 26 && k > 0 && k + 1 < plen ? '_' : 'a' + (int) (r % 26));
		}
		len = cid_typeid_format(t, sizeof(t), prefix, plen, &u);
		EXPECT_EQ_INT(len, (int) (plen + (plen ? 1 : 0) + 26));
		if (len < 0)
			return;
		EXPECT_EQ_INT(cid_typeid_parse(&back, &got, t, (size_t) len, NULL), CID_OK);
		EXPECT_EQ_INT(got, plen);
		EXPECT(memcmp(u.bytes, back.bytes, 16) == 0);
		EXPECT_EQ_INT(cid_typeid_format(t2, sizeof(t2), t, got, &back), len);
		EXPECT_STR(t2, t);
		if (tap_case_failures)
			return;
	}
}

/*
 * Generation: UUIDv7s of the generator's clock, in order, under the
 * prefix; a bad prefix or buffer draws nothing from the generator.
 */
static void
test_next(void)
{
	const int64_t t0_ms = INT64_C(1700000000123);
	tu_fake		f = {t0_ms * NS_PER_MS + 500000, 0x10, false, 0};
	cid_env		env = {tu_fake_clock, tu_fake_random, NULL, &f};
	cid_uuidv7_gen gen;
	char		prev[CID_TYPEID_STRLEN_MAX + 1] = "";
	char		out[CID_TYPEID_STRLEN_MAX + 1];
	cid_uuid	u,
				back;
	int64_t		ms = 0;
	size_t		plen = 0;

	EXPECT_EQ_INT(cid_uuidv7_init(&gen, &env), CID_OK);
	for (int i = 0; i < 100; i++)
	{
		EXPECT_EQ_INT(cid_typeid_next(&gen, out, sizeof(out), "user", 4, &u), 31);
		EXPECT(strncmp(out, "user_", 5) == 0);
		EXPECT_EQ_INT(cid_uuid_version(&u), 7);
		EXPECT_EQ_INT(cid_uuid_unix_ms(&ms, &u), CID_OK);
		EXPECT_EQ_INT(ms, t0_ms);
		EXPECT_EQ_INT(parse(&back, &plen, out, NULL), CID_OK);
		EXPECT(memcmp(back.bytes, u.bytes, 16) == 0);
		/* same prefix: text order is generation order */
		EXPECT(strcmp(prev, out) < 0);
		memcpy(prev, out, sizeof(out));
	}
	f.random_calls = 0;
	EXPECT_EQ_INT(cid_typeid_next(&gen, out, sizeof(out), "User", 4, NULL), CID_ESYNTAX);
	EXPECT_EQ_INT(cid_typeid_next(&gen, out, sizeof(out), "user_", 5, NULL), CID_ESYNTAX);
	EXPECT_EQ_INT(cid_typeid_next(&gen, out, 31, "user", 4, NULL), CID_EINVAL);
	EXPECT_EQ_INT(cid_typeid_next(NULL, out, sizeof(out), "user", 4, NULL), CID_EINVAL);
	EXPECT_EQ_INT(f.random_calls, 0);
	/* the generator's own failure comes through */
	f.fail_random = true;
	EXPECT_EQ_INT(cid_typeid_next(&gen, out, sizeof(out), "", 0, NULL), CID_ERANDOM);
	f.fail_random = false;
	EXPECT_EQ_INT(cid_typeid_next(&gen, out, sizeof(out), "", 0, NULL), 26);
	EXPECT(out[0] == '0');
}

int
main(void)
{
	TAP_CASE(test_spec_valid);
	TAP_CASE(test_spec_invalid);
	TAP_CASE(test_prefix_rules);
	TAP_CASE(test_format_limits);
	TAP_CASE(test_parse_edges);
	TAP_CASE(test_same_digits_as_ulid);
	TAP_CASE(test_round_trip_random);
	TAP_CASE(test_next);
	return tap_done();
}
