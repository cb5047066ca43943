/*
 * test_ksuid.c — KSUIDs against the reference implementation's README and
 * tests (segmentio/ksuid): base62 text, the limits (nil, max, one above),
 * bad characters, time and its range, the text's order being the bytes'
 * order, and a fresh KSUID from an injected clock and random source.
 */
#include "chronoid.h"
#include "tap.h"
#include "testutil.h"

static int
parse(cid_ksuid *k, const char *s, size_t *errpos)
{
	return cid_ksuid_parse(k, s, strlen(s), errpos);
}

static const char *
text(const cid_ksuid *k)
{
	static char buf[CID_KSUID_STRLEN + 1];

	cid_ksuid_format(buf, k);
	return buf;
}

static void
hex(char *out, const uint8_t *b, size_t n)
{
	static const char digits[] = "0123456789ABCDEF";

	for (size_t i = 0; i < n; i++)
	{
		out[2 * i] = digits[b[i] >> 4];
		out[2 * i + 1] = digits[b[i] & 15];
	}
	out[2 * n] = '\0';
}

/* tests/vectors.md, "KSUID" */
static void
test_known_answers(void)
{
	static const struct
	{
		const char *text;
		const char *raw;
		int64_t		ms;
	}			cases[] = {
		{"0ujtsYcgvSTl8PAuAdqWYSMnLOv", "0669F7EFB5A1CD34B5F99D1154FB6853345C9735",
		INT64_C(1507608047000)},
		{"0ujzPyRiIAffKhBux4PvQdDqMHY", "066A029C73FC1AA3B2446246D6E89FCD909E8FE8",
		INT64_C(1507610780000)},
		{"000000000000000000000000000", "0000000000000000000000000000000000000000",
		INT64_C(1400000000000)},
		{"aWgEPTl1tmebfsQzFP4bxwgy80V", "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF",
		INT64_C(5694967295000)},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		cid_ksuid	k;
		char		raw[41];

		EXPECT_EQ_INT(parse(&k, cases[i].text, NULL), CID_OK);
		hex(raw, k.bytes, 20);
		EXPECT_STR(raw, cases[i].raw);
		EXPECT_STR(text(&k), cases[i].text);
		EXPECT_EQ_INT(cid_ksuid_unix_ms(&k), cases[i].ms);
	}
}

static void
test_errors(void)
{
	cid_ksuid	k;
	size_t		pos = 99;

	/* one above the largest, and the reference's issue 25 */
	EXPECT_EQ_INT(parse(&k, "aWgEPTl1tmebfsQzFP4bxwgy80W", &pos), CID_EOVERFLOW);
	EXPECT_EQ_INT(pos, 0);
	EXPECT_EQ_INT(parse(&k, "aaaaaaaaaaaaaaaaaaaaaaaaaaa", NULL), CID_EOVERFLOW);
	EXPECT_EQ_INT(parse(&k, "zzzzzzzzzzzzzzzzzzzzzzzzzzz", NULL), CID_EOVERFLOW);
	EXPECT_EQ_INT(parse(&k, "aWgEPTl1tmebfsQzFP4bxwgy80!", &pos), CID_ESYNTAX);
	EXPECT_EQ_INT(pos, 26);
	EXPECT_EQ_INT(parse(&k, "0??????????????????????????", &pos), CID_ESYNTAX);
	EXPECT_EQ_INT(pos, 1);
	EXPECT_EQ_INT(parse(&k, "0ujtsYcgvSTl8PAuA-qWYSMnLOv", &pos), CID_ESYNTAX);
	EXPECT_EQ_INT(pos, 17);
	EXPECT_EQ_INT(parse(&k, "0ujtsYcgvSTl8PAuAdqWYSMnLO", NULL), CID_ELENGTH);
	EXPECT_EQ_INT(parse(&k, "123", NULL), CID_ELENGTH);
	EXPECT_EQ_INT(parse(&k, "", NULL), CID_ELENGTH);
	EXPECT_EQ_INT(cid_ksuid_parse(NULL, "", 0, NULL), CID_EINVAL);
}

static void
test_from_ms(void)
{
	static const uint8_t payload[16] = {
		0xB5, 0xA1, 0xCD, 0x34, 0xB5, 0xF9, 0x9D, 0x11,
		0x54, 0xFB, 0x68, 0x53, 0x34, 0x5C, 0x97, 0x35
	};
	cid_ksuid	k;

	EXPECT_EQ_INT(cid_ksuid_from_ms(&k, INT64_C(1507608047999), payload), CID_OK);
	EXPECT_STR(text(&k), "0ujtsYcgvSTl8PAuAdqWYSMnLOv");
	EXPECT_EQ_INT(cid_ksuid_from_ms(&k, INT64_C(1400000000000), NULL), CID_OK);
	EXPECT_STR(text(&k), "000000000000000000000000000");
	/* the field's last second, and just past either end */
	EXPECT_EQ_INT(cid_ksuid_from_ms(&k, INT64_C(5694967295999), NULL), CID_OK);
	EXPECT_EQ_INT(cid_ksuid_unix_ms(&k), INT64_C(5694967295000));
	EXPECT_EQ_INT(cid_ksuid_from_ms(&k, INT64_C(5694967296000), NULL), CID_ETIME_RANGE);
	EXPECT_EQ_INT(cid_ksuid_from_ms(&k, INT64_C(1399999999999), NULL), CID_ETIME_RANGE);
	EXPECT_EQ_INT(cid_ksuid_from_ms(&k, -1, NULL), CID_ETIME_RANGE);
	EXPECT_EQ_INT(cid_ksuid_from_ms(&k, INT64_MAX, NULL), CID_ETIME_RANGE);
	EXPECT_EQ_INT(cid_ksuid_from_ms(NULL, 0, NULL), CID_EINVAL);
}

/* Random values: text round-trips, and text order is byte order. */
static void
test_round_trip_and_order(void)
{
	uint64_t	rng = 0x9E3779B97F4A7C15u;
	cid_ksuid	prev;
	char		prev_text[CID_KSUID_STRLEN + 1];
	size_t		bad_trip = 0,
				bad_order = 0;

	memset(&prev, 0, sizeof(prev));
	cid_ksuid_format(prev_text, &prev);
	for (int i = 0; i < 20000; i++)
	{
		cid_ksuid	k,
					back;
		char		t[CID_KSUID_STRLEN + 1];
		int			bytes_cmp,
					text_cmp;

		for (int j = 0; j < 20; j += 4)
		{
			uint64_t	r = tu_rng_next(&rng);

			/* some short values too, to exercise the zero padding */
			memcpy(k.bytes + j, &r, 4);
		}
		if (i % 7 == 0)
			memset(k.bytes, 0, (size_t) (i % 20));
		cid_ksuid_format(t, &k);
		if (cid_ksuid_parse(&back, t, CID_KSUID_STRLEN, NULL) != CID_OK ||
			memcmp(back.bytes, k.bytes, 20) != 0)
			bad_trip++;
		bytes_cmp = memcmp(k.bytes, prev.bytes, 20);
		text_cmp = strcmp(t, prev_text);
		if ((bytes_cmp < 0) != (text_cmp < 0) || (bytes_cmp == 0) != (text_cmp == 0))
			bad_order++;
		prev = k;
		memcpy(prev_text, t, sizeof(t));
	}
	EXPECT_EQ_U64(bad_trip, 0);
	EXPECT_EQ_U64(bad_order, 0);
}

static void
test_new(void)
{
	tu_fake		f = {.now_ns = INT64_C(1507608047) * TU_NS_PER_MS * 1000 + 123, .next_byte = 0};
	cid_env		env = {tu_fake_clock, tu_fake_random, NULL, &f};
	cid_ksuid	k,
				k2;
	char		raw[41];

	EXPECT_EQ_INT(cid_ksuid_new(&k, &env), CID_OK);
	hex(raw, k.bytes, 20);
	EXPECT_STR(raw, "0669F7EF000102030405060708090A0B0C0D0E0F");
	f.fail_random = true;
	EXPECT_EQ_INT(cid_ksuid_new(&k, &env), CID_ERANDOM);
	f.fail_random = false;
	f.now_ns = -1;
	EXPECT_EQ_INT(cid_ksuid_new(&k, &env), CID_ECLOCK);
	f.now_ns = INT64_C(1399999999) * 1000 * TU_NS_PER_MS;
	EXPECT_EQ_INT(cid_ksuid_new(&k, &env), CID_ETIME_RANGE);
	/* the platform's: now, and different payloads */
	EXPECT_EQ_INT(cid_ksuid_new(&k, NULL), CID_OK);
	EXPECT_EQ_INT(cid_ksuid_new(&k2, NULL), CID_OK);
	EXPECT(cid_ksuid_unix_ms(&k) > INT64_C(1735689600000));
	EXPECT(memcmp(k.bytes + 4, k2.bytes + 4, 16) != 0);
	EXPECT_EQ_INT(cid_ksuid_new(NULL, NULL), CID_EINVAL);
}

int
main(void)
{
	TAP_CASE(test_known_answers);
	TAP_CASE(test_errors);
	TAP_CASE(test_from_ms);
	TAP_CASE(test_round_trip_and_order);
	TAP_CASE(test_new);
	return tap_done();
}
