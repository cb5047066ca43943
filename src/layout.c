/*
 * layout.c — Snowflake bit layouts: the named presets, the text spec parser
 * and its canonical writer, and validation (docs/layouts.md has the grammar
 * and the presets' sources).
 */
#include "chronoid.h"
#include "compiler_internal.h"
#include "time_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* The epoch must be a date cid_time_format writes: 0000-01-01 .. 9999-12-31. */
#define EPOCH_MIN_MS INT64_C(-62167219200000)
#define EPOCH_MAX_MS INT64_C(253402300799999)

const char *const cid_layout_preset_names[] = {
	"pgedge", "twitter", "sonyflake", "instagram", "discord", NULL
};

typedef struct preset
{
	const char *name;
	int			nfields;
	cid_field_kind order[3];
	uint8_t		width[3];		/* in the order above */
	uint32_t	tick_ms;
	int64_t		epoch_ms;
} preset;

static const preset presets[] = {
	/* pgEdge snowflake 2.6: 41 ms since 2023-01-01 | 10 node | 12 counter */
	{"pgedge", 3, {CID_FIELD_TIME, CID_FIELD_NODE, CID_FIELD_SEQ}, {41, 10, 12},
	1, INT64_C(1672531200000)},
	/* Twitter (2010): 41 ms since 2010-11-04T01:42:54.657Z | 10 machine | 12 seq */
	{"twitter", 3, {CID_FIELD_TIME, CID_FIELD_NODE, CID_FIELD_SEQ}, {41, 10, 12},
	1, INT64_C(1288834974657)},
	/* Sonyflake: 39 bits of 10 ms since 2014-09-01 | 8 seq | 16 machine */
	{"sonyflake", 3, {CID_FIELD_TIME, CID_FIELD_SEQ, CID_FIELD_NODE}, {39, 8, 16},
	10, INT64_C(1409529600000)},
	/* Instagram (2012): 41 ms since 2011-08-24T21:07:01.721Z | 13 shard | 10 seq */
	{"instagram", 3, {CID_FIELD_TIME, CID_FIELD_NODE, CID_FIELD_SEQ}, {41, 13, 10},
	1, INT64_C(1314220021721)},
	/* Discord: 42 ms since 2015-01-01 | 5 worker + 5 process | 12 increment */
	{"discord", 3, {CID_FIELD_TIME, CID_FIELD_NODE, CID_FIELD_SEQ}, {42, 10, 12},
	1, INT64_C(1420070400000)},
};

static const char *const kind_names[4] = {"time", "node", "seq", "reserved"};

static void set_err(char *err, size_t errlen, const char *fmt,...) CID_PRINTF(3, 4);

static void
set_err(char *err, size_t errlen, const char *fmt,...)
{
	va_list		ap;

	if (err == NULL || errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static int
total_bits(const cid_layout *layout)
{
	return layout->bits[0] + layout->bits[1] + layout->bits[2] + layout->bits[3];
}

int
cid_layout_validate(cid_layout *layout, char *err, size_t errlen)
{
	bool		seen[4] = {false, false, false, false};
	int			total = 0;
	int			shift = 0;
	uint64_t	span_ms;

	if (err != NULL && errlen > 0)
		err[0] = '\0';
	if (layout == NULL)
	{
		set_err(err, errlen, "no layout given");
		return CID_EINVAL;
	}
	if (layout->nfields < 2 || layout->nfields > CID_LAYOUT_MAX_FIELDS)
	{
		set_err(err, errlen, "a layout has 2 to %d fields, not %d",
				CID_LAYOUT_MAX_FIELDS, layout->nfields);
		return CID_ELAYOUT;
	}
	for (int i = 0; i < layout->nfields; i++)
	{
		int			k = (int) layout->order[i];

		if (k < 0 || k > 3)
		{
			set_err(err, errlen, "field %d has an unknown kind %d", i + 1, k);
			return CID_ELAYOUT;
		}
		if (seen[k])
		{
			set_err(err, errlen, "field '%s' appears twice", kind_names[k]);
			return CID_ELAYOUT;
		}
		seen[k] = true;
		if (layout->bits[k] < 1 || layout->bits[k] > 63)
		{
			set_err(err, errlen, "field '%s' has width %d; widths must be 1..63",
					kind_names[k], layout->bits[k]);
			return CID_ELAYOUT;
		}
	}
	for (int k = 0; k < 4; k++)
	{
		if (!seen[k] && layout->bits[k] != 0)
		{
			set_err(err, errlen, "field '%s' has width %d but is not in the field order",
					kind_names[k], layout->bits[k]);
			return CID_ELAYOUT;
		}
	}
	if (!seen[CID_FIELD_TIME])
	{
		set_err(err, errlen, "no time field: a layout needs one, as its first field");
		return CID_ELAYOUT;
	}
	if (layout->order[0] != CID_FIELD_TIME)
	{
		set_err(err, errlen, "the first field must be time, not '%s'",
				kind_names[layout->order[0]]);
		return CID_ELAYOUT;
	}
	if (!seen[CID_FIELD_SEQ])
	{
		set_err(err, errlen, "no seq field: a layout needs a sequence of at least 1 bit");
		return CID_ELAYOUT;
	}
	total = total_bits(layout);
	if (total != 63 && total != 64)
	{
		set_err(err, errlen,
				"field widths add up to %d; they must add up to 63, or 64 when time is the top field",
				total);
		return CID_ELAYOUT;
	}
	if (layout->tick_ms < 1 || layout->tick_ms > 1000)
	{
		set_err(err, errlen, "tick %ums is out of range 1..1000 ms",
				(unsigned) layout->tick_ms);
		return CID_ELAYOUT;
	}
	if (layout->epoch_ms < EPOCH_MIN_MS || layout->epoch_ms > EPOCH_MAX_MS)
	{
		set_err(err, errlen,
				"epoch %lld ms is out of range (0000-01-01 .. 9999-12-31)",
				(long long) layout->epoch_ms);
		return CID_ELAYOUT;
	}

	/*
	 * Every instant the time field can hold must be a valid int64 of Unix
	 * ms, so that decoding never overflows: 2^bits ticks must fit between
	 * the epoch and INT64_MAX.
	 */
	span_ms = (uint64_t) INT64_MAX - (uint64_t) layout->epoch_ms + 1;
	if ((UINT64_C(1) << layout->bits[CID_FIELD_TIME]) > span_ms / layout->tick_ms)
	{
		set_err(err, errlen,
				"a %d-bit time field of %ums ticks runs past the largest 64-bit millisecond count",
				layout->bits[CID_FIELD_TIME], (unsigned) layout->tick_ms);
		return CID_ELAYOUT;
	}

	/* shifts: each field sits above the fields listed after it */
	memset(layout->shift, 0, sizeof(layout->shift));
	for (int i = layout->nfields - 1; i >= 0; i--)
	{
		layout->shift[layout->order[i]] = (uint8_t) shift;
		shift += layout->bits[layout->order[i]];
	}
	return CID_OK;
}

/* ASCII case-insensitive comparison of s[0..len) with a NUL-terminated word. */
static bool
word_eq(const char *s, size_t len, const char *word)
{
	size_t		wlen = strlen(word);

	if (len != wlen)
		return false;
	for (size_t i = 0; i < len; i++)
	{
		char		c = s[i];

		if (c >= 'A' && c <= 'Z')
			c = (char) (c - 'A' + 'a');
		if (c != word[i])
			return false;
	}
	return true;
}

static int
fill_preset(cid_layout *out, const preset *p)
{
	memset(out, 0, sizeof(*out));
	snprintf(out->name, sizeof(out->name), "%s", p->name);
	out->nfields = p->nfields;
	for (int i = 0; i < p->nfields; i++)
	{
		out->order[i] = p->order[i];
		out->bits[p->order[i]] = p->width[i];
	}
	out->tick_ms = p->tick_ms;
	out->epoch_ms = p->epoch_ms;
	return cid_layout_validate(out, NULL, 0);
}

/* The preset whose name is s[0..len), or NULL. */
static const preset *
find_preset(const char *s, size_t len)
{
	for (size_t i = 0; i < sizeof(presets) / sizeof(presets[0]); i++)
	{
		if (word_eq(s, len, presets[i].name))
			return &presets[i];
	}
	return NULL;
}

int
cid_layout_preset(cid_layout *out, const char *name)
{
	const preset *p;

	if (out == NULL || name == NULL)
		return CID_EINVAL;
	p = find_preset(name, strlen(name));
	if (p == NULL)
		return CID_EINVAL;
	return fill_preset(out, p) == CID_OK ? CID_OK : CID_EINVAL;
}

/* ------------------------------------------------------------------------
 * Text specs
 * ------------------------------------------------------------------------ */

typedef struct lexer
{
	const char *s;
	size_t		len;
	size_t		pos;
	char	   *err;
	size_t		errlen;
} lexer;

static void
skip_ws(lexer *lx)
{
	while (lx->pos < lx->len && (lx->s[lx->pos] == ' ' || lx->s[lx->pos] == '\t'))
		lx->pos++;
}

static bool
is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

/* A word of letters at the cursor; its length (0 when none). */
static size_t
take_word(lexer *lx, const char **start)
{
	*start = lx->s + lx->pos;
	while (lx->pos < lx->len && is_alpha(lx->s[lx->pos]))
		lx->pos++;
	return (size_t) (lx->s + lx->pos - *start);
}

/* Describe the character at the cursor for a message. */
static const char *
here(const lexer *lx, char *buf, size_t buflen)
{
	unsigned char c;

	if (lx->pos >= lx->len)
		return "end of spec";
	c = (unsigned char) lx->s[lx->pos];
	if (c >= 0x20 && c < 0x7f)
		snprintf(buf, buflen, "'%c'", (char) c);
	else
		snprintf(buf, buflen, "byte 0x%02x", c);
	return buf;
}

static int
syntax_error(lexer *lx, const char *expected)
{
	char		buf[16];

	set_err(lx->err, lx->errlen, "expected %s at offset %zu, found %s",
			expected, lx->pos, here(lx, buf, sizeof(buf)));
	return CID_ESYNTAX;
}

/* An unsigned decimal at the cursor (at most 9 digits). */
static int
take_number(lexer *lx, uint32_t *v, const char *what)
{
	size_t		n = 0;

	*v = 0;
	while (lx->pos < lx->len && lx->s[lx->pos] >= '0' && lx->s[lx->pos] <= '9')
	{
		if (n == 9)
		{
			set_err(lx->err, lx->errlen, "%s at offset %zu has too many digits",
					what, lx->pos - n);
			return CID_ELAYOUT;
		}
		*v = *v * 10 + (uint32_t) (lx->s[lx->pos] - '0');
		lx->pos++;
		n++;
	}
	if (n == 0)
		return syntax_error(lx, what);
	return CID_OK;
}

static int
field_kind_of(const char *w, size_t n)
{
	static const struct
	{
		const char *word;
		cid_field_kind kind;
	}			names[] = {
		{"time", CID_FIELD_TIME}, {"ts", CID_FIELD_TIME}, {"timestamp", CID_FIELD_TIME},
		{"node", CID_FIELD_NODE}, {"machine", CID_FIELD_NODE},
		{"worker", CID_FIELD_NODE}, {"shard", CID_FIELD_NODE},
		{"seq", CID_FIELD_SEQ}, {"sequence", CID_FIELD_SEQ},
		{"counter", CID_FIELD_SEQ}, {"increment", CID_FIELD_SEQ},
		{"reserved", CID_FIELD_RESERVED},
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
	{
		if (word_eq(w, n, names[i].word))
			return (int) names[i].kind;
	}
	return -1;
}

static int
parse_fields(lexer *lx, cid_layout *l)
{
	for (;;)
	{
		const char *w;
		size_t		n;
		size_t		at;
		int			kind;
		uint32_t	width;
		int			rc;

		skip_ws(lx);
		at = lx->pos;
		n = take_word(lx, &w);
		if (n == 0)
			return syntax_error(lx, "a field name");
		kind = field_kind_of(w, n);
		if (kind < 0)
		{
			set_err(lx->err, lx->errlen,
					"unknown field '%.*s' at offset %zu (use time, node, seq or reserved)",
					(int) (n > 32 ? 32 : n), w, at);
			return CID_ELAYOUT;
		}
		if (l->nfields == CID_LAYOUT_MAX_FIELDS)
		{
			set_err(lx->err, lx->errlen, "too many fields at offset %zu (at most %d)",
					at, CID_LAYOUT_MAX_FIELDS);
			return CID_ELAYOUT;
		}
		for (int i = 0; i < l->nfields; i++)
		{
			if ((int) l->order[i] == kind)
			{
				set_err(lx->err, lx->errlen, "field '%s' appears twice (offset %zu)",
						kind_names[kind], at);
				return CID_ELAYOUT;
			}
		}
		skip_ws(lx);
		if (lx->pos >= lx->len || lx->s[lx->pos] != ':')
			return syntax_error(lx, "':' and a width after the field name");
		lx->pos++;
		skip_ws(lx);
		rc = take_number(lx, &width, "a field width");
		if (rc != CID_OK)
			return rc;
		if (width < 1 || width > 63)
		{
			set_err(lx->err, lx->errlen, "field '%s' has width %u; widths must be 1..63",
					kind_names[kind], (unsigned) width);
			return CID_ELAYOUT;
		}
		l->order[l->nfields++] = (cid_field_kind) kind;
		l->bits[kind] = (uint8_t) width;
		skip_ws(lx);
		if (lx->pos < lx->len && lx->s[lx->pos] == ',')
		{
			lx->pos++;
			continue;
		}
		if (lx->pos < lx->len && lx->s[lx->pos] != ';')
			return syntax_error(lx, "',' or ';' after a field");
		return CID_OK;
	}
}

static int
parse_option(lexer *lx, cid_layout *l, bool *have_epoch, bool *have_tick)
{
	const char *w;
	size_t		n;
	size_t		at;

	skip_ws(lx);
	at = lx->pos;
	n = take_word(lx, &w);
	if (n == 0)
		return syntax_error(lx, "an option (epoch= or tick=)");
	skip_ws(lx);
	if (lx->pos >= lx->len || lx->s[lx->pos] != '=')
		return syntax_error(lx, "'=' after the option name");
	lx->pos++;
	skip_ws(lx);

	if (word_eq(w, n, "epoch"))
	{
		size_t		start = lx->pos;
		size_t		end = start;
		size_t		bad = 0;
		int			rc;

		if (*have_epoch)
		{
			set_err(lx->err, lx->errlen, "option 'epoch' given twice (offset %zu)", at);
			return CID_ELAYOUT;
		}
		*have_epoch = true;
		/* the value runs to the next ';' (it may hold a space before the time) */
		while (end < lx->len && lx->s[end] != ';')
			end++;
		lx->pos = end;
		while (end > start && (lx->s[end - 1] == ' ' || lx->s[end - 1] == '\t'))
			end--;
		rc = cid_time_parse(&l->epoch_ms, lx->s + start, end - start, &bad);
		if (rc != CID_OK)
		{
			set_err(lx->err, lx->errlen,
					"bad epoch '%.*s' at offset %zu: %s (use YYYY-MM-DD[THH:MM:SS[.fff]][Z] or Unix ms)",
					(int) (end - start > 40 ? 40 : end - start), lx->s + start,
					start + bad,
					rc == CID_ESYNTAX ? "invalid character" : "no such date, time or value");
			return rc == CID_ESYNTAX ? CID_ESYNTAX : CID_ELAYOUT;
		}
		if (l->epoch_ms < EPOCH_MIN_MS || l->epoch_ms > EPOCH_MAX_MS)
		{
			set_err(lx->err, lx->errlen,
					"epoch '%.*s' is out of range (0000-01-01 .. 9999-12-31)",
					(int) (end - start > 40 ? 40 : end - start), lx->s + start);
			return CID_ELAYOUT;
		}
		return CID_OK;
	}
	if (word_eq(w, n, "tick"))
	{
		uint32_t	tick;
		int			rc;
		const char *unit;
		size_t		un;

		if (*have_tick)
		{
			set_err(lx->err, lx->errlen, "option 'tick' given twice (offset %zu)", at);
			return CID_ELAYOUT;
		}
		*have_tick = true;
		rc = take_number(lx, &tick, "a tick length in ms");
		if (rc != CID_OK)
			return rc;
		skip_ws(lx);
		un = take_word(lx, &unit);
		if (un != 0 && !word_eq(unit, un, "ms"))
		{
			lx->pos -= un;
			return syntax_error(lx, "'ms' or nothing after the tick length");
		}
		if (tick < 1 || tick > 1000)
		{
			set_err(lx->err, lx->errlen, "tick %ums is out of range 1..1000 ms",
					(unsigned) tick);
			return CID_ELAYOUT;
		}
		l->tick_ms = tick;
		skip_ws(lx);
		if (lx->pos < lx->len && lx->s[lx->pos] != ';')
			return syntax_error(lx, "';' or the end after the tick option");
		return CID_OK;
	}
	set_err(lx->err, lx->errlen, "unknown option '%.*s' at offset %zu (use epoch= or tick=)",
			(int) (n > 32 ? 32 : n), w, at);
	return CID_ELAYOUT;
}

int
cid_layout_parse(cid_layout *out, const char *spec, size_t len,
				 char *err, size_t errlen)
{
	cid_layout	l;
	lexer		lx = {spec, len, 0, err, errlen};
	bool		have_epoch = false;
	bool		have_tick = false;
	int			rc;

	if (err != NULL && errlen > 0)
		err[0] = '\0';
	if (out == NULL || (spec == NULL && len > 0))
	{
		set_err(err, errlen, "no layout spec given");
		return CID_EINVAL;
	}
	memset(&l, 0, sizeof(l));
	snprintf(l.name, sizeof(l.name), "custom");
	l.tick_ms = 1;
	l.epoch_ms = 0;

	rc = parse_fields(&lx, &l);
	if (rc != CID_OK)
		return rc;
	while (lx.pos < lx.len)
	{
		/* parse_fields and parse_option stop only at ';' or the end */
		lx.pos++;
		rc = parse_option(&lx, &l, &have_epoch, &have_tick);
		if (rc != CID_OK)
			return rc;
	}
	rc = cid_layout_validate(&l, err, errlen);
	if (rc != CID_OK)
		return rc;
	*out = l;
	return CID_OK;
}

int
cid_layout_resolve(cid_layout *out, const char *name_or_spec,
				   char *err, size_t errlen)
{
	const preset *p;
	size_t		len;
	size_t		a = 0;
	size_t		b;

	if (out == NULL || name_or_spec == NULL)
	{
		set_err(err, errlen, "no layout given");
		return CID_EINVAL;
	}
	len = strlen(name_or_spec);
	b = len;
	while (a < b && (name_or_spec[a] == ' ' || name_or_spec[a] == '\t'))
		a++;
	while (b > a && (name_or_spec[b - 1] == ' ' || name_or_spec[b - 1] == '\t'))
		b--;
	p = find_preset(name_or_spec + a, b - a);
	if (p != NULL)
	{
		if (err != NULL && errlen > 0)
			err[0] = '\0';
		return fill_preset(out, p);
	}
	/* a bare word that is no preset deserves a message naming the presets */
	if (b > a && strpbrk(name_or_spec, ":;,") == NULL)
	{
		set_err(err, errlen,
				"unknown layout '%.*s' (presets: pgedge, twitter, sonyflake, instagram, discord; or a spec like time:41,node:10,seq:12)",
				(int) (b - a > 40 ? 40 : b - a), name_or_spec + a);
		return CID_ELAYOUT;
	}
	return cid_layout_parse(out, name_or_spec, len, err, errlen);
}

uint64_t
cid_layout_max_node(const cid_layout *layout)
{
	int			bits = layout->bits[CID_FIELD_NODE];

	return bits == 0 ? 0 : (UINT64_C(1) << bits) - 1;
}

int64_t
cid_layout_max_ms(const cid_layout *layout)
{
	uint64_t	ticks = UINT64_C(1) << layout->bits[CID_FIELD_TIME];

	/* validation guarantees this fits (see cid_layout_validate) */
	return (int64_t) ((uint64_t) layout->epoch_ms + ticks * layout->tick_ms - 1);
}

int64_t
cid_layout_negative_from_ms(const cid_layout *layout)
{
	uint64_t	half;

	if (total_bits(layout) != 64)
		return INT64_MAX;
	/* bit 63 is the time field's top bit: set from tick 2^(bits-1) on */
	half = UINT64_C(1) << (layout->bits[CID_FIELD_TIME] - 1);
	return (int64_t) ((uint64_t) layout->epoch_ms + half * layout->tick_ms);
}

int
cid_layout_format(char *out, size_t outlen, const cid_layout *layout)
{
	char		epoch[CID_TIME_STRLEN + 1];
	size_t		used = 0;
	int			n;

	if (out == NULL || outlen == 0 || layout == NULL)
		return CID_EINVAL;
	out[0] = '\0';
	if (layout->nfields < 1 || layout->nfields > CID_LAYOUT_MAX_FIELDS)
		return CID_ELAYOUT;
	if (cid_time_format(epoch, layout->epoch_ms) != CID_OK)
		return CID_ELAYOUT;
	for (int i = 0; i < layout->nfields; i++)
	{
		int			k = (int) layout->order[i];

		if (k < 0 || k > 3)
			return CID_ELAYOUT;
		n = snprintf(out + used, outlen - used, "%s%s:%d", i ? "," : "",
					 kind_names[k], layout->bits[k]);
		if (n < 0 || (size_t) n >= outlen - used)
			return CID_EINVAL;
		used += (size_t) n;
	}
	n = snprintf(out + used, outlen - used, ";epoch=%s;tick=%ums", epoch,
				 (unsigned) layout->tick_ms);
	if (n < 0 || (size_t) n >= outlen - used)
		return CID_EINVAL;
	return CID_OK;
}
