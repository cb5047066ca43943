/*
 * test_random.c — the buffered random source: fresh bytes per call, an
 * injected raw source used and restored, large requests, failures that
 * surface as errors, and a statistical sanity check of the output.
 */
#define _POSIX_C_SOURCE 200809L

#include <time.h>

#include "chronoid.h"
#include "tap.h"

/* A deterministic raw source: the byte stream (7 * i + 3) mod 256. */
static uint64_t fake_pos;
static int	fake_calls;
static size_t fake_last_len;

static unsigned char
fake_byte(uint64_t i)
{
	return (unsigned char) ((7 * i + 3) & 0xff);
}

static int
fake_fill(void *buf, size_t len)
{
	unsigned char *p = buf;

	fake_calls++;
	fake_last_len = len;
	for (size_t i = 0; i < len; i++)
		p[i] = fake_byte(fake_pos++);
	return 0;
}

static int	failing_calls;

static int
failing_fill(void *buf, size_t len)
{
	(void) buf;
	(void) len;
	failing_calls++;
	return -1;
}

static void
fake_reset(void)
{
	fake_pos = 0;
	fake_calls = 0;
	fake_last_len = 0;
}

static void
test_bytes_differ_between_calls(void)
{
	enum
	{
		N = 64
	};
	unsigned char a[N][16];
	int			dups = 0;

	for (int i = 0; i < N; i++)
		EXPECT_EQ_INT(cid_random_bytes(a[i], 16), CID_OK);
	for (int i = 0; i < N; i++)
		for (int j = i + 1; j < N; j++)
			if (memcmp(a[i], a[j], 16) == 0)
				dups++;
	EXPECT_EQ_INT(dups, 0);
}

static void
test_zero_length_and_null(void)
{
	unsigned char b[4] = {0xAA, 0xAA, 0xAA, 0xAA};

	EXPECT_EQ_INT(cid_random_bytes(NULL, 0), CID_OK);
	EXPECT_EQ_INT(cid_random_bytes(b, 0), CID_OK);
	EXPECT(b[0] == 0xAA && b[3] == 0xAA);
	EXPECT_EQ_INT(cid_random_bytes(NULL, 16), CID_EINVAL);
}

static void
test_fake_source_used_and_restored(void)
{
	unsigned char b[16];
	unsigned char c[16];
	int			calls;
	bool		all_fake = true;

	/* Leave getrandom bytes in this thread's buffer first. */
	EXPECT_EQ_INT(cid_random_bytes(b, 16), CID_OK);

	fake_reset();
	cid_random_set_source(fake_fill);
	EXPECT_EQ_INT(cid_random_bytes(b, 16), CID_OK);
	EXPECT_EQ_INT(cid_random_bytes(c, 16), CID_OK);
	/* The old buffer was dropped: the fake's stream from its start. */
	for (int i = 0; i < 16; i++)
	{
		if (b[i] != fake_byte((uint64_t) i) || c[i] != fake_byte((uint64_t) i + 16))
			all_fake = false;
	}
	EXPECT(all_fake);
	EXPECT_EQ_INT(fake_calls, 1);

	cid_random_set_source(NULL);
	calls = fake_calls;
	EXPECT_EQ_INT(cid_random_bytes(b, 16), CID_OK);
	EXPECT_EQ_INT(fake_calls, calls);
	/* Not the continuation of the fake stream (1 in 2^128 by chance). */
	for (int i = 0; i < 16; i++)
		c[i] = fake_byte(fake_pos + (uint64_t) i);
	EXPECT(memcmp(b, c, 16) != 0);
}

static void
test_source_called_once_per_buffer(void)
{
	unsigned char b[16];
	int			bad = 0;

	fake_reset();
	cid_random_set_source(fake_fill);
	for (int i = 0; i < 10000; i++)
		if (cid_random_bytes(b, sizeof b) != CID_OK)
			bad++;
	EXPECT_EQ_INT(bad, 0);

	/*
	 * 160,000 bytes: a page-sized buffer needs about 40 refills; one raw
	 * call per request would be 10,000.
	 */
	EXPECT(fake_calls >= 2);
	EXPECT(fake_calls <= 64);
	EXPECT(fake_last_len >= 1024);
	/* Each byte of the stream went out once, in order. */
	EXPECT(fake_pos >= 160000);
	for (int i = 0; i < 16; i++)
		EXPECT_EQ_INT(b[i], fake_byte(159984 + (uint64_t) i));
	cid_random_set_source(NULL);
}

static void
test_large_request(void)
{
	size_t		len = 1 << 20;
	unsigned char *big = malloc(len);
	size_t		zeros = 0;
	bool		stream_ok = true;

	EXPECT(big != NULL);
	if (big == NULL)
		return;

	/* A large request goes to the raw source in one call. */
	fake_reset();
	cid_random_set_source(fake_fill);
	EXPECT_EQ_INT(cid_random_bytes(big, len), CID_OK);
	EXPECT_EQ_INT(fake_calls, 1);
	EXPECT_EQ_U64(fake_last_len, len);
	for (size_t i = 0; i < len; i++)
		if (big[i] != fake_byte(i))
			stream_ok = false;
	EXPECT(stream_ok);
	cid_random_set_source(NULL);

	/* And from getrandom: filled, not left as it was. */
	memset(big, 0, len);
	EXPECT_EQ_INT(cid_random_bytes(big, len), CID_OK);
	for (size_t i = 0; i < len; i++)
		if (big[i] == 0)
			zeros++;
	/* Expected 4096 zero bytes; all-zero would be 1 MiB. */
	EXPECT(zeros < 8192);
	free(big);
}

static void
test_failing_source_reports_error(void)
{
	unsigned char b[16];
	unsigned char big[4096];

	/* The buffer holds good bytes; the failure must not be papered over. */
	EXPECT_EQ_INT(cid_random_bytes(b, 16), CID_OK);

	failing_calls = 0;
	cid_random_set_source(failing_fill);
	EXPECT_EQ_INT(cid_random_bytes(b, 16), CID_ERANDOM);
	EXPECT_EQ_INT(cid_random_bytes(b, 1), CID_ERANDOM);
	EXPECT_EQ_INT(cid_random_bytes(big, sizeof big), CID_ERANDOM);
	EXPECT(failing_calls >= 3);
	EXPECT_EQ_INT(cid_platform_random(NULL, b, 16), CID_ERANDOM);

	/* Generators pass the failure on. */
	{
		cid_uuid	u;

		EXPECT(cid_uuidv4_new(&u, NULL) < 0);
	}

	cid_random_set_source(NULL);
	EXPECT_EQ_INT(cid_random_bytes(b, 16), CID_OK);
	EXPECT_EQ_INT(cid_platform_random(NULL, b, 16), CID_OK);
}

static void
test_byte_frequency(void)
{
	enum
	{
		TOTAL = 1 << 20,
		CHUNK = 16
	};
	static unsigned char chunk[CHUNK];
	uint32_t	count[256] = {0};
	uint64_t	ones = 0;
	double		chi2 = 0;
	double		expect = TOTAL / 256.0;
	uint32_t	lo = UINT32_MAX,
				hi = 0;
	int			bad = 0;

	for (int i = 0; i < TOTAL / CHUNK; i++)
	{
		if (cid_random_bytes(chunk, CHUNK) != CID_OK)
			bad++;
		for (int j = 0; j < CHUNK; j++)
		{
			count[chunk[j]]++;
			ones += (uint64_t) __builtin_popcount(chunk[j]);
		}
	}
	EXPECT_EQ_INT(bad, 0);
	for (int v = 0; v < 256; v++)
	{
		double		d = count[v] - expect;

		chi2 += d * d / expect;
		if (count[v] < lo)
			lo = count[v];
		if (count[v] > hi)
			hi = count[v];
	}

	/*
	 * Wide bounds, so that a good source never trips them: each count is
	 * 4096 +- 64 (one sigma), chi-square with 255 degrees of freedom is
	 * 255 +- 23, the bit count 4,194,304 +- 1448.
	 */
	printf("# byte counts %u..%u, chi2 %.1f, ones %" PRIu64 "\n", lo, hi, chi2, ones);
	EXPECT(lo > 3500);
	EXPECT(hi < 4700);
	EXPECT(chi2 < 450);
	EXPECT(ones > 4194304 - 15000 && ones < 4194304 + 15000);
}

static void
test_platform_clock(void)
{
	int64_t		a = cid_platform_clock(NULL);
	int64_t		b = cid_platform_clock(NULL);
	time_t		now = time(NULL);

	/* After 2024-01-01 and within two seconds of time(). */
	EXPECT(a > INT64_C(1704067200) * 1000000000);
	EXPECT(b >= a - 1000000000);
	EXPECT(a / 1000000000 >= (int64_t) now - 2 && a / 1000000000 <= (int64_t) now + 2);
	/* Nanoseconds, not a coarse tick: some reading has a non-ms remainder. */
	{
		bool		fine = false;

		for (int i = 0; i < 1000 && !fine; i++)
			if (cid_platform_clock(NULL) % 1000000 != 0)
				fine = true;
		EXPECT(fine);
	}
}

static int64_t
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void
test_platform_sleep(void)
{
	int64_t		t0,
				t1;

	/* A long wait sleeps most of it (all but about a millisecond). */
	t0 = mono_ns();
	cid_platform_sleep(NULL, 20000000);
	t1 = mono_ns();
	EXPECT(t1 - t0 >= 18000000);
	EXPECT(t1 - t0 < 2000000000);

	/*
	 * A short wait spins for about the time asked (it must not return at
	 * once: the Snowflake driver counts what it asked for against its
	 * wait budget).  No upper bound: a loaded machine may delay a yield.
	 */
	t0 = mono_ns();
	cid_platform_sleep(NULL, 300000);
	t1 = mono_ns();
	EXPECT(t1 - t0 >= 300000);

	/* Zero and negative waits return. */
	cid_platform_sleep(NULL, 0);
	cid_platform_sleep(NULL, -5);
}

int
main(void)
{
	TAP_CASE(test_bytes_differ_between_calls);
	TAP_CASE(test_zero_length_and_null);
	TAP_CASE(test_fake_source_used_and_restored);
	TAP_CASE(test_source_called_once_per_buffer);
	TAP_CASE(test_large_request);
	TAP_CASE(test_failing_source_reports_error);
	TAP_CASE(test_byte_frequency);
	TAP_CASE(test_platform_clock);
	TAP_CASE(test_platform_sleep);
	return tap_done();
}
