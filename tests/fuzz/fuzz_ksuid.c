/*
 * fuzz_ksuid.c — libFuzzer target for cid_ksuid_parse(): arbitrary bytes
 * in, no read past len, every accepted KSUID survives format → parse and
 * the round trip through its time and payload, and the text sorts as the
 * bytes do (checked against the largest KSUID).
 */
#include "fuzz.h"

static bool
is_base62(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char max_text[] = "aWgEPTl1tmebfsQzFP4bxwgy80V";
	char	   *s = fuzz_copy(data, size);
	cid_ksuid	k,
				again;
	char		text[CID_KSUID_STRLEN + 1];
	size_t		errpos = SIZE_MAX;
	int			rc;
	int64_t		ms;

	rc = cid_ksuid_parse(&k, s, size, &errpos);
	if (rc == CID_ESYNTAX)
	{
		FUZZ_CHECK(size == CID_KSUID_STRLEN && errpos < size && !is_base62(s[errpos]));
		for (size_t i = 0; i < errpos; i++)
			FUZZ_CHECK(is_base62(s[i]));
	}
	else if (rc == CID_ELENGTH)
		FUZZ_CHECK(size != CID_KSUID_STRLEN);
	else if (rc == CID_EOVERFLOW)
	{
		/* all base62, and above the largest: same length, so by text order */
		FUZZ_CHECK(size == CID_KSUID_STRLEN && errpos == 0);
		for (size_t i = 0; i < size; i++)
			FUZZ_CHECK(is_base62(s[i]));
		FUZZ_CHECK(memcmp(s, max_text, CID_KSUID_STRLEN) > 0);
	}
	else
		FUZZ_CHECK(rc == CID_OK);

	if (rc == CID_OK)
	{
		/* the one text of each value: the input itself */
		memset(text, 'X', sizeof(text));
		cid_ksuid_format(text, &k);
		FUZZ_CHECK(text[CID_KSUID_STRLEN] == '\0');
		FUZZ_CHECK(memcmp(text, s, CID_KSUID_STRLEN) == 0);
		FUZZ_CHECK(memcmp(s, max_text, CID_KSUID_STRLEN) <= 0);
		FUZZ_CHECK(cid_ksuid_parse(&again, text, CID_KSUID_STRLEN, NULL) == CID_OK);
		FUZZ_CHECK(memcmp(k.bytes, again.bytes, 20) == 0);

		ms = cid_ksuid_unix_ms(&k);
		FUZZ_CHECK(ms >= CID_KSUID_EPOCH_S * 1000 && ms % 1000 == 0);
		FUZZ_CHECK(cid_ksuid_from_ms(&again, ms, k.bytes + 4) == CID_OK);
		FUZZ_CHECK(memcmp(k.bytes, again.bytes, 20) == 0);
	}
	free(s);
	return 0;
}
