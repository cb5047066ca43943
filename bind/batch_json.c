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
 */
#include <string.h>

#include "bind_internal.h"

size_t
cid_bind_json_lines(char *text, size_t n, size_t len)
{
	size_t		out_w = len + 3;	/* "ID", */

	if (n == 0)
	{
		memcpy(text, "[]", 3);
		return 2;
	}

	/*
	 * Record i moves from i * (len + 1) to 2 + i * out_w: never left, so
	 * going from the last record to the first overwrites nothing unread.
	 */
	for (size_t i = n; i-- > 0;)
	{
		char	   *to = text + 1 + i * out_w;

		memmove(to + 1, text + i * (len + 1), len);
		to[0] = '"';
		to[len + 1] = '"';
		to[len + 2] = ',';
	}
	text[0] = '[';
	text[n * out_w] = ']';
	text[n * out_w + 1] = '\0';
	return n * out_w + 1;
}
