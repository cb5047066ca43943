/*
 * test_inspect_id.c — cid_inspect_id(): the new kinds (ObjectId, KSUID)
 * by their form, UUID v1/v6 with their full time, node and clock
 * sequence, the old kinds as cid_inspect() gives them, the struct-size
 * contract, and cid_inspect() itself unchanged (released ABI).
 */
#include <stddef.h>

#include "chronoid.h"
#include "tap.h"

static int
inspect(cid_id_info *info, const char *s, size_t *errpos)
{
	return cid_inspect_id(info, sizeof(*info), s, strlen(s), NULL, errpos);
}

/* TypeIDs: the spec's example (tests/vectors.md), the forms around them */
static void
test_typeid(void)
{
	cid_id_info info;
	size_t		errpos = 0;

	EXPECT_EQ_INT(inspect(&info, "user_01h455vb4pex5vsknk084sn02q", NULL), CID_OK);
	EXPECT_EQ_INT(info.kind, CID_KIND_TYPEID);
	EXPECT(strcmp(info.prefix, "user") == 0);
	EXPECT_EQ_INT(info.version, 7);
	EXPECT_EQ_INT(info.nbytes, 16);
	EXPECT_EQ_INT(info.bytes[0], 0x01);
	EXPECT_EQ_INT(info.bytes[15], 0x57);
	EXPECT(info.has_time);
	EXPECT_EQ_INT(info.unix_ms, INT64_C(1688096058518));
	EXPECT(strcmp(cid_kind_name(info.kind), "typeid") == 0);
	/* a bad suffix character: the TypeID parser's status and position */
	EXPECT_EQ_INT(inspect(&info, "user_01h455vb4pex5vsknk084sn02Q", &errpos), CID_ESYNTAX);
	EXPECT_EQ_INT(errpos, 30);
	/* the bare 26 digits are a ULID's text, and stay a ULID */
	EXPECT_EQ_INT(inspect(&info, "01h455vb4pex5vsknk084sn02q", NULL), CID_OK);
	EXPECT_EQ_INT(info.kind, CID_KIND_ULID);
	EXPECT(info.prefix[0] == '\0');
	/* a UUID typed with a '_' for a hyphen is refused as a UUID */
	EXPECT(inspect(&info, "01890a5d-ac96-774b_bcce-b302099a8057", NULL) < 0);
	EXPECT(info.kind != CID_KIND_TYPEID);
}

/* tests/vectors.md: RFC 9562 A.1 and A.5 */
static void
test_uuid_v1_v6_time(void)
{
	static const char *const forms[] = {
		"C232AB00-9414-11EC-B3C8-9F6BDECED846",
		"1EC9414C-232A-6B00-B3C8-9F6BDECED846",
	};

	for (size_t i = 0; i < 2; i++)
	{
		cid_id_info info;

		EXPECT_EQ_INT(inspect(&info, forms[i], NULL), CID_OK);
		EXPECT_EQ_INT(info.kind, CID_KIND_UUID);
		EXPECT_EQ_INT(info.version, i == 0 ? 1 : 6);
		EXPECT_EQ_INT(info.nbytes, 16);
		EXPECT(info.has_time);
		EXPECT_EQ_INT(info.unix_ms, INT64_C(1645557742000));
		EXPECT_EQ_INT(info.sub_ms_ns, 0);
		EXPECT_EQ_INT(info.precision_ns, 100);
		EXPECT(info.has_node);
		EXPECT_EQ_U64(info.node, UINT64_C(0x9F6BDECED846));
		EXPECT(info.has_sequence);
		EXPECT_EQ_U64(info.sequence, 0x33C8);
	}
}

/* 100-ns steps below the ms, before 1970 too (floor, then the rest) */
static void
test_uuid_sub_ms(void)
{
	cid_id_info info;
	cid_uuid	u;
	char		text[CID_UUID_STRLEN + 1];
	/* ticks of 2022-02-22T19:22:22Z plus 1234567 (123.4567 ms) */
	uint64_t	t = UINT64_C(138648505420000000) + 1234567;

	EXPECT_EQ_INT(cid_uuidv6_from_ticks(&u, t, NULL), CID_OK);
	cid_uuid_format(text, &u);
	EXPECT_EQ_INT(inspect(&info, text, NULL), CID_OK);
	EXPECT_EQ_INT(info.unix_ms, INT64_C(1645557742123));
	EXPECT_EQ_INT(info.sub_ms_ns, 456700);
	/* one step before 1970: ms -1, and 999900 ns into it */
	EXPECT_EQ_INT(cid_uuidv6_from_ticks(&u, (uint64_t) CID_UUID_GREGORIAN_OFFSET - 1, NULL), CID_OK);
	cid_uuid_format(text, &u);
	EXPECT_EQ_INT(inspect(&info, text, NULL), CID_OK);
	EXPECT_EQ_INT(info.unix_ms, -1);
	EXPECT_EQ_INT(info.sub_ms_ns, 999900);
	/* v7 keeps ms precision and no node */
	EXPECT_EQ_INT(inspect(&info, "017F22E2-79B0-7CC3-98C4-DC0C0C07398F", NULL), CID_OK);
	EXPECT_EQ_INT(info.precision_ns, 1000000);
	EXPECT_EQ_INT(info.sub_ms_ns, 0);
	EXPECT(!info.has_node);
	/* v4: no time at all */
	EXPECT_EQ_INT(inspect(&info, "919108f7-52d1-4320-9bac-f847db4148a8", NULL), CID_OK);
	EXPECT(!info.has_time);
	EXPECT_EQ_INT(info.precision_ns, 0);
}

static void
test_objectid(void)
{
	static const uint8_t want[12] = {0x50, 0x7f, 0x1f, 0x77, 0xbc, 0xf8, 0x6c, 0xd7, 0x99, 0x43, 0x90, 0x11};
	cid_id_info info;
	size_t		pos = 99;

	EXPECT_EQ_INT(inspect(&info, "507f1f77bcf86cd799439011", NULL), CID_OK);
	EXPECT_EQ_INT(info.kind, CID_KIND_OBJECTID);
	EXPECT_EQ_INT(info.version, -1);
	EXPECT_EQ_INT(info.nbytes, 12);
	EXPECT(memcmp(info.bytes, want, 12) == 0);
	EXPECT(info.has_time);
	EXPECT_EQ_INT(info.unix_ms, INT64_C(1350508407000));
	EXPECT_EQ_INT(info.precision_ns, INT64_C(1000000000));
	EXPECT(info.has_node && info.node == UINT64_C(0xbcf86cd799));
	EXPECT(info.has_sequence && info.sequence == 0x439011);
	/* a 24-digit number is hex too: an ObjectId, not a Snowflake */
	EXPECT_EQ_INT(inspect(&info, "123456789012345678901234", NULL), CID_OK);
	EXPECT_EQ_INT(info.kind, CID_KIND_OBJECTID);
	EXPECT_EQ_INT(inspect(&info, "507f1f77bcf86cd79943901z", &pos), CID_ESYNTAX);
	EXPECT_EQ_INT(pos, 23);
}

static void
test_ksuid(void)
{
	cid_id_info info;
	size_t		pos = 99;

	EXPECT_EQ_INT(inspect(&info, "0ujtsYcgvSTl8PAuAdqWYSMnLOv", NULL), CID_OK);
	EXPECT_EQ_INT(info.kind, CID_KIND_KSUID);
	EXPECT_EQ_INT(info.nbytes, 20);
	EXPECT_EQ_INT(info.bytes[0], 0x06);
	EXPECT_EQ_INT(info.bytes[19], 0x35);
	EXPECT_EQ_INT(info.unix_ms, INT64_C(1507608047000));
	EXPECT_EQ_INT(info.precision_ns, INT64_C(1000000000));
	EXPECT(!info.has_node && !info.has_sequence);
	EXPECT_EQ_INT(inspect(&info, "aWgEPTl1tmebfsQzFP4bxwgy80W", &pos), CID_EOVERFLOW);
	EXPECT_EQ_INT(inspect(&info, "0ujtsYcgvSTl8PAuAdqWYSMnLO-", &pos), CID_ESYNTAX);
	EXPECT_EQ_INT(pos, 26);
}

/* The old kinds: what cid_inspect() says, plus the precision. */
static void
test_old_kinds(void)
{
	cid_id_info info;
	cid_layout	sony;

	EXPECT_EQ_INT(inspect(&info, "01ARZ3NDEKTSV4RRFFQ69G5FAV", NULL), CID_OK);
	EXPECT_EQ_INT(info.kind, CID_KIND_ULID);
	EXPECT_EQ_INT(info.unix_ms, INT64_C(1469922850259));
	EXPECT_EQ_INT(info.precision_ns, 1000000);
	EXPECT_EQ_INT(inspect(&info, "104651375538868224", NULL), CID_OK);
	EXPECT_EQ_INT(info.kind, CID_KIND_SNOWFLAKE);
	EXPECT_EQ_U64(info.snowflake, UINT64_C(104651375538868224));
	EXPECT_EQ_INT(info.nbytes, 0);
	EXPECT(info.has_node && info.node == 1);
	EXPECT_EQ_INT(info.precision_ns, 1000000);
	EXPECT_EQ_INT(cid_layout_preset(&sony, "sonyflake"), CID_OK);
	EXPECT_EQ_INT(cid_inspect_id(&info, sizeof(info), "1", 1, &sony, NULL), CID_OK);
	EXPECT_EQ_INT(info.precision_ns, 10000000);
	EXPECT_EQ_INT(inspect(&info, "hello", NULL), CID_EUNKNOWN);
}

/* The size contract: too small refused; a larger (later) struct gets zeros past ours. */
static void
test_size_contract(void)
{
	unsigned char big[sizeof(cid_id_info) + 16];

	memset(big, 0xAA, sizeof(big));
	EXPECT_EQ_INT(cid_inspect_id((cid_id_info *) (void *) big, sizeof(cid_id_info) - 1,
								 "507f1f77bcf86cd799439011", 24, NULL, NULL), CID_EINVAL);
	EXPECT_EQ_INT(big[0], 0xAA);
	EXPECT_EQ_INT(cid_inspect_id((cid_id_info *) (void *) big, sizeof(big),
								 "507f1f77bcf86cd799439011", 24, NULL, NULL), CID_OK);
	EXPECT_EQ_INT(big[sizeof(big) - 1], 0);
	EXPECT_EQ_INT(cid_inspect_id(NULL, sizeof(cid_id_info), "x", 1, NULL, NULL), CID_EINVAL);
}

/*
 * cid_inspect() is released (CHRONOID_1): the new forms stay unknown to
 * it, and its struct keeps its size.
 */
static void
test_old_inspect_unchanged(void)
{
	cid_info	info;

	EXPECT_EQ_INT(cid_inspect(&info, "507f1f77bcf86cd799439011", 24, NULL, NULL), CID_EUNKNOWN);
	EXPECT_EQ_INT(cid_inspect(&info, "0ujtsYcgvSTl8PAuAdqWYSMnLOv", 27, NULL, NULL), CID_EUNKNOWN);
	EXPECT_EQ_INT(cid_inspect(&info, "C232AB00-9414-11EC-B3C8-9F6BDECED846", 36, NULL, NULL), CID_OK);
	EXPECT(!info.has_node && !info.has_sequence);
	if (sizeof(void *) == 8)
		EXPECT_EQ_INT(sizeof(cid_info), 80);
	EXPECT_EQ_INT(offsetof(cid_info, sequence) + sizeof(uint64_t), sizeof(cid_info));
}

static void
test_kind_names(void)
{
	EXPECT_STR(cid_kind_name(CID_KIND_SNOWFLAKE), "snowflake");
	EXPECT_STR(cid_kind_name(CID_KIND_UUID), "uuid");
	EXPECT_STR(cid_kind_name(CID_KIND_ULID), "ulid");
	EXPECT_STR(cid_kind_name(CID_KIND_OBJECTID), "objectid");
	EXPECT_STR(cid_kind_name(CID_KIND_KSUID), "ksuid");
	EXPECT_STR(cid_kind_name(CID_KIND_TYPEID), "typeid");
	EXPECT_STR(cid_kind_name((cid_kind) 99), "unknown");
}

int
main(void)
{
	TAP_CASE(test_typeid);
	TAP_CASE(test_uuid_v1_v6_time);
	TAP_CASE(test_uuid_sub_ms);
	TAP_CASE(test_objectid);
	TAP_CASE(test_ksuid);
	TAP_CASE(test_old_kinds);
	TAP_CASE(test_size_contract);
	TAP_CASE(test_old_inspect_unchanged);
	TAP_CASE(test_kind_names);
	return tap_done();
}
