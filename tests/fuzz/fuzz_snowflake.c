/*
 * fuzz_snowflake.c — libFuzzer target for cid_snowflake_parse(): the first
 * byte picks a layout (fuzz.h), the rest is the decimal text.  Checks no
 * read past len, agreement with a plain reference reading of the digits,
 * and decode → compose → format → parse round trips.
 */
#include <stdio.h>

#include "fuzz.h"

/*
 * Reference: the value of an optional '-' and 1..20 digits, as uint64
 * two's complement; false for anything else or for a magnitude past
 * 2^64-1 (unsigned) or 2^63 (negative).
 */
static bool
ref_decimal(const char *s, size_t len, uint64_t *out, bool *neg)
{
	size_t		i = 0;
	unsigned __int128 v = 0;

	*neg = len > 0 && s[0] == '-';
	if (*neg)
		i = 1;
	if (len - i < 1 || len - i > 20)
		return false;
	for (; i < len; i++)
	{
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (unsigned) (s[i] - '0');
	}
	if (*neg)
	{
		if (v > (unsigned __int128) INT64_MAX + 1)
			return false;
		*out = (uint64_t) 0 - (uint64_t) v;
	}
	else
	{
		if (v > UINT64_MAX)
			return false;
		*out = (uint64_t) v;
	}
	return true;
}

static int
layout_width(const cid_layout *l)
{
	return l->bits[0] + l->bits[1] + l->bits[2] + l->bits[3];
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cid_layout	layout;
	cid_snowflake_parts parts;
	char	   *s;
	size_t		len;
	size_t		errpos = SIZE_MAX;
	uint64_t	id,
				ref,
				again;
	bool		neg,
				ref_ok;
	char		text[32];
	int			rc,
				n;

	if (size < 1)
		return 0;
	fuzz_layout(&layout, data[0]);
	len = size - 1;
	s = fuzz_copy(data + 1, len);

	rc = cid_snowflake_parse(&id, &layout, s, len, &errpos);
	ref_ok = ref_decimal(s, len, &ref, &neg);
	if (rc == CID_ESYNTAX)
		FUZZ_CHECK(errpos <= len);
	if (rc == CID_OK)
	{
		/* what parses is what the digits say */
		FUZZ_CHECK(ref_ok && id == ref);
		FUZZ_CHECK(!neg || layout_width(&layout) == 64);
		FUZZ_CHECK(layout_width(&layout) == 64 || (id >> 63) == 0);

		/* parse checks as decode does; compose gives the ID back */
		FUZZ_CHECK(cid_snowflake_decode(&parts, &layout, id) == CID_OK);
		FUZZ_CHECK(parts.reserved == 0);
		FUZZ_CHECK(parts.node <= cid_layout_max_node(&layout));
		FUZZ_CHECK(parts.unix_ms >= layout.epoch_ms &&
				   parts.unix_ms <= cid_layout_max_ms(&layout));
		FUZZ_CHECK(cid_snowflake_compose(&again, &layout, &parts) == CID_OK);
		FUZZ_CHECK(again == id);
		FUZZ_CHECK(cid_snowflake_min_at(&again, &layout, parts.unix_ms) == CID_OK &&
				   again <= id);
		FUZZ_CHECK(cid_snowflake_max_at(&again, &layout, parts.unix_ms) == CID_OK &&
				   again >= id);

		/* decimal text: signed for a 64-bit layout's top half, as bigint */
		if ((id >> 63) != 0)
			n = snprintf(text, sizeof(text), "%lld", (long long) (int64_t) id);
		else
			n = snprintf(text, sizeof(text), "%llu", (unsigned long long) id);
		FUZZ_CHECK(n > 0 && (size_t) n < sizeof(text));
		FUZZ_CHECK(cid_snowflake_parse(&again, &layout, text, (size_t) n, NULL) == CID_OK);
		FUZZ_CHECK(again == id);
	}
	else if (ref_ok && (!neg || layout_width(&layout) == 64))
	{
		/* well-formed digits are refused only for what decode refuses */
		FUZZ_CHECK(rc == CID_EOVERFLOW);
		FUZZ_CHECK(cid_snowflake_decode(&parts, &layout, ref) == CID_EOVERFLOW);
	}
	free(s);
	return 0;
}
