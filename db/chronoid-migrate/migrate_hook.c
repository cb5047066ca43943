/*
 * migrate_hook.c — the commands run around each step that changes the row
 * type of the table or a child (--before-row-type-change,
 * --after-row-type-change): the cue for applications whose prepared
 * statements fail from that step on until their connections are recycled
 * (docs/migrate.md, "What your application sees").
 */
#define _GNU_SOURCE

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli_internal.h"
#include "migrate_steps_internal.h"

/* The table and its children, space-separated, as the hook's CHRONOID_MIGRATE_TABLES. */
static void
tables(const mig_ctx *c, mig_buf *b)
{
	int			i;

	mig_buf_printf(b, "%s", c->t.qname);
	for (i = 0; i < c->t.nchildren; i++)
		mig_buf_printf(b, " %s", c->t.children[i].qname);
}

/*
 * What the step changes, for the hook's CHRONOID_MIGRATE_CHANGE and the
 * line that says it runs: the columns each table gains, loses or renames.
 */
static void
describe(const mig_ctx *c, const char *step, mig_buf *b)
{
	const mig_table *t = &c->t;
	int			i;

	if (strcmp(step, "add") == 0 || strcmp(step, "drop") == 0)
	{
		bool		add = step[0] == 'a';

		mig_buf_printf(b, "%s %s %s %s", add ? "adds" : "drops", t->new_q, add ? "to" : "from", t->qname);
		for (i = 0; i < t->nchildren; i++)
			mig_buf_printf(b, ", %s %s %s", t->children[i].new_q, add ? "to" : "from", t->children[i].qname);
	}
	else if (strcmp(step, "swap") == 0 || strcmp(step, "rollback") == 0)
	{
		bool		swap = step[0] == 's';

		/* Both ways the key changes type (uuid stays uuid, but its column is another). */
		mig_buf_printf(b, "renames %s's %s to %s and %s to %s", t->qname,
					   t->key_q, swap ? t->old_q : t->new_q, swap ? t->new_q : t->old_q, t->key_q);
		for (i = 0; i < t->nchildren; i++)
		{
			const mig_child *ch = &t->children[i];

			mig_buf_printf(b, ", %s's %s to %s and %s to %s", ch->qname, ch->fk_q,
						   swap ? ch->old_q : ch->new_q, swap ? ch->new_q : ch->old_q, ch->fk_q);
		}
	}
	else
	{
		mig_buf_printf(b, "widens %s.%s", t->qname, t->key_q);
		for (i = 0; i < t->nchildren; i++)
			mig_buf_printf(b, ", %s.%s", t->children[i].qname, t->children[i].fk_q);
		mig_buf_printf(b, " from integer to bigint");
	}
}

/*
 * Run cmd with /bin/sh, its stdout sent to our stderr (our stdout carries
 * the result lines scripts read).  The session holds no lock and no open
 * transaction meanwhile.  Exit status of the command, or -1 (c->err set)
 * when it could not run or did not exit.
 */
static int
run_hook(mig_ctx *c, const char *opt, const char *cmd, const char *when, const char *step,
		 const char *change, const char *result)
{
	mig_buf		t = {0};
	pid_t		pid;
	int			st;

	tables(c, &t);
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
	{
		snprintf(c->err, sizeof(c->err), "%s: cannot start the command: %s", opt, strerror(errno));
		mig_buf_free(&t);
		return -1;
	}
	if (pid == 0)
	{
		/* libpq's socket is close-on-exec: the command cannot speak on our session. */
		if (dup2(STDERR_FILENO, STDOUT_FILENO) < 0 ||
			setenv("CHRONOID_MIGRATE_HOOK", when, 1) != 0 ||
			setenv("CHRONOID_MIGRATE_STEP", step, 1) != 0 ||
			setenv("CHRONOID_MIGRATE_TABLES", t.s != NULL ? t.s : "", 1) != 0 ||
			setenv("CHRONOID_MIGRATE_CHANGE", change, 1) != 0 ||
			(result != NULL && setenv("CHRONOID_MIGRATE_RESULT", result, 1) != 0))
			_exit(127);
		execl("/bin/sh", "sh", "-c", cmd, (char *) NULL);
		_exit(127);
	}
	mig_buf_free(&t);
	while (waitpid(pid, &st, 0) < 0)
	{
		if (errno != EINTR)
		{
			snprintf(c->err, sizeof(c->err), "%s: waiting for the command: %s", opt, strerror(errno));
			return -1;
		}
	}
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	snprintf(c->err, sizeof(c->err), "%s: the command was killed by signal %d", opt,
			 WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	return -1;
}

bool
mig_hook_before(mig_ctx *c, const char *step)
{
	mig_buf		d = {0};
	int			rc;

	if (c->o->before_change == NULL)
		return true;
	describe(c, step, &d);
	fprintf(stderr, "chronoid: %s: %s: running --before-row-type-change (next: %s)\n", c->o->sub, step, d.s);
	rc = run_hook(c, "--before-row-type-change", c->o->before_change, "before", step, d.s, NULL);
	mig_buf_free(&d);
	if (rc == 0)
		return true;
	if (rc > 0)
		snprintf(c->err, sizeof(c->err), "--before-row-type-change exited with status %d: %s not done, "
				 "nothing changed (run it again when the command succeeds)", rc, step);
	else
		mig_err_around(c, "", "; nothing changed");
	return false;
}

bool
mig_hook_after(mig_ctx *c, const char *step, bool done)
{
	char		keep[sizeof(c->err)];
	mig_buf		d = {0};
	int			rc;

	if (c->o->after_change == NULL)
		return true;
	/* A failed step's own error is what the user must read first: kept. */
	memcpy(keep, c->err, sizeof(keep));
	describe(c, step, &d);
	fprintf(stderr, "chronoid: %s: %s: running --after-row-type-change (%s: %s)\n", c->o->sub, step,
			done ? "done" : "not done, nothing changed", d.s);
	rc = run_hook(c, "--after-row-type-change", c->o->after_change, "after", step, d.s,
				  done ? "done" : "failed");
	mig_buf_free(&d);
	if (rc == 0)
	{
		memcpy(c->err, keep, sizeof(keep));
		return true;
	}
	if (!done)
	{
		/* Said, but the step's own error stays the one reported. */
		if (rc > 0)
			fprintf(stderr, "chronoid: %s: --after-row-type-change exited with status %d\n", c->o->sub, rc);
		else
			fprintf(stderr, "chronoid: %s: %s\n", c->o->sub, c->err);
		memcpy(c->err, keep, sizeof(keep));
		return false;
	}
	if (rc > 0)
		snprintf(c->err, sizeof(c->err), "%s is done, but --after-row-type-change exited with status %d: "
				 "recycle the applications' connections yourself (their prepared statements fail until then)",
				 step, rc);
	else
		mig_err_around(c, "", "; the step is done: recycle the applications' connections yourself");
	return false;
}

/*
 * Before the command that may pause the applications: the long
 * transactions the step's tries would wait for (migrate_lockwait.c) are
 * waited for first, so that the applications are not kept paused
 * meanwhile.  false (c->err set) when they still hold after --retries
 * rounds, or on an error.
 */
static bool
no_long_holders(mig_ctx *c, const mig_script *s, const char *what)
{
	mig_lockwait seen;
	char		held[1024];
	int			i,
				r = 0;

	memset(&seen, 0, sizeof(seen));
	for (i = 1; i <= c->o->retries && r == 0; i++)
		r = mig_lock_wait(c, &seen, s, what, i, held, sizeof(held));
	/* A transaction the role may not date counts once seen holding for --lock-timeout: look again. */
	if (r > 0)
	{
		mig_sleep_ms(c->o->lock_timeout_ms);
		for (r = 0; i <= c->o->retries + 1 && r == 0; i++)
			r = mig_lock_wait(c, &seen, s, what, i, held, sizeof(held));
	}
	if (r == 0)
	{
		mig_err_around(c, "", held);
		mig_err_around(c, "", " (raise --lock-timeout or --retries, or run it when the table is quieter); "
					   "--before-row-type-change was not run");
	}
	return r > 0;
}

bool
mig_ddl_framed(mig_ctx *c, const char *step, const char *what, const mig_script *s)
{
	bool		ok;

	if (c->o->before_change != NULL && !no_long_holders(c, s, what))
		return false;
	ok = mig_hook_before(c, step) && mig_ddl_script(c, what, s, true);
	return mig_hook_after(c, step, ok) && ok;
}
