/*
 * test_bind.c — bind/, the half of the language packages they share: every
 * status of both headers has its row (the code spelled from its name, one
 * row each), the generated kinds' batch text is their single text, a set
 * of generators of its own runs on its own clock and random source, the
 * words of a bad argument read as the packages print them, and a forked
 * child is told so.  Built without the lease library, as a package
 * built without libpq is.
 */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <math.h>

#include "bind_internal.h"
#include "tap.h"
#include "testutil.h"

/* IDs a kind's batch-text check makes. */
#define N 50

/* Every status of chronoid.h and chronoid_lease.h, with its name. */
#define S(x) {x, #x}
static const struct
{
	int			status;
	const char *name;
}			all[] = {
	S(CID_EINVAL), S(CID_ENODE), S(CID_ELAYOUT), S(CID_ESYNTAX), S(CID_ELENGTH),
	S(CID_EOVERFLOW), S(CID_ETIME_RANGE), S(CID_ECLOCK_BACKWARDS), S(CID_EDRIFT),
	S(CID_EWAIT_TIMEOUT), S(CID_EEXHAUSTED), S(CID_EMONOTONIC_OVERFLOW), S(CID_ERANDOM),
	S(CID_ECLOCK), S(CID_ENOTIME), S(CID_EUNKNOWN), S(CID_EAGAIN), S(CID_ENODE_HELD),
	S(CID_ECLAIM), S(CID_EFORKED), S(CID_ELEASE_DB), S(CID_ELEASE_FULL),
	S(CID_ELEASE_EXPIRED), S(CID_ELEASE_LOST), S(CID_ELEASE_FORKED), S(CID_ELEASE_CLOCK),
	S(CID_ELEASE_RELEASED), S(CID_EBLOCK_DB), S(CID_EBLOCK_EXHAUSTED), S(CID_EBLOCK_FORKED),
};

static void
test_every_status_has_its_code(void)
{
	size_t		n = sizeof(all) / sizeof(all[0]);

	for (size_t i = 0; i < n; i++)
	{
		const cid_bind_status *row = cid_bind_status_of(all[i].status);
		char		want[64];

		/* CID_ENODE -> CHRONOID_ENODE: the code is the name, not a copy of it */
		snprintf(want, sizeof(want), "CHRONOID_%s", all[i].name + 4);
		EXPECT_EQ_INT(row->status, all[i].status);
		EXPECT_STR(row->code, want);
		EXPECT(row->class_name != NULL && row->class_name[0] != '\0');
		for (size_t j = 0; j < i; j++)
			EXPECT(cid_bind_status_of(all[j].status) != row);
	}
	/* The core's statuses are -1 .. CID_EFORKED, all of them listed above. */
	for (int st = -1; st >= CID_EFORKED; st--)
		EXPECT(strcmp(cid_bind_status_of(st)->code, "CHRONOID_ERROR") != 0);
	EXPECT_STR(cid_bind_status_of(CID_OK)->code, "CHRONOID_ERROR");
	EXPECT_STR(cid_bind_status_of(-999)->code, "CHRONOID_ERROR");
	EXPECT_EQ_INT(cid_bind_status_of(-999)->cls, CID_BIND_GENERATOR_ERROR);
}

static void
test_classes_follow_the_kind_of_failure(void)
{
	/* a bad value is the caller's; a parent's object in a child is a fork */
	EXPECT_EQ_INT(cid_bind_status_of(CID_ESYNTAX)->cls, CID_BIND_VALUE_ERROR);
	EXPECT_STR(cid_bind_status_of(CID_ESYNTAX)->class_name, "ChronoidValueError");
	EXPECT_EQ_INT(cid_bind_status_of(CID_EAGAIN)->cls, CID_BIND_WOULD_WAIT);
	EXPECT_EQ_INT(cid_bind_status_of(CID_ELEASE_FORKED)->cls, CID_BIND_FORK_ERROR);
	EXPECT_EQ_INT(cid_bind_status_of(CID_EBLOCK_FORKED)->cls, CID_BIND_FORK_ERROR);
	EXPECT_STR(cid_bind_status_of(CID_EBLOCK_FORKED)->class_name, "ForkError");
	EXPECT_EQ_INT(cid_bind_status_of(CID_ERANDOM)->cls, CID_BIND_GENERATOR_ERROR);
	/* without the lease library the words are the core's */
	EXPECT_STR(cid_bind_strerror(CID_ENODE), cid_strerror(CID_ENODE));
}

static void
test_batch_text_is_the_single_text(void)
{
	const cid_bind_kind *kinds[] = {&cid_bind_uuidv7, &cid_bind_uuidv4, &cid_bind_uuidv6,
	&cid_bind_ulid, &cid_bind_ulid_mono, &cid_bind_objectid, &cid_bind_ksuid};

	EXPECT_EQ_INT(cid_bind_start(), CID_OK);
	EXPECT_EQ_INT(cid_bind_start(), CID_OK);	/* once per process, however called */
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
	{
		const cid_bind_kind *k = kinds[i];
		uint8_t		bytes[N * 20];
		char		json[CID_BIND_JSON_BYTES(N, CID_UUID_STRLEN) + 8];
		char		one[CID_UUID_STRLEN + 1];
		size_t		w = k->text_len + 3;
		size_t		len;

		/* the buffers above: 20 bytes (KSUID), 36 characters (UUID) at most */
		EXPECT(k->size <= 20 && k->text_len <= CID_UUID_STRLEN);
		if (k->size > 20 || k->text_len > CID_UUID_STRLEN)
			continue;
		EXPECT_EQ_INT(k->fill(&cid_bind_gen, bytes, N), CID_OK);
		/* past the room the macro gives, nothing is written */
		memset(json, '#', sizeof(json));
		len = cid_bind_json(k, json, bytes, N);
		EXPECT_EQ_U64(len, N * w + 1);
		EXPECT_EQ_U64(strlen(json), len);
		EXPECT(json[CID_BIND_JSON_BYTES(N, k->text_len)] == '#');
		EXPECT(json[0] == '[' && json[len - 1] == ']');
		for (size_t j = 0; j < N; j++)
		{
			const char *at = json + 1 + w * j;

			k->format(one, bytes + k->size * j);
			EXPECT_EQ_INT(strlen(one), k->text_len);
			EXPECT(at[0] == '"' && at[k->text_len + 1] == '"');
			EXPECT(memcmp(at + 1, one, k->text_len) == 0);
			EXPECT(at[k->text_len + 2] == (j + 1 < N ? ',' : ']'));
		}
		/* no IDs: an empty array, in the 3 bytes the macro gives */
		memset(json, '#', sizeof(json));
		EXPECT_EQ_U64(cid_bind_json(k, json, bytes, 0), 2);
		EXPECT_STR(json, "[]");
		EXPECT(json[CID_BIND_JSON_BYTES(0, k->text_len)] == '#');
		/* one more from next(): a kind's single step works on its own */
		EXPECT_EQ_INT(k->next(&cid_bind_gen, bytes), CID_OK);
	}
	EXPECT_EQ_U64(CID_BIND_MAX_BATCH, (uint64_t) 1 << 24);
}

/*
 * A set of its own (the WebAssembly module's) mints on the clock and the
 * random source it was started on, the kinds without state included; the
 * fake clock is years from the real one, so an ID of the process's
 * generators could not pass.
 */
static void
test_a_set_of_its_own_runs_on_its_env(void)
{
	const cid_bind_kind *kinds[] = {&cid_bind_uuidv7, &cid_bind_uuidv6, &cid_bind_ulid,
	&cid_bind_ulid_mono, &cid_bind_objectid, &cid_bind_ksuid};
	static const uint8_t ones[16] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
	int64_t		ms = INT64_C(1700000000123);
	tu_fake		f = {.now_ns = ms * 1000000, .next_byte = 7};
	cid_env		env = {tu_fake_clock, tu_fake_random, NULL, &f};
	cid_bind_gens g;
	uint8_t		id[3 * 20];
	size_t		calls;

	EXPECT_EQ_INT(cid_bind_gens_init(&g, &env), CID_OK);
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
	{
		const cid_bind_kind *k = kinds[i];
		uint8_t		lo[20],
					hi[20];

		EXPECT_EQ_INT(k->at(lo, ms, NULL), CID_OK);
		EXPECT_EQ_INT(k->at(hi, ms, ones), CID_OK);
		EXPECT_EQ_INT(k->next(&g, id), CID_OK);
		EXPECT_EQ_INT(k->fill(&g, id + k->size, 2), CID_OK);
		for (size_t j = 0; j < 3; j++)
		{
			EXPECT(memcmp(id + k->size * j, lo, k->size) >= 0);
			EXPECT(memcmp(id + k->size * j, hi, k->size) <= 0);
		}
	}
	/* UUIDv4 has no time: its bytes come from the set's random source */
	calls = f.random_calls;
	EXPECT_EQ_INT(cid_bind_uuidv4.next(&g, id), CID_OK);
	EXPECT(f.random_calls > calls);
	EXPECT_EQ_INT(cid_uuid_version((const cid_uuid *) id), 4);
}

static void
test_the_words_of_a_bad_argument(void)
{
	char		q[CID_BIND_QUOTE_MAX];
	char		long_text[200];
	char		want[CID_BIND_QUOTE_MAX];
	char		num[32];
	char		msg[1024];

	cid_bind_quote(q, "a\"b\\c\x01\xc3\xa9", 8);
	EXPECT_STR(q, "\"a\\x22b\\x5cc\\x01\\xc3\\xa9\"");
	cid_bind_quote(q, "", 0);
	EXPECT_STR(q, "\"\"");
	/* at most 60 bytes shown, then the whole length; the worst case fits */
	memset(long_text, 'x', sizeof(long_text));
	cid_bind_quote(q, long_text, sizeof(long_text));
	snprintf(want, sizeof(want), "\"%.60s\"... (200 bytes)", long_text);
	EXPECT_STR(q, want);
	memset(long_text, 0x80, sizeof(long_text));
	cid_bind_quote(q, long_text, sizeof(long_text));
	EXPECT_EQ_INT(strlen(q), 2 + 60 * 4 + strlen("... (200 bytes)"));

	EXPECT_STR(cid_bind_number_text(num, sizeof(num), NAN), "NaN");
	EXPECT_STR(cid_bind_number_text(num, sizeof(num), INFINITY), "Infinity");
	EXPECT_STR(cid_bind_number_text(num, sizeof(num), -INFINITY), "-Infinity");
	EXPECT_STR(cid_bind_number_text(num, sizeof(num), 1.5), "1.5");
	EXPECT_STR(cid_bind_number_text(num, sizeof(num), -3), "-3");
	EXPECT_STR(cid_bind_number_text(num, sizeof(num), 0.1), "0.10000000000000001");

	EXPECT_STR(cid_bind_parse_failed(msg, sizeof(msg), CID_ESYNTAX, "UUID", "0z", 2, 1, "hex"),
			   "invalid UUID \"0z\": character 'z' at position 1 (expected hex)");
	EXPECT_STR(cid_bind_parse_failed(msg, sizeof(msg), CID_ESYNTAX, "ULID", "0\xc3\xa9", 3, 1, "b32"),
			   "invalid ULID \"0\\xc3\\xa9\": byte 0xc3 at position 1 (expected b32)");
	/* characters, not bytes: the é is one */
	EXPECT_STR(cid_bind_parse_failed(msg, sizeof(msg), CID_ELENGTH, "ID", "a\xc3\xa9", 3, 0, "x"),
			   "invalid ID \"a\\xc3\\xa9\": 2 characters (expected x)");
	/* a syntax error at the end has no character to name: the status's words */
	snprintf(want, sizeof(want), "invalid TypeID \"ab\": %s (expected t)", cid_strerror(CID_ESYNTAX));
	EXPECT_STR(cid_bind_parse_failed(msg, sizeof(msg), CID_ESYNTAX, "TypeID", "ab", 2, 2, "t"), want);
	snprintf(want, sizeof(want), "invalid ULID \"8\": %s (expected u)", cid_strerror(CID_EOVERFLOW));
	EXPECT_STR(cid_bind_parse_failed(msg, sizeof(msg), CID_EOVERFLOW, "ULID", "8", 1, 0, "u"), want);

	EXPECT_STR(cid_bind_inspect_expected(CID_OBJECTID_STRLEN), "a MongoDB ObjectId (24 hex digits)");
	EXPECT_STR(cid_bind_inspect_expected(CID_KSUID_STRLEN), "a KSUID (27 base62 characters)");
	EXPECT_STR(cid_bind_inspect_expected(CID_UUID_STRLEN),
			   "a UUID, a ULID or a decimal snowflake of the layout");
}

static void
test_a_forked_child_is_told(void)
{
	uint64_t	before = cid_bind_fork_generation;
	int			fds[2];
	pid_t		pid;

	EXPECT_EQ_INT(cid_bind_start(), CID_OK);
	EXPECT_EQ_INT(pipe(fds), 0);
	pid = fork();
	if (pid == 0)
	{
		/* in the child: the generation moved, so a parent's object refuses */
		char		c = cid_bind_fork_generation == before + 1 ? 'y' : 'n';

		if (write(fds[1], &c, 1) != 1)
			_exit(2);
		_exit(0);
	}
	EXPECT(pid > 0);
	if (pid > 0)
	{
		char		c = '?';
		int			st = 0;

		EXPECT_EQ_INT(read(fds[0], &c, 1), 1);
		EXPECT(c == 'y');
		EXPECT_EQ_INT(waitpid(pid, &st, 0), pid);
		EXPECT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	/* and the parent's did not */
	EXPECT_EQ_U64(cid_bind_fork_generation, before);
	close(fds[0]);
	close(fds[1]);
}

/* The snake name spelled JavaScript's way, into camel (32 bytes). */
static const char *
camel_of(char *camel, const char *s)
{
	size_t		k = 0;

	for (size_t j = 0; s[j] != '\0' && k < 31; j++)
		camel[k++] = s[j] == '_' ? (char) (s[++j] - 'a' + 'A') : s[j];
	camel[k] = '\0';
	return camel;
}

/* Each camel name of names[0..n) is its snake name spelled JavaScript's way. */
static void
expect_camel(const cid_bind_opt_name *names, int n)
{
	char		camel[32];

	for (int i = 0; i < n; i++)
		EXPECT_STR(names[i].camel, camel_of(camel, names[i].snake));
}

static void
test_option_names_in_both_spellings(void)
{
	expect_camel(cid_bind_block_opt_names, CID_BIND_BLOCK_NOPTS);
	expect_camel(cid_bind_lease_opt_names, CID_BIND_LEASE_NOPTS);
	/* Each language's Snowflake names its clock policy its own way. */
	EXPECT_STR(cid_bind_policy_opt_names[CID_BIND_POLICY_ON_BEHIND].snake, "on_behind");
	EXPECT_STR(cid_bind_policy_opt_names[CID_BIND_POLICY_ON_BEHIND].camel, "onClockBehind");
	expect_camel(cid_bind_policy_opt_names + 1, CID_BIND_POLICY_NOPTS - 1);
}

/* Each policy option's edges: in, and one past refused naming it; opts kept. */
static void
test_policy_ranges(void)
{
	static const struct
	{
		int			opt;
		int64_t		lo;
		int64_t		hi;
	}			edge[] = {
		{CID_BIND_POLICY_ON_BEHIND, 0, 2}, {CID_BIND_POLICY_MAX_DRIFT_MS, 0, INT64_MAX / 1000000},
		{CID_BIND_POLICY_MAX_WAIT_MS, 0, INT64_MAX / 1000000},
		{CID_BIND_POLICY_ON_EXHAUSTED, 0, 1}, {CID_BIND_POLICY_MAX_BORROW_TICKS, 0, UINT32_MAX}
	};
	cid_snowflake_opts o,
				def;
	char		err[256],
				want[256];

	cid_snowflake_opts_default(&def);
	for (size_t e = 0; e < sizeof(edge) / sizeof(edge[0]); e++)
	{
		int64_t		v[CID_BIND_POLICY_NOPTS];
		int64_t		tries[4] = {edge[e].lo - 1, edge[e].lo, edge[e].hi, edge[e].hi + 1};

		for (int t = 0; t < 4; t++)
		{
			for (int i = 0; i < CID_BIND_POLICY_NOPTS; i++)
				v[i] = CID_BIND_UNSET;
			v[edge[e].opt] = tries[t];
			o = def;
			err[0] = '\0';
			if (t == 1 || t == 2)
				EXPECT_EQ_INT(cid_bind_snowflake_policy(&o, v, true, err, sizeof(err)), CID_OK);
			else
			{
				EXPECT_EQ_INT(cid_bind_snowflake_policy(&o, v, e % 2 == 0, err, sizeof(err)),
							  CID_EINVAL);
				snprintf(want, sizeof(want), "%s %lld is out of range: expected %lld..%lld",
						 e % 2 == 0 ? cid_bind_policy_opt_names[edge[e].opt].camel :
						 cid_bind_policy_opt_names[edge[e].opt].snake, (long long) tries[t],
						 (long long) edge[e].lo, (long long) edge[e].hi);
				EXPECT(strncmp(err, want, strlen(want)) == 0);
				EXPECT(memcmp(&o, &def, sizeof(o)) == 0);
			}
		}
	}
	/* unset leaves every default */
	{
		int64_t		v[CID_BIND_POLICY_NOPTS];

		for (int i = 0; i < CID_BIND_POLICY_NOPTS; i++)
			v[i] = CID_BIND_UNSET;
		o = def;
		EXPECT_EQ_INT(cid_bind_snowflake_policy(&o, v, false, err, sizeof(err)), CID_OK);
		EXPECT(memcmp(&o, &def, sizeof(o)) == 0);
	}
}

int
main(void)
{
	TAP_CASE(test_every_status_has_its_code);
	TAP_CASE(test_classes_follow_the_kind_of_failure);
	TAP_CASE(test_batch_text_is_the_single_text);
	TAP_CASE(test_a_set_of_its_own_runs_on_its_env);
	TAP_CASE(test_the_words_of_a_bad_argument);
	TAP_CASE(test_a_forked_child_is_told);
	TAP_CASE(test_option_names_in_both_spellings);
	TAP_CASE(test_policy_ranges);
	return tap_done();
}
