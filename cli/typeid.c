/*
 * typeid.c — TypeIDs on the command line: the --prefix check, parse errors
 * that say which rule a character broke, inspect's line and convert's
 * output.  The text itself is cid_typeid_*'s.
 */
#include <string.h>

#include "cli_internal.h"

#define PREFIX_RULE "a TypeID prefix is at most 63 characters of a-z and '_', " \
	"starting and ending with a letter"

bool
cli_typeid_prefix_ok(const char *cmd, const char *prefix)
{
	size_t		len = strlen(prefix);
	size_t		errpos = 0;
	char		at[64] = "";
	int			rc = cid_typeid_prefix_check(prefix, len, &errpos);

	if (rc == CID_OK)
		return true;
	if (rc == CID_ESYNTAX)
		cli_bad_char_at(at, sizeof(at), prefix, len, errpos);
	cli_error_value(cmd, "invalid prefix ", prefix, len, ": %s%s (%s)",
					cid_strerror(rc), at, PREFIX_RULE);
	return false;
}

/* Where the suffix starts: after the last '_', or 0. */
static size_t
suffix_start(const char *s, size_t len)
{
	for (size_t i = len; i > 0; i--)
		if (s[i - 1] == '_')
			return i;
	return 0;
}

/* The rule behind a refusal, by status and where it happened. */
static const char *
rule(int status, const char *s, size_t len, size_t errpos, char *buf, size_t buflen)
{
	size_t		at = suffix_start(s, len);

	switch (status)
	{
		case CID_ESYNTAX:
			if (errpos < at)
				return PREFIX_RULE;
			return "a TypeID suffix is 26 lower-case base32 digits: 0-9 and a-z "
				"except i, l, o, u";
		case CID_EOVERFLOW:
			return "a TypeID suffix starts with 0-7: the largest is "
				"7zzzzzzzzzzzzzzzzzzzzzzzzz";
		case CID_ELENGTH:
			if (len > 0 && errpos < at)
				return PREFIX_RULE;
			snprintf(buf, buflen, "a TypeID suffix is 26 characters, not %zu", len - at);
			return buf;
		default:
			return NULL;
	}
}

bool
cli_typeid_parse(const char *cmd, const char *s, size_t len, cid_uuid *uuid,
				 size_t *prefix_len)
{
	size_t		errpos = 0;
	char		at[64] = "";
	char		buf[96];
	const char *why;
	int			rc = cid_typeid_parse(uuid, prefix_len, s, len, &errpos);

	if (rc == CID_OK)
		return true;
	if (rc == CID_ESYNTAX)
		cli_bad_char_at(at, sizeof(at), s, len, errpos);
	else if (rc == CID_EOVERFLOW)
	{
		/* "value does not fit the format: '8' at position 6" */
		at[0] = ':';
		cli_bad_char_at(at + 1, sizeof(at) - 1, s, len, errpos);
	}
	why = rule(rc, s, len, errpos, buf, sizeof(buf));
	cli_error_value(cmd, "", s, len, ": %s%s%s%s%s", cid_strerror(rc), at,
					why != NULL ? " (" : "", why != NULL ? why : "", why != NULL ? ")" : "");
	return false;
}

void
cli_typeid_inspect_line(const char *s, size_t len, size_t prefix_len,
						const cid_uuid *uuid, bool json)
{
	char		text[CID_UUID_STRLEN + 1];
	char		timebuf[CID_TIME_STRLEN + 1];
	const char *timestamp = NULL;
	int64_t		ms = 0;
	bool		has_time = cid_uuid_unix_ms(&ms, uuid) == CID_OK;
	int			version = cid_uuid_version(uuid);

	cid_uuid_format(text, uuid);
	if (has_time && cid_time_format(timebuf, ms) == CID_OK)
		timestamp = timebuf;
	if (json)
	{
		cli_out_str("{\"id\":");
		cli_out_json_str(s, len);
		cli_out_str(",\"type\":\"typeid\"");
		/* as every key that does not apply: no prefix, no key */
		if (prefix_len > 0)
		{
			cli_out_str(",\"prefix\":");
			cli_out_json_str(s, prefix_len);
		}
		cli_out_str(",\"uuid\":\"");
		cli_out_str(text);
		cli_out_char('"');
		if (version >= 0)
		{
			cli_out_str(",\"version\":");
			cli_out_i64(version);
		}
		else
			cli_out_str(",\"variant\":\"non-rfc\"");
		if (has_time)
		{
			cli_out_str(",\"unix_ms\":");
			cli_out_i64(ms);
		}
		if (timestamp != NULL)
		{
			cli_out_str(",\"timestamp\":");
			cli_out_json_str(timestamp, strlen(timestamp));
		}
		cli_out_str("}\n");
		return;
	}
	cli_out_bytes(s, len);
	cli_out_str(" typeid");
	if (prefix_len > 0)
	{
		cli_out_str(" prefix=");
		cli_out_bytes(s, prefix_len);
	}
	cli_out_str(" uuid=");
	cli_out_str(text);
	if (version >= 0)
	{
		cli_out_str(" version=");
		cli_out_i64(version);
	}
	else
		cli_out_str(" variant=non-rfc");
	if (timestamp != NULL)
	{
		cli_out_str(" time=");
		cli_out_str(timestamp);
	}
	if (has_time)
	{
		cli_out_str(" unix_ms=");
		cli_out_i64(ms);
	}
	cli_out_char('\n');
}

void
cli_out_typeid_line(const char *prefix, size_t prefix_len, const cid_uuid *uuid)
{
	char	   *p = cli_out_reserve(CID_TYPEID_STRLEN_MAX + 1);
	int			n = cid_typeid_format(p, CID_TYPEID_STRLEN_MAX + 1, prefix, prefix_len, uuid);

	/* the caller checked the prefix: n is the length */
	if (n < 0)
	{
		cli_out_commit(0);
		return;
	}
	p[n] = '\n';
	cli_out_commit((size_t) n + 1);
}
