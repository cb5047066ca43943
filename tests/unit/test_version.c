/*
 * test_version.c — the running library's version: cid_version() and
 * cid_version_number() agree with each other and with the header's macros.
 */
#include <stdio.h>

#include "chronoid.h"
#include "tap.h"
#include "testutil.h"

static void
test_string_is_the_header_s(void)
{
	EXPECT(cid_version() != NULL);
	EXPECT_STR(cid_version(), CID_VERSION_STRING);
	/* static storage: the same pointer every time */
	EXPECT(cid_version() == cid_version());
}

static void
test_number_matches_string(void)
{
	char		buf[32];

	snprintf(buf, sizeof(buf), "%d.%d.%d", cid_version_number() / 10000,
			 cid_version_number() / 100 % 100, cid_version_number() % 100);
	EXPECT_STR(buf, cid_version());
	EXPECT_EQ_INT(cid_version_number(), CID_VERSION_NUMBER);
	EXPECT_EQ_INT(CID_VERSION_NUMBER, CID_VERSION_MAJOR * 10000 +
				  CID_VERSION_MINOR * 100 + CID_VERSION_PATCH);
	/* the encoding holds only while minor and patch stay below 100 */
	EXPECT(CID_VERSION_MINOR < 100 && CID_VERSION_PATCH < 100);
}

int
main(void)
{
	TAP_CASE(test_string_is_the_header_s);
	TAP_CASE(test_number_matches_string);
	return tap_done();
}
