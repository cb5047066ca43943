/*
 * snowflake.c — chronoid.Snowflake: a Snowflake generator of any layout
 * and policy of the core, safe across threads and across fork(), over the
 * core's claimed generators (cid_claimed_snowflake): every object made for
 * one (scope, node) in a process shares the process's one generator of the
 * pair, which holds the node claim (host-wide by default, this process's
 * own with claim=False) and covers every ID with the claim's mark, so a
 * generator made after another was dropped starts after its last tick.
 *
 * Threads: next() first tries the core's pure step with the GIL held (no
 * wait is possible there, and most calls end there); only when the step
 * says the generator must wait (CID_EAGAIN) is the GIL released around the
 * core's driver, which sleeps until the clock allows.  Batches always run
 * without the GIL.  While any thread is inside the driver without the GIL,
 * and always under on_behind='fail', the fast path is skipped: its clock
 * reading could predate what that thread publishes, which a "fail" policy
 * would take for a clock going back.
 *
 * Fork: an object remembers cid_bind_fork_generation; in a child the value
 * differs and the parent's generator is not the child's.  A node given as
 * an int stays that node: the object raises ForkError until renode() gives
 * it one in the child (the parent, and every other child, would mint the
 * same IDs, and no number may be chosen for the application).  A node
 * chosen by the claim (node=None or a range) is chosen again: the child
 * claims the lowest free number of the same range before its first ID.
 */
#include "chronoid_py.h"

#include <string.h>
#include <unistd.h>

typedef struct
{
	PyObject_HEAD
	cid_claimed_snowflake *g;	/* NULL before __init__ and after close() */
	cid_layout	layout;
	cid_snowflake_opts opts;
	uint64_t	node;
	uint64_t	first;			/* the range the node is chosen from */
	uint64_t	last;
	bool		chosen;			/* node=None or a range: chosen by the claim */
	bool		host;			/* claim=True: host-wide */
	bool		closed;
	uint64_t	forkgen;		/* cid_bind_fork_generation it may mint under */
	long		pid;			/* the process that made it (messages) */
	int			waiting;		/* threads in the core without the GIL */
	char	   *scope;			/* claim scope (PyMem), NULL = default */
	char	   *claim_dir;		/* claim directory (PyMem), NULL = default */
} SnowflakeObject;

static PyTypeObject SnowflakeType;

static const char *const behind_names[] = {"run_ahead", "wait", "fail", NULL};
static const char *const exhaust_names[] = {"wait", "borrow", NULL};

/* A policy's name as the core's number into *out. */
static int
policy_arg(PyObject *o, const char *name, const char *const *names, int64_t *out)
{
	const char *s;
	Py_ssize_t	len;

	if (cpy_text(o, "a policy name", &s, &len) < 0)
		return -1;
	for (int i = 0; names[i] != NULL; i++)
	{
		if ((size_t) len == strlen(names[i]) && memcmp(s, names[i], (size_t) len) == 0)
		{
			*out = i;
			return 0;
		}
	}
	{
		PyObject   *shown = cpy_show(o);

		if (shown != NULL)
		{
			cpy_raise(cpy_ValueError, "%s=%U is not a policy: expected %s", name, shown,
					  names == behind_names ? "'run_ahead', 'wait' or 'fail'" : "'wait' or 'borrow'");
			Py_DECREF(shown);
		}
	}
	return -1;
}

int
cpy_policy_opts(PyObject *const *o, int64_t *v)
{
	for (int i = 0; i < CID_BIND_POLICY_NOPTS; i++)
	{
		const char *name = cid_bind_policy_opt_names[i].snake;

		v[i] = CID_BIND_UNSET;
		if (o[i] == NULL)
			continue;
		if (o[i] == Py_None)
			return cpy_raise(cpy_TypeError, "%s must be %s, not None", name,
							 i == CID_BIND_POLICY_ON_BEHIND || i == CID_BIND_POLICY_ON_EXHAUSTED ?
							 "a policy name" : "an int"), -1;
		if (i == CID_BIND_POLICY_ON_BEHIND || i == CID_BIND_POLICY_ON_EXHAUSTED)
		{
			if (policy_arg(o[i], name, i == CID_BIND_POLICY_ON_BEHIND ? behind_names :
						   exhaust_names, &v[i]) < 0)
				return -1;
		}
		else if (cpy_int_opt(o[i], name, &v[i]) < 0)
			return -1;
	}
	return 0;
}

/*
 * A node argument: an int (exactly that node), or with a claim a range of
 * step 1 (the lowest free one in it); 0 with *first and *last set.
 */
static int
node_arg(SnowflakeObject *self, PyObject *o, bool host, uint64_t *first, uint64_t *last,
		 bool *chosen)
{
	char		ctx[96];
	uint64_t	max = cid_layout_max_node(&self->layout);

	snprintf(ctx, sizeof(ctx), " (layout %s has %d node bits)",
			 self->layout.name, self->layout.bits[CID_FIELD_NODE]);
	if (PyRange_Check(o))
	{
		PyObject   *start = PyObject_GetAttrString(o, "start");
		PyObject   *stop = PyObject_GetAttrString(o, "stop");
		PyObject   *step = PyObject_GetAttrString(o, "step");
		uint64_t	a = 0,
					b = 0;
		int			rc = -1;

		if (start != NULL && stop != NULL && step != NULL)
		{
			if (!host)
				cpy_raise(cpy_TypeError, "node=%R needs claim=True: a number is chosen from "
						  "a range by claiming it", o);
			else if (PyLong_AsLong(step) != 1 || PyObject_Length(o) < 1)
				cpy_raise(cpy_ValueError, "node=%R: expected a non-empty range of step 1", o);
			else if (cpy_uint(start, "node range start", max, ctx, &a) == 0 &&
					 cpy_uint(stop, "node range stop", max + 1, ctx, &b) == 0)
			{
				*first = a;
				*last = b - 1;
				*chosen = true;
				rc = 0;
			}
		}
		Py_XDECREF(start);
		Py_XDECREF(stop);
		Py_XDECREF(step);
		return rc;
	}
	if (cpy_uint(o, "node", max, ctx, first) < 0)
		return -1;
	*last = *first;
	*chosen = false;
	return 0;
}

/*
 * Open the process's generator of the lowest free node in [first, last]
 * (cid_bind_claim: the packages' one claim policy); 0 with self->g and
 * self->node set, the generator it replaces closed.
 */
static int
claim_node(SnowflakeObject *self, uint64_t first, uint64_t last)
{
	char		err[768];
	cid_claimed_snowflake *g = NULL;
	uint64_t	n = 0;
	long		holder = 0;
	int			st;

	st = cid_bind_claim(&g, &n, self->scope, first, last, &self->layout, &self->opts, self->host,
						self->claim_dir, &holder, err, sizeof(err));
	if (st != CID_OK)
		return cpy_raise_status(st, "Snowflake: %s", err), -1;
	cid_claimed_snowflake_close(self->g);
	self->g = g;
	self->node = n;
	return 0;
}

/*
 * A valid layout from the start (pgedge, node 0), so that the getters and
 * decode() of one whose __init__ never ran read a real layout; it cannot
 * mint until __init__ opens its generator.
 */
static PyObject *
Snowflake_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
	SnowflakeObject *self = (SnowflakeObject *) type->tp_alloc(type, 0);

	if (self != NULL && cid_layout_preset(&self->layout, "pgedge") != CID_OK)
	{
		Py_DECREF(self);
		return cpy_raise(cpy_GeneratorError, "Snowflake: the default layout failed");
	}
	return (PyObject *) self;
}

static int
Snowflake_init(SnowflakeObject *self, PyObject *args, PyObject *kw)
{
	static char *names[] = {"layout", "node", "on_behind", "max_drift_ms", "max_wait_ms",
		"on_exhausted", "max_borrow_ticks", "claim", "scope", "claim_dir", "claim_scope", NULL};
	PyObject   *layout_arg = Py_None,
			   *node_o = Py_None,
			   *pol_o[CID_BIND_POLICY_NOPTS] = {NULL},
			   *claim_o = Py_True,
			   *scope_o = Py_None,
			   *dir_o = Py_None,
			   *old_scope_o = Py_None;
	cid_layout	layout;
	cid_snowflake_opts opts;
	uint64_t	first = 0,
				last = 0;
	int64_t		pol[CID_BIND_POLICY_NOPTS];
	char		err[256];
	bool		chosen = false,
				has_node_field;
	int			host;

	if (self->pid != 0)
		return cpy_raise(cpy_TypeError, "a Snowflake generator is made once; "
						 "renode() gives it another node"), -1;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "|OO$OOOOOOOOO:Snowflake", names, &layout_arg,
									 &node_o, &pol_o[CID_BIND_POLICY_ON_BEHIND],
									 &pol_o[CID_BIND_POLICY_MAX_DRIFT_MS],
									 &pol_o[CID_BIND_POLICY_MAX_WAIT_MS],
									 &pol_o[CID_BIND_POLICY_ON_EXHAUSTED],
									 &pol_o[CID_BIND_POLICY_MAX_BORROW_TICKS],
									 &claim_o, &scope_o, &dir_o, &old_scope_o))
		return -1;
	if (cpy_layout(layout_arg, &layout) < 0)
		return -1;
	cid_snowflake_opts_default(&opts);
	if (cpy_policy_opts(pol_o, pol) < 0)
		return -1;
	if (cid_bind_snowflake_policy(&opts, pol, false, err, sizeof(err)) != CID_OK)
		return cpy_raise(cpy_ValueError, "%s", err), -1;
	if (old_scope_o != Py_None)
	{
		if (scope_o != Py_None)
			return cpy_raise(cpy_TypeError, "give scope= or its older name claim_scope=, "
							 "not both"), -1;
		scope_o = old_scope_o;
	}

	/*
	 * Claiming is the default, as in the JavaScript package: a process
	 * that mints unclaimed is a duplicate waiting for a second process
	 * with the same number.  A layout without a node field is claimed as
	 * node 0: two processes of one scope could never mint it apart.
	 */
	has_node_field = layout.bits[CID_FIELD_NODE] > 0;
	if ((host = PyObject_IsTrue(claim_o)) < 0)
		return -1;
	self->layout = layout;
	self->opts = opts;
	self->host = host;
	if (!has_node_field)
	{
		if (node_o != Py_None && cpy_uint(node_o, "node", 0, " (the layout has no node field)", &first) < 0)
			return -1;
	}
	else if (node_o == Py_None)
	{
		if (!host)
			return cpy_raise(cpy_TypeError, "Snowflake(layout=%R, claim=False) needs node=: an "
							 "int in 0..%llu, unique among the processes that mint with this "
							 "layout", layout_arg, (unsigned long long) cid_layout_max_node(&layout)), -1;
		last = cid_layout_max_node(&layout);
		chosen = true;
	}
	else if (node_arg(self, node_o, host, &first, &last, &chosen) < 0)
		return -1;

	/* From a failed __init__ before, which left pid 0. */
	PyMem_Free(self->scope);
	PyMem_Free(self->claim_dir);
	self->scope = self->claim_dir = NULL;
	if (cpy_cstr_opt(scope_o, "scope", false, &self->scope) < 0 ||
		cpy_cstr_opt(dir_o, "claim_dir", true, &self->claim_dir) < 0)
		return -1;
	if (!host && dir_o != Py_None)
		return cpy_raise(cpy_TypeError, "claim_dir= needs claim=True"), -1;
	self->first = first;
	self->last = last;
	self->chosen = chosen;
	if (claim_node(self, first, last) < 0)
		return -1;
	self->forkgen = cid_bind_fork_generation;
	self->pid = (long) getpid();
	return 0;
}

static void
Snowflake_dealloc(SnowflakeObject *self)
{
	/* In a child this only frees the child's copy: the parent's stands. */
	cid_claimed_snowflake_close(self->g);
	PyMem_Free(self->scope);
	PyMem_Free(self->claim_dir);
	Py_TYPE(self)->tp_free((PyObject *) self);
}

static PyObject *
forked(SnowflakeObject *self)
{
	return cpy_raise(cpy_ForkError, "this Snowflake generator (layout %s, node %llu) was "
					 "made in process %ld; this is a child (pid %ld) made by fork(), where "
					 "it would mint the same IDs as its parent: give it a node of its own "
					 "with renode(node) or renode(range(first, stop)) first",
					 self->layout.name, (unsigned long long) self->node, self->pid,
					 (long) getpid());
}

/*
 * 0 when self may mint in this process; -1 with an exception.  In a child,
 * a generator whose node was chosen by its claim chooses again.
 */
static int
usable_slow(SnowflakeObject *self)
{
	if (self->pid == 0)
		return cpy_raise(cpy_TypeError, "Snowflake.__init__() was not called"), -1;
	if (self->closed)
		return cpy_raise(cpy_GeneratorError, "this Snowflake generator (node %llu) was closed",
						 (unsigned long long) self->node), -1;
	if (self->forkgen == cid_bind_fork_generation)
		return 0;
	if (!self->chosen)
		return forked(self), -1;
	/* The parent's threads do not exist here; its generator is its own. */
	self->waiting = 0;
	if (claim_node(self, self->first, self->last) < 0)
		return -1;
	self->forkgen = cid_bind_fork_generation;
	self->pid = (long) getpid();
	return 0;
}

/* The check every mint makes, inline: the slow cases are rare. */
static inline int
usable(SnowflakeObject *self)
{
	if (self->forkgen == cid_bind_fork_generation && self->pid != 0 && !self->closed)
		return 0;
	return usable_slow(self);
}

static PyObject *
mint_failed(SnowflakeObject *self, int st, const char *what)
{
	return cpy_raise_status(st, "Snowflake.%s (layout %s, node %llu)", what,
							self->layout.name, (unsigned long long) self->node);
}

static PyObject *
Snowflake_next(SnowflakeObject *self, PyObject *const *args, Py_ssize_t nargs)
{
	uint64_t	id = 0;
	int			st = CID_EAGAIN;

	if (cpy_no_args("next()", nargs) < 0 || usable(self) < 0)
		return NULL;
	if (self->waiting == 0 && self->opts.on_behind != CID_BEHIND_FAIL)
	{
		int64_t		now = cid_platform_clock(NULL);

		st = now < 0 ? CID_ECLOCK :
			cid_snowflake_next_at(cid_claimed_snowflake_gen(self->g), now, &id);
		if (st != CID_EAGAIN)
			st = cid_claimed_snowflake_cover(self->g, st);
	}
	if (st == CID_EAGAIN)
	{
		cid_claimed_snowflake *g = self->g;

		self->waiting++;
		Py_BEGIN_ALLOW_THREADS
			st = cid_claimed_snowflake_next(g, &id);
		Py_END_ALLOW_THREADS
			self->waiting--;
	}
	if (st < 0)
		return mint_failed(self, st, "next()");
	return PyLong_FromUnsignedLongLong(id);
}

/* n IDs into a fresh buffer, without the GIL; NULL with an exception. */
static uint64_t *
fill(SnowflakeObject *self, PyObject *arg, Py_ssize_t *n, const char *what)
{
	cid_claimed_snowflake *g;
	uint64_t   *ids;
	size_t		done = 0;
	int			st;

	if (usable(self) < 0)
		return NULL;
	if (cpy_count(arg, n) < 0)
		return NULL;
	ids = PyMem_RawMalloc(*n > 0 ? sizeof(uint64_t) * (size_t) *n : 1);
	if (ids == NULL)
		return PyErr_NoMemory(), NULL;
	g = self->g;
	self->waiting++;
	Py_BEGIN_ALLOW_THREADS
		st = cid_claimed_snowflake_fill(g, ids, (size_t) *n, &done);
	Py_END_ALLOW_THREADS
		self->waiting--;
	if (st < 0)
	{
		PyMem_RawFree(ids);
		return mint_failed(self, st, what), NULL;
	}
	return ids;
}

static PyObject *
Snowflake_batch(SnowflakeObject *self, PyObject *arg)
{
	Py_ssize_t	n;
	uint64_t   *ids = fill(self, arg, &n, "batch()");
	PyObject   *list;

	if (ids == NULL)
		return NULL;
	list = cpy_u64_list(ids, n);
	PyMem_RawFree(ids);
	return list;
}

static PyObject *array_type;

static PyObject *
Snowflake_batch_array(SnowflakeObject *self, PyObject *arg)
{
	Py_ssize_t	n;
	uint64_t   *ids = fill(self, arg, &n, "batch_array()");
	PyObject   *bytes,
			   *arr;

	if (ids == NULL)
		return NULL;
	bytes = PyBytes_FromStringAndSize((const char *) ids, (Py_ssize_t) sizeof(uint64_t) * n);
	PyMem_RawFree(ids);
	if (bytes == NULL)
		return NULL;
	arr = PyObject_CallFunction(array_type, "sO", "Q", bytes);
	Py_DECREF(bytes);
	return arr;
}

/* The pure step at a given clock reading (ns): for tests of the policies. */
static PyObject *
Snowflake_next_at(SnowflakeObject *self, PyObject *arg)
{
	int			overflow;
	long long	now;
	uint64_t	id = 0;
	int			st;

	if (usable(self) < 0)
		return NULL;
	if (!PyLong_Check(arg) || PyBool_Check(arg))
		return cpy_raise(cpy_TypeError, "next_at() takes the clock in Unix ns as an int, "
						 "not %s", Py_TYPE(arg)->tp_name);
	now = PyLong_AsLongLongAndOverflow(arg, &overflow);
	if (now == -1 && PyErr_Occurred())
		return NULL;
	if (overflow != 0 || now < 0)
	{
		PyObject   *shown = cpy_show(arg);

		if (shown != NULL)
		{
			cpy_raise(cpy_ValueError, "next_at(%U): expected Unix ns in 0..2**63-1", shown);
			Py_DECREF(shown);
		}
		return NULL;
	}
	if (self->waiting > 0)
		return cpy_raise(cpy_GeneratorError, "next_at(): another thread is waiting in next()");
	st = cid_snowflake_next_at(cid_claimed_snowflake_gen(self->g), (int64_t) now, &id);
	if (st != CID_EAGAIN)
		st = cid_claimed_snowflake_cover(self->g, st);
	if (st < 0)
		return mint_failed(self, st, "next_at()");
	return PyLong_FromUnsignedLongLong(id);
}

static PyObject *
Snowflake_renode(SnowflakeObject *self, PyObject *arg)
{
	uint64_t	first,
				last;
	bool		chosen;

	if (self->pid == 0)
		return cpy_raise(cpy_TypeError, "Snowflake.__init__() was not called");
	if (self->closed)
		return cpy_raise(cpy_GeneratorError, "renode(): this Snowflake generator was closed");
	if (self->forkgen != cid_bind_fork_generation)
	{
		/* The parent's threads do not exist here. */
		self->waiting = 0;
	}
	else if (self->waiting > 0)
		return cpy_raise(cpy_GeneratorError, "renode(): another thread is waiting in "
						 "next() or a batch of this generator");
	if (self->layout.bits[CID_FIELD_NODE] == 0)
		return cpy_raise(cpy_ValueError, "renode(): layout %s has no node field",
						 self->layout.name);
	if (node_arg(self, arg, self->host, &first, &last, &chosen) < 0)
		return NULL;
	/*
	 * The same number in the same process: nothing to do.  Another one
	 * (or any in a child) is claimed before the old one is let go, and
	 * the new generator starts after the number's own mark.
	 */
	if (self->forkgen == cid_bind_fork_generation && !chosen && first == self->node)
		Py_RETURN_NONE;
	if (claim_node(self, first, last) < 0)
		return NULL;
	self->first = first;
	self->last = last;
	self->chosen = chosen;
	self->forkgen = cid_bind_fork_generation;
	self->pid = (long) getpid();
	Py_RETURN_NONE;
}

/* Give the node back (with the last object of it in this process). */
static PyObject *
Snowflake_close(SnowflakeObject *self, PyObject *Py_UNUSED(ignored))
{
	if (self->waiting > 0)
		return cpy_raise(cpy_GeneratorError, "close(): another thread is waiting in "
						 "next() or a batch of this generator");
	if (!self->closed)
	{
		cid_claimed_snowflake_close(self->g);
		self->g = NULL;
		self->closed = true;
	}
	Py_RETURN_NONE;
}

static PyObject *
Snowflake_enter(SnowflakeObject *self, PyObject *Py_UNUSED(ignored))
{
	if (usable(self) < 0)
		return NULL;
	Py_INCREF(self);
	return (PyObject *) self;
}

static PyObject *
Snowflake_exit(SnowflakeObject *self, PyObject *const *args, Py_ssize_t nargs)
{
	(void) args;
	(void) nargs;
	return Snowflake_close(self, NULL);
}

static PyObject *
Snowflake_decode(SnowflakeObject *self, PyObject *arg)
{
	cid_snowflake_parts parts;
	cid_id_info info;
	uint64_t	id;
	int			st;

	if (cpy_uint(arg, "id", UINT64_MAX, "", &id) < 0)
		return NULL;
	st = cid_snowflake_decode(&parts, &self->layout, id);
	if (st < 0)
		return cpy_raise_status(st, "Snowflake.decode(%llu): not an ID of layout %s",
								(unsigned long long) id, self->layout.name);
	memset(&info, 0, sizeof(info));
	info.kind = CID_KIND_SNOWFLAKE;
	info.snowflake = id;
	info.has_time = true;
	info.unix_ms = parts.unix_ms;
	info.has_node = self->layout.bits[CID_FIELD_NODE] > 0;
	info.node = parts.node;
	info.has_sequence = true;
	info.sequence = parts.sequence;
	return cpy_info(&info);
}

/*
 * In a forked child, a node chosen from a range is chosen again before it
 * is shown, so that gen.node never names the parent's number there.
 */
static PyObject *
Snowflake_get_node(SnowflakeObject *self, void *closure)
{
	if (self->chosen && self->pid != 0 && !self->closed &&
		self->forkgen != cid_bind_fork_generation && usable_slow(self) < 0)
		return NULL;
	return PyLong_FromUnsignedLongLong(self->node);
}

static PyObject *
Snowflake_get_max_node(SnowflakeObject *self, void *closure)
{
	return PyLong_FromUnsignedLongLong(cid_layout_max_node(&self->layout));
}

static PyObject *
Snowflake_get_layout(SnowflakeObject *self, void *closure)
{
	char		spec[256];

	if (cid_layout_format(spec, sizeof(spec), &self->layout) < 0)
		return cpy_raise(cpy_GeneratorError, "layout text does not fit");
	return PyUnicode_FromString(spec);
}

static PyObject *
Snowflake_get_layout_name(SnowflakeObject *self, void *closure)
{
	return PyUnicode_FromString(self->layout.name);
}

static PyObject *
Snowflake_get_claim_path(SnowflakeObject *self, void *closure)
{
	if (self->g == NULL || !self->host || cid_claimed_snowflake_status(self->g) != CID_OK)
		Py_RETURN_NONE;
	return PyUnicode_DecodeFSDefault(cid_claimed_snowflake_path(self->g));
}

static PyObject *
Snowflake_repr(SnowflakeObject *self)
{
	return PyUnicode_FromFormat("chronoid.Snowflake(layout='%s', node=%llu)",
								self->layout.name, (unsigned long long) self->node);
}

static PyMethodDef Snowflake_methods[] = {
	{"next", CPY_FN(Snowflake_next), METH_FASTCALL, "next() -> int: the next ID."},
	{"batch", (PyCFunction) Snowflake_batch, METH_O, "batch(n) -> list[int]: n increasing IDs."},
	{"batch_array", (PyCFunction) Snowflake_batch_array, METH_O,
	"batch_array(n) -> array.array('Q'): n increasing IDs."},
	{"next_at", (PyCFunction) Snowflake_next_at, METH_O,
	"next_at(now_ns) -> int: the pure step at a given clock reading; WouldWait "
	"where next() would wait."},
	{"renode", (PyCFunction) Snowflake_renode, METH_O,
	"renode(node): mint under another node (an int, or with a claim the lowest free "
	"one of a range) from now on; in a forked child, its own."},
	{"close", (PyCFunction) Snowflake_close, METH_NOARGS,
	"close(): stop minting; the last generator of the node in this process gives it back."},
	{"__enter__", (PyCFunction) Snowflake_enter, METH_NOARGS, NULL},
	{"__exit__", CPY_FN(Snowflake_exit), METH_FASTCALL, NULL},
	{"decode", (PyCFunction) Snowflake_decode, METH_O,
	"decode(id) -> IdInfo: an ID of this generator's layout taken apart."},
	{NULL, NULL, 0, NULL}
};

static PyGetSetDef Snowflake_getset[] = {
	{"node", (getter) Snowflake_get_node, NULL, "the node number it mints under", NULL},
	{"max_node", (getter) Snowflake_get_max_node, NULL, "the layout's largest node", NULL},
	{"layout", (getter) Snowflake_get_layout, NULL, "the layout's canonical spec", NULL},
	{"layout_name", (getter) Snowflake_get_layout_name, NULL, "preset name or 'custom'", NULL},
	{"claim_path", (getter) Snowflake_get_claim_path, NULL,
	"the lock file of this process's claim on the node, or None", NULL},
	{NULL, NULL, NULL, NULL, NULL}
};

static PyTypeObject SnowflakeType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "chronoid.Snowflake",
	.tp_basicsize = sizeof(SnowflakeObject),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "Snowflake(layout='pgedge', node=None, *, on_behind='run_ahead', "
	"max_drift_ms=1000, max_wait_ms=1000, on_exhausted='wait', max_borrow_ticks=1000, "
	"claim=True, scope=None, claim_dir=None)",
	.tp_new = Snowflake_new,
	.tp_init = (initproc) Snowflake_init,
	.tp_dealloc = (destructor) Snowflake_dealloc,
	.tp_repr = (reprfunc) Snowflake_repr,
	.tp_methods = Snowflake_methods,
	.tp_getset = Snowflake_getset,
};

int
cpy_snowflake_setup(PyObject *module)
{
	PyObject   *array_mod = PyImport_ImportModule("array");

	if (array_mod == NULL)
		return -1;
	array_type = PyObject_GetAttrString(array_mod, "array");
	Py_DECREF(array_mod);
	if (array_type == NULL || PyType_Ready(&SnowflakeType) < 0)
		return -1;
	Py_INCREF(&SnowflakeType);
	if (PyModule_AddObject(module, "Snowflake", (PyObject *) &SnowflakeType) < 0)
	{
		Py_DECREF(&SnowflakeType);
		return -1;
	}
	return 0;
}
