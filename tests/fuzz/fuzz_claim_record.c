/*
 * fuzz_claim_record.c — libFuzzer target for the record a node claim's
 * lock file holds (read_record and write_record in src/node_claim.c,
 * which this file includes: the parser is private to it, and a lock file
 * is input any process of the user can write).  Arbitrary bytes as the
 * file's content, read through a memfd as the claim reads its file: the
 * empty file is a new claim with no mark; anything else is accepted only
 * when it has the record's exact length and shape, its pid and mark being
 * the numbers its fields spell (strtoll's reading of the same digits);
 * every refusal says CID_ECLAIM with the path in its message; and what
 * write_record renders for the accepted values reads back the same.
 */
#include "../../src/node_claim.c"

#include <sys/mman.h>

#include "fuzz.h"

/* The decimal field s[0, width) as the record's writer means it: spaces,
 * then a number strtoll reads to its end. */
static bool
field_value(const char *s, size_t width, int64_t *out)
{
	char		buf[32];
	char	   *end;
	size_t		i = 0;

	memcpy(buf, s, width);
	buf[width] = '\0';
	while (i < width && buf[i] == ' ')
		i++;
	if (i == width || buf[i] == '+' || buf[i] == ' ')
		return false;
	for (size_t j = i + (buf[i] == '-'); j < width; j++)
		if (buf[j] < '0' || buf[j] > '9')
			return false;
	errno = 0;
	*out = strtoll(buf + i, &end, 10);
	return errno == 0 && *end == '\0' && end > buf + i + (buf[i] == '-');
}

static int
memfd_with(const uint8_t *data, size_t size)
{
	int			fd = memfd_create("claim-record", 0);

	FUZZ_CHECK(fd >= 0);
	if (size > 0)
		FUZZ_CHECK(pwrite(fd, data, size, 0) == (ssize_t) size);
	return fd;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char head[] = "chronoid-claim 1 pid ";
	static const char mid[] = " last_ms ";
	const size_t pid_at = sizeof(head) - 1;
	const size_t mark_at = pid_at + 10 + sizeof(mid) - 1;
	const char *s = (const char *) data;
	char		err[256];
	long		pid;
	int64_t		mark,
				want_pid,
				want_mark;
	bool		shaped;
	int			fd = memfd_with(data, size);
	int			rc;

	err[0] = '\0';
	rc = read_record(fd, "/x/s.1.lock", &pid, &mark, err, sizeof(err));
	close(fd);

	shaped = size == RECORD_LEN &&
		memcmp(s, head, pid_at) == 0 &&
		field_value(s + pid_at, 10, &want_pid) && want_pid >= 0 &&
		memcmp(s + pid_at + 10, mid, sizeof(mid) - 1) == 0 &&
		field_value(s + mark_at, 20, &want_mark) &&
		s[RECORD_LEN - 1] == '\n';

	if (size == 0)
	{
		FUZZ_CHECK(rc == CID_OK && pid == 0 && mark == NO_MARK);
		return 0;
	}
	FUZZ_CHECK((rc == CID_OK) == shaped);
	if (rc != CID_OK)
	{
		FUZZ_CHECK(rc == CID_ECLAIM && pid == 0 && mark == NO_MARK);
		FUZZ_CHECK(strstr(err, "\"/x/s.1.lock\"") != NULL);
		return 0;
	}
	FUZZ_CHECK(pid == (long) want_pid && mark == want_mark);

	/* The writer's rendering of what was read reads back the same. */
	if (want_pid <= UINT32_MAX)
	{
		long		pid2;
		int64_t		mark2;

		fd = memfd_with(NULL, 0);
		FUZZ_CHECK(write_record(fd, pid, mark) == 0);
		FUZZ_CHECK(read_record(fd, "/x/s.1.lock", &pid2, &mark2, NULL, 0) == CID_OK);
		FUZZ_CHECK(pid2 == pid && mark2 == mark);
		close(fd);
	}
	return 0;
}
