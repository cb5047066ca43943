/*
 * test_node_claim.c — host-wide node claims: one holder per (directory,
 * scope, number) across processes and threads, the refusal names the
 * holder, a dead holder's claim is free again, a forked child holds
 * nothing of its parent's, and the directory rules refuse what a hostile
 * user could plant.  Every case works in its own temporary directory.
 */
#define _GNU_SOURCE

#include <errno.h>
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
	/* With it, fine; lock files in a shared directory are writable by all. */
	EXPECT_EQ_INT(chmod(dir, 01777), 0);
	EXPECT_EQ_INT(claim(&c, "a", 1, NULL, err), CID_OK);
	{
		struct stat st;

		EXPECT_EQ_INT(stat(cid_node_claim_path(c), &st), 0);
		EXPECT_EQ_INT(st.st_mode & 0777, 0666);
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

static void
test_strerror_names(void)
{
	EXPECT_STR(cid_strerror(CID_ENODE_HELD), "node number held by another process on this host");
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
	TAP_CASE(test_strerror_names);
	{
		char		cmd[300];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
		if (system(cmd) != 0)
			printf("# could not remove %s\n", base);
	}
	return tap_done();
}
