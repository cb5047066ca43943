/*
 * random.c — buffered, fork-safe random bytes: a per-thread page of bytes
 * from a raw CSPRNG (getrandom(2) unless replaced), handed out once each.
 * docs/design-random.md explains the fork defences.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <unistd.h>

#include "chronoid.h"
#include "random_internal.h"

/*
 * One page per thread: a 16-byte header and the bytes.  The unread bytes
 * are the last avail bytes of data[].  The header lives in the same
 * mapping as the bytes so that MADV_WIPEONFORK zeroes both at once: a
 * child's copy reads avail == 0, i.e. empty.
 */
#define RBUF_BYTES	(4096 - 2 * sizeof(uint64_t))

typedef struct cid_rbuf
{
	uint64_t	avail;			/* unread bytes, at the end of data[] */
	uint64_t	gen;			/* rbuf_gen when the bytes were drawn */
	unsigned char data[RBUF_BYTES];
} cid_rbuf;

/*
 * Requests above this go to the raw source directly: one system call
 * serves them either way, and they would drain most of the buffer.
 */
#define RBUF_DIRECT_MIN 1024

/*
 * Bumped in every child after fork() and by cid_random_set_source(); a
 * buffer drawn under another value is discarded before use.  Starts at 1
 * so that a wiped header (gen 0) never matches.
 */
static _Atomic uint64_t rbuf_gen = 1;

/*
 * Bumped in every child after fork() only: what cid_random_fork_epoch()
 * tells the generators whose state belongs to one process (ObjectId).
 */
static _Atomic uint64_t fork_gen = 1;

/* NULL means getrandom(2). */
static _Atomic(cid_raw_random_fn) raw_source;

/* Whether new buffers get MADV_WIPEONFORK (turned off only by tests). */
static atomic_bool rbuf_wipe = true;

static pthread_once_t rbuf_once = PTHREAD_ONCE_INIT;
static pthread_key_t rbuf_key;
static bool rbuf_key_ok;
static bool rbuf_atfork_ok;
static size_t rbuf_map_size;

static _Thread_local cid_rbuf *tl_rbuf;

/*
 * getrandom(2) with flags 0: blocks only until the kernel pool is first
 * seeded at boot, then never fails short of ENOSYS (Linux before 3.17,
 * for which there is no fallback: docs/design-random.md).  It may return
 * fewer bytes than asked (above 256 bytes, when a signal arrives), so loop.
 */
static int
getrandom_fill(void *buf, size_t len)
{
	unsigned char *p = buf;

	while (len > 0)
	{
		ssize_t		n = getrandom(p, len, 0);

		if (n < 0)
		{
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t) n;
	}
	return 0;
}

static int
raw_fill(void *buf, size_t len)
{
	cid_raw_random_fn fill = atomic_load_explicit(&raw_source, memory_order_acquire);
	int			rc;

	rc = fill ? fill(buf, len) : getrandom_fill(buf, len);
	return rc < 0 ? CID_ERANDOM : CID_OK;
}

/* In the child, between fork() returning and any other code running. */
static void
rbuf_atfork_child(void)
{
	atomic_fetch_add_explicit(&rbuf_gen, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&fork_gen, 1, memory_order_relaxed);
}

/* Thread exit: unmap the thread's page (its unread bytes go with it). */
static void
rbuf_destroy(void *arg)
{
	if (arg == NULL)
		return;
	if (tl_rbuf == arg)
		tl_rbuf = NULL;
	munmap(arg, rbuf_map_size);
}

static void
rbuf_init_once(void)
{
	long		page = sysconf(_SC_PAGESIZE);
	size_t		psz = page > 0 ? (size_t) page : 4096;

	rbuf_map_size = (sizeof(cid_rbuf) + psz - 1) / psz * psz;
	rbuf_key_ok = pthread_key_create(&rbuf_key, rbuf_destroy) == 0;
	rbuf_atfork_ok = pthread_atfork(NULL, NULL, rbuf_atfork_child) == 0;
}

/*
 * The calling thread's buffer, created empty on first use; NULL when no
 * buffer can be had safely (then every request goes to the raw source).
 */
static cid_rbuf *
rbuf_get(void)
{
	cid_rbuf   *b = tl_rbuf;
	bool		wiped = false;
	void	   *p;

	if (b != NULL)
		return b;
	pthread_once(&rbuf_once, rbuf_init_once);
	p = mmap(NULL, rbuf_map_size, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
#ifdef MADV_WIPEONFORK
	if (atomic_load(&rbuf_wipe))
		wiped = madvise(p, rbuf_map_size, MADV_WIPEONFORK) == 0;
#endif
	/* With neither defence in place a buffer is not safe: go unbuffered. */
	if (!wiped && !rbuf_atfork_ok)
	{
		munmap(p, rbuf_map_size);
		return NULL;
	}
#ifdef MADV_DONTDUMP
	/* Unissued random bytes have no business in a core file. */
	(void) madvise(p, rbuf_map_size, MADV_DONTDUMP);
#endif
	b = p;						/* fresh anonymous memory: avail 0 */
	b->gen = atomic_load_explicit(&rbuf_gen, memory_order_relaxed);
	/*
	 * Without a key the page leaks at thread exit (one page per thread
	 * that ever drew bytes); still correct.
	 */
	if (rbuf_key_ok)
		(void) pthread_setspecific(rbuf_key, b);
	tl_rbuf = b;
	return b;
}

/*
 * Hand out n unread bytes and zero them in the buffer: each byte goes out
 * once, and bytes already issued do not linger in memory (core dumps,
 * a later memory disclosure) next to the ones still to come.
 */
static inline void
rbuf_take(cid_rbuf *b, unsigned char *out, size_t n)
{
	unsigned char *p = b->data + (RBUF_BYTES - b->avail);

	memcpy(out, p, n);
	memset(p, 0, n);
	b->avail -= n;
}

static int
random_bytes_slow(unsigned char *out, size_t len)
{
	uint64_t	gen = atomic_load_explicit(&rbuf_gen, memory_order_relaxed);
	cid_rbuf   *b;

	if (len == 0)
		return CID_OK;
	if (out == NULL)
		return CID_EINVAL;
	if (len > RBUF_DIRECT_MIN || (b = rbuf_get()) == NULL)
		return raw_fill(out, len);

	if (b->gen != gen)
	{
		/*
		 * Drawn before a fork (we are the child) or from a replaced
		 * source: never hand these out.
		 */
		memset(b->data, 0, RBUF_BYTES);
		b->avail = 0;
		b->gen = gen;
	}

	/* Use up the rest, then refill; the request fits a full buffer. */
	if (b->avail > 0)
	{
		size_t		n = (size_t) b->avail;

		rbuf_take(b, out, n);
		out += n;
		len -= n;
	}
	if (raw_fill(b->data, RBUF_BYTES) != CID_OK)
		return CID_ERANDOM;		/* avail stays 0: nothing half-filled */
	b->avail = RBUF_BYTES;
	rbuf_take(b, out, len);
	return CID_OK;
}

/*
 * The hot path: a check, a memcpy and a counter update.  Everything else
 * (first use, refill, discard after fork, large requests) is out of line.
 */
int
cid_random_bytes(void *buf, size_t len)
{
	cid_rbuf   *b = tl_rbuf;

	if (b != NULL && buf != NULL && len <= b->avail &&
		b->gen == atomic_load_explicit(&rbuf_gen, memory_order_relaxed))
	{
		rbuf_take(b, buf, len);
		return CID_OK;
	}
	return random_bytes_slow(buf, len);
}

/*
 * Where the fork handler could not be installed, the process id stands in
 * (a system call per use; bit 62 keeps it apart from the counter's values).
 */
uint64_t
cid_random_fork_epoch(void)
{
	pthread_once(&rbuf_once, rbuf_init_once);
	if (!rbuf_atfork_ok)
		return UINT64_C(1) << 62 | (uint64_t) getpid();
	return atomic_load_explicit(&fork_gen, memory_order_relaxed);
}

/*
 * Replace the raw source for the whole process.  Bumping the generation
 * makes every thread drop what it drew from the old source at its next
 * call, so the new source's bytes are used from then on.
 */
void
cid_random_set_source(cid_raw_random_fn fill)
{
	atomic_store_explicit(&raw_source, fill, memory_order_release);
	atomic_fetch_add_explicit(&rbuf_gen, 1, memory_order_relaxed);
}

int
cid_random_test_wipeonfork(bool enable)
{
	cid_rbuf   *b;

	atomic_store(&rbuf_wipe, enable);
	b = rbuf_get();
	if (b == NULL)
		return -1;
#if defined(MADV_WIPEONFORK) && defined(MADV_KEEPONFORK)
	return madvise(b, rbuf_map_size, enable ? MADV_WIPEONFORK : MADV_KEEPONFORK) == 0 ? 0 : -1;
#else
	return -1;
#endif
}
