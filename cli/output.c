/*
 * output.c — the chronoid command's standard output: one large buffer
 * written with fwrite, fast integer-to-decimal text and JSON strings.
 */
#include <errno.h>
#include <string.h>

#include "cli_internal.h"

/*
 * 1 MiB: a few hundred write(2) calls for ten million Snowflakes.  The
 * command writes to one stream only, so one static buffer is enough.
 */
#define OUT_BUF_SIZE ((size_t) 1024 * 1024)

static char out_buf[OUT_BUF_SIZE];
static size_t out_len;
static bool out_failed;
static bool out_reported;
static int	out_errno;

static void
out_drain(void)
{
	if (out_len == 0)
		return;
	if (!out_failed && fwrite(out_buf, 1, out_len, stdout) != out_len)
	{
		out_failed = true;
		out_errno = errno;
	}
	out_len = 0;
}

char *
cli_out_reserve(size_t n)
{
	if (OUT_BUF_SIZE - out_len < n)
		out_drain();
	return out_buf + out_len;
}

void
cli_out_commit(size_t k)
{
	out_len += k;
}

void
cli_out_bytes(const char *s, size_t n)
{
	while (n > 0)
	{
		size_t		room;

		if (out_len == OUT_BUF_SIZE)
			out_drain();
		room = OUT_BUF_SIZE - out_len;
		if (room > n)
			room = n;
		memcpy(out_buf + out_len, s, room);
		out_len += room;
		s += room;
		n -= room;
	}
}

void
cli_out_str(const char *s)
{
	cli_out_bytes(s, strlen(s));
}

void
cli_out_char(char c)
{
	if (out_len == OUT_BUF_SIZE)
		out_drain();
	out_buf[out_len++] = c;
}

/* "00".."99": two digits per division halves the divisions. */
static const char digit_pairs[201] =
"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
"8081828384858687888990919293949596979899";

size_t
cli_u64_to_dec(char *buf, uint64_t v)
{
	char		tmp[CLI_U64_DIGITS];
	char	   *p = tmp + sizeof(tmp);
	size_t		len;

	while (v >= 100)
	{
		unsigned	r = (unsigned) (v % 100);

		v /= 100;
		p -= 2;
		memcpy(p, digit_pairs + 2 * (size_t) r, 2);
	}
	if (v >= 10)
	{
		p -= 2;
		memcpy(p, digit_pairs + 2 * v, 2);
	}
	else
		*--p = (char) ('0' + v);
	len = (size_t) (tmp + sizeof(tmp) - p);
	memcpy(buf, p, len);
	return len;
}

void
cli_out_u64(uint64_t v)
{
	char	   *p = cli_out_reserve(CLI_U64_DIGITS);

	cli_out_commit(cli_u64_to_dec(p, v));
}

void
cli_out_i64(int64_t v)
{
	if (v < 0)
	{
		cli_out_char('-');
		/* Negate in unsigned arithmetic: INT64_MIN has no positive twin. */
		cli_out_u64(0 - (uint64_t) v);
	}
	else
		cli_out_u64((uint64_t) v);
}

void
cli_out_json_str(const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t		i;

	cli_out_char('"');
	for (i = 0; i < n; i++)
	{
		unsigned char c = (unsigned char) s[i];

		if (c == '"' || c == '\\')
		{
			cli_out_char('\\');
			cli_out_char((char) c);
		}
		else if (c == '\n')
			cli_out_bytes("\\n", 2);
		else if (c == '\t')
			cli_out_bytes("\\t", 2);
		else if (c < 0x20 || c == 0x7f)
		{
			/* RFC 8259 section 7: other control characters as \u00XX. */
			char		esc[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};

			cli_out_bytes(esc, sizeof(esc));
		}
		else
			cli_out_char((char) c);
	}
	cli_out_char('"');
}

/* Commit the len characters written at p and a newline after them. */
static void
commit_line(char *p, size_t len)
{
	p[len] = '\n';
	cli_out_commit(len + 1);
}

void
cli_out_uuid_line(const cid_uuid *u)
{
	char	   *p = cli_out_reserve(CID_UUID_STRLEN + 1);

	cid_uuid_format(p, u);
	commit_line(p, CID_UUID_STRLEN);
}

void
cli_out_ulid_line(const cid_ulid *u)
{
	char	   *p = cli_out_reserve(CID_ULID_STRLEN + 1);

	cid_ulid_format(p, u);
	commit_line(p, CID_ULID_STRLEN);
}

void
cli_out_sync(void)
{
	out_drain();
	if (!out_failed && fflush(stdout) != 0)
	{
		out_failed = true;
		out_errno = errno;
	}
}

bool
cli_out_flush(void)
{
	out_drain();
	if (!out_failed && fflush(stdout) != 0)
	{
		out_failed = true;
		out_errno = errno;
	}
	if (out_failed)
	{
		/*
		 * Not through cli_error(), which flushes this buffer first:
		 * the diagnostics sit above the output, not beside it.
		 */
		if (!out_reported)
			fprintf(stderr, "%s: write error: %s\n", CLI_PROGNAME,
					strerror(out_errno));
		out_reported = true;
		return false;
	}
	return true;
}
