/*
 * test_inspect.c — cid_inspect(): each text form goes to the right
 * decoder, the fields it fills, and the errors and positions it passes on.
 */
#include "chronoid.h"
#include "tap.h"

static int
inspect(cid_info *info, const char *s, const cid_layout *layout, size_t *errpos)
{
	return cid_inspect(info, s, strlen(s), layout, errpos);
}

static void
test_uuid_forms(void)
{
	static const char *const forms[] = {
		"017F22E2-79B0-7CC3-98C4-DC0C0C07398F",
		"017f22e279b07cc398c4dc0c0c07398f",
		"{017f22e2-79b0-7cc3-98c4-dc0c0c07398f}",
		"{017F22E279B07CC398C4DC0C0C07398F}",
	};
	static const uint8_t want[16] = {
		0x01, 0x7f, 0x22, 0xe2, 0x79, 0xb0, 0x7c, 0xc3,
		0x98, 0xc4, 0xdc, 0x0c, 0x0c, 0x07, 0x39, 0x8f
	};

	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++)
	{
		cid_info	info;

		EXPECT_EQ_INT(inspect(&info, forms[i], NULL, NULL), CID_OK);
		EXPECT_EQ_INT(info.kind, CID_KIND_UUID);
		EXPECT(memcmp(info.bytes, want, 16) == 0);
		EXPECT_EQ_INT(info.version, 7);
		EXPECT(info.has_time);
		EXPECT_EQ_INT(info.unix_ms, INT64_C(1645557742000));
		EXPECT(!info.has_node);
		EXPECT(!info.has_sequence);
	}
}

static void
test_uuid_versions_and_time(void)
{
	cid_info	info;

	EXPECT_EQ_INT(inspect(&info, "C232AB00-9414-11EC-B3C8-9F6BDECED846", NULL, NULL), CID_OK);
	EXPECT_EQ_INT(info.version, 1);
	EXPECT(info.has_time);
	EXPECT_EQ_INT(info.unix_ms, INT64_C(1645557742000));
	EXPECT_EQ_INT(inspect(&info, "919108f7-52d1-4320-9bac-f847db4148a8", NULL, NULL), CID_OK);
	EXPECT_EQ_INT(info.version, 4);
	EXPECT(!info.has_time);
	EXPECT_EQ_INT(inspect(&info, "00000000-0000-0000-0000-000000000000", NULL, NULL), CID_OK);
	EXPECT_EQ_INT(info.kind, CID_KIND_UUID);
	EXPECT_EQ_INT(info.version, -1);
	EXPECT(!info.has_time);
	EXPECT_EQ_INT(inspect(&info, "ffffffffffffffffffffffffffffffff", NULL, NULL), CID_OK);
	EXPECT_EQ_INT(info.version, -1);
	EXPECT(!info.has_time);
}

static void
test_ulid(void)
{
	cid_info	info;
	static const uint8_t want[16] = {
		0x01, 0x56, 0x3e, 0x3a, 0xb5, 0xd3, 0xd6, 0x76,
		0x4c, 0x61, 0xef, 0xb9, 0x93, 0x02, 0xbd, 0x5b
	};

	EXPECT_EQ_INT(inspect(&info, "01ARZ3NDEKTSV4RRFFQ69G5FAV", NULL, NULL), CID_OK);
	EXPECT_EQ_INT(info.kind, CID_KIND_ULID);
	EXPECT(memcmp(info.bytes, want, 16) == 0);
	EXPECT(info.has_time);
	EXPECT_EQ_INT(info.unix_ms, INT64_C(1469922850259));
	EXPECT(!info.has_node);
	EXPECT(!info.has_sequence);
	/* 26 digits are a ULID too, not a Snowflake */
	EXPECT_EQ_INT(inspect(&info, "00000000000000000000000000", NULL, NULL), CID_OK);
	EXPECT_EQ_INT(info.kind, CID_KIND_ULID);
	EXPECT_EQ_INT(info.unix_ms, 0);
	EXPECT_EQ_INT(inspect(&info, "7zzzzzzzzzzzzzzzzzzzzzzzzz", NULL, NULL), CID_OK);
	EXPECT_EQ_INT(info.unix_ms, INT64_C(281474976710655));
}

static void
test_snowflake_pgedge_default(void)
{
	cid_info	info;

	/* tests/vectors.md: node 1, counter 0, 2023-10-16 18:47:12.257 UTC */
	EXPECT_EQ_INT(inspect(&info, "104651375538868224", NULL, NULL), CID_OK);
	EXPECT_EQ_INT(info.kind, CID_KIND_SNOWFLAKE);
	EXPECT_EQ_U64(info.snowflake, UINT64_C(104651375538868224));
	EXPECT(info.has_time);
	EXPECT_EQ_INT(info.unix_ms, INT64_C(1672531200000) + INT64_C(24950832257));
	EXPECT(info.has_node);
	EXPECT_EQ_U64(info.node, 1);
	EXPECT(info.has_sequence);
	EXPECT_EQ_U64(info.sequence, 0);
	/* one digit: the epoch itself */
	EXPECT_EQ_INT(inspect(&info, "7", NULL, NULL), CID_OK);
	EXPECT_EQ_INT(info.kind, CID_KIND_SNOWFLAKE);
	EXPECT_EQ_INT(info.unix_ms, INT64_C(1672531200000));
	EXPECT_EQ_U64(info.sequence, 7);
}

static void
test_snowflake_other_layouts(void)
{
	cid_layout	layout;
	cid_info	info;
	char		text[32];
	uint64_t	id;

	/* twitter: 41 time | 10 node | 12 seq */
	EXPECT_EQ_INT(cid_layout_preset(&layout, "twitter"), CID_OK);
	id = UINT64_C(1000) << 22 | UINT64_C(5) << 12 | 7;
	snprintf(text, sizeof(text), "%" PRIu64, id);
	EXPECT_EQ_INT(inspect(&info, text, &layout, NULL), CID_OK);
	EXPECT_EQ_INT(info.unix_ms, INT64_C(1288834974657) + 1000);
	EXPECT_EQ_U64(info.node, 5);
	EXPECT_EQ_U64(info.sequence, 7);

	/* sonyflake: 39 time (10 ms) | 8 seq | 16 node */
	EXPECT_EQ_INT(cid_layout_preset(&layout, "sonyflake"), CID_OK);
	id = UINT64_C(100) << 24 | UINT64_C(3) << 16 | 0xbeef;
	snprintf(text, sizeof(text), "%" PRIu64, id);
	EXPECT_EQ_INT(inspect(&info, text, &layout, NULL), CID_OK);
	EXPECT_EQ_INT(info.unix_ms, INT64_C(1409529600000) + 1000);
	EXPECT(info.has_node);
	EXPECT_EQ_U64(info.node, 0xbeef);
	EXPECT_EQ_U64(info.sequence, 3);

	/* a layout without a node field */
	EXPECT_EQ_INT(cid_layout_parse(&layout, "time:41,seq:22", 14, NULL, 0), CID_OK);
	id = UINT64_C(9) << 22 | 1234;
	snprintf(text, sizeof(text), "%" PRIu64, id);
	EXPECT_EQ_INT(inspect(&info, text, &layout, NULL), CID_OK);
	EXPECT(!info.has_node);
	EXPECT(info.has_sequence);
	EXPECT_EQ_U64(info.sequence, 1234);
	EXPECT_EQ_INT(info.unix_ms, layout.epoch_ms + 9 * (int64_t) layout.tick_ms);
}

static void
test_errors_pass_through(void)
{
	cid_info	info;
	size_t		pos;

	pos = 99;
	EXPECT_EQ_INT(inspect(&info, "017F22E2-79B0-7CC3-98C4-DC0C0C07398G", NULL, &pos),
				  CID_ESYNTAX);
	EXPECT_EQ_INT(pos, 35);
	EXPECT_EQ_INT(inspect(&info, "{017F22E2-79B0-7CC3-98C4-DC0C0C07398F)", NULL, &pos),
				  CID_ESYNTAX);
	EXPECT_EQ_INT(pos, 37);
	EXPECT_EQ_INT(inspect(&info, "01ARZ3NDEKTSV4RRFFQ69G5FAU", NULL, &pos), CID_ESYNTAX);
	EXPECT_EQ_INT(pos, 25);
	EXPECT_EQ_INT(inspect(&info, "80000000000000000000000000", NULL, &pos), CID_EOVERFLOW);
	EXPECT_EQ_INT(pos, 0);
	/* above 2^64 - 1: the digit that overflowed */
	EXPECT_EQ_INT(inspect(&info, "18446744073709551616", NULL, &pos), CID_EOVERFLOW);
	EXPECT_EQ_INT(pos, 19);
	/* bit 63 under the 63-bit pgedge layout */
	EXPECT_EQ_INT(inspect(&info, "9223372036854775808", NULL, &pos), CID_EOVERFLOW);
	/* a negative number under a 63-bit layout */
	EXPECT(inspect(&info, "-1", NULL, &pos) < 0);
}

static void
test_unknown_forms(void)
{
	static const char *const texts[] = {
		"", "-", "--1", "12a4", "1.5", " 12", "x",
		"123456789012345678901",	/* 21 digits */
		"01ARZ3NDEKTSV4RRFFQ69G5FA",	/* 25 */
		"01ARZ3NDEKTSV4RRFFQ69G5FAVX",	/* 27 */
		"017F22E2-79B0-7CC3-98C4-DC0C0C07398",	/* 35 */
		"017F22E2-79B0-7CC3-98C4-DC0C0C07398F0",	/* 37 */
	};

	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
	{
		cid_info	info;

		EXPECT_EQ_INT(inspect(&info, texts[i], NULL, NULL), CID_EUNKNOWN);
	}
	EXPECT_EQ_INT(cid_inspect(NULL, "1", 1, NULL, NULL), CID_EINVAL);
}

int
main(void)
{
	TAP_CASE(test_uuid_forms);
	TAP_CASE(test_uuid_versions_and_time);
	TAP_CASE(test_ulid);
	TAP_CASE(test_snowflake_pgedge_default);
	TAP_CASE(test_snowflake_other_layouts);
	TAP_CASE(test_errors_pass_through);
	TAP_CASE(test_unknown_forms);
	return tap_done();
}
