/*
 * fuzz_ulid.c — libFuzzer target for cid_ulid_parse(): arbitrary bytes in,
 * no read past len, and every accepted ULID survives format → parse and
 * the round trip through the UUID type.
 */
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char	   *s = fuzz_copy(data, size);
	cid_ulid	u,
				again;
	cid_uuid	as_uuid;
	char		text[CID_ULID_STRLEN + 1];
	size_t		errpos = SIZE_MAX;
	int			rc;
	int64_t		ms;

	rc = cid_ulid_parse(&u, s, size, &errpos);
	if (rc == CID_ESYNTAX)
		FUZZ_CHECK(size == CID_ULID_STRLEN && errpos < size);
	else if (rc == CID_ELENGTH)
		FUZZ_CHECK(size != CID_ULID_STRLEN);
	else if (rc == CID_EOVERFLOW)
		/* the spec's limit: 26 characters hold 130 bits, a ULID 128 */
		FUZZ_CHECK(size == CID_ULID_STRLEN && s[0] > '7');
	else
		FUZZ_CHECK(rc == CID_OK);

	if (rc == CID_OK)
	{
		memset(text, 'x', sizeof(text));
		cid_ulid_format(text, &u);
		FUZZ_CHECK(text[CID_ULID_STRLEN] == '\0');
		FUZZ_CHECK(text[0] >= '0' && text[0] <= '7');
		for (int i = 0; i < CID_ULID_STRLEN; i++)
			FUZZ_CHECK(fuzz_is_base32(text[i], 'A'));
		FUZZ_CHECK(cid_ulid_parse(&again, text, CID_ULID_STRLEN, NULL) == CID_OK);
		FUZZ_CHECK(memcmp(u.bytes, again.bytes, 16) == 0);

		/* the 48-bit time and the same bits as a UUID */
		ms = cid_ulid_unix_ms(&u);
		FUZZ_CHECK(ms >= 0 && ms <= (INT64_C(1) << 48) - 1);
		FUZZ_CHECK(cid_ulid_from_ms(&again, ms, u.bytes + 6) == CID_OK);
		FUZZ_CHECK(memcmp(u.bytes, again.bytes, 16) == 0);
		cid_ulid_to_uuid(&as_uuid, &u);
		cid_ulid_from_uuid(&again, &as_uuid);
		FUZZ_CHECK(memcmp(u.bytes, again.bytes, 16) == 0);
	}
	free(s);
	return 0;
}
