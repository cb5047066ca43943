/*
 * node_claim.c — claims of Snowflake node numbers: host-wide ones, an
 * open-file-description lock on a lock file of this user's that also keeps
 * the claim's mark (the last millisecond any holder may have issued in),
 * and in-process ones, which keep their mark in memory.  The only file of
 * the core that opens files and allocates memory (chronoid.h, "Node
 * claims", says why these locks; docs/node-claims.md has the whole story).
 */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "chronoid.h"
#include "err_internal.h"

/* How often a lock file replaced between open and lock is tried again. */
#define LOCK_TRIES 3

/*
 * The lock file's record, rewritten in place at offset 0 with one pwrite:
 * fixed width, so a shorter value never leaves a longer one's tail.  The
 * pid is for messages only (an open file description lock has no owner
 * pid the kernel reports); the mark is what a successor starts after.
 */
#define RECORD_FMT "chronoid-claim 1 pid %10u last_ms %20" PRId64 "\n"
#define RECORD_LEN (21 + 10 + 9 + 20 + 1)
#define NO_MARK INT64_MIN

struct cid_node_claim
{
	struct cid_node_claim *next;	/* the registry's list */
	pid_t		pid;			/* the process that made the claim */
	int			fd;				/* the locked file; -1 for an in-process
								 * claim, and once inherited by a child */
	bool		local;			/* in-process claim: no file */
	dev_t		dir_dev;		/* the directory's identity (0 when local):
								 * two spellings of one path are one key */
	ino_t		dir_ino;
	uint64_t	node;
	_Atomic int64_t mark_ms;	/* no holder issued after this Unix ms */
	atomic_bool inherited;		/* set in a child made by fork(): the
								 * cover's check, cheaper than getpid() */
	char	   *name;			/* SCOPE.NODE.lock */
	char		path[];			/* DIR/SCOPE.NODE.lock ("" DIR when local) */
};

/*
 * The mark a released claim leaves behind in this process, so that the
 * next claim of the same key here starts after it even where no file
 * keeps it (an in-process claim, a lock file someone removed).
 */
struct left_mark
{
	struct left_mark *next;
	bool		local;
	dev_t		dir_dev;
	ino_t		dir_ino;
	int64_t		mark_ms;
	char		name[];
};

/*
 * This process's claims, and claims inherited from the processes it was
 * forked from (pid differs; their descriptors are closed in the child at
 * once), which leave the list the first time the key is claimed here.
 * The mutex is taken around fork() so that a child never starts with it
 * locked by a thread that does not exist there; it also orders the writes
 * of the marks.
 */
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cid_node_claim *registry;
static struct left_mark *left_marks;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

static void
registry_acquire(void)
{
	pthread_mutex_lock(&registry_lock);
}

static void
registry_drop(void)
{
	pthread_mutex_unlock(&registry_lock);
}

/*
 * In a child: an open file description lock is shared by every descriptor
 * of the description, so a child that kept the parent's descriptor would
 * hold the parent's claim, and keep it after the parent is gone.  Closing
 * the child's copies leaves the parent's lock alone.
 */
static void
atfork_child(void)
{
	for (struct cid_node_claim *c = registry; c != NULL; c = c->next)
	{
		atomic_store_explicit(&c->inherited, true, memory_order_relaxed);
		if (c->fd >= 0)
		{
			close(c->fd);
			c->fd = -1;
		}
	}
	registry_drop();
}

static void
install_atfork(void)
{
	pthread_atfork(registry_acquire, registry_drop, atfork_child);
}

static bool
scope_ok(const char *scope)
{
	size_t		n = strlen(scope);

	if (n == 0 || n > CID_CLAIM_SCOPE_MAX || scope[0] == '.')
		return false;
	for (size_t i = 0; i < n; i++)
	{
		char		c = scope[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-'))
			return false;
	}
	return true;
}

const char *
cid_node_claim_dir(void)
{
	const char *env = getenv(CID_CLAIM_DIR_ENV);

	return (env != NULL && env[0] != '\0') ? env : CID_CLAIM_DIR_DEFAULT;
}

/*
 * Open the claim directory, creating its last component when missing, and
 * check the rules of chronoid.h: a directory, not a link, owned by root or
 * us, sticky when others can write.  Returns the descriptor or -1 (err
 * filled).
 */
static int
open_dir(const char *dir, bool shared, struct stat *st, char *err, size_t errlen)
{
	int			fd;

	if (mkdir(dir, shared ? 01777 : 0700) == 0)
	{
		/* mkdir's mode passes through the umask; the sticky bit may not. */
		if (chmod(dir, shared ? 01777 : 0700) != 0)
		{
			cid_fail(CID_ECLAIM, err, errlen, "cannot set the mode of claim directory \"%s\": %s",
				 dir, strerror(errno));
			return -1;
		}
	}
	else if (errno != EEXIST)
	{
		cid_fail(CID_ECLAIM, err, errlen, "cannot create claim directory \"%s\": %s%s",
			 dir, strerror(errno),
			 shared ? " (set " CID_CLAIM_DIR_ENV " to a directory of yours)" : "");
		return -1;
	}

	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
	{
		int			e = errno;

		/* O_DIRECTORY with O_NOFOLLOW says ENOTDIR for a link: tell which. */
		if (lstat(dir, st) == 0 && S_ISLNK(st->st_mode))
			cid_fail(CID_ECLAIM, err, errlen, "claim directory \"%s\" is a symbolic link", dir);
		else
			cid_fail(CID_ECLAIM, err, errlen, "cannot open claim directory \"%s\": %s",
				 dir, strerror(e));
		return -1;
	}
	if (fstat(fd, st) != 0)
	{
		cid_fail(CID_ECLAIM, err, errlen, "cannot stat claim directory \"%s\": %s",
			 dir, strerror(errno));
		close(fd);
		return -1;
	}
	/* Whoever owns the directory can unlink or rename any file in it. */
	if (st->st_uid != 0 && st->st_uid != geteuid())
	{
		cid_fail(CID_ECLAIM, err, errlen,
			 "claim directory \"%s\" belongs to uid %ld, neither root nor this user (uid %ld)",
			 dir, (long) st->st_uid, (long) geteuid());
		close(fd);
		return -1;
	}
	/* Likewise anyone who may write into it, unless the sticky bit stops
	 * them from removing files that are not theirs. */
	if ((st->st_mode & (S_IWGRP | S_IWOTH)) != 0 && (st->st_mode & S_ISVTX) == 0)
	{
		cid_fail(CID_ECLAIM, err, errlen,
			 "claim directory \"%s\" is writable by others but not sticky (mode %04o)",
			 dir, (unsigned) (st->st_mode & 07777));
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * The decimal number right-aligned in s[0, width): spaces, an optional
 * '-', at least one digit and nothing else; false when it is not one or
 * leaves int64_t.  Accumulated as a negative number so that INT64_MIN
 * (NO_MARK) reads back too.
 */
static bool
parse_field(const char *s, size_t width, int64_t *out)
{
	size_t		i = 0;
	bool		neg = false;
	bool		any = false;
	int64_t		v = 0;

	while (i < width && s[i] == ' ')
		i++;
	if (i < width && s[i] == '-')
	{
		neg = true;
		i++;
	}
	for (; i < width; i++)
	{
		int			d = s[i] - '0';

		if (d < 0 || d > 9 || v < (INT64_MIN + d) / 10)
			return false;
		v = v * 10 - d;
		any = true;
	}
	if (!any || (!neg && v == INT64_MIN))
		return false;
	*out = neg ? v : -v;
	return true;
}

/*
 * Read the record of fd's lock file: *pid and *mark (NO_MARK for a new,
 * empty file).  CID_ECLAIM when it holds something else.
 */
static int
read_record(int fd, const char *path, long *pid, int64_t *mark, char *err, size_t errlen)
{
	static const char head[] = "chronoid-claim 1 pid ";
	static const char mid[] = " last_ms ";
	char		buf[RECORD_LEN + 1];
	ssize_t		n = pread(fd, buf, RECORD_LEN + 1, 0);
	const char *p = buf;
	int64_t		upid = 0;

	*pid = 0;
	*mark = NO_MARK;
	if (n == 0)
		return CID_OK;
	if (n == RECORD_LEN && memcmp(p, head, sizeof(head) - 1) == 0 &&
		parse_field(p + sizeof(head) - 1, 10, &upid) && upid >= 0 &&
		memcmp(p + sizeof(head) - 1 + 10, mid, sizeof(mid) - 1) == 0 &&
		parse_field(p + sizeof(head) - 1 + 10 + sizeof(mid) - 1, 20, mark) &&
		buf[RECORD_LEN - 1] == '\n')
	{
		*pid = (long) upid;
		return CID_OK;
	}
	*pid = 0;
	*mark = NO_MARK;
	return cid_fail(CID_ECLAIM, err, errlen,
				"lock file \"%s\" holds no claim record of this version (%s): "
				"remove it when no process uses the number",
				path, n < 0 ? strerror(errno) : "unexpected content");
}

static int
write_record(int fd, long pid, int64_t mark)
{
	char		buf[RECORD_LEN + 32];

	if (snprintf(buf, sizeof(buf), RECORD_FMT, (unsigned) pid, mark) != RECORD_LEN)
	{
		errno = EOVERFLOW;
		return -1;
	}
	return pwrite(fd, buf, RECORD_LEN, 0) == RECORD_LEN ? 0 : -1;
}

static int
refuse_held(long pid, const char *scope, uint64_t node, const char *path,
			long *holder_pid, char *err, size_t errlen)
{
	if (holder_pid != NULL)
		*holder_pid = pid;
	if (pid > 0)
		return cid_fail(CID_ENODE_HELD, err, errlen,
					"node %" PRIu64 " of scope \"%s\" is held by process %ld%s (%s)",
					node, scope, pid, pid == (long) getpid() ? " (this process)" : "", path);
	return cid_fail(CID_ENODE_HELD, err, errlen,
				"node %" PRIu64 " of scope \"%s\" is held by another holder: a process, "
				"or another copy of chronoid in this one (%s)",
				node, scope, path);
}

/*
 * A lock file that is not this user's alone: another user could remove,
 * replace or rewrite it, so it is refused (a denial its owner can cause,
 * never a second holder).
 */
static int
refuse_foreign(const struct stat *st, const char *path, char *err, size_t errlen)
{
	if (st->st_uid != geteuid())
		return cid_fail(CID_ECLAIM, err, errlen,
					"lock file \"%s\" belongs to uid %ld, not this user (uid %ld): another "
					"user holds or held this number; remove the file or use a claim "
					"directory of your own (" CID_CLAIM_DIR_ENV ")",
					path, (long) st->st_uid, (long) geteuid());
	if (S_ISLNK(st->st_mode))
		return cid_fail(CID_ECLAIM, err, errlen, "lock file \"%s\" is a symbolic link", path);
	if (!S_ISREG(st->st_mode))
		return cid_fail(CID_ECLAIM, err, errlen, "lock file \"%s\" is not a regular file", path);
	return cid_fail(CID_ECLAIM, err, errlen,
				"lock file \"%s\" has %ld links: a second name for a lock file could "
				"claim one number as two; remove the other names",
				path, (long) st->st_nlink);
}

/* Close the claims of key that this process inherited through fork(). */
static void
drop_inherited(const struct cid_node_claim *key, pid_t self)
{
	struct cid_node_claim **pp = &registry;

	while (*pp != NULL)
	{
		struct cid_node_claim *c = *pp;

		if (c->pid != self && c->local == key->local && c->dir_dev == key->dir_dev &&
			c->dir_ino == key->dir_ino && strcmp(c->name, key->name) == 0)
		{
			*pp = c->next;
			c->next = NULL;
		}
		else
			pp = &c->next;
	}
}

static struct cid_node_claim *
find_own(const struct cid_node_claim *key, pid_t self)
{
	for (struct cid_node_claim *c = registry; c != NULL; c = c->next)
		if (c->pid == self && c->local == key->local && c->dir_dev == key->dir_dev &&
			c->dir_ino == key->dir_ino && strcmp(c->name, key->name) == 0)
			return c;
	return NULL;
}

static struct left_mark *
find_left(const struct cid_node_claim *key)
{
	for (struct left_mark *m = left_marks; m != NULL; m = m->next)
		if (m->local == key->local && m->dir_dev == key->dir_dev &&
			m->dir_ino == key->dir_ino && strcmp(m->name, key->name) == 0)
			return m;
	return NULL;
}

/* Remember c's mark for the next claim of its key here (registry held). */
static void
leave_mark(const struct cid_node_claim *c)
{
	struct left_mark *m = find_left(c);
	int64_t		mark = atomic_load(&c->mark_ms);

	if (m == NULL)
	{
		size_t		len = strlen(c->name) + 1;

		/* Out of memory: the file, where there is one, still has it. */
		m = malloc(sizeof(*m) + len);
		if (m == NULL)
			return;
		memcpy(m->name, c->name, len);
		m->local = c->local;
		m->dir_dev = c->dir_dev;
		m->dir_ino = c->dir_ino;
		m->mark_ms = mark;
		m->next = left_marks;
		left_marks = m;
	}
	else if (mark > m->mark_ms)
		m->mark_ms = mark;
}

/*
 * Open, check and lock c's file (registry held); CID_OK with c->fd set and
 * c->mark_ms the file's mark.
 */
static int
lock_file(int dirfd, struct cid_node_claim *c, const char *scope,
		  long *holder_pid, char *err, size_t errlen)
{
	for (int i = 0; i < LOCK_TRIES; i++)
	{
		struct stat st;
		struct stat now;
		struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
		long		pid;
		int64_t		mark;
		int			fd;
		int			rc;

		/* O_NONBLOCK: a FIFO planted under the name must not hang the open. */
		fd = openat(dirfd, c->name, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0600);
		if (fd < 0)
		{
			int			e = errno;

			if (fstatat(dirfd, c->name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
				(st.st_uid != geteuid() || !S_ISREG(st.st_mode)))
				return refuse_foreign(&st, c->path, err, errlen);
			return cid_fail(CID_ECLAIM, err, errlen, "cannot open lock file \"%s\": %s",
						c->path, e == ELOOP ? "it is a symbolic link" : strerror(e));
		}
		if (fstat(fd, &st) != 0)
		{
			int			e = errno;

			close(fd);
			return cid_fail(CID_ECLAIM, err, errlen, "cannot stat lock file \"%s\": %s",
						c->path, strerror(e));
		}
		if (st.st_uid != geteuid() || !S_ISREG(st.st_mode) || st.st_nlink != 1)
		{
			close(fd);
			return refuse_foreign(&st, c->path, err, errlen);
		}
		/* A file an older version made writable by all: ours to close up. */
		if ((st.st_mode & 077) != 0 && fchmod(fd, 0600) != 0)
		{
			int			e = errno;

			close(fd);
			return cid_fail(CID_ECLAIM, err, errlen, "cannot set the mode of lock file \"%s\": %s",
						c->path, strerror(e));
		}

		/*
		 * An open file description lock: it conflicts with every other
		 * description, in this process (a second copy of the library
		 * included) as in any other, and closing some other descriptor of
		 * the file never drops it, as it would a process's record lock.
		 */
		if (fcntl(fd, F_OFD_SETLK, &fl) != 0)
		{
			int			e = errno;

			if (e == EAGAIN || e == EACCES)
			{
				(void) read_record(fd, c->path, &pid, &mark, NULL, 0);
				close(fd);
				return refuse_held(pid, scope, c->node, c->path, holder_pid, err, errlen);
			}
			close(fd);
			return cid_fail(CID_ECLAIM, err, errlen, "cannot lock \"%s\": %s", c->path, strerror(e));
		}

		/*
		 * Locked: but is it still the file of that name, with no other?  Its
		 * owner (this user) or root may have removed or replaced it between
		 * the open and the lock, and a lock on a file no longer under the
		 * name keeps no one else out.
		 */
		if (fstatat(dirfd, c->name, &now, AT_SYMLINK_NOFOLLOW) != 0 ||
			now.st_dev != st.st_dev || now.st_ino != st.st_ino ||
			fstat(fd, &st) != 0 || st.st_nlink != 1)
		{
			close(fd);
			continue;
		}
		rc = read_record(fd, c->path, &pid, &mark, err, errlen);
		if (rc == CID_OK && write_record(fd, (long) c->pid, mark) != 0)
			rc = cid_fail(CID_ECLAIM, err, errlen, "cannot write lock file \"%s\": %s",
					  c->path, strerror(errno));
		if (rc != CID_OK)
		{
			close(fd);
			return rc;
		}
		c->fd = fd;
		atomic_store(&c->mark_ms, mark);
		return CID_OK;
	}
	return cid_fail(CID_ECLAIM, err, errlen,
				"lock file \"%s\" was replaced while being locked, %d times: "
				"is something removing the claim directory's files?", c->path, LOCK_TRIES);
}

/*
 * The claim for key (scope, node) in dir, or in this process when local.
 * Both kinds share the registry and its refusals.
 */
static int
acquire(cid_node_claim **out, const char *scope, uint64_t node, const char *dir,
		bool local, long *holder_pid, char *err, size_t errlen)
{
	struct cid_node_claim *c;
	struct left_mark *left;
	struct stat st;
	size_t		dirlen;
	size_t		namelen;
	bool		shared = false;
	int			dirfd = -1;
	int			status;
	pid_t		self = getpid();

	if (err != NULL && errlen > 0)
		err[0] = '\0';
	if (holder_pid != NULL)
		*holder_pid = 0;
	if (out == NULL)
		return cid_fail(CID_EINVAL, err, errlen, "no place for the claim (out is NULL)");
	*out = NULL;
	if (scope == NULL)
		scope = "default";
	if (!scope_ok(scope))
		return cid_fail(CID_EINVAL, err, errlen,
					"invalid claim scope \"%.*s\": expected 1 to %d characters of "
					"A-Z a-z 0-9 _ . - not starting with '.'",
					CID_CLAIM_SCOPE_MAX + 1, scope, CID_CLAIM_SCOPE_MAX);
	if (local)
		dir = "";
	else
	{
		/* Only the built-in default is created shared: a directory someone
		 * names is theirs to open to others. */
		shared = (dir == NULL && strcmp(cid_node_claim_dir(), CID_CLAIM_DIR_DEFAULT) == 0);
		if (dir == NULL)
			dir = cid_node_claim_dir();
		if (dir[0] == '\0')
			return cid_fail(CID_EINVAL, err, errlen, "empty claim directory");
		/* A relative one names another directory in every working directory. */
		if (dir[0] != '/')
			return cid_fail(CID_EINVAL, err, errlen,
						"claim directory \"%s\" is not an absolute path: workers started "
						"in different directories would claim in different places", dir);
	}

	pthread_once(&atfork_once, install_atfork);

	/* Room for DIR "/" SCOPE "." 20 digits ".lock" NUL. */
	dirlen = strlen(dir);
	namelen = CID_CLAIM_SCOPE_MAX + 1 + 20 + 5 + 1;
	c = malloc(sizeof(*c) + dirlen + 1 + namelen);
	if (c == NULL)
		return cid_fail(CID_ECLAIM, err, errlen, "out of memory");
	memcpy(c->path, dir, dirlen);
	c->name = c->path + dirlen + (local ? 0 : 1);
	if (!local)
		c->path[dirlen] = '/';
	snprintf(c->name, namelen, "%s.%" PRIu64 "%s", scope, node, local ? "" : ".lock");
	c->next = NULL;
	c->pid = self;
	c->fd = -1;
	c->local = local;
	c->node = node;
	c->dir_dev = 0;
	c->dir_ino = 0;
	atomic_init(&c->mark_ms, NO_MARK);
	atomic_init(&c->inherited, false);

	if (!local)
	{
		dirfd = open_dir(dir, shared, &st, err, errlen);
		if (dirfd < 0)
		{
			free(c);
			return CID_ECLAIM;
		}
		c->dir_dev = st.st_dev;
		c->dir_ino = st.st_ino;
	}

	/* One registry hold from the check to the insert: two threads asking
	 * for one number cannot both get to the file. */
	registry_acquire();
	drop_inherited(c, self);
	if (find_own(c, self) != NULL)
		status = local ?
			cid_fail(CID_ENODE_HELD, err, errlen,
				 "node %" PRIu64 " of scope \"%s\" is already in use by another generator "
				 "of this process", node, scope) :
			refuse_held((long) self, scope, node, c->path, holder_pid, err, errlen);
	else
		status = local ? CID_OK : lock_file(dirfd, c, scope, holder_pid, err, errlen);
	if (status == CID_OK)
	{
		left = find_left(c);
		if (left != NULL && left->mark_ms > atomic_load(&c->mark_ms))
			atomic_store(&c->mark_ms, left->mark_ms);
		c->next = registry;
		registry = c;
	}
	registry_drop();
	if (dirfd >= 0)
		close(dirfd);

	if (status != CID_OK)
	{
		free(c);
		return status;
	}
	*out = c;
	return CID_OK;
}

int
cid_node_claim_acquire(cid_node_claim **out, const char *scope, uint64_t node,
					   const char *dir, long *holder_pid, char *err, size_t errlen)
{
	return acquire(out, scope, node, dir, false, holder_pid, err, errlen);
}

int
cid_node_claim_local(cid_node_claim **out, const char *scope, uint64_t node,
					 char *err, size_t errlen)
{
	return acquire(out, scope, node, NULL, true, NULL, err, errlen);
}

void
cid_node_claim_release(cid_node_claim *claim)
{
	if (claim == NULL)
		return;
	registry_acquire();
	for (struct cid_node_claim **pp = &registry; *pp != NULL; pp = &(*pp)->next)
		if (*pp == claim)
		{
			*pp = claim->next;
			break;
		}
	/*
	 * The mark stays for this process's next claim of the key; one that
	 * was inherited through fork() is the parent's (its descriptor was
	 * closed in the child already).  Closing the descriptor drops the
	 * lock; the file and its mark stay for the next claimant.
	 */
	if (claim->pid == getpid())
		leave_mark(claim);
	if (claim->fd >= 0)
		close(claim->fd);
	registry_drop();
	free(claim);
}

int
cid_node_claim_status(const cid_node_claim *claim)
{
	if (claim == NULL)
		return CID_EINVAL;
	return (claim->pid == getpid() && (claim->local || claim->fd >= 0)) ? CID_OK : CID_EFORKED;
}

int64_t
cid_node_claim_mark_ms(const cid_node_claim *claim)
{
	return claim != NULL ? atomic_load((_Atomic int64_t *) &claim->mark_ms) : INT64_MIN;
}

int
cid_node_claim_start(cid_node_claim *claim, cid_snowflake_gen *gen)
{
	int64_t		mark;

	if (claim == NULL || gen == NULL)
		return CID_EINVAL;
	mark = atomic_load(&claim->mark_ms);
	return mark == NO_MARK ? CID_OK : cid_snowflake_start_after(gen, mark);
}

int
cid_node_claim_cover(cid_node_claim *claim, const cid_snowflake_gen *gen)
{
	int64_t		last;
	int			rc = CID_OK;

	if (claim == NULL || gen == NULL)
		return CID_EINVAL;
	/*
	 * First, whatever the mark says: a child's generator inside a tick its
	 * parent covered would otherwise pass, and the parent mint it again.
	 */
	if (atomic_load_explicit(&claim->inherited, memory_order_relaxed))
		return CID_EFORKED;
	last = cid_snowflake_last_ms(gen);
	if (last <= atomic_load_explicit(&claim->mark_ms, memory_order_relaxed))
		return CID_OK;

	/*
	 * A tick past the mark: the file must say so before the ID leaves this
	 * call, so that a successor after a crash starts after it.  The lock
	 * orders the writes: a later mark written first is never overwritten
	 * by an earlier one.
	 */
	registry_acquire();
	if (claim->pid != getpid() || (!claim->local && claim->fd < 0))
		rc = CID_EFORKED;
	else if (last > atomic_load(&claim->mark_ms))
	{
		if (!claim->local && write_record(claim->fd, (long) claim->pid, last) != 0)
			rc = CID_ECLAIM;
		else
			atomic_store(&claim->mark_ms, last);
	}
	registry_drop();
	return rc;
}

uint64_t
cid_node_claim_node(const cid_node_claim *claim)
{
	return claim != NULL ? claim->node : 0;
}

const char *
cid_node_claim_path(const cid_node_claim *claim)
{
	return (claim != NULL && !claim->local) ? claim->path : "";
}
