/*
 * test_node_claim.c — host-wide node claims: one holder per (directory,
 * scope, number) across processes and threads, the refusal names the
 * holder, a dead holder's claim is free again, a forked child holds
 * nothing of its parent's, and the directory rules refuse what a hostile
 * user could plant.  Every case works in its own temporary directory.
 */
#define _GNU_SOURCE

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "chronoid.h"
#include "tap.h"
#include "testutil.h"

static char tmpl[] = "/tmp/cid-claim-XXXXXX";
static const char *base;
static char dir[256];
static int	case_no;

/* A fresh claim directory for the case (made by the library itself). */
static const char *
fresh_dir(void)
{
	snprintf(dir, sizeof(dir), "%s/c%d", base, ++case_no);
	return dir;
}

static int
claim(cid_node_claim **c, const char *scope, uint64_t node, long *pid, char *err)
{
	return cid_node_claim_acquire(c, scope, node, dir, pid, err, 256);
}

/*
 * Fork a child that runs fn and exits with its result; the parent gets
 * the pid.  fn's result is 0 for "as expected".
 */
static pid_t
spawn(int (*fn) (void *), void *arg)
{
	pid_t		pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(fn(arg));
	return pid;
}

static int
wait_status(pid_t pid)
{
	int			st = 0;

	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void
test_claim_and_release(void)
{
	cid_node_claim *c = NULL,
			   *c2 = NULL;
	char		err[256];
	char		want[300];
	long		pid = -1;

	fresh_dir();
	EXPECT_EQ_INT(claim(&c, "app", 5, &pid, err), CID_OK);
	EXPECT(c != NULL);
	EXPECT_EQ_U64(cid_node_claim_node(c), 5);
	snprintf(want, sizeof(want), "%s/app.5.lock", dir);
	EXPECT_STR(cid_node_claim_path(c), want);
	EXPECT_EQ_INT(cid_node_claim_status(c), CID_OK);
	EXPECT_EQ_INT(pid, 0);
	cid_node_claim_release(c);
	EXPECT_EQ_INT(claim(&c2, "app", 5, NULL, err), CID_OK);
	cid_node_claim_release(c2);
	cid_node_claim_release(NULL);
	EXPECT_EQ_INT(cid_node_claim_status(NULL), CID_EINVAL);
}

/* The directory is made private when someone names it. */
static void
test_dir_created_private(void)
{
	cid_node_claim *c = NULL;
	struct stat st;
	char		err[256];

	fresh_dir();
	EXPECT_EQ_INT(claim(&c, NULL, 0, NULL, err), CID_OK);
	EXPECT_EQ_INT(stat(dir, &st), 0);
	EXPECT(S_ISDIR(st.st_mode));
	EXPECT_EQ_INT(st.st_mode & 07777, 0700);
	EXPECT(strstr(cid_node_claim_path(c), "/default.0.lock") != NULL);
	cid_node_claim_release(c);
}

/* What a child expects: the number is held by pid. */
typedef struct expect_held
{
	uint64_t	node;
	pid_t		pid;
} expect_held;

static int
child_expect_held(void *arg)
{
	const expect_held *e = arg;
	cid_node_claim *c = NULL;
	long		pid = -1;
	char		err[256];
	char		want[32];
	int			rc = claim(&c, "app", e->node, &pid, err);

	if (rc != CID_ENODE_HELD || pid != e->pid || c != NULL)
	{
		printf("#     child: status %d, pid %ld: %s\n", rc, pid, err);
		return 1;
	}
	snprintf(want, sizeof(want), "node %llu ", (unsigned long long) e->node);
	if (strstr(err, want) == NULL || strstr(err, "\"app\"") == NULL)
	{
		printf("#     child: message \"%s\"\n", err);
		return 2;
	}
	return 0;
}

/*
 * A second claim of one number in one process is refused without the
 * file being opened: closing a second descriptor would have dropped the
 * first claim's lock, which a child process then sees.
 */
static void
test_same_process_refused(void)
{
	cid_node_claim *c = NULL,
			   *c2 = NULL,
			   *other = NULL;
	char		err[256];
	char		want[64];
	long		pid = -1;
	expect_held e = {7, getpid()};

	fresh_dir();
	EXPECT_EQ_INT(claim(&c, "app", 7, NULL, err), CID_OK);
	EXPECT_EQ_INT(claim(&c2, "app", 7, &pid, err), CID_ENODE_HELD);
	EXPECT(c2 == NULL);
	EXPECT_EQ_INT(pid, e.pid);
	snprintf(want, sizeof(want), "held by process %ld (this process)", (long) e.pid);
	EXPECT(strstr(err, want) != NULL);
	printf("#     %s\n", err);
	/* Other numbers and other scopes are other claims. */
	EXPECT_EQ_INT(claim(&other, "app", 8, NULL, err), CID_OK);
	cid_node_claim_release(other);
	EXPECT_EQ_INT(claim(&other, "app2", 7, NULL, err), CID_OK);
	cid_node_claim_release(other);
	/* After all that the lock is still there for other processes. */
	EXPECT_EQ_INT(wait_status(spawn(child_expect_held, &e)), 0);
	cid_node_claim_release(c);
}

/*
 * fork(): the child does not hold the parent's claim, its inherited
 * handle says so, releasing that handle leaves the parent's lock alone,
 * and the child's own claim of the number is refused naming the parent.
 */
static cid_node_claim *inherited;

static int
child_of_holder(void *arg)
{
	expect_held e = {7, getppid()};

	(void) arg;
	if (cid_node_claim_status(inherited) != CID_EFORKED)
		return 10;
	if (child_expect_held(&e) != 0)
		return 11;
	cid_node_claim_release(inherited);
	if (child_expect_held(&e) != 0)
		return 12;
	return 0;
}

static void
test_fork_child_refused(void)
{
	char		err[256];
	expect_held e = {7, getpid()};

	fresh_dir();
	EXPECT_EQ_INT(claim(&inherited, "app", 7, NULL, err), CID_OK);
	EXPECT_EQ_INT(wait_status(spawn(child_of_holder, NULL)), 0);
	/* Still ours, and still refused to a second child. */
	EXPECT_EQ_INT(cid_node_claim_status(inherited), CID_OK);
	EXPECT_EQ_INT(wait_status(spawn(child_expect_held, &e)), 0);
	cid_node_claim_release(inherited);
}

/*
 * A holder that dies (SIGKILL: no cleanup of any kind) frees its number.
 * The child claims, says so through a pipe, and waits to be killed.
 */
static int	ready_pipe[2];

static int
child_hold(void *arg)
{
	cid_node_claim *c = NULL;
	char		err[256];
	char		ok;

	ok = claim(&c, "app", *(uint64_t *) arg, NULL, err) == CID_OK ? 'y' : 'n';
	if (write(ready_pipe[1], &ok, 1) != 1)
		return 1;
	for (;;)
		pause();
}

static void
test_dead_holder_frees(void)
{
	cid_node_claim *c = NULL;
	char		err[256];
	char		ok = 0;
	long		pid = -1;
	uint64_t	node = 9;
	pid_t		child;

	fresh_dir();
	EXPECT_EQ_INT(pipe(ready_pipe), 0);
	child = spawn(child_hold, &node);
	EXPECT(read(ready_pipe[0], &ok, 1) == 1 && ok == 'y');
	EXPECT_EQ_INT(claim(&c, "app", 9, &pid, err), CID_ENODE_HELD);
	EXPECT_EQ_INT(pid, child);
	printf("#     %s\n", err);
	kill(child, SIGKILL);
	EXPECT_EQ_INT(wait_status(child), 128 + SIGKILL);
	EXPECT_EQ_INT(claim(&c, "app", 9, &pid, err), CID_OK);
	cid_node_claim_release(c);
	close(ready_pipe[0]);
	close(ready_pipe[1]);
}

/*
 * The parent releases after the fork, so the child's inherited handle
 * still has an open descriptor of the file.  The child then claims the
 * number itself and releases the stale handle: its own lock must stand
 * (a grandchild is refused, naming the child).
 */
static int
child_reclaims(void *arg)
{
	cid_node_claim *c = NULL;
	char		err[256];
	char		go = 0;
	expect_held e = {3, getpid()};

	(void) arg;
	if (read(ready_pipe[0], &go, 1) != 1)
		return 1;
	if (claim(&c, "app", 3, NULL, err) != CID_OK)
	{
		printf("#     child: %s\n", err);
		return 2;
	}
	cid_node_claim_release(inherited);
	if (cid_node_claim_status(c) != CID_OK)
		return 3;
	return wait_status(spawn(child_expect_held, &e)) == 0 ? 0 : 4;
}

static void
test_child_reclaims_after_parent_release(void)
{
	char		err[256];
	pid_t		child;

	fresh_dir();
	EXPECT_EQ_INT(claim(&inherited, "app", 3, NULL, err), CID_OK);
	EXPECT_EQ_INT(pipe(ready_pipe), 0);
	child = spawn(child_reclaims, NULL);
	cid_node_claim_release(inherited);
	EXPECT_EQ_INT(write(ready_pipe[1], "g", 1), 1);
	EXPECT_EQ_INT(wait_status(child), 0);
	close(ready_pipe[0]);
	close(ready_pipe[1]);
}

/*
 * Processes racing for one number: exactly one wins.  Each child claims
 * at a common signal, reports, and holds until the parent has counted.
 */
#define RACERS 6

static int	go_pipe[2];
static int	result_pipe[2];
static int	done_pipe[2];

static int
child_race(void *arg)
{
	cid_node_claim *c = NULL;
	char		err[256];
	char		b;
	int			rc;

	(void) arg;
	/* Only the parent may hold the write ends, or nobody sees EOF. */
	close(go_pipe[1]);
	close(result_pipe[0]);
	close(done_pipe[1]);
	if (read(go_pipe[0], &b, 1) != 1)
		return 1;
	rc = claim(&c, "race", 1, NULL, err);
	b = rc == CID_OK ? 'w' : (rc == CID_ENODE_HELD ? 'r' : 'x');
	if (write(result_pipe[1], &b, 1) != 1)
		return 1;
	/* Hold until the parent closes the pipe. */
	while (read(done_pipe[0], &b, 1) > 0)
		;
	return 0;
}

static void
test_process_race(void)
{
	pid_t		kids[RACERS];
	int			won = 0,
				refused = 0;
	uint64_t	rounds = tu_scale(5, 2);

	fresh_dir();
	for (uint64_t r = 0; r < rounds; r++)
	{
		char		b;

		EXPECT_EQ_INT(pipe(go_pipe) | pipe(result_pipe) | pipe(done_pipe), 0);
		for (int i = 0; i < RACERS; i++)
			kids[i] = spawn(child_race, NULL);
		close(go_pipe[0]);
		close(result_pipe[1]);
		close(done_pipe[0]);
		for (int i = 0; i < RACERS; i++)
			EXPECT_EQ_INT(write(go_pipe[1], "g", 1), 1);
		for (int i = 0; i < RACERS; i++)
		{
			EXPECT_EQ_INT(read(result_pipe[0], &b, 1), 1);
			won += b == 'w';
			refused += b == 'r';
		}
		close(done_pipe[1]);
		for (int i = 0; i < RACERS; i++)
			EXPECT_EQ_INT(wait_status(kids[i]), 0);
		close(go_pipe[1]);
		close(result_pipe[0]);
	}
	EXPECT_EQ_U64(won, rounds);
	EXPECT_EQ_U64(refused, rounds * (RACERS - 1));
}

/* Threads of one process racing for one number: exactly one wins. */
#define THREADS 8

static atomic_int thread_wins;
static atomic_int thread_refusals;
static atomic_int thread_start;
static cid_node_claim *thread_claims[THREADS];

static void *
thread_race(void *arg)
{
	int			i = (int) (intptr_t) arg;
	char		err[256];
	int			rc;

	while (atomic_load(&thread_start) == 0)
		;
	rc = claim(&thread_claims[i], "threads", 2, NULL, err);
	if (rc == CID_OK)
		atomic_fetch_add(&thread_wins, 1);
	else if (rc == CID_ENODE_HELD)
		atomic_fetch_add(&thread_refusals, 1);
	return NULL;
}

static void
test_thread_race(void)
{
	pthread_t	t[THREADS];

	fresh_dir();
	for (int i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, thread_race, (void *) (intptr_t) i);
	atomic_store(&thread_start, 1);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	EXPECT_EQ_INT(atomic_load(&thread_wins), 1);
	EXPECT_EQ_INT(atomic_load(&thread_refusals), THREADS - 1);
	for (int i = 0; i < THREADS; i++)
		cid_node_claim_release(thread_claims[i]);
}

static void
test_bad_scope(void)
{
	static const char *const bad[] = {"", ".hidden", "a/b", "..", "a b", "caf\xc3\xa9",
	"x\n"};
	cid_node_claim *c = NULL;
	char		err[256];
	char		longscope[CID_CLAIM_SCOPE_MAX + 2];

	fresh_dir();
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
	{
		EXPECT_EQ_INT(claim(&c, bad[i], 1, NULL, err), CID_EINVAL);
		EXPECT(c == NULL);
		EXPECT(strstr(err, "invalid claim scope") != NULL);
	}
	memset(longscope, 'a', sizeof(longscope));
	longscope[CID_CLAIM_SCOPE_MAX + 1] = '\0';
	EXPECT_EQ_INT(claim(&c, longscope, 1, NULL, err), CID_EINVAL);
	longscope[CID_CLAIM_SCOPE_MAX] = '\0';
	EXPECT_EQ_INT(claim(&c, longscope, UINT64_MAX, NULL, err), CID_OK);
	EXPECT(strstr(cid_node_claim_path(c), ".18446744073709551615.lock") != NULL);
	cid_node_claim_release(c);
	EXPECT_EQ_INT(cid_node_claim_acquire(NULL, "a", 1, dir, NULL, err, sizeof(err)), CID_EINVAL);
	EXPECT_EQ_INT(cid_node_claim_acquire(&c, "a", 1, "", NULL, err, sizeof(err)), CID_EINVAL);
	/* No message buffer at all is fine. */
	EXPECT_EQ_INT(cid_node_claim_acquire(&c, "", 1, dir, NULL, NULL, 0), CID_EINVAL);
}

/* What a hostile user could plant, refused with CID_ECLAIM. */
static void
test_unsafe_directories(void)
{
	cid_node_claim *c = NULL;
	char		err[256];
	char		path[300];
	char		target[300];

	/* A directory whose parent is missing. */
	snprintf(path, sizeof(path), "%s/missing/sub", base);
	EXPECT_EQ_INT(cid_node_claim_acquire(&c, "a", 1, path, NULL, err, sizeof(err)), CID_ECLAIM);
	EXPECT(strstr(err, "cannot create claim directory") != NULL);

	/* The directory is a symbolic link. */
	fresh_dir();
	snprintf(target, sizeof(target), "%s-target", dir);
	EXPECT_EQ_INT(mkdir(target, 0700), 0);
	EXPECT_EQ_INT(symlink(target, dir), 0);
	EXPECT_EQ_INT(claim(&c, "a", 1, NULL, err), CID_ECLAIM);
	EXPECT(strstr(err, "symbolic link") != NULL);
	printf("#     %s\n", err);

	/* World-writable without the sticky bit. */
	fresh_dir();
	EXPECT_EQ_INT(mkdir(dir, 0700), 0);
	EXPECT_EQ_INT(chmod(dir, 0777), 0);
	EXPECT_EQ_INT(claim(&c, "a", 1, NULL, err), CID_ECLAIM);
	EXPECT(strstr(err, "not sticky") != NULL);
	printf("#     %s\n", err);
	/* With it, fine; lock files are the claimant's alone, even there. */
	EXPECT_EQ_INT(chmod(dir, 01777), 0);
	EXPECT_EQ_INT(claim(&c, "a", 1, NULL, err), CID_OK);
	{
		struct stat st;

		EXPECT_EQ_INT(stat(cid_node_claim_path(c), &st), 0);
		EXPECT_EQ_INT(st.st_mode & 0777, 0600);
	}
	cid_node_claim_release(c);

	/* The lock file is a symbolic link, a FIFO, a directory. */
	fresh_dir();
	EXPECT_EQ_INT(mkdir(dir, 0700), 0);
	snprintf(path, sizeof(path), "%s/a.1.lock", dir);
	EXPECT_EQ_INT(symlink("/etc/passwd", path), 0);
	EXPECT_EQ_INT(claim(&c, "a", 1, NULL, err), CID_ECLAIM);
	EXPECT(strstr(err, "symbolic link") != NULL);
	snprintf(path, sizeof(path), "%s/a.2.lock", dir);
	EXPECT_EQ_INT(mkfifo(path, 0600), 0);
	EXPECT_EQ_INT(claim(&c, "a", 2, NULL, err), CID_ECLAIM);
	EXPECT(strstr(err, "not a regular file") != NULL);
	snprintf(path, sizeof(path), "%s/a.3.lock", dir);
	EXPECT_EQ_INT(mkdir(path, 0700), 0);
	EXPECT_EQ_INT(claim(&c, "a", 3, NULL, err), CID_ECLAIM);
	printf("#     %s\n", err);
	EXPECT(c == NULL);
}

/* Owned by another user (only testable as root: chown). */
static void
test_foreign_owner(void)
{
	cid_node_claim *c = NULL;
	char		err[256];

	if (geteuid() != 0)
	{
		printf("#     not root: cannot make a directory of another user\n");
		return;
	}
	fresh_dir();
	EXPECT_EQ_INT(mkdir(dir, 01777), 0);
	EXPECT_EQ_INT(chown(dir, 65534, 65534), 0);
	EXPECT_EQ_INT(claim(&c, "a", 1, NULL, err), CID_ECLAIM);
	EXPECT(strstr(err, "belongs to uid 65534") != NULL);
	printf("#     %s\n", err);
}

/* $CHRONOID_CLAIM_DIR stands in for a NULL directory. */
static void
test_env_dir(void)
{
	cid_node_claim *c = NULL;
	char		err[256];
	char		want[300];

	fresh_dir();
	unsetenv(CID_CLAIM_DIR_ENV);
	EXPECT_STR(cid_node_claim_dir(), CID_CLAIM_DIR_DEFAULT);
	setenv(CID_CLAIM_DIR_ENV, "", 1);
	EXPECT_STR(cid_node_claim_dir(), CID_CLAIM_DIR_DEFAULT);
	setenv(CID_CLAIM_DIR_ENV, dir, 1);
	EXPECT_STR(cid_node_claim_dir(), dir);
	EXPECT_EQ_INT(cid_node_claim_acquire(&c, "env", 4, NULL, NULL, err, sizeof(err)), CID_OK);
	snprintf(want, sizeof(want), "%s/env.4.lock", dir);
	EXPECT_STR(cid_node_claim_path(c), want);
	cid_node_claim_release(c);
	unsetenv(CID_CLAIM_DIR_ENV);
}

/* A relative directory names another place in every working directory. */
static void
test_relative_dir_refused(void)
{
	cid_node_claim *c = NULL;
	char		err[256];

	EXPECT_EQ_INT(cid_node_claim_acquire(&c, "a", 1, "claims", NULL, err, sizeof(err)), CID_EINVAL);
	EXPECT(strstr(err, "not an absolute path") != NULL);
	EXPECT(c == NULL);
	setenv(CID_CLAIM_DIR_ENV, "./claims", 1);
	EXPECT_EQ_INT(cid_node_claim_acquire(&c, "a", 1, NULL, NULL, err, sizeof(err)), CID_EINVAL);
	EXPECT(strstr(err, "\"./claims\"") != NULL);
	printf("#     %s\n", err);
	unsetenv(CID_CLAIM_DIR_ENV);
}

static int
child_expect_refused(void *arg)
{
	cid_node_claim *c = NULL;
	char		err[256];

	(void) arg;
	return claim(&c, "app", 1, NULL, err) == CID_ECLAIM && strstr(err, "2 links") != NULL ? 0 : 1;
}

/*
 * A second name for a held lock file (a hard link, which any user may make
 * to a file they can see where fs.protected_hardlinks is off) is refused,
 * and the refused claim, which opened and closed the file, leaves the
 * first claim's lock in force for other processes.
 */
static void
test_hard_link_refused(void)
{
	cid_node_claim *c = NULL,
			   *c2 = NULL;
	char		err[256];
	char		alias[300];
	expect_held e = {1, getpid()};

	fresh_dir();
	EXPECT_EQ_INT(claim(&c, "app", 1, NULL, err), CID_OK);
	snprintf(alias, sizeof(alias), "%s/app.2.lock", dir);
	EXPECT_EQ_INT(link(cid_node_claim_path(c), alias), 0);
	EXPECT_EQ_INT(claim(&c2, "app", 2, NULL, err), CID_ECLAIM);
	EXPECT(strstr(err, "has 2 links") != NULL);
	printf("#     %s\n", err);
	EXPECT(c2 == NULL);
	/* The holder's own number is refused to anyone while the alias stays. */
	EXPECT_EQ_INT(wait_status(spawn(child_expect_refused, NULL)), 0);
	EXPECT_EQ_INT(unlink(alias), 0);
	EXPECT_EQ_INT(wait_status(spawn(child_expect_held, &e)), 0);
	cid_node_claim_release(c);
	EXPECT_EQ_INT(claim(&c, "app", 1, NULL, err), CID_OK);
	cid_node_claim_release(c);
}

/*
 * Another user in a shared (sticky, 1777) directory: a lock file they
 * planted is refused, naming them; one of ours they cannot remove, rename,
 * link (with protected_hardlinks) or write, so while we hold it their
 * own claim is refused.  Only as root (setuid to nobody in a child).
 */
static int
child_hostile_user(void *arg)
{
	const char *path = arg;
	char		err[256];
	char		moved[300];
	cid_node_claim *c = NULL;
	int			fd;

	if (setgid(65534) != 0 || setuid(65534) != 0)
		return 20;
	snprintf(moved, sizeof(moved), "%s.moved", path);
	if (unlink(path) == 0 || rename(path, moved) == 0)
		return 21;
	fd = open(path, O_RDWR | O_NOFOLLOW);
	if (fd >= 0)
		return 22;
	if (claim(&c, "app", 1, NULL, err) != CID_ECLAIM || strstr(err, "belongs to uid 0") == NULL)
	{
		printf("#     hostile child: %s\n", err);
		return 23;
	}
	return 0;
}

static void
test_other_user_in_shared_dir(void)
{
	cid_node_claim *c = NULL;
	char		err[256];
	char		path[300];
	int			fd;
	expect_held e = {1, getpid()};

	if (geteuid() != 0)
	{
		printf("#     not root: cannot act as another user\n");
		return;
	}
	fresh_dir();
	EXPECT_EQ_INT(mkdir(dir, 01777), 0);
	EXPECT_EQ_INT(chmod(dir, 01777), 0);
	EXPECT_EQ_INT(chmod(base, 0755), 0);

	/* Planted by nobody before we came: refused, its owner named. */
	snprintf(path, sizeof(path), "%s/app.3.lock", dir);
	fd = open(path, O_CREAT | O_RDWR, 0666);
	EXPECT(fd >= 0);
	EXPECT_EQ_INT(fchown(fd, 65534, 65534), 0);
	close(fd);
	EXPECT_EQ_INT(claim(&c, "app", 3, NULL, err), CID_ECLAIM);
	EXPECT(strstr(err, "belongs to uid 65534") != NULL);
	printf("#     %s\n", err);

	/* Ours, held: nobody can take it away or claim it too. */
	EXPECT_EQ_INT(claim(&c, "app", 1, NULL, err), CID_OK);
	EXPECT_EQ_INT(wait_status(spawn(child_hostile_user, (void *) cid_node_claim_path(c))), 0);
	EXPECT_EQ_INT(wait_status(spawn(child_expect_held, &e)), 0);
	cid_node_claim_release(c);
	EXPECT_EQ_INT(chmod(base, 0700), 0);
}

/* Mint one ID at clock reading now_ns under claim c; 0 when none was. */
static uint64_t
mint_at(cid_node_claim *c, int64_t now_ns, int *status)
{
	cid_snowflake_gen gen;
	cid_snowflake_opts o;
	uint64_t	id = 0;

	cid_snowflake_opts_default(&o);
	o.max_drift_ms = 60000;
	*status = cid_snowflake_init(&gen, NULL, cid_node_claim_node(c), &o, NULL);
	if (*status == CID_OK)
		*status = cid_node_claim_start(c, &gen);
	if (*status == CID_OK)
		*status = cid_snowflake_next_at(&gen, now_ns, &id);
	/* The driver would wait out the tick the mark holds: so does this. */
	if (*status == CID_EAGAIN)
		*status = cid_snowflake_next_at(&gen, now_ns + INT64_C(1000000), &id);
	if (*status >= 0)
	{
		int			rc = cid_node_claim_cover(c, &gen);

		if (rc != CID_OK)
			*status = rc;
	}
	return *status >= 0 ? id : 0;
}

static int64_t
ms_of(uint64_t id)
{
	cid_layout	l;
	cid_snowflake_parts p;

	if (cid_layout_preset(&l, "pgedge") != CID_OK || cid_snowflake_decode(&p, &l, id) != CID_OK)
		return -1;
	return p.unix_ms;
}

#define T0_NS (INT64_C(1798000000123) * 1000000)

/*
 * A number released and claimed again in the same tick, in this process:
 * the second holder starts after the first one's last tick.
 */
static void
test_handover_in_process(void)
{
	cid_node_claim *c = NULL;
	char		err[256];
	int			st;
	uint64_t	a,
				b;

	fresh_dir();
	EXPECT_EQ_INT(claim(&c, "app", 4, NULL, err), CID_OK);
	EXPECT(cid_node_claim_mark_ms(c) == INT64_MIN);
	a = mint_at(c, T0_NS, &st);
	EXPECT_EQ_INT(st, CID_OK);
	EXPECT(cid_node_claim_mark_ms(c) == ms_of(a));
	cid_node_claim_release(c);
	EXPECT_EQ_INT(claim(&c, "app", 4, NULL, err), CID_OK);
	EXPECT(cid_node_claim_mark_ms(c) == ms_of(a));
	b = mint_at(c, T0_NS, &st);
	EXPECT(st >= 0);
	EXPECT(b > a);
	EXPECT(ms_of(b) > ms_of(a));
	cid_node_claim_release(c);

	/* An in-process claim carries its mark the same way. */
	EXPECT_EQ_INT(cid_node_claim_local(&c, "app", 4, err, sizeof(err)), CID_OK);
	EXPECT_STR(cid_node_claim_path(c), "");
	a = mint_at(c, T0_NS, &st);
	cid_node_claim_release(c);
	EXPECT_EQ_INT(cid_node_claim_local(&c, "app", 4, err, sizeof(err)), CID_OK);
	b = mint_at(c, T0_NS, &st);
	EXPECT(ms_of(b) > ms_of(a));
	{
		cid_node_claim *c2 = NULL;

		EXPECT_EQ_INT(cid_node_claim_local(&c2, "app", 4, err, sizeof(err)), CID_ENODE_HELD);
		EXPECT(strstr(err, "another generator of this process") != NULL);
	}
	cid_node_claim_release(c);
}

/*
 * A forked child's generator, still inside a tick its parent's mark
 * covers: its cover must refuse, or the parent would mint the same ID
 * next (found by tests/app's state machine).
 */
static cid_node_claim *fork_claim;
static cid_snowflake_gen fork_gen;

static int
child_covers_parents_tick(void *arg)
{
	uint64_t	id;

	(void) arg;
	if (cid_snowflake_next_at(&fork_gen, T0_NS, &id) < 0)
		return 50;
	return cid_node_claim_cover(fork_claim, &fork_gen) == CID_EFORKED ? 0 : 51;
}

static void
test_fork_child_cover_refused(void)
{
	char		err[256];
	uint64_t	id;

	fresh_dir();
	EXPECT_EQ_INT(claim(&fork_claim, "app", 5, NULL, err), CID_OK);
	EXPECT_EQ_INT(cid_snowflake_init(&fork_gen, NULL, 5, NULL, NULL), CID_OK);
	EXPECT_EQ_INT(cid_node_claim_start(fork_claim, &fork_gen), CID_OK);
	EXPECT_EQ_INT(cid_snowflake_next_at(&fork_gen, T0_NS, &id), CID_OK);
	EXPECT_EQ_INT(cid_node_claim_cover(fork_claim, &fork_gen), CID_OK);
	EXPECT_EQ_INT(wait_status(spawn(child_covers_parents_tick, NULL)), 0);
	/* The same for an in-process claim. */
	cid_node_claim_release(fork_claim);
	EXPECT_EQ_INT(cid_node_claim_local(&fork_claim, "app", 5, err, sizeof(err)), CID_OK);
	EXPECT_EQ_INT(cid_node_claim_start(fork_claim, &fork_gen), CID_OK);
	EXPECT(cid_snowflake_next_at(&fork_gen, T0_NS + INT64_C(1000000), &id) >= 0);
	EXPECT_EQ_INT(cid_node_claim_cover(fork_claim, &fork_gen), CID_OK);
	EXPECT_EQ_INT(wait_status(spawn(child_covers_parents_tick, NULL)), 0);
	cid_node_claim_release(fork_claim);
}

/*
 * Across processes: a child holds the number, mints in tick T and either
 * releases it or is killed (no cleanup at all); the parent, claiming next
 * in the same tick or with the clock stepped back a minute, starts after
 * T.  The child reports its ID through a pipe.
 */
static int	id_pipe[2];

static int
child_mint_then(void *arg)
{
	cid_node_claim *c = NULL;
	char		err[256];
	int			st;
	uint64_t	id;

	if (claim(&c, "app", 6, NULL, err) != CID_OK)
		return 30;
	id = mint_at(c, T0_NS + INT64_C(5000000000), &st);
	if (st < 0 || write(id_pipe[1], &id, sizeof(id)) != sizeof(id))
		return 31;
	if (arg != NULL)
		raise(SIGKILL);
	cid_node_claim_release(c);
	return 0;
}

static void
test_handover_across_processes(void)
{
	fresh_dir();
	for (int killed = 0; killed < 2; killed++)
	{
		cid_node_claim *c = NULL;
		char		err[256];
		uint64_t	theirs = 0,
					ours;
		int			st;
		int			rc;

		pid_t		child;

		EXPECT_EQ_INT(pipe(id_pipe), 0);
		child = spawn(child_mint_then, killed ? &st : NULL);
		close(id_pipe[1]);
		EXPECT_EQ_INT(read(id_pipe[0], &theirs, sizeof(theirs)), (int) sizeof(theirs));
		close(id_pipe[0]);
		rc = wait_status(child);
		EXPECT_EQ_INT(rc, killed ? 128 + SIGKILL : 0);
		EXPECT_EQ_INT(claim(&c, "app", 6, NULL, err), CID_OK);
		EXPECT(cid_node_claim_mark_ms(c) >= ms_of(theirs));
		/* Same tick. */
		ours = mint_at(c, T0_NS + INT64_C(5000000000), &st);
		EXPECT(st >= 0);
		EXPECT(ms_of(ours) > ms_of(theirs));
		/* The clock a minute behind: run ahead past theirs, or no ID. */
		ours = mint_at(c, T0_NS - INT64_C(60000000000), &st);
		EXPECT(st < 0 || ms_of(ours) > ms_of(theirs));
		cid_node_claim_release(c);
	}
}

/*
 * Two copies of the library in one process (two builds, or npm's nested
 * copies of an addon): each has its own registry, so only the kernel can
 * keep them apart.  The shared library is loaded from a copy of its own
 * (dlopen of one path twice would give the same copy).
 */
static void
test_two_copies(void)
{
	char		exe[PATH_MAX];
	char		so[PATH_MAX + 32];
	char		copy[PATH_MAX + 32];
	char		cmd[3 * PATH_MAX];
	ssize_t		n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	void	   *h;
	int			(*acquire_b) (cid_node_claim **, const char *, uint64_t, const char *, long *, char *, size_t);
	void		(*release_b) (cid_node_claim *);
	cid_node_claim *a = NULL,
			   *b = NULL;
	char		err[256];
	long		pid = -1;
	expect_held e = {2, getpid()};

	if (n <= 0)
		return;
	exe[n] = '\0';
	*strrchr(exe, '/') = '\0';
	snprintf(so, sizeof(so), "%s/../libchronoid.so.1", exe);
	if (access(so, R_OK) != 0)
	{
		printf("#     %s not built: the second copy is not tried\n", so);
		return;
	}
	snprintf(copy, sizeof(copy), "%s/copy.so", base);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", so, copy);
	EXPECT_EQ_INT(system(cmd), 0);
	h = dlopen(copy, RTLD_NOW | RTLD_LOCAL);
	EXPECT(h != NULL);
	if (h == NULL)
		return;
	*(void **) &acquire_b = dlsym(h, "cid_node_claim_acquire");
	*(void **) &release_b = dlsym(h, "cid_node_claim_release");
	EXPECT(acquire_b != NULL && release_b != NULL);

	fresh_dir();
	EXPECT_EQ_INT(claim(&a, "app", 2, NULL, err), CID_OK);
	EXPECT_EQ_INT(acquire_b(&b, "app", 2, dir, &pid, err, sizeof(err)), CID_ENODE_HELD);
	EXPECT_EQ_INT(pid, getpid());
	printf("#     second copy: %s\n", err);
	/* The other way round, and the refused copy dropped nothing. */
	EXPECT_EQ_INT(acquire_b(&b, "app", 3, dir, NULL, err, sizeof(err)), CID_OK);
	EXPECT_EQ_INT(claim(&a, "app", 3, NULL, err) == CID_ENODE_HELD, 1);
	EXPECT_EQ_INT(wait_status(spawn(child_expect_held, &e)), 0);
	release_b(b);
	/* Not unloaded: the copy keeps its released claims' marks, which an
	 * unloaded copy would leave unreachable (LeakSanitizer says so). */
	EXPECT_EQ_INT(wait_status(spawn(child_expect_held, &e)), 0);
}

/*
 * The claimed generator: opens of one key share one generator (a handover
 * of the last open starts after its mark), another layout is refused, a
 * local one becomes host-wide when asked, and a forked child mints nothing
 * under its parent's.
 */
static int
child_of_claimed(void *arg)
{
	cid_claimed_snowflake *g = arg,
			   *mine = NULL;
	uint64_t	id;
	char		err[256];

	if (cid_claimed_snowflake_next(g, &id) != CID_EFORKED ||
		cid_claimed_snowflake_status(g) != CID_EFORKED)
		return 40;
	/* The child's own open: refused while the parent holds the number. */
	if (cid_claimed_snowflake_open(&mine, "gen", 8, NULL, NULL, true, dir, NULL,
								   err, sizeof(err)) != CID_ENODE_HELD)
		return 41;
	cid_claimed_snowflake_close(g);
	return 0;
}

static void
test_claimed_generator(void)
{
	cid_claimed_snowflake *a = NULL,
			   *b = NULL,
			   *c = NULL;
	cid_layout	l;
	char		err[256];
	uint64_t	x = 0,
				y = 0;
	uint64_t	ids[100];
	size_t		done = 0;

	fresh_dir();
	EXPECT_EQ_INT(cid_claimed_snowflake_open(&a, "gen", 8, NULL, NULL, false, NULL, NULL,
											 err, sizeof(err)), CID_OK);
	EXPECT_STR(cid_claimed_snowflake_path(a), "");
	EXPECT_EQ_INT(cid_claimed_snowflake_open(&b, "gen", 8, NULL, NULL, true, dir, NULL,
											 err, sizeof(err)), CID_OK);
	EXPECT(a == b);
	EXPECT(strstr(cid_claimed_snowflake_path(a), "/gen.8.lock") != NULL);
	EXPECT_EQ_INT(cid_layout_preset(&l, "twitter"), CID_OK);
	EXPECT_EQ_INT(cid_claimed_snowflake_open(&c, "gen", 8, &l, NULL, false, NULL, NULL,
											 err, sizeof(err)), CID_ENODE_HELD);
	EXPECT(strstr(err, "one layout") != NULL);
	EXPECT(cid_claimed_snowflake_next(a, &x) >= 0);
	EXPECT(cid_claimed_snowflake_fill(b, ids, 100, &done) >= 0);
	EXPECT_EQ_U64(done, 100);
	EXPECT(ids[0] > x);
	EXPECT_EQ_INT(wait_status(spawn(child_of_claimed, a)), 0);
	cid_claimed_snowflake_close(a);
	cid_claimed_snowflake_close(b);
	EXPECT_EQ_INT(cid_claimed_snowflake_open(&a, "gen", 8, NULL, NULL, true, dir, NULL,
											 err, sizeof(err)), CID_OK);
	EXPECT(cid_claimed_snowflake_next(a, &y) >= 0);
	EXPECT(y > ids[99]);
	cid_claimed_snowflake_close(a);
	cid_claimed_snowflake_close(NULL);
}

/* The lock file's record: what a claim writes, and garbage refused. */
static void
test_record(void)
{
	cid_node_claim *c = NULL;
	char		err[256];
	char		path[300];
	char		buf[128] = {0};
	char		want[128];
	int			fd;

	fresh_dir();
	EXPECT_EQ_INT(claim(&c, "rec", 1, NULL, err), CID_OK);
	fd = open(cid_node_claim_path(c), O_RDONLY);
	EXPECT(fd >= 0);
	EXPECT_EQ_INT(read(fd, buf, sizeof(buf) - 1), 61);
	close(fd);
	snprintf(want, sizeof(want), "chronoid-claim 1 pid %10ld last_ms %20s\n", (long) getpid(),
			 "-9223372036854775808");
	EXPECT_STR(buf, want);
	cid_node_claim_release(c);

	for (int i = 0; i < 3; i++)
	{
		static const char *const junk[] = {
			"hello\n",
			"chronoid-claim 1 pid      12345 last_ms        1x00000000000\n",
			"chronoid-claim 1 pid      12345 last_ms  1700000000000000000\nmore",
		};

		snprintf(path, sizeof(path), "%s/rec.%d.lock", dir, 10 + i);
		fd = open(path, O_CREAT | O_WRONLY, 0600);
		EXPECT_EQ_INT(write(fd, junk[i], strlen(junk[i])), (int) strlen(junk[i]));
		close(fd);
		EXPECT_EQ_INT(claim(&c, "rec", 10 + i, NULL, err), CID_ECLAIM);
		EXPECT(strstr(err, "holds no claim record") != NULL);
	}
	printf("#     %s\n", err);
}

static void
test_strerror_names(void)
{
	EXPECT_STR(cid_strerror(CID_ENODE_HELD), "node number already claimed on this host");
	EXPECT(strstr(cid_strerror(CID_ECLAIM), "claim") != NULL);
	EXPECT(strstr(cid_strerror(CID_EFORKED), "fork") != NULL);
}

int
main(void)
{
	base = mkdtemp(tmpl);
	if (base == NULL)
	{
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	TAP_CASE(test_claim_and_release);
	TAP_CASE(test_dir_created_private);
	TAP_CASE(test_same_process_refused);
	TAP_CASE(test_fork_child_refused);
	TAP_CASE(test_dead_holder_frees);
	TAP_CASE(test_child_reclaims_after_parent_release);
	TAP_CASE(test_process_race);
	TAP_CASE(test_thread_race);
	TAP_CASE(test_bad_scope);
	TAP_CASE(test_unsafe_directories);
	TAP_CASE(test_foreign_owner);
	TAP_CASE(test_env_dir);
	TAP_CASE(test_relative_dir_refused);
	TAP_CASE(test_hard_link_refused);
	TAP_CASE(test_other_user_in_shared_dir);
	TAP_CASE(test_handover_in_process);
	TAP_CASE(test_handover_across_processes);
	TAP_CASE(test_fork_child_cover_refused);
	TAP_CASE(test_two_copies);
	TAP_CASE(test_claimed_generator);
	TAP_CASE(test_record);
	TAP_CASE(test_strerror_names);
	{
		char		cmd[300];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
		if (system(cmd) != 0)
			printf("# could not remove %s\n", base);
	}
	return tap_done();
}
