/*
 * fuzz_typeid.c — libFuzzer target for cid_typeid_parse(): arbitrary bytes
 * in, no read past len, each refusal consistent with its status and
 * position, and every accepted TypeID written back byte for byte.
 */
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char	   *s = fuzz_copy(data, size);
	cid_uuid	u,
				again;
	char		text[CID_TYPEID_STRLEN_MAX + 1];
	size_t		errpos = SIZE_MAX;
	size_t		plen = SIZE_MAX;
	int			rc;

	rc = cid_typeid_parse(&u, &plen, s, size, &errpos);
	if (rc == CID_ESYNTAX)
		FUZZ_CHECK(errpos < size);
	else if (rc == CID_ELENGTH)
		FUZZ_CHECK(errpos <= size && (size != 26 || memchr(s, '_', size) != NULL));
	else if (rc == CID_EOVERFLOW)
		FUZZ_CHECK(errpos + 26 == size && s[errpos] > '7' && fuzz_is_base32(s[errpos], 'a'));
	else
		FUZZ_CHECK(rc == CID_OK);

	if (rc == CID_OK)
	{
		FUZZ_CHECK(plen <= CID_TYPEID_PREFIX_MAX);
		FUZZ_CHECK(size == (plen ? plen + 1 : 0) + CID_TYPEID_SUFFIX_LEN);
		FUZZ_CHECK(cid_typeid_prefix_check(s, plen, NULL) == CID_OK);
		for (size_t i = size - CID_TYPEID_SUFFIX_LEN; i < size; i++)
			FUZZ_CHECK(fuzz_is_base32(s[i], 'a'));
		/* the spec's property: encode(decode(x)) == x */
		FUZZ_CHECK(cid_typeid_format(text, sizeof(text), s, plen, &u) == (int) size);
		FUZZ_CHECK(memcmp(text, s, size) == 0 && text[size] == '\0');
		FUZZ_CHECK(cid_typeid_parse(&again, NULL, text, size, NULL) == CID_OK);
		FUZZ_CHECK(memcmp(u.bytes, again.bytes, 16) == 0);
	}
	free(s);
	return 0;
}
