/*
 * fuzz_layout.c — libFuzzer target for cid_layout_parse(): arbitrary spec
 * text in, no read past len, a NUL-terminated message on failure, and
 * parse → cid_layout_format → parse giving an identical layout.
 */
#include "fuzz.h"

/* The layouts agree on every member the layout's meaning depends on. */
static bool
same_layout(const cid_layout *a, const cid_layout *b)
{
	if (strcmp(a->name, b->name) != 0 || a->nfields != b->nfields ||
		a->tick_ms != b->tick_ms || a->epoch_ms != b->epoch_ms)
		return false;
	for (int i = 0; i < a->nfields; i++)
		if (a->order[i] != b->order[i])
			return false;
	for (int k = 0; k < 4; k++)
		if (a->bits[k] != b->bits[k] || a->shift[k] != b->shift[k])
			return false;
	return true;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char	   *s = fuzz_copy(data, size);
	cid_layout	layout,
				again,
				checked;
	char		err[128];
	char		text[256];
	int			rc,
				width = 0;

	memset(err, 'x', sizeof(err));
	rc = cid_layout_parse(&layout, s, size, err, sizeof(err));
	FUZZ_CHECK(rc == CID_OK || rc == CID_ELAYOUT || rc == CID_ESYNTAX);
	if (rc != CID_OK)
	{
		/* the message fits the buffer, and says something */
		FUZZ_CHECK(memchr(err, '\0', sizeof(err)) != NULL);
		FUZZ_CHECK(err[0] != '\0');
	}
	else
	{
		/* the rules of docs/layouts.md hold for what was accepted */
		FUZZ_CHECK(layout.nfields >= 2 && layout.nfields <= CID_LAYOUT_MAX_FIELDS);
		FUZZ_CHECK(layout.order[0] == CID_FIELD_TIME);
		FUZZ_CHECK(layout.bits[CID_FIELD_SEQ] >= 1);
		for (int k = 0; k < 4; k++)
			width += layout.bits[k];
		FUZZ_CHECK(width == 63 || width == 64);
		FUZZ_CHECK(layout.tick_ms >= 1 && layout.tick_ms <= 1000);
		FUZZ_CHECK(cid_layout_max_ms(&layout) >= layout.epoch_ms);
		checked = layout;
		FUZZ_CHECK(cid_layout_validate(&checked, NULL, 0) == CID_OK);
		FUZZ_CHECK(same_layout(&layout, &checked));

		rc = cid_layout_format(text, sizeof(text), &layout);
		FUZZ_CHECK(rc == CID_OK);
		rc = cid_layout_parse(&again, text, strlen(text), err, sizeof(err));
		FUZZ_CHECK(rc == CID_OK);
		FUZZ_CHECK(same_layout(&layout, &again));
	}
	free(s);
	return 0;
}
