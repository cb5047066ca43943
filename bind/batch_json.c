/*
 * batch_json.c — a text batch as one JSON array of strings, the form in
 * which both JavaScript builds hand n IDs' text to JavaScript.
 *
 * Why JSON: a string per ID made by n calls across the boundary costs
 * several times the ID, so the batch crosses as one string.  Cut into
 * pieces by String.prototype.split, every piece would be a slice of that
 * string in V8 and keep all of it alive: one ID kept from a batch of a
 * million held 37 MB.  JSON.parse copies each string out, so a kept ID
 * holds only itself.
 *
 * Each text is written where it goes in the array, by the kind's own
 * formatter: formatting lines and then moving them into place cost the
 * WebAssembly build more than the formatting itself.
 */
#include <string.h>

#include "bind_internal.h"

size_t
cid_bind_json(const cid_bind_kind *k, char *json, const uint8_t *bytes, size_t n)
{
	size_t		w = k->text_len + 3;	/* "ID", */
	char	   *p = json + 1;

	if (n == 0)
	{
		memcpy(json, "[]", 3);
		return 2;
	}
	json[0] = '[';
	for (size_t i = 0; i < n; i++, p += w)
	{
		p[0] = '"';
		/* the text and its NUL, which the closing quote overwrites */
		k->format(p + 1, bytes + k->size * i);
		p[w - 2] = '"';
		p[w - 1] = ',';
	}
	p[-1] = ']';
	p[0] = '\0';
	return n * w + 1;
}
