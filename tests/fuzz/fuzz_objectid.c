/*
 * fuzz_objectid.c — libFuzzer target for cid_objectid_parse(): arbitrary
 * bytes in, no read past len, and every accepted ObjectId survives format
 * → parse and the round trip through its time and remaining bytes.
 */
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char	   *s = fuzz_copy(data, size);
	cid_objectid o,
				again;
	char		text[CID_OBJECTID_STRLEN + 1];
	size_t		errpos = SIZE_MAX;
	int			rc;
	int64_t		ms;

	rc = cid_objectid_parse(&o, s, size, &errpos);
	if (rc == CID_ESYNTAX)
	{
		/* the reported character is the first that is not hex */
		FUZZ_CHECK(size == CID_OBJECTID_STRLEN && errpos < size);
		FUZZ_CHECK(strchr("0123456789abcdefABCDEF", s[errpos]) == NULL || s[errpos] == '\0');
		for (size_t i = 0; i < errpos; i++)
			FUZZ_CHECK(s[i] != '\0' && strchr("0123456789abcdefABCDEF", s[i]) != NULL);
	}
	else if (rc == CID_ELENGTH)
		FUZZ_CHECK(size != CID_OBJECTID_STRLEN);
	else
		FUZZ_CHECK(rc == CID_OK);

	if (rc == CID_OK)
	{
		memset(text, 'X', sizeof(text));
		cid_objectid_format(text, &o);
		FUZZ_CHECK(text[CID_OBJECTID_STRLEN] == '\0');
		for (int i = 0; i < CID_OBJECTID_STRLEN; i++)
			FUZZ_CHECK((text[i] >= '0' && text[i] <= '9') || (text[i] >= 'a' && text[i] <= 'f'));
		FUZZ_CHECK(cid_objectid_parse(&again, text, CID_OBJECTID_STRLEN, NULL) == CID_OK);
		FUZZ_CHECK(memcmp(o.bytes, again.bytes, 12) == 0);

		/* unsigned 32-bit seconds: 1970 .. 2106 */
		ms = cid_objectid_unix_ms(&o);
		FUZZ_CHECK(ms >= 0 && ms <= INT64_C(4294967295000) && ms % 1000 == 0);
		FUZZ_CHECK(cid_objectid_from_ms(&again, ms, o.bytes + 4) == CID_OK);
		FUZZ_CHECK(memcmp(o.bytes, again.bytes, 12) == 0);
	}
	free(s);
	return 0;
}
