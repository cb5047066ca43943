/*
 * snowflake.c — Snowflake values under a layout: split an ID into its
 * fields, build one from them, time-range bounds, and decimal parsing.
 */
#include "chronoid.h"
#include "time_internal.h"

static uint64_t
field_mask(int bits)
{
	return bits >= 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
}

static uint64_t
get_field(const cid_layout *layout, cid_field_kind k, uint64_t id)
{
	if (layout->bits[k] == 0)
		return 0;
	return (id >> layout->shift[k]) & field_mask(layout->bits[k]);
}

static uint64_t
put_field(const cid_layout *layout, cid_field_kind k, uint64_t v)
{
	if (layout->bits[k] == 0)
		return 0;
	return v << layout->shift[k];
}

static int
layout_bits(const cid_layout *layout)
{
	return layout->bits[0] + layout->bits[1] + layout->bits[2] + layout->bits[3];
}

/* The tick holding unix_ms, or CID_ETIME_RANGE outside the time field. */
static int
tick_of(uint64_t *tick, const cid_layout *layout, int64_t unix_ms)
{
	uint64_t	t;

	if (unix_ms < layout->epoch_ms)
		return CID_ETIME_RANGE;
	/* epoch >= year 0 and unix_ms <= INT64_MAX: the difference fits uint64 */
	t = ((uint64_t) unix_ms - (uint64_t) layout->epoch_ms) / layout->tick_ms;
	if (t > field_mask(layout->bits[CID_FIELD_TIME]))
		return CID_ETIME_RANGE;
	*tick = t;
	return CID_OK;
}

int
cid_snowflake_decode(cid_snowflake_parts *out, const cid_layout *layout,
					 uint64_t id)
{
	if (out == NULL || layout == NULL)
		return CID_EINVAL;
	if (layout_bits(layout) == 63 && (id >> 63) != 0)
		return CID_EOVERFLOW;
	out->tick = get_field(layout, CID_FIELD_TIME, id);
	out->node = get_field(layout, CID_FIELD_NODE, id);
	out->sequence = get_field(layout, CID_FIELD_SEQ, id);
	out->reserved = get_field(layout, CID_FIELD_RESERVED, id);
	/* a validated layout keeps every tick's start within int64 */
	out->unix_ms = (int64_t) ((uint64_t) layout->epoch_ms + out->tick * layout->tick_ms);
	if (out->reserved != 0)
		return CID_EOVERFLOW;
	return CID_OK;
}

int
cid_snowflake_compose(uint64_t *id, const cid_layout *layout,
					  const cid_snowflake_parts *parts)
{
	uint64_t	tick;
	int			rc;

	if (id == NULL || layout == NULL || parts == NULL)
		return CID_EINVAL;
	rc = tick_of(&tick, layout, parts->unix_ms);
	if (rc != CID_OK)
		return rc;
	if (parts->node > cid_layout_max_node(layout))
		return CID_ENODE;
	if (parts->sequence > field_mask(layout->bits[CID_FIELD_SEQ]))
		return CID_EOVERFLOW;
	/* reserved bits are always 0 (decode rejects anything else) */
	if (parts->reserved != 0)
		return CID_EOVERFLOW;
	*id = put_field(layout, CID_FIELD_TIME, tick)
		| put_field(layout, CID_FIELD_NODE, parts->node)
		| put_field(layout, CID_FIELD_SEQ, parts->sequence);
	return CID_OK;
}

int
cid_snowflake_min_at(uint64_t *id, const cid_layout *layout, int64_t unix_ms)
{
	uint64_t	tick;
	int			rc;

	if (id == NULL || layout == NULL)
		return CID_EINVAL;
	rc = tick_of(&tick, layout, unix_ms);
	if (rc != CID_OK)
		return rc;
	*id = put_field(layout, CID_FIELD_TIME, tick);
	return CID_OK;
}

int
cid_snowflake_max_at(uint64_t *id, const cid_layout *layout, int64_t unix_ms)
{
	int			rc = cid_snowflake_min_at(id, layout, unix_ms);

	if (rc != CID_OK)
		return rc;
	/* the tick's smallest ID plus every node and sequence bit; reserved stay 0 */
	*id |= put_field(layout, CID_FIELD_NODE, field_mask(layout->bits[CID_FIELD_NODE]))
		| put_field(layout, CID_FIELD_SEQ, field_mask(layout->bits[CID_FIELD_SEQ]));
	return CID_OK;
}

/*
 * Decimal text: at most 20 digits (CID_ELENGTH beyond, errpos at the 21st);
 * a value above 2^64-1 (or, after '-', above 2^63) is CID_EOVERFLOW with
 * errpos at the digit that overflowed; then the layout check of
 * cid_snowflake_decode (errpos 0).
 */
int
cid_snowflake_parse(uint64_t *id, const cid_layout *layout,
					const char *s, size_t len, size_t *errpos)
{
	size_t		dummy;
	size_t		pos = 0;
	size_t		ndig;
	bool		neg = false;
	uint64_t	v = 0;
	cid_snowflake_parts parts;
	int			rc;

	if (errpos == NULL)
		errpos = &dummy;
	*errpos = 0;
	if (id == NULL || layout == NULL || (s == NULL && len > 0))
		return CID_EINVAL;
	if (len == 0)
		return CID_ELENGTH;
	if (s[0] == '-')
	{
		/* only a 64-bit layout has IDs that read as negative bigints */
		if (layout_bits(layout) != 64)
			return CID_ESYNTAX;
		neg = true;
		pos = 1;
		if (len == 1)
		{
			*errpos = 1;
			return CID_ESYNTAX;
		}
	}
	for (ndig = 0; pos < len; pos++, ndig++)
	{
		unsigned	d;

		if (s[pos] < '0' || s[pos] > '9')
		{
			*errpos = pos;
			return CID_ESYNTAX;
		}
		if (ndig == 20)
		{
			*errpos = pos;
			return CID_ELENGTH;
		}
		d = (unsigned) (s[pos] - '0');
		if (v > (UINT64_MAX - d) / 10)
		{
			*errpos = pos;
			return CID_EOVERFLOW;
		}
		v = v * 10 + d;
	}
	if (neg)
	{
		/* two's complement: -v must be at least INT64_MIN */
		if (v > (uint64_t) INT64_MAX + 1)
		{
			*errpos = 1;
			return CID_EOVERFLOW;
		}
		v = (UINT64_MAX - v) + 1;
	}
	rc = cid_snowflake_decode(&parts, layout, v);
	if (rc != CID_OK)
		return rc;
	*id = v;
	return CID_OK;
}
