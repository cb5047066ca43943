/*
 * test_fork.c — after fork() a child must never hand out random bytes its
 * parent held: parent and child draw raw bytes and IDs of every random
 * scheme, the child sends its share through a pipe, and no value may occur
 * on both sides.  Each fork defence of src/random.c is also tested alone.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "chronoid.h"
#include "random_internal.h"
#include "tap.h"
#include "testutil.h"

#define NREC 512				/* 16-byte records per process: 8 KiB, two
								 * buffers' worth */

/* Fill out[0..n) with records; 0 on success. */
typedef int (*producer_fn) (tu_rec16 *out, size_t n);

/* Generators set up (and used) by the parent before it forks. */
static cid_uuidv7_gen v7_gen;
static cid_ulid_gen ulid_plain_gen;
static cid_ulid_gen ulid_mono_gen;

/*
 * A clock stopped at one instant, random bytes from the platform.  With it
 * parent and child generators step through the same timestamps, so their
 * IDs differ only where fresh random bits went in: a shared buffer shows
 * up as duplicate IDs instead of hiding behind different clock readings.
 */
static int64_t frozen_ns;

static int64_t
frozen_clock(void *ctx)
{
	return *(const int64_t *) ctx;
}

static const cid_env frozen_env = {frozen_clock, NULL, NULL, &frozen_ns};

static int
produce_raw(tu_rec16 *out, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (cid_random_bytes(out[i], 16) != CID_OK)
			return -1;
	return 0;
}

static int
produce_uuidv4(tu_rec16 *out, size_t n)
{
	for (size_t i = 0; i < n; i++)
	{
		cid_uuid	u;

		if (cid_uuidv4_new(&u, NULL) != CID_OK)
			return -1;
		memcpy(out[i], u.bytes, 16);
	}
	return 0;
}

/*
 * The parent's UUIDv7 generator on the frozen clock, inherited: both sides
 * step the same (ms, fraction) state by one per call, so only rand_b keeps
 * their UUIDs apart — exactly what a shared buffer would break.
 */
static int
produce_uuidv7_inherited(tu_rec16 *out, size_t n)
{
	for (size_t i = 0; i < n; i++)
	{
		cid_uuid	u;

		if (cid_uuidv7_next(&v7_gen, &u) != CID_OK)
			return -1;
		memcpy(out[i], u.bytes, 16);
	}
	return 0;
}

/* n ULIDs from gen into out; 0 on success. */
static int
fill_ulids(cid_ulid_gen *gen, tu_rec16 *out, size_t n)
{
	for (size_t i = 0; i < n; i++)
	{
		cid_ulid	u;

		if (cid_ulid_next(gen, &u) != CID_OK)
			return -1;
		memcpy(out[i], u.bytes, 16);
	}
	return 0;
}

static int
produce_ulid_plain_inherited(tu_rec16 *out, size_t n)
{
	return fill_ulids(&ulid_plain_gen, out, n);
}

/*
 * A monotonic generator made after the fork, on the frozen clock: its
 * first ULID draws fresh random bits and the rest count up from there, so
 * parent and child runs overlap only if their random starts were shared.
 */
static int
produce_ulid_monotonic_fresh(tu_rec16 *out, size_t n)
{
	cid_ulid_gen gen;

	if (cid_ulid_init(&gen, true, &frozen_env) != CID_OK)
		return -1;
	return fill_ulids(&gen, out, n);
}

/*
 * The parent's monotonic generator, inherited.  Within the millisecond of
 * its last ULID both sides would count up from the same value and repeat
 * each other with no randomness involved (the same holds for a Snowflake
 * generator with one node, which is why Snowflake is not tested here: it
 * has no random bits, and a forked child needs its own node).  So wait for
 * the next millisecond, where the generator draws fresh random bits.
 */
static int
produce_ulid_monotonic_inherited(tu_rec16 *out, size_t n)
{
	int64_t		last_ms = cid_ulid_unix_ms((const cid_ulid *) ulid_mono_gen.last);
	int64_t		now;

	do
	{
		now = cid_platform_clock(NULL);
		if (now < 0)
			return -1;
	} while (now / 1000000 <= last_ms);

	return fill_ulids(&ulid_mono_gen, out, n);
}

/* Values present in both sorted arrays, plus repeats inside either. */
static size_t
count_shared(tu_rec16 *a, size_t na, tu_rec16 *b, size_t nb)
{
	size_t		i = 0,
				j = 0,
				shared = 0;

	qsort(a, na, sizeof(tu_rec16), tu_cmp_rec16);
	qsort(b, nb, sizeof(tu_rec16), tu_cmp_rec16);
	shared += tu_count_adjacent_equal(a, na, 16);
	shared += tu_count_adjacent_equal(b, nb, 16);
	while (i < na && j < nb)
	{
		int			c = memcmp(a[i], b[j], 16);

		if (c == 0)
		{
			shared++;
			i++;
			j++;
		}
		else if (c < 0)
			i++;
		else
			j++;
	}
	return shared;
}

static int
write_all(int fd, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	while (len > 0)
	{
		ssize_t		n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t) n;
	}
	return 0;
}

static size_t
read_all(int fd, void *buf, size_t len)
{
	unsigned char *p = buf;
	size_t		got = 0;

	while (got < len)
	{
		ssize_t		n = read(fd, p + got, len - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t) n;
	}
	return got;
}

typedef enum fork_kind
{
	FORK_LIBC,					/* fork(): atfork handlers run */
	FORK_RAW					/* no atfork handlers, as raw clone(2) */
} fork_kind;

static pid_t
do_fork(fork_kind kind)
{
	if (kind == FORK_LIBC)
		return fork();
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
	return _Fork();
#else
	return (pid_t) syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0);
#endif
}

/*
 * Fork; parent and child each run produce() for NREC records; the child's
 * go through a pipe.  Returns the number of values seen on both sides (or
 * repeated), or SIZE_MAX when the child or a producer failed.  extra, when
 * not NULL, adds nextra more parent-side records to compare against.
 */
static tu_rec16 last_child[NREC];	/* the last child's records */

static size_t
fork_and_compare(fork_kind kind, producer_fn produce, tu_rec16 *extra, size_t nextra)
{
	static tu_rec16 mine[NREC * 8];
	tu_rec16   *theirs = last_child;
	int			fds[2];
	pid_t		pid;
	int			status = 0;
	size_t		got;
	int			rc;

	if (pipe(fds) != 0)
		return SIZE_MAX;
	fflush(stdout);
	pid = do_fork(kind);
	if (pid < 0)
		return SIZE_MAX;
	if (pid == 0)
	{
		close(fds[0]);
		if (produce(theirs, NREC) != 0 || write_all(fds[1], theirs, sizeof last_child) != 0)
			_exit(1);
		_exit(0);
	}
	close(fds[1]);
	rc = produce(mine, NREC);
	got = read_all(fds[0], theirs, sizeof last_child);
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (rc != 0 || got != sizeof last_child || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
	{
		printf("# producer %d, got %zu bytes, child status %d\n", rc, got, status);
		return SIZE_MAX;
	}
	if (extra != NULL)
	{
		if (nextra > NREC * 7)
			nextra = NREC * 7;
		memcpy(mine + NREC, extra, nextra * sizeof(tu_rec16));
	}
	return count_shared(mine, NREC + (extra ? nextra : 0), theirs, NREC);
}

/* Leave this thread's buffer nearly full, as a busy parent's would be. */
static void
prefill(void)
{
	unsigned char b[16];

	cid_random_set_source(NULL);	/* a fresh, empty buffer */
	EXPECT_EQ_INT(cid_random_bytes(b, sizeof b), CID_OK);
}

static void
test_raw_bytes_prefilled_parent(void)
{
	prefill();
	EXPECT_EQ_U64(fork_and_compare(FORK_LIBC, produce_raw, NULL, 0), 0);
}

static void
test_uuidv4(void)
{
	prefill();
	EXPECT_EQ_U64(fork_and_compare(FORK_LIBC, produce_uuidv4, NULL, 0), 0);
}

static void
test_uuidv7_inherited_generator(void)
{
	cid_uuid	u;

	frozen_ns = cid_platform_clock(NULL);
	prefill();
	EXPECT_EQ_INT(cid_uuidv7_init(&v7_gen, &frozen_env), CID_OK);
	EXPECT_EQ_INT(cid_uuidv7_next(&v7_gen, &u), CID_OK);
	EXPECT_EQ_U64(fork_and_compare(FORK_LIBC, produce_uuidv7_inherited, NULL, 0), 0);
}

static void
test_ulid_plain_inherited_generator(void)
{
	cid_ulid	u;

	prefill();
	EXPECT_EQ_INT(cid_ulid_init(&ulid_plain_gen, false, NULL), CID_OK);
	EXPECT_EQ_INT(cid_ulid_next(&ulid_plain_gen, &u), CID_OK);
	EXPECT_EQ_U64(fork_and_compare(FORK_LIBC, produce_ulid_plain_inherited, NULL, 0), 0);
}

static void
test_ulid_monotonic_fresh_generator(void)
{
	frozen_ns = cid_platform_clock(NULL);
	prefill();
	EXPECT_EQ_U64(fork_and_compare(FORK_LIBC, produce_ulid_monotonic_fresh, NULL, 0), 0);
}

static void
test_ulid_monotonic_inherited_generator(void)
{
	cid_ulid	u;

	prefill();
	EXPECT_EQ_INT(cid_ulid_init(&ulid_mono_gen, true, NULL), CID_OK);
	EXPECT_EQ_INT(cid_ulid_next(&ulid_mono_gen, &u), CID_OK);
	EXPECT_EQ_U64(fork_and_compare(FORK_LIBC, produce_ulid_monotonic_inherited, NULL, 0), 0);
}

/* Only the atfork generation counter: WIPEONFORK off for this buffer. */
static void
test_atfork_defence_alone(void)
{
	prefill();
	if (cid_random_test_wipeonfork(false) != 0)
		printf("# MADV_KEEPONFORK not available; buffer was never wiped anyway\n");
	EXPECT_EQ_U64(fork_and_compare(FORK_LIBC, produce_raw, NULL, 0), 0);
	(void) cid_random_test_wipeonfork(true);
}

/* Only MADV_WIPEONFORK: a fork that runs no atfork handlers. */
static void
test_wipeonfork_defence_alone(void)
{
	prefill();
	if (cid_random_test_wipeonfork(true) != 0)
	{
		printf("# no MADV_WIPEONFORK (Linux < 4.14): raw clone is not covered\n");
		return;
	}
	EXPECT_EQ_U64(fork_and_compare(FORK_RAW, produce_raw, NULL, 0), 0);
}

/*
 * The control: with both defences off, the child does repeat the bytes
 * its parent held, so the comparison above can see the failure it checks.
 */
static void
test_control_detects_reuse_without_defences(void)
{
	size_t		shared;

	prefill();
	if (cid_random_test_wipeonfork(false) != 0)
		printf("# MADV_KEEPONFORK not available\n");
	shared = fork_and_compare(FORK_RAW, produce_raw, NULL, 0);
	(void) cid_random_test_wipeonfork(true);
	EXPECT(shared != SIZE_MAX);
	/* The parent held 254 unread 16-byte chunks; the child reads them all. */
	EXPECT(shared >= 200 && shared != SIZE_MAX);
}

/* Fork from a thread while another thread keeps drawing bytes. */
typedef struct mt_arg
{
	atomic_bool stop;
	atomic_size_t progress;
	tu_rec16   *out;
	size_t		cap;
	size_t		n;
	size_t		shared;
	int			failed;
} mt_arg;

static void *
mt_drawer(void *p)
{
	mt_arg	   *a = p;

	while (!atomic_load(&a->stop) && a->n < a->cap)
	{
		if (cid_random_bytes(a->out[a->n], 16) != CID_OK)
			a->failed = 1;
		a->n++;
		atomic_store(&a->progress, a->n);
	}
	return NULL;
}

static void *
mt_forker(void *p)
{
	mt_arg	   *a = p;
	unsigned char b[16];

	/* This thread's buffer is full when it forks. */
	if (cid_random_bytes(b, sizeof b) != CID_OK)
		a->failed = 1;
	a->shared = fork_and_compare(FORK_LIBC, produce_raw, NULL, 0);
	memcpy(a->out, last_child, sizeof last_child);
	return NULL;
}

static void
test_fork_from_multithreaded_parent(void)
{
	static tu_rec16 drawn[NREC * 4];
	static tu_rec16 child[NREC];
	static tu_rec16 main_after[NREC];
	mt_arg		drawer = {.out = drawn, .cap = NREC * 4};
	mt_arg		forker = {.out = child};
	pthread_t	td,
				tf;
	unsigned char b[16];

	atomic_init(&drawer.stop, false);
	atomic_init(&drawer.progress, 0);
	atomic_init(&forker.stop, false);
	atomic_init(&forker.progress, 0);

	/* The main thread's buffer is full too; the child must not use it. */
	prefill();
	EXPECT_EQ_INT(cid_random_bytes(b, sizeof b), CID_OK);
	EXPECT_EQ_INT(pthread_create(&td, NULL, mt_drawer, &drawer), 0);
	/* Let the drawer get going, then fork from a second thread. */
	while (atomic_load(&drawer.progress) < 64)
		sched_yield();
	EXPECT_EQ_INT(pthread_create(&tf, NULL, mt_forker, &forker), 0);
	pthread_join(tf, NULL);
	atomic_store(&drawer.stop, true);
	pthread_join(td, NULL);
	EXPECT_EQ_INT(drawer.failed, 0);
	EXPECT_EQ_INT(forker.failed, 0);
	/* Against the forking thread's own bytes... */
	EXPECT_EQ_U64(forker.shared, 0);
	/* ...the other thread's, and what the main thread holds. */
	EXPECT_EQ_INT(produce_raw(main_after, NREC), 0);
	EXPECT_EQ_U64(count_shared(drawn, drawer.n, child, NREC), 0);
	EXPECT_EQ_U64(count_shared(main_after, NREC, child, NREC), 0);

	/* And a child of the main thread, after the threads are gone. */
	EXPECT_EQ_U64(fork_and_compare(FORK_LIBC, produce_raw, drawn, drawer.n), 0);
}

int
main(void)
{
	TAP_CASE(test_raw_bytes_prefilled_parent);
	TAP_CASE(test_uuidv4);
	TAP_CASE(test_uuidv7_inherited_generator);
	TAP_CASE(test_ulid_plain_inherited_generator);
	TAP_CASE(test_ulid_monotonic_fresh_generator);
	TAP_CASE(test_ulid_monotonic_inherited_generator);
	TAP_CASE(test_atfork_defence_alone);
	TAP_CASE(test_wipeonfork_defence_alone);
	TAP_CASE(test_control_detects_reuse_without_defences);
	TAP_CASE(test_fork_from_multithreaded_parent);
	return tap_done();
}
