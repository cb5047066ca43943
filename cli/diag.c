/*
 * diag.c — the messages every chronoid command writes on standard error:
 * one line each, written in one piece, with any user input in it quoted,
 * escaped and capped.
 */
#include <stdarg.h>
#include <string.h>

#include "cli_internal.h"

/* A message being put together, written out in one piece. */
typedef struct msgbuf
{
	char		text[1024];
	size_t		len;
} msgbuf;

static void
msg_add(msgbuf *m, const char *fmt,...) CID_PRINTF(2, 3);

static void
msg_add(msgbuf *m, const char *fmt,...)
{
	va_list		ap;
	int			n;

	if (m->len >= sizeof(m->text) - 1)
		return;
	va_start(ap, fmt);
	n = vsnprintf(m->text + m->len, sizeof(m->text) - m->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		m->len += (size_t) n < sizeof(m->text) - m->len ? (size_t) n : sizeof(m->text) - 1 - m->len;
}

/*
 * s quoted and escaped, at most CLI_ECHO_MAX of its bytes: a refused value
 * of a megabyte must not make a megabyte message (nor, on unbuffered
 * stderr, a write per byte).
 */
static void
msg_quote(msgbuf *m, const char *s, size_t len)
{
	size_t		i;

	msg_add(m, "\"");
	for (i = 0; i < len && i < CLI_ECHO_MAX; i++)
	{
		unsigned char c = (unsigned char) s[i];

		if (c == '"' || c == '\\')
			msg_add(m, "\\%c", c);
		else if (c < 0x20 || c > 0x7e)
			msg_add(m, "\\x%02x", c);
		else
			msg_add(m, "%c", c);
	}
	if (len > CLI_ECHO_MAX)
		msg_add(m, "...\" (%zu bytes)", len);
	else
		msg_add(m, "\"");
}

/* The message of cli_error() and cli_error_value() (what NULL: no value). */
static void
error_line(const char *cmd, const char *what, const char *s, size_t len,
		   const char *fmt, va_list ap)
{
	msgbuf		m;
	int			n;

	m.len = 0;
	m.text[0] = '\0';
	/* Keep stdout's lines ahead of the message when both go to one place. */
	cli_out_sync();
	msg_add(&m, "%s: ", CLI_PROGNAME);
	if (cmd != NULL)
		msg_add(&m, "%s: ", cmd);
	if (what != NULL)
	{
		msg_add(&m, "%s", what);
		msg_quote(&m, s, len);
	}
	if (m.len < sizeof(m.text) - 1)
	{
		n = vsnprintf(m.text + m.len, sizeof(m.text) - 1 - m.len, fmt, ap);
		if (n > 0)
			m.len += (size_t) n < sizeof(m.text) - 1 - m.len ? (size_t) n : sizeof(m.text) - 2 - m.len;
	}
	m.text[m.len++] = '\n';
	fwrite(m.text, 1, m.len, stderr);
}

void
cli_error(const char *cmd, const char *fmt,...)
{
	va_list		ap;

	va_start(ap, fmt);
	error_line(cmd, NULL, NULL, 0, fmt, ap);
	va_end(ap);
}

void
cli_error_value(const char *cmd, const char *what, const char *s, size_t len,
				const char *fmt,...)
{
	va_list		ap;

	va_start(ap, fmt);
	error_line(cmd, what, s, len, fmt, ap);
	va_end(ap);
}
