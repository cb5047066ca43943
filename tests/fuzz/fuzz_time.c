/*
 * fuzz_time.c — libFuzzer target for cid_time_parse(): arbitrary text in,
 * no read past len, and parse → cid_time_format → parse giving the same
 * millisecond wherever the year can be written.
 */
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char	   *s = fuzz_copy(data, size);
	char		text[CID_TIME_STRLEN + 8];
	int64_t		ms,
				again;
	size_t		errpos = SIZE_MAX;
	int			rc;

	rc = cid_time_parse(&ms, s, size, &errpos);
	if (rc == CID_ESYNTAX)
		FUZZ_CHECK(errpos <= size);
	if (rc == CID_OK)
	{
		memset(text, 'x', sizeof(text));
		rc = cid_time_format(text, ms);
		/* only years the calendar text cannot hold are refused */
		FUZZ_CHECK(rc == CID_OK || rc == CID_ETIME_RANGE);
		if (rc == CID_OK)
		{
			FUZZ_CHECK(memchr(text, '\0', CID_TIME_STRLEN + 1) != NULL);
			rc = cid_time_parse(&again, text, strlen(text), NULL);
			FUZZ_CHECK(rc == CID_OK);
			FUZZ_CHECK(again == ms);
		}
		else
			FUZZ_CHECK(ms < INT64_C(-62167219200000) ||	/* before 0000-01-01 */
					   ms >= INT64_C(3093527980800000));	/* from 100000-01-01 */
	}
	free(s);
	return 0;
}
