/*
 * fuzz_uuid.c — libFuzzer target for cid_uuid_parse(): arbitrary bytes in,
 * no read past len, and every accepted UUID survives format → parse; a
 * v1 or v6 survives conversion to the other version and back, with its
 * timestamp.
 */
#include "fuzz.h"

static bool
is_lower_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char	   *s = fuzz_copy(data, size);
	cid_uuid	u,
				again;
	char		text[CID_UUID_STRLEN + 1];
	size_t		errpos = SIZE_MAX;
	int			rc;
	int64_t		ms;

	rc = cid_uuid_parse(&u, s, size, &errpos);
	if (rc == CID_ESYNTAX)
		FUZZ_CHECK(errpos < size);
	else if (rc == CID_ELENGTH)
		/* only the four lengths of the header's forms can parse */
		FUZZ_CHECK(size != 32 && size != 34 && size != 36 && size != 38);
	else
		FUZZ_CHECK(rc == CID_OK);

	if (rc == CID_OK)
	{
		FUZZ_CHECK(size == 32 || size == 34 || size == 36 || size == 38);
		/* canonical text: 8-4-4-4-12 lower-case hex digits */
		memset(text, 'X', sizeof(text));
		cid_uuid_format(text, &u);
		FUZZ_CHECK(text[CID_UUID_STRLEN] == '\0');
		for (int i = 0; i < CID_UUID_STRLEN; i++)
		{
			if (i == 8 || i == 13 || i == 18 || i == 23)
				FUZZ_CHECK(text[i] == '-');
			else
				FUZZ_CHECK(is_lower_hex(text[i]));
		}
		FUZZ_CHECK(cid_uuid_parse(&again, text, CID_UUID_STRLEN, NULL) == CID_OK);
		FUZZ_CHECK(memcmp(u.bytes, again.bytes, 16) == 0);

		/* the accessors take any value */
		rc = cid_uuid_version(&u);
		FUZZ_CHECK(rc >= -1 && rc <= 15);
		if (cid_uuid_unix_ms(&ms, &u) == CID_OK)
			FUZZ_CHECK(rc == 1 || rc == 6 || rc == 7);
		if (rc == 1 || rc == 6)
		{
			cid_uuid	other;
			uint64_t	t1,
						t2;

			FUZZ_CHECK(cid_uuid_gregorian_ticks(&t1, &u) == CID_OK);
			FUZZ_CHECK((rc == 1 ? cid_uuid_v1_to_v6(&other, &u) :
						cid_uuid_v6_to_v1(&other, &u)) == CID_OK);
			FUZZ_CHECK(cid_uuid_version(&other) == 7 - rc);
			FUZZ_CHECK(cid_uuid_gregorian_ticks(&t2, &other) == CID_OK && t1 == t2);
			FUZZ_CHECK(memcmp(other.bytes + 8, u.bytes + 8, 8) == 0);
			FUZZ_CHECK((rc == 1 ? cid_uuid_v6_to_v1(&again, &other) :
						cid_uuid_v1_to_v6(&again, &other)) == CID_OK);
			FUZZ_CHECK(memcmp(again.bytes, u.bytes, 16) == 0);
		}
		else
			FUZZ_CHECK(cid_uuid_v1_to_v6(&again, &u) == CID_EINVAL);
	}
	free(s);
	return 0;
}
