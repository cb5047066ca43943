/*
 * snowflake.c — chronoid.Snowflake: a Snowflake generator of any layout
 * and policy of the core, safe across threads and across fork().
 *
 * Threads: next() first tries the core's pure step with the GIL held (no
 * wait is possible there, and most calls end there); only when the step
 * says the generator must wait (CID_EAGAIN) is the GIL released around the
 * core's driver, which sleeps until the clock allows.  Batches always run
 * without the GIL.  While any thread is inside the driver without the GIL,
 * the fast path is skipped: its clock reading could predate what that
 * thread publishes, which a "fail" policy would take for a clock going
 * back.
 *
 * Fork: a generator remembers cpy_fork_generation; in a child the value
 * differs and the generator refuses to mint (ForkError) until renode()
 * gives it a node of its own: the parent, and every other child, would
 * mint the same IDs.  A generator made with claim=True holds the core's
 * host-wide claim on its node (src/node_claim.c); in a child, where that
 * claim is the parent's, it claims the lowest free number itself before
 * its first ID.
 */
#include "chronoid_py.h"

#include <string.h>
#include <unistd.h>

typedef struct
{
	PyObject_HEAD
	cid_snowflake_gen gen;
	uint64_t	forkgen;		/* cpy_fork_generation it may mint under */
	long		pid;			/* the process that made it (messages) */
	int			waiting;		/* threads in the core without the GIL */
	cid_node_claim *claim;		/* claim=True: the claim on gen.node */
	bool		claiming;		/* claim=True */
	char	   *scope;			/* claim scope (PyMem), NULL = default */
	char	   *claim_dir;		/* claim directory (PyMem), NULL = default */
} SnowflakeObject;

static PyTypeObject SnowflakeType;

static const char *const behind_names[] = {"run_ahead", "wait", "fail", NULL};
static const char *const exhaust_names[] = {"wait", "borrow", NULL};

static int
policy_arg(PyObject *o, const char *name, const char *const *names, int *out)
{
	const char *s;
	Py_ssize_t	len;
	int			i;

	if (o == NULL)
		return 0;
	if (cpy_text(o, "a policy name", &s, &len) < 0)
		return -1;
	for (i = 0; names[i] != NULL; i++)
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

static int
ms_arg(PyObject *o, const char *name, int64_t *out)
{
	uint64_t	v;

	if (o == NULL)
		return 0;
	if (cpy_uint(o, name, (uint64_t) INT64_MAX / 1000000, " ms", &v) < 0)
		return -1;
	*out = (int64_t) v;
	return 0;
}

static int
node_arg(SnowflakeObject *self, PyObject *o, uint64_t *node)
{
	char		ctx[96];

	snprintf(ctx, sizeof(ctx), " (layout %s has %d node bits)",
			 self->gen.layout.name, self->gen.layout.bits[CID_FIELD_NODE]);
	return cpy_uint(o, "node", cid_layout_max_node(&self->gen.layout), ctx, node);
}

/*
 * Claim node in [first, last], the lowest free one; 0 with self->claim and
 * gen.node set.  A held number is skipped; any other failure (a directory
 * the core will not trust, a bad scope) is raised at once.
 */
static int
claim_node(SnowflakeObject *self, uint64_t first, uint64_t last)
{
	char		err[512];
	uint64_t	n;

	for (n = first;; n++)
	{
		cid_node_claim *c = NULL;
		long		holder = 0;
		int			st;

		err[0] = '\0';
		st = cid_node_claim_acquire(&c, self->scope, n, self->claim_dir, &holder, err, sizeof(err));
		if (st == CID_OK)
		{
			cid_node_claim_release(self->claim);
			self->claim = c;
			self->gen.node = n;
			return 0;
		}
		if (st != CID_ENODE_HELD)
			return cpy_raise_status(st, "Snowflake: claiming node %llu: %s",
									(unsigned long long) n, err), -1;
		if (n == last)
		{
			if (first == last)
				return cpy_raise_status(st, "Snowflake: %s", err), -1;
			return cpy_raise_status(st, "Snowflake: every node %llu..%llu of layout %s is "
									"claimed in scope %s (%s)", (unsigned long long) first,
									(unsigned long long) last, self->gen.layout.name,
									self->scope ? self->scope : "default",
									self->claim_dir ? self->claim_dir : cid_node_claim_dir()), -1;
		}
	}
}

/*
 * A valid generator from the start (pgedge, node 0), so that the getters
 * and decode() of one whose __init__ never ran read a real layout; it
 * cannot mint until __init__ sets pid.
 */
static PyObject *
Snowflake_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
	SnowflakeObject *self = (SnowflakeObject *) type->tp_alloc(type, 0);

	if (self != NULL && cid_snowflake_init(&self->gen, NULL, 0, NULL, NULL) < 0)
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
	"on_exhausted", "max_borrow_ticks", "claim", "claim_scope", "claim_dir", NULL};
	PyObject   *layout_arg = Py_None,
			   *node_o = NULL,
			   *behind = NULL,
			   *drift = NULL,
			   *wait = NULL,
			   *exhaust = NULL,
			   *borrow = NULL,
			   *scope_o = NULL,
			   *dir_o = NULL;
	int			claim = 0;
	cid_layout	layout;
	cid_snowflake_opts opts;
	uint64_t	node = 0,
				borrow_ticks;
	int			pol,
				st;

	if (self->pid != 0)
		return cpy_raise(cpy_TypeError, "a Snowflake generator is made once; "
						 "renode() gives it another node"), -1;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "|OO$OOOOOpOO:Snowflake", names, &layout_arg,
									 &node_o, &behind, &drift, &wait, &exhaust, &borrow,
									 &claim, &scope_o, &dir_o))
		return -1;
	if (cpy_layout(layout_arg, &layout) < 0)
		return -1;
	cid_snowflake_opts_default(&opts);
	pol = (int) opts.on_behind;
	if (policy_arg(behind, "on_behind", behind_names, &pol) < 0)
		return -1;
	opts.on_behind = (cid_behind_policy) pol;
	pol = (int) opts.on_exhausted;
	if (policy_arg(exhaust, "on_exhausted", exhaust_names, &pol) < 0)
		return -1;
	opts.on_exhausted = (cid_exhaust_policy) pol;
	if (ms_arg(drift, "max_drift_ms", &opts.max_drift_ms) < 0 ||
		ms_arg(wait, "max_wait_ms", &opts.max_wait_ms) < 0)
		return -1;
	if (borrow != NULL)
	{
		if (cpy_uint(borrow, "max_borrow_ticks", UINT32_MAX, "", &borrow_ticks) < 0)
			return -1;
		opts.max_borrow_ticks = borrow_ticks;
	}
	self->gen.layout = layout;
	if (!claim && ((scope_o != NULL && scope_o != Py_None) || (dir_o != NULL && dir_o != Py_None)))
		return cpy_raise(cpy_TypeError, "claim_scope= and claim_dir= need claim=True"), -1;
	if (claim && layout.bits[CID_FIELD_NODE] == 0)
		return cpy_raise(cpy_ValueError, "claim=True: layout %s has no node field to claim",
						 layout.name), -1;
	if (layout.bits[CID_FIELD_NODE] > 0 && !(claim && (node_o == NULL || node_o == Py_None)))
	{
		if (node_o == NULL || node_o == Py_None)
			return cpy_raise(cpy_TypeError, "Snowflake(layout=%R) needs node=: an int in "
							 "0..%llu, unique among the processes that mint with this "
							 "layout", layout_arg, (unsigned long long) cid_layout_max_node(&layout)), -1;
		if (node_arg(self, node_o, &node) < 0)
			return -1;
	}
	else if (node_o != NULL && node_o != Py_None)
	{
		if (cpy_uint(node_o, "node", 0, " (the layout has no node field)", &node) < 0)
			return -1;
	}
	st = cid_snowflake_init(&self->gen, &layout, node, &opts, NULL);
	if (st < 0)
		return cpy_raise_status(st, "Snowflake(): layout %s, node %llu", layout.name,
								(unsigned long long) node), -1;
	if (claim)
	{
		bool		any = node_o == NULL || node_o == Py_None;

		/* From a failed __init__ before, which left pid 0. */
		PyMem_Free(self->scope);
		PyMem_Free(self->claim_dir);
		self->scope = self->claim_dir = NULL;
		if (cpy_cstr_opt(scope_o, "claim_scope", false, &self->scope) < 0 ||
			cpy_cstr_opt(dir_o, "claim_dir", true, &self->claim_dir) < 0 ||
			claim_node(self, any ? 0 : node, any ? cid_layout_max_node(&layout) : node) < 0)
			return -1;
		self->claiming = true;
	}
	self->forkgen = cpy_fork_generation;
	self->pid = (long) getpid();
	return 0;
}

static void
Snowflake_dealloc(SnowflakeObject *self)
{
	/* In a child this only closes the inherited descriptor. */
	cid_node_claim_release(self->claim);
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
					 "with renode(node) first", self->gen.layout.name,
					 (unsigned long long) self->gen.node, self->pid, (long) getpid());
}

/*
 * 0 when self may mint in this process; -1 with an exception.  A claiming
 * generator in a child first claims a node of its own (the lowest free).
 */
static int
usable_slow(SnowflakeObject *self)
{
	if (self->pid == 0)
		return cpy_raise(cpy_TypeError, "Snowflake.__init__() was not called"), -1;
	if (self->forkgen == cpy_fork_generation)
		return 0;
	if (!self->claiming)
		return forked(self), -1;
	/* The parent's threads do not exist here; the claim is the parent's. */
	self->waiting = 0;
	cid_node_claim_release(self->claim);
	self->claim = NULL;
	if (claim_node(self, 0, cid_layout_max_node(&self->gen.layout)) < 0)
		return -1;
	self->forkgen = cpy_fork_generation;
	self->pid = (long) getpid();
	return 0;
}

/* The check every mint makes, inline: the slow cases are rare. */
static inline int
usable(SnowflakeObject *self)
{
	if (self->forkgen == cpy_fork_generation && self->pid != 0)
		return 0;
	return usable_slow(self);
}

static PyObject *
mint_failed(SnowflakeObject *self, int st, const char *what)
{
	return cpy_raise_status(st, "Snowflake.%s (layout %s, node %llu)", what,
							self->gen.layout.name, (unsigned long long) self->gen.node);
}

static PyObject *
Snowflake_next(SnowflakeObject *self, PyObject *const *args, Py_ssize_t nargs)
{
	uint64_t	id = 0;
	int			st = CID_EAGAIN;

	if (cpy_no_args("next()", nargs) < 0 || usable(self) < 0)
		return NULL;
	if (self->waiting == 0)
	{
		int64_t		now = cid_platform_clock(NULL);

		st = now < 0 ? CID_ECLOCK : cid_snowflake_next_at(&self->gen, now, &id);
	}
	if (st == CID_EAGAIN)
	{
		self->waiting++;
		Py_BEGIN_ALLOW_THREADS
			st = cid_snowflake_next(&self->gen, &id);
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
	self->waiting++;
	Py_BEGIN_ALLOW_THREADS
		st = cid_snowflake_fill(&self->gen, ids, (size_t) *n, &done);
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
	st = cid_snowflake_next_at(&self->gen, (int64_t) now, &id);
	if (st < 0)
		return mint_failed(self, st, "next_at()");
	return PyLong_FromUnsignedLongLong(id);
}

static PyObject *
Snowflake_renode(SnowflakeObject *self, PyObject *arg)
{
	uint64_t	node;

	if (self->pid == 0)
		return cpy_raise(cpy_TypeError, "Snowflake.__init__() was not called");
	if (self->forkgen != cpy_fork_generation)
	{
		/* The parent's threads do not exist here. */
		self->waiting = 0;
	}
	else if (self->waiting > 0)
		return cpy_raise(cpy_GeneratorError, "renode(): another thread is waiting in "
						 "next() or a batch of this generator");
	if (self->gen.layout.bits[CID_FIELD_NODE] == 0)
		return cpy_raise(cpy_ValueError, "renode(): layout %s has no node field",
						 self->gen.layout.name);
	if (node_arg(self, arg, &node) < 0)
		return NULL;
	/*
	 * The state word stays: IDs keep increasing across the change, and
	 * with another node they cannot collide with the old node's.
	 */
	if (self->claiming)
	{
		if (self->forkgen != cpy_fork_generation)
		{
			cid_node_claim_release(self->claim);
			self->claim = NULL;
		}
		if (self->claim == NULL || node != self->gen.node)
		{
			cid_node_claim *old = self->claim;

			self->claim = NULL;
			if (claim_node(self, node, node) < 0)
			{
				self->claim = old;
				return NULL;
			}
			cid_node_claim_release(old);
		}
	}
	self->gen.node = node;
	self->forkgen = cpy_fork_generation;
	self->pid = (long) getpid();
	Py_RETURN_NONE;
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
	st = cid_snowflake_decode(&parts, &self->gen.layout, id);
	if (st < 0)
		return cpy_raise_status(st, "Snowflake.decode(%llu): not an ID of layout %s",
								(unsigned long long) id, self->gen.layout.name);
	memset(&info, 0, sizeof(info));
	info.kind = CID_KIND_SNOWFLAKE;
	info.snowflake = id;
	info.has_time = true;
	info.unix_ms = parts.unix_ms;
	info.has_node = self->gen.layout.bits[CID_FIELD_NODE] > 0;
	info.node = parts.node;
	info.has_sequence = true;
	info.sequence = parts.sequence;
	return cpy_info(&info);
}

static PyObject *
Snowflake_get_node(SnowflakeObject *self, void *closure)
{
	return PyLong_FromUnsignedLongLong(self->gen.node);
}

static PyObject *
Snowflake_get_max_node(SnowflakeObject *self, void *closure)
{
	return PyLong_FromUnsignedLongLong(cid_layout_max_node(&self->gen.layout));
}

static PyObject *
Snowflake_get_layout(SnowflakeObject *self, void *closure)
{
	char		spec[256];

	if (cid_layout_format(spec, sizeof(spec), &self->gen.layout) < 0)
		return cpy_raise(cpy_GeneratorError, "layout text does not fit");
	return PyUnicode_FromString(spec);
}

static PyObject *
Snowflake_get_layout_name(SnowflakeObject *self, void *closure)
{
	return PyUnicode_FromString(self->gen.layout.name);
}

static PyObject *
Snowflake_get_claim_path(SnowflakeObject *self, void *closure)
{
	if (self->claim == NULL || cid_node_claim_status(self->claim) != CID_OK)
		Py_RETURN_NONE;
	return PyUnicode_DecodeFSDefault(cid_node_claim_path(self->claim));
}

static PyObject *
Snowflake_repr(SnowflakeObject *self)
{
	return PyUnicode_FromFormat("chronoid.Snowflake(layout='%s', node=%llu)",
								self->gen.layout.name, (unsigned long long) self->gen.node);
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
	"renode(node): mint under another node from now on (in a forked child: its own)."},
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
	"claim=False, claim_scope=None, claim_dir=None)",
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
