/*
 * test_text.c — the table-driven UUID and ULID text: batch formatting and
 * parsing (cid_*_format_many, cid_*_parse_many) against the single calls,
 * and the single parsers' fast path against every corruption of one
 * character (the first bad character is reported, whatever it is).
 */
#include <ctype.h>

#include "chronoid.h"
#include "tap.h"
#include "testutil.h"

#define UUID_STRIDE (CID_UUID_STRLEN + 1)
#define ULID_STRIDE (CID_ULID_STRLEN + 1)

static void
random16(uint8_t *b, uint64_t *rng)
{
	uint64_t	x = tu_rng_next(rng),
				y = tu_rng_next(rng);

	memcpy(b, &x, 8);
	memcpy(b + 8, &y, 8);
}

static void
test_uuid_format_many(void)
{
	enum
	{
		N = 1000
	};
	static cid_uuid u[N],
				back[N];
	static char text[N * UUID_STRIDE];
	uint64_t	rng = 42;
	size_t		mismatch = 0,
				done = 0;

	for (int i = 0; i < N; i++)
		random16(u[i].bytes, &rng);
	EXPECT_EQ_U64(cid_uuid_format_many(text, u, N, '\n'), (uint64_t) N * UUID_STRIDE);
	for (int i = 0; i < N; i++)
	{
		char		one[CID_UUID_STRLEN + 1];

		cid_uuid_format(one, &u[i]);
		if (memcmp(one, text + i * UUID_STRIDE, CID_UUID_STRLEN) != 0 ||
			text[i * UUID_STRIDE + CID_UUID_STRLEN] != '\n')
			mismatch++;
	}
	EXPECT_EQ_U64(mismatch, 0);
	EXPECT_EQ_INT(cid_uuid_parse_many(back, text, N, UUID_STRIDE, &done, NULL), CID_OK);
	EXPECT_EQ_U64(done, N);
	EXPECT_EQ_INT(memcmp(back, u, sizeof(u)), 0);
	/* NUL separators make C strings */
	EXPECT_EQ_U64(cid_uuid_format_many(text, u, 2, '\0'), 2 * UUID_STRIDE);
	EXPECT_EQ_U64(strlen(text + UUID_STRIDE), CID_UUID_STRLEN);
	/* n = 0 writes nothing */
	text[0] = 'x';
	EXPECT_EQ_U64(cid_uuid_format_many(text, u, 0, '\n'), 0);
	EXPECT_EQ_INT(text[0], 'x');
}

static void
test_uuid_parse_many_errors(void)
{
	static const char good[] = "017f22e2-79b0-7cc3-98c4-dc0c0c07398f";
	char		text[3 * 40];
	cid_uuid	u[3];
	size_t		done = 99,
				pos = 99;

	/* three texts 40 bytes apart, the gaps anything */
	memset(text, '#', sizeof(text));
	for (int i = 0; i < 3; i++)
		memcpy(text + 40 * i, good, CID_UUID_STRLEN);
	EXPECT_EQ_INT(cid_uuid_parse_many(u, text, 3, 40, &done, &pos), CID_OK);
	EXPECT_EQ_U64(done, 3);
	/* upper case is fine; a bad digit in the third, at its offset 20 */
	text[40 + 3] = 'F';
	text[80 + 20] = 'g';
	EXPECT_EQ_INT(cid_uuid_parse_many(u, text, 3, 40, &done, &pos), CID_ESYNTAX);
	EXPECT_EQ_U64(done, 2);
	EXPECT_EQ_U64(pos, 100);
	/* a hyphen out of place in the first */
	text[13] = '0';
	EXPECT_EQ_INT(cid_uuid_parse_many(u, text, 3, 40, &done, &pos), CID_ESYNTAX);
	EXPECT_EQ_U64(done, 0);
	EXPECT_EQ_U64(pos, 13);
	/* the arguments */
	EXPECT_EQ_INT(cid_uuid_parse_many(u, text, 0, 0, &done, &pos), CID_OK);
	EXPECT_EQ_U64(done, 0);
	EXPECT_EQ_INT(cid_uuid_parse_many(u, text, 2, CID_UUID_STRLEN - 1, &done, &pos), CID_EINVAL);
	EXPECT_EQ_INT(cid_uuid_parse_many(NULL, text, 1, 40, &done, &pos), CID_EINVAL);
	EXPECT_EQ_INT(cid_uuid_parse_many(u, NULL, 1, 40, &done, &pos), CID_EINVAL);
	EXPECT_EQ_INT(cid_uuid_parse_many(u, text, SIZE_MAX, 40, NULL, NULL), CID_EINVAL);
}

static void
test_ulid_format_many(void)
{
	enum
	{
		N = 1000
	};
	static cid_ulid u[N],
				back[N];
	static char text[N * ULID_STRIDE];
	uint64_t	rng = 7;
	size_t		mismatch = 0,
				done = 0;

	for (int i = 0; i < N; i++)
		random16(u[i].bytes, &rng);
	/* the extremes: all zero, all one */
	memset(u[0].bytes, 0, 16);
	memset(u[1].bytes, 0xff, 16);
	EXPECT_EQ_U64(cid_ulid_format_many(text, u, N, '\n'), (uint64_t) N * ULID_STRIDE);
	EXPECT_EQ_INT(memcmp(text, "00000000000000000000000000\n7ZZZZZZZZZZZZZZZZZZZZZZZZZ\n",
						 2 * ULID_STRIDE), 0);
	for (int i = 0; i < N; i++)
	{
		char		one[CID_ULID_STRLEN + 1];

		cid_ulid_format(one, &u[i]);
		if (memcmp(one, text + i * ULID_STRIDE, CID_ULID_STRLEN) != 0 ||
			text[i * ULID_STRIDE + CID_ULID_STRLEN] != '\n')
			mismatch++;
	}
	EXPECT_EQ_U64(mismatch, 0);
	EXPECT_EQ_INT(cid_ulid_parse_many(back, text, N, ULID_STRIDE, &done, NULL), CID_OK);
	EXPECT_EQ_U64(done, N);
	EXPECT_EQ_INT(memcmp(back, u, sizeof(u)), 0);
}

static void
test_ulid_parse_many_errors(void)
{
	char		text[] = "01BX5ZZKBKACTAV9WEVGEMMVRZ 01bx5zzkbkactav9wevgemmvrz 01BX5ZZKBKACTAV9WEVGEMMVRZ";
	cid_ulid	u[3];
	size_t		done = 99,
				pos = 99;

	EXPECT_EQ_INT(cid_ulid_parse_many(u, text, 3, ULID_STRIDE, &done, &pos), CID_OK);
	EXPECT_EQ_U64(done, 3);
	EXPECT_EQ_INT(memcmp(u[0].bytes, u[1].bytes, 16), 0);
	/* an excluded letter in the second, then a first digit above 7 */
	text[ULID_STRIDE + 5] = 'U';
	EXPECT_EQ_INT(cid_ulid_parse_many(u, text, 3, ULID_STRIDE, &done, &pos), CID_ESYNTAX);
	EXPECT_EQ_U64(done, 1);
	EXPECT_EQ_U64(pos, ULID_STRIDE + 5);
	text[ULID_STRIDE + 5] = 'Z';
	text[2 * ULID_STRIDE] = '8';
	EXPECT_EQ_INT(cid_ulid_parse_many(u, text, 3, ULID_STRIDE, &done, &pos), CID_EOVERFLOW);
	EXPECT_EQ_U64(done, 2);
	EXPECT_EQ_U64(pos, 2 * ULID_STRIDE);
	EXPECT_EQ_INT(cid_ulid_parse_many(u, text, 2, CID_ULID_STRLEN - 1, &done, &pos), CID_EINVAL);
	EXPECT_EQ_INT(cid_ulid_parse_many(u, NULL, 0, 0, &done, &pos), CID_OK);
	EXPECT_EQ_U64(done, 0);
}

/* What a character may be at position i of canonical UUID text. */
static bool
uuid_char_ok(size_t i, unsigned char c)
{
	if (i == 8 || i == 13 || i == 18 || i == 23)
		return c == '-';
	return isxdigit(c) != 0;
}

/* Crockford's base32 without I, L, O and U, either case. */
static bool
ulid_char_ok(unsigned char c)
{
	c = (unsigned char) toupper(c);
	return c != 0 && strchr("0123456789ABCDEFGHJKMNPQRSTVWXYZ", c) != NULL;
}

/*
 * Every byte value at every position of a valid text: the parsers accept
 * exactly the characters the format allows there, and name the position
 * of the one they refuse; what they accept decodes as the slow way says.
 */
static void
test_every_corruption(void)
{
	static const char uuid_text[] = "017f22e2-79b0-7cc3-98c4-dc0c0c07398f";
	static const char ulid_text[] = "01BX5ZZKBKACTAV9WEVGEMMVRZ";
	size_t		wrong = 0;

	for (size_t i = 0; i < CID_UUID_STRLEN; i++)
		for (int c = 0; c < 256; c++)
		{
			char		t[CID_UUID_STRLEN];
			cid_uuid	u;
			size_t		pos = 99;
			int			rc;

			memcpy(t, uuid_text, sizeof(t));
			t[i] = (char) c;
			rc = cid_uuid_parse(&u, t, sizeof(t), &pos);
			if (uuid_char_ok(i, (unsigned char) c) ? rc != CID_OK : (rc != CID_ESYNTAX || pos != i))
				wrong++;
		}
	for (size_t i = 0; i < CID_ULID_STRLEN; i++)
		for (int c = 0; c < 256; c++)
		{
			char		t[CID_ULID_STRLEN];
			cid_ulid	u;
			size_t		pos = 99;
			int			rc;
			int			want;

			memcpy(t, ulid_text, sizeof(t));
			t[i] = (char) c;
			rc = cid_ulid_parse(&u, t, sizeof(t), &pos);
			if (!ulid_char_ok((unsigned char) c))
				want = CID_ESYNTAX;
			else if (i == 0 && !(c >= '0' && c <= '7'))
				want = CID_EOVERFLOW;
			else
				want = CID_OK;
			if (rc != want || (want != CID_OK && pos != i))
				wrong++;
			if (rc == CID_OK)
			{
				char		back[CID_ULID_STRLEN + 1];

				cid_ulid_format(back, &u);
				if (toupper(back[i]) != toupper(c))
					wrong++;
			}
		}
	EXPECT_EQ_U64(wrong, 0);
}

int
main(void)
{
	TAP_CASE(test_uuid_format_many);
	TAP_CASE(test_uuid_parse_many_errors);
	TAP_CASE(test_ulid_format_many);
	TAP_CASE(test_ulid_parse_many_errors);
	TAP_CASE(test_every_corruption);
	return tap_done();
}
