/*
 * test_snowflake.c — Snowflake values: known answers from the published
 * layouts, decode/compose round trips, time-range bounds at the field's
 * ends, and decimal parsing with its error positions.
 */
#include "chronoid.h"
#include "tap.h"
#include "testutil.h"

static cid_layout
preset(const char *name)
{
	cid_layout	l;

	memset(&l, 0, sizeof(l));
	if (cid_layout_preset(&l, name) != CID_OK)
		printf("#     no preset %s\n", name);
	return l;
}

/* tests/vectors.md: pgEdge snowflake 2.6 */
static void
test_pgedge_known_answer(void)
{
	cid_layout	l = preset("pgedge");
	cid_snowflake_parts p = {0};
	uint64_t	id = 0;

	p.unix_ms = tu_parse_ms("2023-10-16 18:47:12.257");
	p.node = 1;
	p.sequence = 0;
	EXPECT_EQ_INT(cid_snowflake_compose(&id, &l, &p), CID_OK);
	EXPECT_EQ_U64(id, UINT64_C(104651375538868224));
	/* and by the layout's arithmetic: ms since epoch << 22 | node << 12 */
	EXPECT_EQ_U64(id, (UINT64_C(24950832257) << 22) | (UINT64_C(1) << 12));

	memset(&p, 0xff, sizeof(p));
	EXPECT_EQ_INT(cid_snowflake_decode(&p, &l, UINT64_C(104651375538868224)), CID_OK);
	EXPECT_EQ_INT(p.unix_ms, INT64_C(1697482032257));
	EXPECT_EQ_U64(p.tick, UINT64_C(24950832257));
	EXPECT_EQ_U64(p.node, 1);
	EXPECT_EQ_U64(p.sequence, 0);
	EXPECT_EQ_U64(p.reserved, 0);
}

/*
 * Discord's developer documentation decodes 175928847299117063 as
 * 2016-04-30 11:18:25.796 UTC, internal worker 1, process 0, increment 7.
 */
static void
test_discord_documented_id(void)
{
	cid_layout	l = preset("discord");
	cid_snowflake_parts p;
	char		buf[CID_TIME_STRLEN + 1];
	uint64_t	id = 0;

	EXPECT_EQ_INT(cid_snowflake_decode(&p, &l, UINT64_C(175928847299117063)), CID_OK);
	EXPECT_EQ_INT(cid_time_format(buf, p.unix_ms), CID_OK);
	EXPECT_STR(buf, "2016-04-30T11:18:25.796Z");
	EXPECT_EQ_U64(p.node >> 5, 1);	/* worker: bits 21..17 */
	EXPECT_EQ_U64(p.node & 31, 0);	/* process: bits 16..12 */
	EXPECT_EQ_U64(p.sequence, 7);
	EXPECT_EQ_INT(cid_snowflake_compose(&id, &l, &p), CID_OK);
	EXPECT_EQ_U64(id, UINT64_C(175928847299117063));
}

/* Instagram's engineering blog: time << (64-41) | shard << (64-41-13) | seq */
static void
test_instagram_bit_positions(void)
{
	cid_layout	l = preset("instagram");
	cid_snowflake_parts p = {0};
	uint64_t	id = 0;

	p.unix_ms = l.epoch_ms + INT64_C(1387263000);
	p.node = 31341 % 2000;		/* the blog's shard 1341 */
	p.sequence = 5001 % 1024;	/* and its sequence 905 */
	EXPECT_EQ_INT(cid_snowflake_compose(&id, &l, &p), CID_OK);
	EXPECT_EQ_U64(id, (UINT64_C(1387263000) << 23) | (UINT64_C(1341) << 10) | 905);
}

/* Sonyflake: time(10 ms) << 24 | sequence << 16 | machine id */
static void
test_sonyflake_bit_positions(void)
{
	cid_layout	l = preset("sonyflake");
	cid_snowflake_parts p = {0};
	uint64_t	id = 0;

	p.unix_ms = tu_parse_ms("2014-09-01") + 12345 * 10 + 7;	/* inside tick 12345 */
	p.node = 0xBEEF;
	p.sequence = 0x5A;
	EXPECT_EQ_INT(cid_snowflake_compose(&id, &l, &p), CID_OK);
	EXPECT_EQ_U64(id, (UINT64_C(12345) << 24) | (UINT64_C(0x5A) << 16) | 0xBEEF);
	EXPECT_EQ_INT(cid_snowflake_decode(&p, &l, id), CID_OK);
	EXPECT_EQ_INT(p.unix_ms, tu_parse_ms("2014-09-01") + 123450);	/* tick start */
	EXPECT_EQ_U64(p.tick, 12345);
}

/* Twitter: (ms - 1288834974657) << 22 | datacenter/worker << 12 | seq */
static void
test_twitter_bit_positions(void)
{
	cid_layout	l = preset("twitter");
	cid_snowflake_parts p = {0};
	uint64_t	id = 0;

	p.unix_ms = INT64_C(1288834974657) + 1;
	p.node = (3 << 5) | 17;		/* datacenter 3, worker 17 */
	p.sequence = 4095;
	EXPECT_EQ_INT(cid_snowflake_compose(&id, &l, &p), CID_OK);
	EXPECT_EQ_U64(id, (UINT64_C(1) << 22) | (UINT64_C(113) << 12) | 4095);
}

static void
test_compose_errors(void)
{
	cid_layout	l = preset("pgedge");
	cid_snowflake_parts p = {0};
	uint64_t	id;

	p.unix_ms = l.epoch_ms;
	p.node = 1024;
	EXPECT_EQ_INT(cid_snowflake_compose(&id, &l, &p), CID_ENODE);
	p.node = 1023;
	p.sequence = 4096;
	EXPECT_EQ_INT(cid_snowflake_compose(&id, &l, &p), CID_EOVERFLOW);
	p.sequence = 0;
	p.unix_ms = l.epoch_ms - 1;
	EXPECT_EQ_INT(cid_snowflake_compose(&id, &l, &p), CID_ETIME_RANGE);
	p.unix_ms = cid_layout_max_ms(&l) + 1;
	EXPECT_EQ_INT(cid_snowflake_compose(&id, &l, &p), CID_ETIME_RANGE);
	p.unix_ms = cid_layout_max_ms(&l);
	EXPECT_EQ_INT(cid_snowflake_compose(&id, &l, &p), CID_OK);
	p.reserved = 1;
	EXPECT_EQ_INT(cid_snowflake_compose(&id, &l, &p), CID_EOVERFLOW);
}

static void
test_decode_rejects(void)
{
	cid_layout	pg = preset("pgedge");
	cid_layout	dc = preset("discord");
	cid_layout	custom;
	cid_snowflake_parts p;

	/* bit 63 on a 63-bit layout */
	EXPECT_EQ_INT(cid_snowflake_decode(&p, &pg, UINT64_C(1) << 63), CID_EOVERFLOW);
	EXPECT_EQ_INT(cid_snowflake_decode(&p, &pg, UINT64_MAX >> 1), CID_OK);
	/* a 64-bit layout takes it */
	EXPECT_EQ_INT(cid_snowflake_decode(&p, &dc, UINT64_MAX), CID_OK);
	EXPECT_EQ_U64(p.tick, (UINT64_C(1) << 42) - 1);
	/* reserved bits must be 0 */
	EXPECT_EQ_INT(cid_layout_parse(&custom, "time:42,seq:12,reserved:10", 26, NULL, 0), CID_OK);
	EXPECT_EQ_INT(cid_snowflake_decode(&p, &custom, UINT64_C(1) << 9), CID_EOVERFLOW);
	EXPECT_EQ_INT(cid_snowflake_decode(&p, &custom, UINT64_C(1) << 10), CID_OK);
	EXPECT_EQ_U64(p.sequence, 1);
}

static void
test_min_max_at_epoch(void)
{
	cid_layout	l = preset("pgedge");
	uint64_t	lo = 1,
				hi = 0;

	EXPECT_EQ_INT(cid_snowflake_min_at(&lo, &l, l.epoch_ms), CID_OK);
	EXPECT_EQ_INT(cid_snowflake_max_at(&hi, &l, l.epoch_ms), CID_OK);
	EXPECT_EQ_U64(lo, 0);
	EXPECT_EQ_U64(hi, (UINT64_C(1) << 22) - 1);
	EXPECT_EQ_INT(cid_snowflake_min_at(&lo, &l, l.epoch_ms - 1), CID_ETIME_RANGE);
	EXPECT_EQ_INT(cid_snowflake_max_at(&hi, &l, l.epoch_ms - 1), CID_ETIME_RANGE);
	EXPECT_EQ_INT(cid_snowflake_min_at(&lo, &l, l.epoch_ms + 1), CID_OK);
	EXPECT_EQ_U64(lo, UINT64_C(1) << 22);
}

static void
test_min_max_at_field_end(void)
{
	cid_layout	l = preset("pgedge");
	int64_t		end = tu_parse_ms("2092-09-06T15:47:35.551Z");
	uint64_t	lo = 0,
				hi = 0;

	/* the last millisecond of the 41-bit field */
	EXPECT_EQ_INT(cid_layout_max_ms(&l), end);
	EXPECT_EQ_INT(cid_snowflake_min_at(&lo, &l, end), CID_OK);
	EXPECT_EQ_INT(cid_snowflake_max_at(&hi, &l, end), CID_OK);
	EXPECT_EQ_U64(lo, ((UINT64_C(1) << 41) - 1) << 22);
	EXPECT_EQ_U64(hi, (uint64_t) INT64_MAX);
	EXPECT_EQ_INT(cid_snowflake_min_at(&lo, &l, end + 1), CID_ETIME_RANGE);
	EXPECT_EQ_INT(cid_snowflake_max_at(&hi, &l, end + 1), CID_ETIME_RANGE);

	/* a 10 ms tick: any ms inside the tick gives the same bounds */
	l = preset("sonyflake");
	EXPECT_EQ_INT(cid_snowflake_min_at(&lo, &l, l.epoch_ms + 19), CID_OK);
	EXPECT_EQ_U64(lo, UINT64_C(1) << 24);
	EXPECT_EQ_INT(cid_snowflake_max_at(&hi, &l, l.epoch_ms + 10), CID_OK);
	EXPECT_EQ_U64(hi, (UINT64_C(2) << 24) - 1);
}

/* A 64-bit layout: IDs turn negative (as bigint) at negative_from_ms. */
static void
test_discord_negative_from(void)
{
	cid_layout	l = preset("discord");
	int64_t		neg = cid_layout_negative_from_ms(&l);
	uint64_t	lo = 0,
				hi = 0;

	EXPECT_EQ_INT(neg, tu_parse_ms("2084-09-06T15:47:35.552Z"));
	EXPECT_EQ_INT(cid_snowflake_max_at(&hi, &l, neg - 1), CID_OK);
	EXPECT_EQ_U64(hi, (uint64_t) INT64_MAX);
	EXPECT_EQ_INT(cid_snowflake_min_at(&lo, &l, neg), CID_OK);
	EXPECT_EQ_U64(lo, UINT64_C(1) << 63);
	EXPECT((int64_t) lo < 0);
	EXPECT_EQ_INT(cid_snowflake_max_at(&hi, &l, cid_layout_max_ms(&l)), CID_OK);
	EXPECT_EQ_U64(hi, UINT64_MAX);
}

static void
test_round_trip_all_presets(void)
{
	for (const char *const *name = cid_layout_preset_names; *name != NULL; name++)
	{
		cid_layout	l = preset(*name);
		uint64_t	x = 0x9E3779B97F4A7C15u;
		int			bad = 0;

		for (int i = 0; i < 20000; i++)
		{
			cid_snowflake_parts p,
						q;
			uint64_t	id,
						back;

			tu_xorshift64(&x);
			id = l.bits[0] + l.bits[1] + l.bits[2] + l.bits[3] == 63 ? x >> 1 : x;
			if (cid_snowflake_decode(&p, &l, id) != CID_OK ||
				cid_snowflake_compose(&back, &l, &p) != CID_OK || back != id)
				bad++;
			else if (cid_snowflake_decode(&q, &l, back) != CID_OK ||
					 q.unix_ms != p.unix_ms || q.tick != p.tick)
				bad++;
		}
		EXPECT_EQ_INT(bad, 0);
	}
}

static int
parse_str(uint64_t *id, const cid_layout *l, const char *s, size_t *errpos)
{
	return cid_snowflake_parse(id, l, s, strlen(s), errpos);
}

static void
test_parse_ok(void)
{
	cid_layout	pg = preset("pgedge");
	cid_layout	dc = preset("discord");
	uint64_t	id = 0;
	size_t		ep = 9;

	EXPECT_EQ_INT(parse_str(&id, &pg, "104651375538868224", &ep), CID_OK);
	EXPECT_EQ_U64(id, UINT64_C(104651375538868224));
	EXPECT_EQ_INT(parse_str(&id, &pg, "0", &ep), CID_OK);
	EXPECT_EQ_U64(id, 0);
	EXPECT_EQ_INT(parse_str(&id, &pg, "9223372036854775807", &ep), CID_OK);
	EXPECT_EQ_U64(id, (uint64_t) INT64_MAX);
	/* two's complement for 64-bit layouts */
	EXPECT_EQ_INT(parse_str(&id, &dc, "-1", &ep), CID_OK);
	EXPECT_EQ_U64(id, UINT64_MAX);
	EXPECT_EQ_INT(parse_str(&id, &dc, "-9223372036854775808", &ep), CID_OK);
	EXPECT_EQ_U64(id, UINT64_C(1) << 63);
	EXPECT_EQ_INT(parse_str(&id, &dc, "18446744073709551615", &ep), CID_OK);
	EXPECT_EQ_U64(id, UINT64_MAX);
	/* only len characters are read */
	EXPECT_EQ_INT(cid_snowflake_parse(&id, &pg, "12345xyz", 5, &ep), CID_OK);
	EXPECT_EQ_U64(id, 12345);
}

static void
test_parse_errors(void)
{
	static const struct
	{
		const char *layout;
		const char *s;
		int			rc;
		size_t		pos;
	}			cases[] = {
		{"pgedge", "", CID_ELENGTH, 0},
		{"pgedge", "12a4", CID_ESYNTAX, 2},
		{"pgedge", " 12", CID_ESYNTAX, 0},
		{"pgedge", "+12", CID_ESYNTAX, 0},
		{"pgedge", "-1", CID_ESYNTAX, 0},
		{"discord", "-", CID_ESYNTAX, 1},
		{"discord", "--1", CID_ESYNTAX, 1},
		{"pgedge", "9223372036854775808", CID_EOVERFLOW, 0},
		{"discord", "18446744073709551616", CID_EOVERFLOW, 19},
		{"discord", "99999999999999999999", CID_EOVERFLOW, 19},
		{"discord", "-9223372036854775809", CID_EOVERFLOW, 1},
		{"pgedge", "000000000000000000001", CID_ELENGTH, 20},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		cid_layout	l = preset(cases[i].layout);
		uint64_t	id;
		size_t		ep = 999;
		int			rc = parse_str(&id, &l, cases[i].s, &ep);

		EXPECT_EQ_INT(rc, cases[i].rc);
		EXPECT_EQ_INT(ep, cases[i].pos);
		if (rc != cases[i].rc || ep != cases[i].pos)
			printf("#     %s \"%s\"\n", cases[i].layout, cases[i].s);
	}
}

static void
test_parse_reserved_bits(void)
{
	cid_layout	l;
	uint64_t	id;
	size_t		ep;

	EXPECT_EQ_INT(cid_layout_parse(&l, "time:42,seq:12,reserved:10", 26, NULL, 0), CID_OK);
	EXPECT_EQ_INT(parse_str(&id, &l, "1024", &ep), CID_OK);
	EXPECT_EQ_INT(parse_str(&id, &l, "1023", &ep), CID_EOVERFLOW);
}

/* Every status code has its own name; unknown codes a fixed one. */
static void
test_strerror(void)
{
	const char *seen[23];
	int			n = 0;

	EXPECT_STR(cid_strerror(CID_ECLOCK_BACKWARDS), "clock moved backwards (fail policy)");
	EXPECT_STR(cid_strerror(CID_OK), "ok");
	EXPECT_STR(cid_strerror(3), "unknown status");
	EXPECT_STR(cid_strerror(-21), "unknown status");
	for (int rc = CID_EFORKED; rc <= CID_WTICK_BORROWED; rc++)
	{
		const char *s = cid_strerror(rc);

		EXPECT(s != NULL && s[0] != '\0');
		EXPECT(strcmp(s, "unknown status") != 0);
		for (const char *p = s; *p; p++)
			EXPECT(!(*p >= 'A' && *p <= 'Z'));
		for (int j = 0; j < n; j++)
			EXPECT(strcmp(seen[j], s) != 0);
		seen[n++] = s;
	}
	EXPECT_EQ_INT(n, 23);
}

int
main(void)
{
	TAP_CASE(test_pgedge_known_answer);
	TAP_CASE(test_discord_documented_id);
	TAP_CASE(test_instagram_bit_positions);
	TAP_CASE(test_sonyflake_bit_positions);
	TAP_CASE(test_twitter_bit_positions);
	TAP_CASE(test_compose_errors);
	TAP_CASE(test_decode_rejects);
	TAP_CASE(test_min_max_at_epoch);
	TAP_CASE(test_min_max_at_field_end);
	TAP_CASE(test_discord_negative_from);
	TAP_CASE(test_round_trip_all_presets);
	TAP_CASE(test_parse_ok);
	TAP_CASE(test_parse_errors);
	TAP_CASE(test_parse_reserved_bits);
	TAP_CASE(test_strerror);
	return tap_done();
}
