/*
 * test_uuid.c — UUID text forms and their errors, versions and timestamps
 * against RFC 9562's vectors, v4 and v7 construction, round trips.
 */
#include "chronoid.h"
#include "tap.h"
#include "testutil.h"

/* Parse a NUL-terminated string; the status, and *u when it succeeds. */
static int
parse(cid_uuid *u, const char *s, size_t *errpos)
{
	return cid_uuid_parse(u, s, strlen(s), errpos);
}

/* Canonical text of s (parsed), or "" when it does not parse. */
static const char *
canon(const char *s)
{
	static char buf[CID_UUID_STRLEN + 1];
	cid_uuid	u;

	if (parse(&u, s, NULL) != CID_OK)
		return "";
	cid_uuid_format(buf, &u);
	return buf;
}

/* Deterministic "random" test bytes (tu_rng_next from this seed). */
static uint64_t rng_state = 0x9E3779B97F4A7C15u;

static void
rng_fill(uint8_t *buf, size_t len)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = (uint8_t) (tu_rng_next(&rng_state) >> 56);
}

static void
test_parse_forms(void)
{
	const char *want = "c232ab00-9414-11ec-b3c8-9f6bdeced846";
	cid_uuid	u;

	EXPECT_STR(canon("C232AB00-9414-11EC-B3C8-9F6BDECED846"), want);
	EXPECT_STR(canon("c232ab00-9414-11ec-b3c8-9f6bdeced846"), want);
	EXPECT_STR(canon("C232ab00-9414-11Ec-B3c8-9f6BdeCed846"), want);
	EXPECT_STR(canon("C232AB00941411ECB3C89F6BDECED846"), want);
	EXPECT_STR(canon("{C232AB00-9414-11EC-B3C8-9F6BDECED846}"), want);
	EXPECT_STR(canon("{c232ab00941411ecb3c89f6bdeced846}"), want);
	EXPECT_EQ_INT(parse(&u, "C232AB00-9414-11EC-B3C8-9F6BDECED846", NULL), CID_OK);
	EXPECT_EQ_INT(u.bytes[0], 0xc2);
	EXPECT_EQ_INT(u.bytes[15], 0x46);
}

static void
test_parse_uses_only_len(void)
{
	/* Text followed by junk: only len characters are read. */
	const char *s = "c232ab00-9414-11ec-b3c8-9f6bdeced846XYZ";
	char		buf[CID_UUID_STRLEN + 1];
	cid_uuid	u;

	EXPECT_EQ_INT(cid_uuid_parse(&u, s, 36, NULL), CID_OK);
	cid_uuid_format(buf, &u);
	EXPECT(memcmp(buf, s, 36) == 0);
	EXPECT_EQ_INT(cid_uuid_parse(&u, s, 39, NULL), CID_ELENGTH);
}

static void
test_parse_lengths(void)
{
	cid_uuid	u;
	size_t		pos = 99;

	EXPECT_EQ_INT(parse(&u, "", &pos), CID_ELENGTH);
	EXPECT_EQ_INT(parse(&u, "c232ab00-9414-11ec-b3c8-9f6bdeced84", &pos), CID_ELENGTH);
	EXPECT_EQ_INT(parse(&u, "c232ab00-9414-11ec-b3c8-9f6bdeced8460", &pos), CID_ELENGTH);
	EXPECT_EQ_INT(parse(&u, "c232ab00941411ecb3c89f6bdeced84", &pos), CID_ELENGTH);
	EXPECT_EQ_INT(parse(&u, "c232ab00941411ecb3c89f6bdeced8460", &pos), CID_ELENGTH);
	/* unbalanced braces change the length */
	EXPECT_EQ_INT(parse(&u, "{c232ab00-9414-11ec-b3c8-9f6bdeced846", &pos), CID_ELENGTH);
	EXPECT_EQ_INT(parse(&u, "c232ab00-9414-11ec-b3c8-9f6bdeced846}", &pos), CID_ELENGTH);
	EXPECT_EQ_INT(parse(&u, "{{c232ab00-9414-11ec-b3c8-9f6bdeced846}}", &pos), CID_ELENGTH);
	EXPECT_EQ_INT(pos, 99);		/* untouched on a length error */
	EXPECT_EQ_INT(cid_uuid_parse(&u, NULL, 0, &pos), CID_ELENGTH);
}

static void
test_parse_bad_characters(void)
{
	cid_uuid	u;
	size_t		pos;

	pos = 99;
	EXPECT_EQ_INT(parse(&u, "g232ab00-9414-11ec-b3c8-9f6bdeced846", &pos), CID_ESYNTAX);
	EXPECT_EQ_INT(pos, 0);
	EXPECT_EQ_INT(parse(&u, "c232ab00-9414-11ec-b3c8-9f6bdeced84z", &pos), CID_ESYNTAX);
	EXPECT_EQ_INT(pos, 35);
	/* the first bad one is reported */
	EXPECT_EQ_INT(parse(&u, "c232ab00-94x4-11ec-b3c8-9f6bdeced8 6", &pos), CID_ESYNTAX);
	EXPECT_EQ_INT(pos, 11);
	EXPECT_EQ_INT(parse(&u, "c232ab00941411ecb3c89f6bdeced8-6", &pos), CID_ESYNTAX);
	EXPECT_EQ_INT(pos, 30);
	EXPECT_EQ_INT(parse(&u, "c232ab00941411ecb3c8 f6bdeced846", &pos), CID_ESYNTAX);
	EXPECT_EQ_INT(pos, 20);
	/* braced: positions index the whole text */
	EXPECT_EQ_INT(parse(&u, "{c232ab00-9414-11ec-b3c8-9f6bdeced8G6}", &pos), CID_ESYNTAX);
	EXPECT_EQ_INT(pos, 35);
	EXPECT_EQ_INT(parse(&u, "{c232ab00941411ecb3c89f6bdeced84.}", &pos), CID_ESYNTAX);
	EXPECT_EQ_INT(pos, 32);
	/* a NUL inside len is a bad character */
	EXPECT_EQ_INT(cid_uuid_parse(&u, "c232ab00\0" "9414-11ec-b3c8-9f6bdeced846", 36, &pos),
				  CID_ESYNTAX);
	EXPECT_EQ_INT(pos, 8);
	/* errpos may be NULL */
	EXPECT_EQ_INT(parse(&u, "x232ab00-9414-11ec-b3c8-9f6bdeced846", NULL), CID_ESYNTAX);
}

static void
test_parse_hyphens(void)
{
	cid_uuid	u;
	size_t		pos;

	/* hyphen moved one place left / right of each required position */
	EXPECT_EQ_INT(parse(&u, "c232ab0-09414-11ec-b3c8-9f6bdeced846", &pos), CID_ESYNTAX);
	EXPECT_EQ_INT(pos, 7);
	EXPECT_EQ_INT(parse(&u, "c232ab009-414-11ec-b3c8-9f6bdeced846", &pos), CID_ESYNTAX);
	EXPECT_EQ_INT(pos, 8);
	EXPECT_EQ_INT(parse(&u, "c232ab00-94141-1ec-b3c8-9f6bdeced846", &pos), CID_ESYNTAX);
	EXPECT_EQ_INT(pos, 13);
	EXPECT_EQ_INT(parse(&u, "c232ab00-9414-11e-cb3c8-9f6bdeced846", &pos), CID_ESYNTAX);
	EXPECT_EQ_INT(pos, 17);
	EXPECT_EQ_INT(parse(&u, "c232ab00-9414-11ec-b3c89-f6bdeced846", &pos), CID_ESYNTAX);
	EXPECT_EQ_INT(pos, 23);
	/* 36 characters without hyphens, hyphens in the 32-digit form */
	EXPECT_EQ_INT(parse(&u, "c232ab0094140011ecb3c809f6bdeced8460", &pos), CID_ESYNTAX);
	EXPECT_EQ_INT(pos, 8);
	EXPECT_EQ_INT(parse(&u, "c232ab00-9414-11ecb3c89f6bdeced8", &pos), CID_ESYNTAX);
	EXPECT_EQ_INT(pos, 8);
}

static void
test_parse_braces(void)
{
	cid_uuid	u;
	size_t		pos;

	EXPECT_EQ_INT(parse(&u, "(c232ab00-9414-11ec-b3c8-9f6bdeced846)", &pos), CID_ESYNTAX);
	EXPECT_EQ_INT(pos, 0);
	EXPECT_EQ_INT(parse(&u, "{c232ab00-9414-11ec-b3c8-9f6bdeced846]", &pos), CID_ESYNTAX);
	EXPECT_EQ_INT(pos, 37);
	EXPECT_EQ_INT(parse(&u, "}c232ab00-9414-11ec-b3c8-9f6bdeced846{", &pos), CID_ESYNTAX);
	EXPECT_EQ_INT(pos, 0);
	EXPECT_EQ_INT(parse(&u, "{c232ab00941411ecb3c89f6bdeced846{", &pos), CID_ESYNTAX);
	EXPECT_EQ_INT(pos, 33);
	/* braces at a 36/32 length are plain bad characters */
	EXPECT_EQ_INT(parse(&u, "{232ab00-9414-11ec-b3c8-9f6bdeced84}", &pos), CID_ESYNTAX);
	EXPECT_EQ_INT(pos, 0);
	EXPECT_EQ_INT(parse(&u, "{232ab00941411ecb3c89f6bdeced84}", &pos), CID_ESYNTAX);
	EXPECT_EQ_INT(pos, 0);
}

static void
test_format_lower_case(void)
{
	cid_uuid	u;
	char		buf[CID_UUID_STRLEN + 1];

	for (int i = 0; i < 16; i++)
		u.bytes[i] = (uint8_t) (0xf0 + i);
	memset(buf, 'x', sizeof(buf));
	cid_uuid_format(buf, &u);
	EXPECT_STR(buf, "f0f1f2f3-f4f5-f6f7-f8f9-fafbfcfdfeff");
	EXPECT_EQ_INT(strlen(buf), CID_UUID_STRLEN);
}

/* Version and Unix ms of a UUID text; ENOTIME-ness through rc. */
static int
time_of(const char *s, int64_t *ms, int *version)
{
	cid_uuid	u;

	if (parse(&u, s, NULL) != CID_OK)
		return -100;
	*version = cid_uuid_version(&u);
	return cid_uuid_unix_ms(ms, &u);
}

static void
test_rfc9562_timed_vectors(void)
{
	int64_t		ms = 0;
	int			v = 0;

	/* A.1 v1, A.5 v6, A.6 v7: all 2022-02-22T19:22:22Z */
	EXPECT_EQ_INT(time_of("C232AB00-9414-11EC-B3C8-9F6BDECED846", &ms, &v), CID_OK);
	EXPECT_EQ_INT(v, 1);
	EXPECT_EQ_INT(ms, INT64_C(1645557742000));
	EXPECT_EQ_INT(time_of("1EC9414C-232A-6B00-B3C8-9F6BDECED846", &ms, &v), CID_OK);
	EXPECT_EQ_INT(v, 6);
	EXPECT_EQ_INT(ms, INT64_C(1645557742000));
	EXPECT_EQ_INT(time_of("017F22E2-79B0-7CC3-98C4-DC0C0C07398F", &ms, &v), CID_OK);
	EXPECT_EQ_INT(v, 7);
	EXPECT_EQ_INT(ms, INT64_C(1645557742000));
	EXPECT_EQ_INT(time_of("019535d9-3df7-79fb-b466-fa907fa17f9e", &ms, &v), CID_OK);
	EXPECT_EQ_INT(v, 7);
	EXPECT_EQ_INT(ms, INT64_C(1740365184503));
	/* pg_uuidv7's constant */
	EXPECT_EQ_INT(time_of("018570bb-4a7d-7000-8000-000000000000", &ms, &v), CID_OK);
	EXPECT_EQ_INT(ms, INT64_C(1672633600637));
}

static void
test_rfc9562_untimed_vectors(void)
{
	static const struct
	{
		const char *text;
		int			version;
	}			cases[] = {
		{"5df41881-3aed-3515-88a7-2f4a814cf09e", 3},
		{"919108f7-52d1-4320-9bac-f847db4148a8", 4},
		{"2ed6657d-e927-568b-95e1-2665a8aea6a2", 5},
		{"2489E9AD-2EE2-8E00-8EC9-32D5F69181C0", 8},
		{"5c146b14-3c52-8afd-938a-375d0df1fbf6", 8},
		{"00000000-0000-0000-0000-000000000000", -1},
		{"ffffffff-ffff-ffff-ffff-ffffffffffff", -1},
		/* a version 7 nibble under a non-RFC variant (110x): no time */
		{"017f22e2-79b0-7cc3-c8c4-dc0c0c07398f", -1},
		{"017f22e2-79b0-7cc3-08c4-dc0c0c07398f", -1},
		{"c232ab00-9414-01ec-b3c8-9f6bdeced846", 0},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		int64_t		ms = 12345;
		int			v = 99;

		EXPECT_EQ_INT(time_of(cases[i].text, &ms, &v), CID_ENOTIME);
		EXPECT_EQ_INT(v, cases[i].version);
		EXPECT_EQ_INT(ms, 12345);
	}
}

static void
test_v1_v6_floor_and_pre_1970(void)
{
	cid_uuid	u;
	int64_t		ms;

	/* v6 of the Gregorian epoch itself: 1582-10-15, before 1970 */
	EXPECT_EQ_INT(parse(&u, "00000000-0000-6000-8000-000000000000", NULL), CID_OK);
	EXPECT_EQ_INT(cid_uuid_unix_ms(&ms, &u), CID_OK);
	/* -12219292800 s from 1582-10-15 to 1970-01-01 */
	EXPECT_EQ_INT(ms, INT64_C(-12219292800000));
	/* v1 one 100-ns tick before 1970: floor gives -1, not 0 */
	EXPECT_EQ_INT(parse(&u, "13813fff-1dd2-11b2-8000-000000000000", NULL), CID_OK);
	EXPECT_EQ_INT(cid_uuid_unix_ms(&ms, &u), CID_OK);
	EXPECT_EQ_INT(ms, -1);
	/* v1 exactly at 1970 + 9999 ticks: still ms 0 */
	EXPECT_EQ_INT(parse(&u, "1381670f-1dd2-11b2-8000-000000000000", NULL), CID_OK);
	EXPECT_EQ_INT(cid_uuid_unix_ms(&ms, &u), CID_OK);
	EXPECT_EQ_INT(ms, 0);
	/* the largest v1: 60 bits all set */
	EXPECT_EQ_INT(parse(&u, "ffffffff-ffff-1fff-8000-000000000000", NULL), CID_OK);
	EXPECT_EQ_INT(cid_uuid_unix_ms(&ms, &u), CID_OK);
	EXPECT_EQ_INT(ms, ((INT64_C(1) << 60) - 1 - INT64_C(0x01B21DD213814000)) / 10000);
}

static void
test_uuidv4_from_bytes(void)
{
	uint8_t		ones[16];
	uint8_t		zeros[16] = {0};
	cid_uuid	u;
	char		buf[CID_UUID_STRLEN + 1];
	int64_t		ms;

	memset(ones, 0xff, sizeof(ones));
	cid_uuidv4_from_bytes(&u, ones);
	cid_uuid_format(buf, &u);
	EXPECT_STR(buf, "ffffffff-ffff-4fff-bfff-ffffffffffff");
	cid_uuidv4_from_bytes(&u, zeros);
	cid_uuid_format(buf, &u);
	EXPECT_STR(buf, "00000000-0000-4000-8000-000000000000");
	EXPECT_EQ_INT(cid_uuid_version(&u), 4);
	EXPECT_EQ_INT(cid_uuid_unix_ms(&ms, &u), CID_ENOTIME);
}

static void
test_uuidv4_new(void)
{
	/* no clock: a v4 UUID takes random bytes alone */
	tu_fake		f = {0, 0x10, false, 0};
	cid_env		env = {NULL, tu_fake_random, NULL, &f};
	cid_uuid	u;
	char		buf[CID_UUID_STRLEN + 1];

	EXPECT_EQ_INT(cid_uuidv4_new(&u, &env), CID_OK);
	cid_uuid_format(buf, &u);
	EXPECT_STR(buf, "10111213-1415-4617-9819-1a1b1c1d1e1f");
	EXPECT_EQ_INT(f.random_calls, 1);
	f.fail_random = true;
	EXPECT_EQ_INT(cid_uuidv4_new(&u, &env), CID_ERANDOM);
}

static void
test_uuidv7_from_ms(void)
{
	cid_uuid	u;
	char		buf[CID_UUID_STRLEN + 1];
	uint8_t		rand[10];
	int64_t		ms;

	/* pg_uuidv7: uuid_timestamptz_to_v7(ts, true) */
	EXPECT_EQ_INT(cid_uuidv7_from_ms(&u, INT64_C(1672633600637), NULL), CID_OK);
	cid_uuid_format(buf, &u);
	EXPECT_STR(buf, "018570bb-4a7d-7000-8000-000000000000");

	memset(rand, 0xff, sizeof(rand));
	EXPECT_EQ_INT(cid_uuidv7_from_ms(&u, INT64_C(1672633600637), rand), CID_OK);
	cid_uuid_format(buf, &u);
	EXPECT_STR(buf, "018570bb-4a7d-7fff-bfff-ffffffffffff");
	EXPECT_EQ_INT(cid_uuid_version(&u), 7);
	EXPECT_EQ_INT(cid_uuid_unix_ms(&ms, &u), CID_OK);
	EXPECT_EQ_INT(ms, INT64_C(1672633600637));

	for (int i = 0; i < 10; i++)
		rand[i] = (uint8_t) (0xa0 + i);
	EXPECT_EQ_INT(cid_uuidv7_from_ms(&u, 0, rand), CID_OK);
	cid_uuid_format(buf, &u);
	EXPECT_STR(buf, "00000000-0000-70a1-a2a3-a4a5a6a7a8a9");

	EXPECT_EQ_INT(cid_uuidv7_from_ms(&u, (INT64_C(1) << 48) - 1, NULL), CID_OK);
	cid_uuid_format(buf, &u);
	EXPECT_STR(buf, "ffffffff-ffff-7000-8000-000000000000");
	EXPECT_EQ_INT(cid_uuidv7_from_ms(&u, INT64_C(1) << 48, NULL), CID_ETIME_RANGE);
	EXPECT_EQ_INT(cid_uuidv7_from_ms(&u, -1, NULL), CID_ETIME_RANGE);
	EXPECT_EQ_INT(cid_uuidv7_from_ms(&u, INT64_MIN, NULL), CID_ETIME_RANGE);
}

static void
test_round_trip_random(void)
{
	int			bad = 0;

	for (int n = 0; n < 100000; n++)
	{
		cid_uuid	a,
					b,
					c;
		char		text[CID_UUID_STRLEN + 1];
		char		bare[32];
		char		braced[38];
		int			k = 0;

		rng_fill(a.bytes, 16);
		cid_uuid_format(text, &a);
		for (int i = 0; i < CID_UUID_STRLEN; i++)
			if (text[i] != '-')
				bare[k++] = text[i];
		braced[0] = '{';
		memcpy(braced + 1, text, 36);
		braced[37] = '}';
		/* upper-case every other letter on odd rounds */
		if (n % 2)
			for (int i = 0; i < CID_UUID_STRLEN; i += 2)
				if (text[i] >= 'a' && text[i] <= 'f')
					text[i] = (char) (text[i] - 'a' + 'A');
		if (cid_uuid_parse(&b, text, 36, NULL) != CID_OK ||
			memcmp(a.bytes, b.bytes, 16) != 0 ||
			cid_uuid_parse(&c, bare, 32, NULL) != CID_OK ||
			memcmp(a.bytes, c.bytes, 16) != 0 ||
			cid_uuid_parse(&c, braced, 38, NULL) != CID_OK ||
			memcmp(a.bytes, c.bytes, 16) != 0)
			bad++;
	}
	EXPECT_EQ_INT(bad, 0);
}

int
main(void)
{
	TAP_CASE(test_parse_forms);
	TAP_CASE(test_parse_uses_only_len);
	TAP_CASE(test_parse_lengths);
	TAP_CASE(test_parse_bad_characters);
	TAP_CASE(test_parse_hyphens);
	TAP_CASE(test_parse_braces);
	TAP_CASE(test_format_lower_case);
	TAP_CASE(test_rfc9562_timed_vectors);
	TAP_CASE(test_rfc9562_untimed_vectors);
	TAP_CASE(test_v1_v6_floor_and_pre_1970);
	TAP_CASE(test_uuidv4_from_bytes);
	TAP_CASE(test_uuidv4_new);
	TAP_CASE(test_uuidv7_from_ms);
	TAP_CASE(test_round_trip_random);
	return tap_done();
}
