/*
 * snowflake_claimed.c — a process's Snowflake generators under node claims:
 * one generator per (scope, node), shared by everyone in the process who
 * opens it (threads, objects of a language package), holding the number's
 * claim and covering every ID with its mark.  What the language packages
 * and a C program share, so that none of them writes the claim, start,
 * cover and fork rules itself.
 */
#define _GNU_SOURCE

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chronoid.h"
#include "err_internal.h"

struct cid_claimed_snowflake
{
	struct cid_claimed_snowflake *next;	/* the registry's list */
	pid_t		pid;			/* the process that opened it */
	int			refs;			/* opens not yet closed (registry lock) */
	bool		host;			/* the claim is host-wide */
	cid_node_claim *claim;		/* host-wide, or this process's own */
	char		scope[CID_CLAIM_SCOPE_MAX + 1];
	char		spec[256];		/* the layout, canonical text */
	cid_snowflake_gen gen;
};

/*
 * The open generators of this process, and those inherited from the
 * process it was forked from (pid differs), which nobody opens again: a
 * child's open of their key makes an entry of its own.
 */
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cid_claimed_snowflake *registry;
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

static bool
same_opts(const cid_snowflake_opts *a, const cid_snowflake_opts *b)
{
	return a->on_behind == b->on_behind && a->max_drift_ms == b->max_drift_ms &&
		a->max_wait_ms == b->max_wait_ms && a->on_exhausted == b->on_exhausted &&
		a->max_borrow_ticks == b->max_borrow_ticks;
}

/*
 * Give g the claim asked for (host-wide or local) and start its generator
 * after the claim's mark; the claim it replaces is released.  Registry
 * held.
 */
static int
take_claim(struct cid_claimed_snowflake *g, bool host, const char *dir,
		   long *holder_pid, char *err, size_t errlen)
{
	cid_node_claim *c = NULL;
	int			rc;

	if (host)
		rc = cid_node_claim_acquire(&c, g->scope, g->gen.node, dir, holder_pid, err, errlen);
	else
		rc = cid_node_claim_local(&c, g->scope, g->gen.node, err, errlen);
	if (rc != CID_OK)
		return rc;
	rc = cid_node_claim_start(c, &g->gen);
	if (rc != CID_OK)
	{
		cid_fail(rc, err, errlen, "node %" PRIu64 " of scope \"%s\": the last holder's mark "
			 "(Unix ms %" PRId64 ") lies past layout \"%s\"'s time field",
			 g->gen.node, g->scope, cid_node_claim_mark_ms(c), g->gen.layout.name);
		cid_node_claim_release(c);
		return rc;
	}
	cid_node_claim_release(g->claim);
	g->claim = c;
	g->host = host;
	return CID_OK;
}

int
cid_claimed_snowflake_open(cid_claimed_snowflake **out, const char *scope, uint64_t node,
						   const cid_layout *layout, const cid_snowflake_opts *opts,
						   bool host, const char *dir, long *holder_pid,
						   char *err, size_t errlen)
{
	struct cid_claimed_snowflake *g;
	cid_snowflake_opts o;
	cid_layout	l;
	char		spec[256];
	pid_t		self = getpid();
	int			rc;

	if (err != NULL && errlen > 0)
		err[0] = '\0';
	if (holder_pid != NULL)
		*holder_pid = 0;
	if (out == NULL)
		return cid_fail(CID_EINVAL, err, errlen, "no place for the generator (out is NULL)");
	*out = NULL;
	if (scope == NULL)
		scope = "default";
	if (strlen(scope) > CID_CLAIM_SCOPE_MAX)
		return cid_fail(CID_EINVAL, err, errlen, "claim scope is longer than %d characters",
					CID_CLAIM_SCOPE_MAX);
	if (layout == NULL)
	{
		if (cid_layout_preset(&l, "pgedge") != CID_OK)
			return cid_fail(CID_ELAYOUT, err, errlen, "the default layout failed");
		layout = &l;
	}
	if (opts == NULL)
	{
		cid_snowflake_opts_default(&o);
		opts = &o;
	}
	if (cid_layout_format(spec, sizeof(spec), layout) < 0)
		snprintf(spec, sizeof(spec), "%s", layout->name);

	pthread_once(&atfork_once, install_atfork);
	registry_acquire();
	for (g = registry; g != NULL; g = g->next)
		if (g->pid == self && g->gen.node == node && strcmp(g->scope, scope) == 0)
			break;
	if (g != NULL)
	{
		if (strcmp(g->spec, spec) != 0 || !same_opts(&g->gen.opts, opts))
			rc = cid_fail(CID_ENODE_HELD, err, errlen,
					  "node %" PRIu64 " of scope \"%s\" is already in use in this process with "
					  "layout \"%s\" and other settings: one process mints under one number "
					  "with one layout and one set of policies", node, scope, g->spec);
		else if (host && !g->host)
			rc = take_claim(g, true, dir, holder_pid, err, errlen);
		else
			rc = CID_OK;
		if (rc == CID_OK)
			g->refs++;
		registry_drop();
		if (rc == CID_OK)
			*out = g;
		return rc;
	}

	g = calloc(1, sizeof(*g));
	if (g == NULL)
	{
		registry_drop();
		return cid_fail(CID_ECLAIM, err, errlen, "out of memory");
	}
	snprintf(g->scope, sizeof(g->scope), "%s", scope);
	snprintf(g->spec, sizeof(g->spec), "%s", spec);
	g->pid = self;
	rc = cid_snowflake_init(&g->gen, layout, node, opts, NULL);
	if (rc != CID_OK)
		cid_fail(rc, err, errlen, "snowflake generator, layout \"%s\", node %" PRIu64 ": %s",
			 layout->name, node, cid_strerror(rc));
	else
		rc = take_claim(g, host, dir, holder_pid, err, errlen);
	if (rc != CID_OK)
	{
		registry_drop();
		free(g);
		return rc;
	}
	g->refs = 1;
	g->next = registry;
	registry = g;
	registry_drop();
	*out = g;
	return CID_OK;
}

void
cid_claimed_snowflake_close(cid_claimed_snowflake *g)
{
	bool		last;

	if (g == NULL)
		return;
	registry_acquire();
	last = --g->refs == 0;
	if (last)
	{
		for (struct cid_claimed_snowflake **pp = &registry; *pp != NULL; pp = &(*pp)->next)
			if (*pp == g)
			{
				*pp = g->next;
				break;
			}
	}
	registry_drop();
	if (last)
	{
		/* Leaves the mark for the next holder (the parent's, in a child). */
		cid_node_claim_release(g->claim);
		free(g);
	}
}

cid_snowflake_gen *
cid_claimed_snowflake_gen(cid_claimed_snowflake *g)
{
	return g != NULL ? &g->gen : NULL;
}

int
cid_claimed_snowflake_status(const cid_claimed_snowflake *g)
{
	if (g == NULL)
		return CID_EINVAL;
	return g->pid == getpid() ? cid_node_claim_status(g->claim) : CID_EFORKED;
}

int
cid_claimed_snowflake_cover(cid_claimed_snowflake *g, int status)
{
	int			rc;

	if (g == NULL)
		return CID_EINVAL;
	/* Even after a failure: a batch may have issued part of its IDs. */
	rc = cid_node_claim_cover(g->claim, &g->gen);
	if (rc == CID_EFORKED)
		return rc;
	return status < 0 ? status : (rc < 0 ? rc : status);
}

/*
 * In a child after fork() the generator may step its own copy of the
 * state, but the cover refuses before anything leaves (CID_EFORKED):
 * cheaper than asking getpid() on every call.
 */
int
cid_claimed_snowflake_next(cid_claimed_snowflake *g, uint64_t *id)
{
	if (g == NULL)
		return CID_EINVAL;
	return cid_claimed_snowflake_cover(g, cid_snowflake_next(&g->gen, id));
}

int
cid_claimed_snowflake_fill(cid_claimed_snowflake *g, uint64_t *ids, size_t n, size_t *done)
{
	if (done != NULL)
		*done = 0;
	if (g == NULL)
		return CID_EINVAL;
	return cid_claimed_snowflake_cover(g, cid_snowflake_fill(&g->gen, ids, n, done));
}

const char *
cid_claimed_snowflake_path(const cid_claimed_snowflake *g)
{
	return (g != NULL && g->host) ? cid_node_claim_path(g->claim) : "";
}

const char *
cid_claimed_snowflake_scope(const cid_claimed_snowflake *g)
{
	return g != NULL ? g->scope : "";
}
