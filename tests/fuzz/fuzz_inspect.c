/*
 * fuzz_inspect.c — libFuzzer target for cid_inspect(), what `chronoid
 * inspect` calls for each ID: the first byte picks the layout (or NULL,
 * the default), the rest is the text.  The form must follow the length
 * rule of chronoid.h, and the canonical text must inspect the same.
 * cid_inspect_id() must agree with it on every form it knows and add only
 * the 24- and 27-character forms (ObjectId, KSUID) and the TypeID's (a
 * '_' and no '-', which agrees with cid_typeid_parse()).
 */
#include <stdio.h>

#include "fuzz.h"

static bool
same_info(const cid_info *a, const cid_info *b)
{
	return a->kind == b->kind && memcmp(a->bytes, b->bytes, 16) == 0 &&
		a->snowflake == b->snowflake && a->version == b->version &&
		a->has_time == b->has_time && a->unix_ms == b->unix_ms &&
		a->has_node == b->has_node && a->node == b->node &&
		a->has_sequence == b->has_sequence && a->sequence == b->sequence;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cid_layout	layout;
	const cid_layout *lp = NULL;
	cid_info	info,
				again;
	char	   *s;
	size_t		len;
	size_t		errpos = SIZE_MAX;
	char		text[CID_UUID_STRLEN + 1];
	size_t		tlen;
	int			rc;

	if (size < 1)
		return 0;
	/* byte 0: 0 = the default layout, else one of fuzz.h's */
	if (data[0] % (FUZZ_NLAYOUTS + 1) != 0)
	{
		fuzz_layout(&layout, (uint8_t) (data[0] % (FUZZ_NLAYOUTS + 1) - 1));
		lp = &layout;
	}
	len = size - 1;
	s = fuzz_copy(data + 1, len);

	rc = cid_inspect(&info, s, len, lp, &errpos);
	if (rc == CID_ESYNTAX)
		FUZZ_CHECK(errpos <= len);
	if (rc >= 0)
	{
		FUZZ_CHECK(rc == CID_OK);
		switch (info.kind)
		{
			case CID_KIND_UUID:
				{
					cid_uuid	u;

					FUZZ_CHECK(len == 32 || len == 34 || len == 36 || len == 38);
					memcpy(u.bytes, info.bytes, 16);
					cid_uuid_format(text, &u);
					tlen = CID_UUID_STRLEN;
					break;
				}
			case CID_KIND_ULID:
				{
					cid_ulid	u;

					FUZZ_CHECK(len == CID_ULID_STRLEN);
					FUZZ_CHECK(info.has_time);
					memcpy(u.bytes, info.bytes, 16);
					cid_ulid_format(text, &u);
					tlen = CID_ULID_STRLEN;
					break;
				}
			case CID_KIND_SNOWFLAKE:
				{
					int			n;

					FUZZ_CHECK(len >= 1 && len <= 21);
					FUZZ_CHECK(info.has_time && info.has_sequence);
					if ((info.snowflake >> 63) != 0)
						n = snprintf(text, sizeof(text), "%lld",
									 (long long) (int64_t) info.snowflake);
					else
						n = snprintf(text, sizeof(text), "%llu",
									 (unsigned long long) info.snowflake);
					FUZZ_CHECK(n > 0 && (size_t) n < sizeof(text));
					tlen = (size_t) n;
					break;
				}
			default:
				FUZZ_CHECK(0);
				tlen = 0;
		}
		/* the canonical text is read back as the same ID */
		rc = cid_inspect(&again, text, tlen, lp, NULL);
		FUZZ_CHECK(rc == CID_OK);
		FUZZ_CHECK(same_info(&info, &again));
	}

	{
		cid_id_info wide;
		size_t		wpos = SIZE_MAX;
		int			wrc = cid_inspect_id(&wide, sizeof(wide), s, len, lp, &wpos);

		rc = cid_inspect(&info, s, len, lp, &errpos);
		if (len > 0 && memchr(s, '_', len) != NULL && memchr(s, '-', len) == NULL)
		{
			cid_uuid	u;
			size_t		plen = 0;
			size_t		tpos = SIZE_MAX;
			int			trc = cid_typeid_parse(&u, &plen, s, len, &tpos);

			FUZZ_CHECK(rc < 0);	/* no older form has a '_' */
			FUZZ_CHECK(wrc == trc);
			if (wrc == CID_OK)
				FUZZ_CHECK(wide.kind == CID_KIND_TYPEID && wide.nbytes == 16 &&
						   memcmp(wide.bytes, u.bytes, 16) == 0 &&
						   strlen(wide.prefix) == plen && memcmp(wide.prefix, s, plen) == 0);
			else
				FUZZ_CHECK(wpos == tpos);
		}
		else if (len == CID_OBJECTID_STRLEN || len == CID_KSUID_STRLEN)
		{
			FUZZ_CHECK(rc == CID_EUNKNOWN);
			if (wrc == CID_OK)
				FUZZ_CHECK(wide.kind == (len == CID_KSUID_STRLEN ? CID_KIND_KSUID : CID_KIND_OBJECTID) &&
						   wide.has_time && wide.precision_ns == 1000000000);
			else
				FUZZ_CHECK(wrc == CID_ESYNTAX || wrc == CID_EOVERFLOW);
		}
		else
		{
			FUZZ_CHECK(wrc == rc);
			if (rc == CID_OK)
				FUZZ_CHECK(wide.kind == info.kind && wide.has_time == info.has_time &&
						   wide.unix_ms == info.unix_ms && wide.version == info.version &&
						   wide.sub_ms_ns >= 0 && wide.sub_ms_ns < 1000000);
		}
	}
	free(s);
	return 0;
}
