/*
 * node_claim.c — host-wide claims of Snowflake node numbers: an exclusive
 * POSIX record lock per (directory, scope, number), and a registry of this
 * process's own claims.  The only file of the core that opens files and
 * allocates memory (chronoid.h, "Node claims", says why these locks).
 */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "chronoid.h"

/* How often a lock that was released between F_SETLK and F_GETLK is retried. */
#define LOCK_TRIES 3

struct cid_node_claim
{
	struct cid_node_claim *next;	/* the registry's list */
	pid_t		pid;			/* the process that made the claim */
	int			fd;				/* the locked file; -1 once closed */
	dev_t		dir_dev;		/* the directory's identity: two spellings
								 * of one path are one key */
	ino_t		dir_ino;
	uint64_t	node;
	char	   *name;			/* inside path: SCOPE.NODE.lock */
	char		path[];			/* DIR/SCOPE.NODE.lock */
};

/*
 * This process's claims, and claims inherited from the processes it was
 * forked from (pid differs), which are closed the first time the key is
 * claimed here.  The mutex is taken around fork() so that a child never
 * starts with it locked by a thread that does not exist there.
 */
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cid_node_claim *registry;
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

static void
install_atfork(void)
{
	pthread_atfork(registry_acquire, registry_drop, registry_drop);
}

/* printf into err (when there is room); returns status. */
static int
fail(int status, char *err, size_t errlen, const char *fmt,...)
{
	if (err != NULL && errlen > 0)
	{
		va_list		ap;

		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return status;
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
			fail(CID_ECLAIM, err, errlen, "cannot set the mode of claim directory \"%s\": %s",
				 dir, strerror(errno));
			return -1;
		}
	}
	else if (errno != EEXIST)
	{
		fail(CID_ECLAIM, err, errlen, "cannot create claim directory \"%s\": %s%s",
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
			fail(CID_ECLAIM, err, errlen, "claim directory \"%s\" is a symbolic link", dir);
		else
			fail(CID_ECLAIM, err, errlen, "cannot open claim directory \"%s\": %s",
				 dir, strerror(e));
		return -1;
	}
	if (fstat(fd, st) != 0)
	{
		fail(CID_ECLAIM, err, errlen, "cannot stat claim directory \"%s\": %s",
			 dir, strerror(errno));
		close(fd);
		return -1;
	}
	/* Whoever owns the directory can unlink a held lock file and so let a
	 * second process lock a new file of the same name. */
	if (st->st_uid != 0 && st->st_uid != geteuid())
	{
		fail(CID_ECLAIM, err, errlen,
			 "claim directory \"%s\" belongs to uid %ld, neither root nor this user (uid %ld)",
			 dir, (long) st->st_uid, (long) geteuid());
		close(fd);
		return -1;
	}
	/* Likewise anyone who may write into it, unless the sticky bit stops
	 * them from removing files that are not theirs. */
	if ((st->st_mode & (S_IWGRP | S_IWOTH)) != 0 && (st->st_mode & S_ISVTX) == 0)
	{
		fail(CID_ECLAIM, err, errlen,
			 "claim directory \"%s\" is writable by others but not sticky (mode %04o)",
			 dir, (unsigned) (st->st_mode & 07777));
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Who holds a write lock on fd's file: its pid, 0 when the kernel does not
 * say, -1 when nobody holds one (any more).
 */
static long
lock_holder(int fd)
{
	struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};

	if (fcntl(fd, F_GETLK, &fl) != 0 || fl.l_type == F_UNLCK)
		return -1;
	return fl.l_pid > 0 ? (long) fl.l_pid : 0;
}

static int
refuse_held(long pid, const char *scope, uint64_t node, const char *path,
			long *holder_pid, char *err, size_t errlen)
{
	if (holder_pid != NULL)
		*holder_pid = pid;
	if (pid > 0)
		return fail(CID_ENODE_HELD, err, errlen,
					"node %" PRIu64 " of scope \"%s\" is held by process %ld%s (%s)",
					node, scope, pid, pid == (long) getpid() ? " (this process)" : "", path);
	return fail(CID_ENODE_HELD, err, errlen,
				"node %" PRIu64 " of scope \"%s\" is held by another process (%s)",
				node, scope, path);
}

/*
 * The lock file could not be opened for writing: it belongs to another
 * user who made it private.  Say whether someone holds it.
 */
static int
refuse_unwritable(int dirfd, struct cid_node_claim *c, const char *scope,
				  long *holder_pid, char *err, size_t errlen)
{
	int			fd = openat(dirfd, c->name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	long		pid = fd >= 0 ? lock_holder(fd) : -1;

	if (fd >= 0)
		close(fd);
	if (pid >= 0)
		return refuse_held(pid, scope, c->node, c->path, holder_pid, err, errlen);
	return fail(CID_ECLAIM, err, errlen,
				"lock file \"%s\" is not writable by this user and nobody holds it: remove it",
				c->path);
}

/* Close the claims of key that this process inherited through fork(). */
static void
drop_inherited(const struct cid_node_claim *key, pid_t self)
{
	struct cid_node_claim **pp = &registry;

	while (*pp != NULL)
	{
		struct cid_node_claim *c = *pp;

		if (c->pid != self && c->dir_dev == key->dir_dev && c->dir_ino == key->dir_ino &&
			strcmp(c->name, key->name) == 0)
		{
			if (c->fd >= 0)
				close(c->fd);
			c->fd = -1;
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
		if (c->pid == self && c->dir_dev == key->dir_dev && c->dir_ino == key->dir_ino &&
			strcmp(c->name, key->name) == 0)
			return c;
	return NULL;
}

/* Open and lock c's file (registry held); CID_OK with c->fd set. */
static int
lock_file(int dirfd, bool shared, struct cid_node_claim *c, const char *scope,
		  long *holder_pid, char *err, size_t errlen)
{
	struct stat st;
	int			fd;

	/* O_NONBLOCK: a FIFO planted under the name must not hang the open. */
	fd = openat(dirfd, c->name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK,
				shared ? 0666 : 0600);
	if (fd >= 0)
	{
		/* Made by us: in a shared directory others must be able to lock it
		 * after we are gone, whatever our umask. */
		if (shared && fchmod(fd, 0666) != 0)
		{
			int			e = errno;

			close(fd);
			return fail(CID_ECLAIM, err, errlen, "cannot set the mode of lock file \"%s\": %s",
						c->path, strerror(e));
		}
	}
	else if (errno == EEXIST)
		fd = openat(dirfd, c->name, O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
	{
		if (errno == EACCES || errno == EPERM)
			return refuse_unwritable(dirfd, c, scope, holder_pid, err, errlen);
		return fail(CID_ECLAIM, err, errlen, "cannot open lock file \"%s\": %s",
					c->path, errno == ELOOP ? "it is a symbolic link" : strerror(errno));
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
	{
		close(fd);
		return fail(CID_ECLAIM, err, errlen, "lock file \"%s\" is not a regular file", c->path);
	}

	for (int i = 0; i < LOCK_TRIES; i++)
	{
		struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
		long		pid;

		if (fcntl(fd, F_SETLK, &fl) == 0)
		{
			c->fd = fd;
			return CID_OK;
		}
		if (errno != EACCES && errno != EAGAIN)
		{
			int			e = errno;

			close(fd);
			return fail(CID_ECLAIM, err, errlen, "cannot lock \"%s\": %s", c->path, strerror(e));
		}
		pid = lock_holder(fd);
		if (pid >= 0)
		{
			/* Closing fd drops none of ours: the registry said we hold no
			 * claim on this file. */
			close(fd);
			return refuse_held(pid, scope, c->node, c->path, holder_pid, err, errlen);
		}
		/* Released between the two calls: try again. */
	}
	close(fd);
	return refuse_held(0, scope, c->node, c->path, holder_pid, err, errlen);
}

int
cid_node_claim_acquire(cid_node_claim **out, const char *scope, uint64_t node,
					   const char *dir, long *holder_pid, char *err, size_t errlen)
{
	struct cid_node_claim *c;
	struct cid_node_claim *mine;
	struct stat st;
	size_t		dirlen;
	size_t		namelen;
	bool		shared;
	int			dirfd;
	int			status;
	pid_t		self = getpid();

	if (err != NULL && errlen > 0)
		err[0] = '\0';
	if (holder_pid != NULL)
		*holder_pid = 0;
	if (out == NULL)
		return fail(CID_EINVAL, err, errlen, "no place for the claim (out is NULL)");
	*out = NULL;
	if (scope == NULL)
		scope = "default";
	if (!scope_ok(scope))
		return fail(CID_EINVAL, err, errlen,
					"invalid claim scope \"%.*s\": expected 1 to %d characters of "
					"A-Z a-z 0-9 _ . - not starting with '.'",
					CID_CLAIM_SCOPE_MAX + 1, scope, CID_CLAIM_SCOPE_MAX);
	/* Only the built-in default is created shared: a directory someone
	 * names is theirs to open to others. */
	shared = (dir == NULL && strcmp(cid_node_claim_dir(), CID_CLAIM_DIR_DEFAULT) == 0);
	if (dir == NULL)
		dir = cid_node_claim_dir();
	if (dir[0] == '\0')
		return fail(CID_EINVAL, err, errlen, "empty claim directory");

	pthread_once(&atfork_once, install_atfork);

	/* Room for DIR "/" SCOPE "." 20 digits ".lock" NUL. */
	dirlen = strlen(dir);
	namelen = CID_CLAIM_SCOPE_MAX + 1 + 20 + 5 + 1;
	c = malloc(sizeof(*c) + dirlen + 1 + namelen);
	if (c == NULL)
		return fail(CID_ECLAIM, err, errlen, "out of memory");
	memcpy(c->path, dir, dirlen);
	c->name = c->path + dirlen + 1;
	c->path[dirlen] = '/';
	snprintf(c->name, namelen, "%s.%" PRIu64 ".lock", scope, node);
	c->next = NULL;
	c->pid = self;
	c->fd = -1;
	c->node = node;

	dirfd = open_dir(dir, shared, &st, err, errlen);
	if (dirfd < 0)
	{
		free(c);
		return CID_ECLAIM;
	}
	c->dir_dev = st.st_dev;
	c->dir_ino = st.st_ino;

	/* One registry hold from the check to the insert: two threads asking
	 * for one number cannot both get to the file. */
	registry_acquire();
	drop_inherited(c, self);
	mine = find_own(c, self);
	if (mine != NULL)
		status = refuse_held((long) self, scope, node, c->path, holder_pid, err, errlen);
	else
		status = lock_file(dirfd, shared || (st.st_mode & S_IWOTH) != 0, c, scope,
						   holder_pid, err, errlen);
	if (status == CID_OK)
	{
		c->next = registry;
		registry = c;
	}
	registry_drop();
	close(dirfd);

	if (status != CID_OK)
	{
		free(c);
		return status;
	}
	*out = c;
	return CID_OK;
}

void
cid_node_claim_release(cid_node_claim *claim)
{
	struct cid_node_claim **pp;

	if (claim == NULL)
		return;
	registry_acquire();
	for (pp = &registry; *pp != NULL; pp = &(*pp)->next)
		if (*pp == claim)
		{
			*pp = claim->next;
			break;
		}
	/* In a child after fork() this closes only the child's copy: the
	 * child holds no lock on the file (else drop_inherited had closed
	 * it already), so nothing of its own is dropped either. */
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
	return (claim->pid == getpid() && claim->fd >= 0) ? CID_OK : CID_EFORKED;
}

uint64_t
cid_node_claim_node(const cid_node_claim *claim)
{
	return claim != NULL ? claim->node : 0;
}

const char *
cid_node_claim_path(const cid_node_claim *claim)
{
	return claim != NULL ? claim->path : "";
}
