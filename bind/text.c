/*
 * text.c — the words every binding puts around a bad argument: the value
 * quoted, a number shown, a failed parse explained.  They take C values
 * (a language's types are told apart before they get here), so that the
 * Node addon and the WebAssembly glue say the same thing in the same words.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "bind_internal.h"

void
cid_bind_quote(char *out, const char *s, size_t len)
{
	size_t		k = 0;

	out[k++] = '"';
	for (size_t i = 0; i < len && i < 60; i++)
	{
		unsigned char c = (unsigned char) s[i];

		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\')
			out[k++] = (char) c;
		else
			k += (size_t) snprintf(out + k, 8, "\\x%02x", c);
	}
	out[k++] = '"';
	if (len > 60)
		k += (size_t) snprintf(out + k, 40, "... (%zu bytes)", len);
	out[k] = '\0';
}

const char *
cid_bind_number_text(char *buf, size_t cap, double d)
{
	if (isnan(d))
		snprintf(buf, cap, "NaN");
	else if (isinf(d))
		snprintf(buf, cap, "%sInfinity", d < 0 ? "-" : "");
	else
		snprintf(buf, cap, "%.17g", d);
	return buf;
}

const char *
cid_bind_bad_count(char *out, size_t outlen, double d)
{
	char		num[32];

	snprintf(out, outlen, "batch size %s is out of range: expected an integer from 0 to %zu",
			 cid_bind_number_text(num, sizeof(num), d), CID_BIND_MAX_BATCH);
	return out;
}

const char *
cid_bind_bad_time(char *out, size_t outlen, const char *what, double d)
{
	char		num[32];

	snprintf(out, outlen, "%s %s is not a time: expected an integer number of Unix ms "
			 "(or a valid Date)", what, cid_bind_number_text(num, sizeof(num), d));
	return out;
}

const char *
cid_bind_bad_integer(char *out, size_t outlen, const char *what, double d,
					 const char *expected)
{
	char		num[32];

	snprintf(out, outlen, "%s %s is out of range: expected %s", what,
			 cid_bind_number_text(num, sizeof(num), d), expected);
	return out;
}

const char *
cid_bind_bad_node(char *out, size_t outlen, bool bigint, double d, const cid_layout *layout)
{
	char		num[32];

	if (bigint)
		snprintf(out, outlen, "node BigInt is out of range: expected 0 to %" PRIu64
				 " (layout \"%s\")", cid_layout_max_node(layout), layout->name);
	else
		snprintf(out, outlen, "node %s is not a node number: expected an integer from 0 to %"
				 PRIu64 " (layout \"%s\")", cid_bind_number_text(num, sizeof(num), d),
				 cid_layout_max_node(layout), layout->name);
	return out;
}

const char *
cid_bind_node_outside(char *out, size_t outlen, uint64_t node, const cid_layout *layout)
{
	snprintf(out, outlen, "node %" PRIu64 " is out of range for layout \"%s\": expected 0 to %"
			 PRIu64 " (%d node bits)", node, layout->name, cid_layout_max_node(layout),
			 layout->bits[CID_FIELD_NODE]);
	return out;
}

const char *
cid_bind_time_outside(char *out, size_t outlen, int64_t ms, const char *what, const char *span)
{
	snprintf(out, outlen, "time %" PRId64 " ms is outside what a %s can hold (%s)", ms, what,
			 span);
	return out;
}

const char *
cid_bind_time_outside_layout(char *out, size_t outlen, int64_t ms, const cid_layout *layout)
{
	char		from[CID_TIME_STRLEN + 1],
				to[CID_TIME_STRLEN + 1];

	if (cid_time_format(from, layout->epoch_ms) != CID_OK)
		from[0] = '\0';
	if (cid_time_format(to, cid_layout_max_ms(layout)) != CID_OK)
		to[0] = '\0';
	snprintf(out, outlen, "time %" PRId64 " ms is outside layout \"%s\" (%s .. %s)", ms,
			 layout->name, from, to);
	return out;
}

const char *
cid_bind_inspect_expected(size_t len)
{
	if (len == CID_OBJECTID_STRLEN)
		return "a MongoDB ObjectId (24 hex digits)";
	if (len == CID_KSUID_STRLEN)
		return "a KSUID (27 base62 characters)";
	return "a UUID, a ULID or a decimal snowflake of the layout";
}

const char *
cid_bind_parse_failed(char *out, size_t outlen, int rc, const char *what, const char *s,
					  size_t len, size_t pos, const char *expected)
{
	char		q[CID_BIND_QUOTE_MAX];

	cid_bind_quote(q, s, len);
	if (rc == CID_ESYNTAX && pos < len)
	{
		unsigned char c = (unsigned char) s[pos];

		if (c >= 0x20 && c < 0x7f)
			snprintf(out, outlen, "invalid %s %s: character '%c' at position %zu (expected %s)",
					 what, q, c, pos, expected);
		else
			snprintf(out, outlen, "invalid %s %s: byte 0x%02x at position %zu (expected %s)",
					 what, q, c, pos, expected);
	}
	else if (rc == CID_ELENGTH)
	{
		size_t		chars = 0;

		/* Characters, not bytes: UTF-8 continuation bytes do not count. */
		for (size_t i = 0; i < len; i++)
			chars += ((unsigned char) s[i] & 0xc0) != 0x80;
		snprintf(out, outlen, "invalid %s %s: %zu characters (expected %s)", what, q, chars,
				 expected);
	}
	else
		snprintf(out, outlen, "invalid %s %s: %s (expected %s)", what, q, cid_strerror(rc),
				 expected);
	return out;
}
