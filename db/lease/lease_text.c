/*
 * lease_text.c — the two texts a lease's options carry, the schema name
 * and the owner, checked once for every caller (the C API, `chronoid
 * lease`, the packages through bind/lease_opts.c), with the value named
 * in the refusal.
 */
#include <stdio.h>
#include <string.h>

#include "lease_internal.h"

const char *
cid_lease_shown(char *out, const char *text)
{
	size_t		k = 0;

	out[k++] = '"';
	for (size_t i = 0; text[i] != '\0'; i++)
	{
		unsigned char c = (unsigned char) text[i];

		/* Cut at a character's start: no half of a UTF-8 sequence. */
		if (i >= 64 && (c & 0xc0) != 0x80)
		{
			memcpy(out + k, "...", 3);
			k += 3;
			break;
		}
		/* A refused label must not write on the reader's terminal. */
		if (c < 0x20 || c == 0x7f)
			k += (size_t) snprintf(out + k, CID_LEASE_SHOWN_MAX - k, "\\x%02x", c);
		else
		{
			if (c == '"' || c == '\\')
				out[k++] = '\\';
			out[k++] = (char) c;
		}
	}
	out[k++] = '"';
	out[k] = '\0';
	return out;
}

/*
 * The owner: at most CID_LEASE_OWNER_MAX bytes (the table keeps it whole,
 * and no caller's text is cut short without a word), none a control byte
 * (`chronoid lease list` prints it to people).
 */
static bool
owner_ok(const char *owner, char *errbuf, size_t errlen)
{
	char		q[CID_LEASE_SHOWN_MAX];
	size_t		n = strlen(owner);

	if (n > CID_LEASE_OWNER_MAX)
	{
		cid_pq_seterr(errbuf, errlen, "owner %s is %zu bytes long: expected at most %d",
					  cid_lease_shown(q, owner), n, CID_LEASE_OWNER_MAX);
		return false;
	}
	for (size_t i = 0; i < n; i++)
		if ((unsigned char) owner[i] < 0x20 || owner[i] == 0x7f)
		{
			cid_pq_seterr(errbuf, errlen, "owner %s has a control character at byte %zu: "
						  "expected printable text", cid_lease_shown(q, owner), i);
			return false;
		}
	return true;
}

int
cid_lease_texts_ok(const char *schema, const char *owner, char *schema_out,
				   char *errbuf, size_t errlen)
{
	char		q[CID_LEASE_SHOWN_MAX];

	if (!cid_lease_schema_ok(schema, schema_out))
	{
		cid_pq_seterr(errbuf, errlen, "schema %s is not a lease schema name: expected lower-case "
					  "letters, digits and _, not starting with a digit, at most %d",
					  cid_lease_shown(q, schema), CID_LEASE_SCHEMA_MAX);
		return CID_EINVAL;
	}
	if (owner != NULL && !owner_ok(owner, errbuf, errlen))
		return CID_EINVAL;
	return CID_OK;
}
