/*
 * test_layout.c — Snowflake layouts: each preset against its published
 * definition, the text spec grammar and its error messages, canonical
 * round trips, and the derived range ends.
 */
#include "chronoid.h"
#include "tap.h"
#include "testutil.h"

static const char *
fmt_ms(char *buf, int64_t ms)
{
	if (cid_time_format(buf, ms) != CID_OK)
		strcpy(buf, "(range)");
	return buf;
}

static void
expect_fields(const cid_layout *l, int tbits, int nbits, int sbits, int rbits,
			  int tshift, int nshift, int sshift)
{
	EXPECT_EQ_INT(l->bits[CID_FIELD_TIME], tbits);
	EXPECT_EQ_INT(l->bits[CID_FIELD_NODE], nbits);
	EXPECT_EQ_INT(l->bits[CID_FIELD_SEQ], sbits);
	EXPECT_EQ_INT(l->bits[CID_FIELD_RESERVED], rbits);
	EXPECT_EQ_INT(l->shift[CID_FIELD_TIME], tshift);
	if (nbits)
		EXPECT_EQ_INT(l->shift[CID_FIELD_NODE], nshift);
	EXPECT_EQ_INT(l->shift[CID_FIELD_SEQ], sshift);
}

static void
test_preset_pgedge(void)
{
	cid_layout	l;
	char		buf[CID_TIME_STRLEN + 1];

	EXPECT_EQ_INT(cid_layout_preset(&l, "pgedge"), CID_OK);
	EXPECT_STR(l.name, "pgedge");
	/* bits 62..22 ms since 2023-01-01, 21..12 node, 11..0 counter */
	expect_fields(&l, 41, 10, 12, 0, 22, 12, 0);
	EXPECT_EQ_INT(l.epoch_ms, tu_parse_ms("2023-01-01T00:00:00Z"));
	EXPECT_EQ_INT(l.tick_ms, 1);
	EXPECT_EQ_U64(cid_layout_max_node(&l), 1023);
	/* 2^41 ms from the epoch: runs out in 2092 */
	EXPECT_STR(fmt_ms(buf, cid_layout_max_ms(&l)), "2092-09-06T15:47:35.551Z");
	EXPECT(cid_layout_negative_from_ms(&l) == INT64_MAX);
}

static void
test_preset_twitter(void)
{
	cid_layout	l;
	char		buf[CID_TIME_STRLEN + 1];

	EXPECT_EQ_INT(cid_layout_preset(&l, "twitter"), CID_OK);
	expect_fields(&l, 41, 10, 12, 0, 22, 12, 0);
	/* twepoch 1288834974657 */
	EXPECT_EQ_INT(l.epoch_ms, tu_parse_ms("2010-11-04T01:42:54.657Z"));
	EXPECT_EQ_INT(l.tick_ms, 1);
	EXPECT_STR(fmt_ms(buf, cid_layout_max_ms(&l)), "2080-07-10T17:30:30.208Z");
	EXPECT(cid_layout_negative_from_ms(&l) == INT64_MAX);
}

static void
test_preset_sonyflake(void)
{
	cid_layout	l;
	char		buf[CID_TIME_STRLEN + 1];

	EXPECT_EQ_INT(cid_layout_preset(&l, "sonyflake"), CID_OK);
	/* 39 bits of 10 ms | 8 sequence | 16 machine: note seq above node */
	expect_fields(&l, 39, 16, 8, 0, 24, 0, 16);
	EXPECT_EQ_INT(l.order[0], CID_FIELD_TIME);
	EXPECT_EQ_INT(l.order[1], CID_FIELD_SEQ);
	EXPECT_EQ_INT(l.order[2], CID_FIELD_NODE);
	EXPECT_EQ_INT(l.epoch_ms, tu_parse_ms("2014-09-01"));
	EXPECT_EQ_INT(l.tick_ms, 10);
	EXPECT_EQ_U64(cid_layout_max_node(&l), 65535);
	/* 2^39 ticks of 10 ms: about 174 years */
	EXPECT_STR(fmt_ms(buf, cid_layout_max_ms(&l)), "2188-11-16T03:28:58.879Z");
}

static void
test_preset_instagram(void)
{
	cid_layout	l;
	char		buf[CID_TIME_STRLEN + 1];

	EXPECT_EQ_INT(cid_layout_preset(&l, "instagram"), CID_OK);
	/* 41 ms | 13 shard | 10 sequence: 64 bits, time reaches bit 63 */
	expect_fields(&l, 41, 13, 10, 0, 23, 10, 0);
	EXPECT_EQ_INT(l.epoch_ms, INT64_C(1314220021721));
	EXPECT_EQ_U64(cid_layout_max_node(&l), 8191);
	EXPECT_STR(fmt_ms(buf, cid_layout_negative_from_ms(&l)), "2046-06-27T17:00:49.497Z");
}

static void
test_preset_discord(void)
{
	cid_layout	l;
	char		buf[CID_TIME_STRLEN + 1];

	EXPECT_EQ_INT(cid_layout_preset(&l, "discord"), CID_OK);
	/* 42 ms | 5 worker + 5 process | 12 increment; DISCORD_EPOCH 2015 */
	expect_fields(&l, 42, 10, 12, 0, 22, 12, 0);
	EXPECT_EQ_INT(l.epoch_ms, tu_parse_ms("2015-01-01"));
	EXPECT_EQ_INT(l.epoch_ms, INT64_C(1420070400000));
	EXPECT_STR(fmt_ms(buf, cid_layout_max_ms(&l)), "2154-05-15T07:35:11.103Z");
	/* bit 63 is the time field's top bit: set from epoch + 2^41 ms */
	EXPECT_STR(fmt_ms(buf, cid_layout_negative_from_ms(&l)), "2084-09-06T15:47:35.552Z");
}

static void
test_preset_names(void)
{
	int			n = 0;
	cid_layout	l;

	for (const char *const *p = cid_layout_preset_names; *p != NULL; p++, n++)
	{
		EXPECT_EQ_INT(cid_layout_preset(&l, *p), CID_OK);
		EXPECT_STR(l.name, *p);
	}
	EXPECT_EQ_INT(n, 5);
	EXPECT_STR(cid_layout_preset_names[0], "pgedge");
	EXPECT_EQ_INT(cid_layout_preset(&l, "snowflake"), CID_EINVAL);
	EXPECT_EQ_INT(cid_layout_preset(&l, NULL), CID_EINVAL);
}

static int
parse(cid_layout *l, const char *spec, char *err, size_t errlen)
{
	return cid_layout_parse(l, spec, strlen(spec), err, errlen);
}

static void
test_spec_example(void)
{
	cid_layout	l;
	char		err[200] = "untouched";

	EXPECT_EQ_INT(parse(&l, "time:42,seq:12,reserved:10;epoch=2025-01-01", err, sizeof(err)), CID_OK);
	EXPECT_STR(err, "");
	EXPECT_STR(l.name, "custom");
	EXPECT_EQ_INT(l.nfields, 3);
	EXPECT_EQ_INT(l.order[2], CID_FIELD_RESERVED);
	/* 42-bit time in bits 63..22 of a 64-bit layout, seq 21..10, reserved 9..0 */
	expect_fields(&l, 42, 0, 12, 10, 22, 0, 10);
	EXPECT_EQ_INT(l.shift[CID_FIELD_RESERVED], 0);
	EXPECT_EQ_INT(l.epoch_ms, INT64_C(1735689600000));
	EXPECT_EQ_INT(l.tick_ms, 1);
	EXPECT_EQ_U64(cid_layout_max_node(&l), 0);
}

static void
test_spec_aliases_and_whitespace(void)
{
	cid_layout	l;
	char		err[200];

	EXPECT_EQ_INT(parse(&l, "  TS : 39 , Sequence:8,\tmachine : 16 ; tick = 10 ms ; epoch = 2014-09-01 00:00:00 ",
						err, sizeof(err)), CID_OK);
	expect_fields(&l, 39, 16, 8, 0, 24, 0, 16);
	EXPECT_EQ_INT(l.tick_ms, 10);
	EXPECT_EQ_INT(l.epoch_ms, INT64_C(1409529600000));

	EXPECT_EQ_INT(parse(&l, "timestamp:41,shard:13,counter:10;tick=1", err, sizeof(err)), CID_OK);
	expect_fields(&l, 41, 13, 10, 0, 23, 10, 0);
	EXPECT_EQ_INT(l.epoch_ms, 0);	/* default: the Unix epoch */

	EXPECT_EQ_INT(parse(&l, "time:41,worker:10,increment:12;epoch=1672531200000", err, sizeof(err)), CID_OK);
	EXPECT_EQ_INT(l.epoch_ms, INT64_C(1672531200000));
}

static void
test_spec_defaults(void)
{
	cid_layout	l;

	EXPECT_EQ_INT(parse(&l, "time:41,node:10,seq:12", NULL, 0), CID_OK);
	EXPECT_EQ_INT(l.epoch_ms, 0);
	EXPECT_EQ_INT(l.tick_ms, 1);
}

/* Each class of invalid spec: its status and the part its message names. */
static void
test_spec_errors(void)
{
	static const struct
	{
		const char *spec;
		int			rc;
		const char *msg;
	}			cases[] = {
		{"time:41,node:10,seq:11", CID_ELAYOUT,
		"field widths add up to 62; they must add up to 63, or 64 when time is the top field"},
		{"time:42,node:11,seq:12", CID_ELAYOUT, "field widths add up to 65"},
		{"node:10,time:41,seq:12", CID_ELAYOUT, "the first field must be time, not 'node'"},
		{"node:51,seq:12", CID_ELAYOUT, "no time field"},
		{"time:53,node:10", CID_ELAYOUT, "no seq field"},
		{"time:41,node:10,worker:10", CID_ELAYOUT, "field 'node' appears twice"},
		{"time:41,colour:10,seq:12", CID_ELAYOUT, "unknown field 'colour'"},
		{"time:0,node:51,seq:12", CID_ELAYOUT, "field 'time' has width 0"},
		{"time:64,seq:1", CID_ELAYOUT, "field 'time' has width 64"},
		{"time:41,node:10,seq:12;tick=0ms", CID_ELAYOUT, "tick 0ms is out of range 1..1000 ms"},
		{"time:41,node:10,seq:12;tick=1001ms", CID_ELAYOUT, "tick 1001ms is out of range"},
		{"time:41,node:10,seq:12;tick=5s", CID_ESYNTAX, "'ms' or nothing"},
		{"time:41,node:10,seq:12;epoch=2023-02-30", CID_ELAYOUT, "bad epoch '2023-02-30'"},
		{"time:41,node:10,seq:12;epoch=soon", CID_ESYNTAX, "bad epoch 'soon'"},
		{"time:41,node:10,seq:12;epoch=-62167219200001", CID_ELAYOUT, "out of range"},
		{"time:41,node:10,seq:12;epoch=0;epoch=1", CID_ELAYOUT, "option 'epoch' given twice"},
		{"time:41,node:10,seq:12;color=red", CID_ELAYOUT, "unknown option 'color'"},
		{"time:41,node:10,seq:12;", CID_ESYNTAX, "expected an option"},
		{"time 41,node:10,seq:12", CID_ESYNTAX, "expected ':' and a width after the field name at offset 5"},
		{"time:x,node:10,seq:12", CID_ESYNTAX, "expected a field width at offset 5, found 'x'"},
		{"time:41 node:10", CID_ESYNTAX, "expected ',' or ';' after a field at offset 8"},
		{"time:41,,seq:22", CID_ESYNTAX, "expected a field name at offset 8"},
		{"", CID_ESYNTAX, "expected a field name at offset 0, found end of spec"},
		{"time:63,seq:1;epoch=2000-01-01", CID_ELAYOUT, "runs past the largest 64-bit millisecond count"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		cid_layout	l;
		char		err[200] = "";
		int			rc = parse(&l, cases[i].spec, err, sizeof(err));

		EXPECT_EQ_INT(rc, cases[i].rc);
		EXPECT(strstr(err, cases[i].msg) != NULL);
		EXPECT(strchr(err, '\n') == NULL);
		if (rc != cases[i].rc || strstr(err, cases[i].msg) == NULL)
			printf("#     spec \"%s\": err \"%s\"\n", cases[i].spec, err);
	}
}

static void
test_spec_64bit_rules(void)
{
	cid_layout	l;
	char		err[200];

	/* 64 bits are fine: bit 63 then belongs to the time field */
	EXPECT_EQ_INT(parse(&l, "time:42,node:10,seq:12;epoch=2015-01-01", err, sizeof(err)), CID_OK);
	EXPECT_EQ_INT(l.shift[CID_FIELD_TIME] + l.bits[CID_FIELD_TIME], 64);
	/* time:63 fits int64 ms only from the Unix epoch on */
	EXPECT_EQ_INT(parse(&l, "time:63,seq:1", err, sizeof(err)), CID_OK);
	EXPECT(cid_layout_max_ms(&l) == INT64_MAX);
	/* a short message buffer is truncated, not overrun */
	memset(err, 'x', sizeof(err));
	EXPECT_EQ_INT(parse(&l, "time:1,seq:1", err, 8), CID_ELAYOUT);
	EXPECT_EQ_INT(strlen(err), 7);
	EXPECT_EQ_INT(err[8], 'x');
}

static void
test_validate_hand_built(void)
{
	cid_layout	l;
	char		err[200];

	memset(&l, 0, sizeof(l));
	l.nfields = 3;
	l.order[0] = CID_FIELD_TIME;
	l.order[1] = CID_FIELD_NODE;
	l.order[2] = CID_FIELD_SEQ;
	l.bits[CID_FIELD_TIME] = 41;
	l.bits[CID_FIELD_NODE] = 10;
	l.bits[CID_FIELD_SEQ] = 12;
	l.tick_ms = 1;
	EXPECT_EQ_INT(cid_layout_validate(&l, err, sizeof(err)), CID_OK);
	EXPECT_EQ_INT(l.shift[CID_FIELD_TIME], 22);
	EXPECT_EQ_INT(l.shift[CID_FIELD_NODE], 12);

	l.bits[CID_FIELD_RESERVED] = 1;
	l.bits[CID_FIELD_NODE] = 9;
	EXPECT_EQ_INT(cid_layout_validate(&l, err, sizeof(err)), CID_ELAYOUT);
	EXPECT(strstr(err, "'reserved' has width 1 but is not in the field order") != NULL);

	l.bits[CID_FIELD_RESERVED] = 0;
	l.bits[CID_FIELD_NODE] = 10;
	l.tick_ms = 0;
	EXPECT_EQ_INT(cid_layout_validate(&l, err, sizeof(err)), CID_ELAYOUT);
	EXPECT(strstr(err, "tick 0ms") != NULL);

	l.tick_ms = 1;
	l.nfields = 1;
	EXPECT_EQ_INT(cid_layout_validate(&l, err, sizeof(err)), CID_ELAYOUT);
	EXPECT_EQ_INT(cid_layout_validate(NULL, err, sizeof(err)), CID_EINVAL);
}

static bool
same_layout(const cid_layout *a, const cid_layout *b)
{
	if (a->nfields != b->nfields || a->tick_ms != b->tick_ms || a->epoch_ms != b->epoch_ms)
		return false;
	for (int i = 0; i < a->nfields; i++)
		if (a->order[i] != b->order[i])
			return false;
	for (int k = 0; k < 4; k++)
		if (a->bits[k] != b->bits[k] || a->shift[k] != b->shift[k])
			return false;
	return true;
}

static void
test_format_round_trip_presets(void)
{
	for (const char *const *p = cid_layout_preset_names; *p != NULL; p++)
	{
		cid_layout	a,
					b;
		char		spec[128],
					again[128],
					err[200];

		EXPECT_EQ_INT(cid_layout_preset(&a, *p), CID_OK);
		EXPECT_EQ_INT(cid_layout_format(spec, sizeof(spec), &a), CID_OK);
		EXPECT_EQ_INT(parse(&b, spec, err, sizeof(err)), CID_OK);
		EXPECT(same_layout(&a, &b));
		EXPECT_EQ_INT(cid_layout_format(again, sizeof(again), &b), CID_OK);
		EXPECT_STR(again, spec);
	}
}

static void
test_format_canonical(void)
{
	cid_layout	l;
	char		spec[128];

	EXPECT_EQ_INT(cid_layout_preset(&l, "sonyflake"), CID_OK);
	EXPECT_EQ_INT(cid_layout_format(spec, sizeof(spec), &l), CID_OK);
	EXPECT_STR(spec, "time:39,seq:8,node:16;epoch=2014-09-01T00:00:00.000Z;tick=10ms");
	EXPECT_EQ_INT(parse(&l, " ts:42 , seq:12 , reserved:10 ; epoch=2025-01-01", NULL, 0), CID_OK);
	EXPECT_EQ_INT(cid_layout_format(spec, sizeof(spec), &l), CID_OK);
	EXPECT_STR(spec, "time:42,seq:12,reserved:10;epoch=2025-01-01T00:00:00.000Z;tick=1ms");
	/* too small a buffer is refused */
	EXPECT_EQ_INT(cid_layout_format(spec, 20, &l), CID_EINVAL);
}

static void
test_resolve(void)
{
	cid_layout	l;
	char		err[200];

	EXPECT_EQ_INT(cid_layout_resolve(&l, "discord", err, sizeof(err)), CID_OK);
	EXPECT_STR(l.name, "discord");
	EXPECT_EQ_INT(cid_layout_resolve(&l, " Twitter ", err, sizeof(err)), CID_OK);
	EXPECT_STR(l.name, "twitter");
	EXPECT_EQ_INT(cid_layout_resolve(&l, "time:41,node:10,seq:12;epoch=2023-01-01", err, sizeof(err)), CID_OK);
	EXPECT_STR(l.name, "custom");
	EXPECT_EQ_INT(l.epoch_ms, INT64_C(1672531200000));
	EXPECT_EQ_INT(cid_layout_resolve(&l, "bogus", err, sizeof(err)), CID_ELAYOUT);
	EXPECT(strstr(err, "unknown layout 'bogus'") != NULL);
	EXPECT_EQ_INT(cid_layout_resolve(&l, "time:41,node:10,seq:11", err, sizeof(err)), CID_ELAYOUT);
	EXPECT(strstr(err, "widths add up to 62") != NULL);
}

/*
 * Random text over the spec's alphabet: every result is either a layout
 * that round-trips through the canonical form, or a failure with a
 * one-line message.
 */
static void
test_spec_random_text(void)
{
	static const char *const pieces[] = {
		"time", "node", "seq", "reserved", "ts", "shard", ":", ",", ";", "=",
		"epoch", "tick", "ms", " ", "1", "2", "10", "12", "41", "42", "63",
		"64", "0", "2023-01-01", "-", "x", "\t",
	};
	uint64_t	x = 0x2545F4914F6CDD1Du;
	int			ok = 0,
				bad = 0;

	for (int i = 0; i < 100000; i++)
	{
		char		spec[256] = "",
					err[200],
					canon[128],
					again[128];
		cid_layout	l,
					m;
		int			n,
					rc;

		tu_xorshift64(&x);
		n = (int) (x % 16);
		/* bias toward valid specs: a good prefix half of the time */
		if (x & 1)
			strcpy(spec, "time:41,node:10,seq:12");
		for (int j = 0; j < n; j++)
		{
			tu_xorshift64(&x);
			strcat(spec, pieces[x % (sizeof(pieces) / sizeof(pieces[0]))]);
		}
		err[0] = '\0';
		rc = parse(&l, spec, err, sizeof(err));
		if (rc == CID_OK)
		{
			ok++;
			if (cid_layout_format(canon, sizeof(canon), &l) != CID_OK ||
				parse(&m, canon, NULL, 0) != CID_OK || !same_layout(&l, &m) ||
				cid_layout_format(again, sizeof(again), &m) != CID_OK ||
				strcmp(canon, again) != 0)
				bad++;
		}
		else if ((rc != CID_ELAYOUT && rc != CID_ESYNTAX) || err[0] == '\0' ||
				 strchr(err, '\n') != NULL)
		{
			printf("#     spec \"%s\": %d \"%s\"\n", spec, rc, err);
			bad++;
		}
	}
	EXPECT_EQ_INT(bad, 0);
	EXPECT(ok > 100);
}

int
main(void)
{
	TAP_CASE(test_preset_pgedge);
	TAP_CASE(test_preset_twitter);
	TAP_CASE(test_preset_sonyflake);
	TAP_CASE(test_preset_instagram);
	TAP_CASE(test_preset_discord);
	TAP_CASE(test_preset_names);
	TAP_CASE(test_spec_example);
	TAP_CASE(test_spec_aliases_and_whitespace);
	TAP_CASE(test_spec_defaults);
	TAP_CASE(test_spec_errors);
	TAP_CASE(test_spec_64bit_rules);
	TAP_CASE(test_validate_hand_built);
	TAP_CASE(test_format_round_trip_presets);
	TAP_CASE(test_format_canonical);
	TAP_CASE(test_resolve);
	TAP_CASE(test_spec_random_text);
	return tap_done();
}
