/*
 * lease.c — chronoid.SnowflakeLease: a Snowflake generator whose node
 * number is leased from a PostgreSQL table by libchronoid_lease (db/lease,
 * compiled into the module as the core is), not by a second implementation
 * of its protocol.  Acquiring, setting up and releasing talk to the server,
 * so they run without the GIL; minting is cid_lease_next/fill, whose fence
 * (the local deadline) is the library's, and whose background thread
 * renews the lease.  In a child after fork() the library refuses to mint
 * (CID_ELEASE_FORKED): the child needs a lease of its own.
 *
 * Built only where libpq's header was found (setup.py defines
 * CHRONOID_PY_LEASE); elsewhere the class exists and refuses to construct.
 */
#include "chronoid_py.h"

#include <string.h>

#ifdef CHRONOID_PY_LEASE
#include "chronoid_lease.h"
#endif

typedef struct
{
	PyObject_HEAD
#ifdef CHRONOID_PY_LEASE
	cid_lease  *lease;			/* NULL before __init__ and after release */
#endif
	int			busy;			/* threads in the library without the GIL */
	uint64_t	forkgen;		/* cid_bind_fork_generation busy was counted in */
	char		layout_name[CID_LAYOUT_NAME_MAX];
} LeaseObject;

#ifdef CHRONOID_PY_LEASE

/*
 * What the options hold: copies of the strings, kept while the call runs,
 * and the options checked (bind/lease_opts.c) into b, which points at them.
 */
typedef struct
{
	char	   *conninfo;
	char	   *schema;
	char	   *owner;
	cid_bind_lease_args b;
} lease_args;

static void
args_free(lease_args *a)
{
	PyMem_Free(a->conninfo);
	PyMem_Free(a->schema);
	PyMem_Free(a->owner);
}

/*
 * The keywords, read as this language reads them; their ranges, the node
 * range against the layout and the texts are checked by bind/, in the
 * words the npm package uses too (spelled the Python way).
 */
static int
parse_args(PyObject *args, PyObject *kw, bool full, lease_args *a)
{
	static char *names[] = {"conninfo", "layout", "schema", "ttl_ms", "grace_ms", "lo", "hi",
		"owner", "clock_wait_ms", "on_behind", "max_drift_ms", "max_wait_ms", "on_exhausted",
	"max_borrow_ticks", NULL};
	PyObject   *conninfo = NULL,
			   *layout = NULL,
			   *schema = NULL,
			   *owner = NULL,
			   *lease_o[CID_BIND_LEASE_NOPTS] = {NULL},
			   *pol_o[CID_BIND_POLICY_NOPTS] = {NULL};
	int64_t		v[CID_BIND_LEASE_NOPTS],
				pol[CID_BIND_POLICY_NOPTS];
	cid_layout	lay;
	char		err[512];

	memset(a, 0, sizeof(*a));
	if (full)
	{
		if (!PyArg_ParseTupleAndKeywords(args, kw, "|O$OOOOOOOOOOOOO:SnowflakeLease", names,
										 &conninfo, &layout, &schema,
										 &lease_o[CID_BIND_LEASE_TTL_MS],
										 &lease_o[CID_BIND_LEASE_GRACE_MS],
										 &lease_o[CID_BIND_LEASE_LO], &lease_o[CID_BIND_LEASE_HI],
										 &owner, &lease_o[CID_BIND_LEASE_CLOCK_WAIT_MS],
										 &pol_o[0], &pol_o[1], &pol_o[2], &pol_o[3], &pol_o[4]))
			return -1;
	}
	else
	{
		static char *setup_names[] = {"conninfo", "schema", NULL};

		if (!PyArg_ParseTupleAndKeywords(args, kw, "|O$O:lease_setup", setup_names,
										 &conninfo, &schema))
			return -1;
	}
	for (int i = 0; i < CID_BIND_LEASE_NOPTS; i++)
	{
		v[i] = CID_BIND_UNSET;
		if (cpy_int_opt(lease_o[i], cid_bind_lease_opt_names[i].snake, &v[i]) < 0)
			return -1;
	}
	/* None, as for the lease's other keywords, is the default. */
	for (int i = 0; i < CID_BIND_POLICY_NOPTS; i++)
		if (pol_o[i] == Py_None)
			pol_o[i] = NULL;
	if (cpy_policy_opts(pol_o, pol) < 0)
		return -1;
	if (cpy_layout(layout, &lay) < 0 ||
		cpy_cstr_opt(conninfo, "conninfo", false, &a->conninfo) < 0 ||
		cpy_cstr_opt(schema, "schema", false, &a->schema) < 0 ||
		cpy_cstr_opt(owner, "owner", false, &a->owner) < 0)
		goto fail;
	if (cid_bind_lease_opts(&a->b, &lay, a->conninfo, a->schema, a->owner, v, pol, true, false,
							err, sizeof(err)) != CID_OK)
	{
		cpy_raise(cpy_ValueError, "%s", err);
		goto fail;
	}
	return 0;

fail:
	args_free(a);
	return -1;
}

/* Lease failures are GeneratorErrors (ForkError in a child); the rest as usual. */
static PyObject *
lease_error(int st, const char *what, const char *detail)
{
	if (st == CID_ELEASE_FORKED)
		return cpy_raise_coded(st, "%s: %s: this lease belongs to the parent process; "
							   "a child acquires its own", what, cid_bind_strerror(st));
	if (st <= CID_ELEASE_DB)
	{
		char		why[700];

		return cpy_raise_coded(st, "%s: %s", what, cid_bind_failure(why, sizeof(why), st, detail));
	}
	return cpy_raise_status(st, "%s%s%s", what, detail && *detail ? ": " : "",
							detail ? detail : "");
}

static PyObject *
py_lease_setup(PyObject *mod, PyObject *args, PyObject *kw)
{
	lease_args	a;
	char		err[512] = "";
	int			st;

	if (parse_args(args, kw, false, &a) < 0)
		return NULL;
	Py_BEGIN_ALLOW_THREADS
		st = cid_lease_setup(&a.b.opts, err, sizeof(err));
	Py_END_ALLOW_THREADS
		args_free(&a);
	if (st < 0)
		return lease_error(st, "lease_setup()", err);
	Py_RETURN_NONE;
}

static int
Lease_init(LeaseObject *self, PyObject *args, PyObject *kw)
{
	lease_args	a;
	char		err[512] = "";
	cid_lease  *lease = NULL;
	int			st;

	if (self->lease != NULL)
		return cpy_raise(cpy_TypeError, "a SnowflakeLease is acquired once"), -1;
	if (parse_args(args, kw, true, &a) < 0)
		return -1;
	Py_BEGIN_ALLOW_THREADS
		st = cid_lease_acquire(&lease, &a.b.opts, err, sizeof(err));
	Py_END_ALLOW_THREADS
		args_free(&a);
	if (st < 0)
		return lease_error(st, "SnowflakeLease()", err), -1;
	self->lease = lease;
	self->forkgen = cid_bind_fork_generation;
	snprintf(self->layout_name, sizeof(self->layout_name), "%s", a.b.layout.name);
	return 0;
}

static int
held(LeaseObject *self)
{
	if (self->lease == NULL)
		return cpy_raise_coded(CID_ELEASE_RELEASED, "this SnowflakeLease was released "
							   "(or never acquired)"), -1;
	if (self->forkgen != cid_bind_fork_generation)
	{
		/* The parent's threads do not exist in a child. */
		self->busy = 0;
		self->forkgen = cid_bind_fork_generation;
	}
	return 0;
}

static PyObject *
Lease_next(LeaseObject *self, PyObject *unused)
{
	uint64_t	id;
	int			st;

	if (held(self) < 0)
		return NULL;
	/* Never waits for the renewer; the generator may wait for its clock. */
	self->busy++;
	Py_BEGIN_ALLOW_THREADS
		st = cid_lease_next(self->lease, &id);
	Py_END_ALLOW_THREADS
		self->busy--;
	if (st < 0)
		return lease_error(st, "SnowflakeLease.next()", NULL);
	return PyLong_FromUnsignedLongLong(id);
}

static PyObject *
Lease_batch(LeaseObject *self, PyObject *arg)
{
	Py_ssize_t	n;
	uint64_t   *ids;
	PyObject   *list;
	int			st;

	if (held(self) < 0 || cpy_count(arg, &n) < 0)
		return NULL;
	ids = PyMem_RawMalloc(n > 0 ? sizeof(uint64_t) * (size_t) n : 1);
	if (ids == NULL)
		return PyErr_NoMemory();
	self->busy++;
	Py_BEGIN_ALLOW_THREADS
		st = cid_lease_fill(self->lease, ids, (size_t) n, NULL);
	Py_END_ALLOW_THREADS
		self->busy--;
	if (st < 0)
	{
		PyMem_RawFree(ids);
		return lease_error(st, "SnowflakeLease.batch()", NULL);
	}
	list = cpy_u64_list(ids, n);
	PyMem_RawFree(ids);
	return list;
}

static PyObject *
Lease_release(LeaseObject *self, PyObject *unused)
{
	cid_lease  *lease = self->lease;
	char		err[512] = "";
	int			st;

	if (lease == NULL)
		Py_RETURN_NONE;
	if (held(self) < 0)
		return NULL;
	if (self->busy > 0)
		return cpy_raise(cpy_GeneratorError, "SnowflakeLease.release(): another thread "
						 "is minting with it");
	/* From here on no thread of this object mints: the pointer is gone. */
	self->lease = NULL;
	Py_BEGIN_ALLOW_THREADS
		st = cid_lease_release(lease, err, sizeof(err));
	Py_END_ALLOW_THREADS
		if (st < 0 && st != CID_ELEASE_FORKED)
		return lease_error(st, "SnowflakeLease.release()", err);
	Py_RETURN_NONE;
}

static PyObject *
Lease_enter(LeaseObject *self, PyObject *unused)
{
	if (held(self) < 0)
		return NULL;
	return Py_NewRef(self);
}

static PyObject *
Lease_exit(LeaseObject *self, PyObject *args)
{
	PyObject   *r = Lease_release(self, NULL);

	if (r == NULL)
		return NULL;
	Py_DECREF(r);
	Py_RETURN_FALSE;
}

static PyObject *
Lease_get_node(LeaseObject *self, void *closure)
{
	if (held(self) < 0)
		return NULL;
	return PyLong_FromUnsignedLongLong(cid_lease_node(self->lease));
}

static PyObject *
Lease_get_remaining_ms(LeaseObject *self, void *closure)
{
	if (held(self) < 0)
		return NULL;
	return PyLong_FromLongLong(cid_lease_remaining_ns(self->lease) / 1000000);
}

static PyObject *
Lease_get_status(LeaseObject *self, void *closure)
{
	int			st;
	char		err[512] = "";

	if (self->lease == NULL)
		return PyUnicode_FromString("released");
	st = cid_lease_status(self->lease);
	cid_lease_errmsg(self->lease, err, sizeof(err));
	if (st == CID_OK)
		return PyUnicode_FromFormat("ok%s%s", err[0] ? "; last renewal failed: " : "", err);
	return PyUnicode_FromFormat("%s%s%s", cid_lease_strerror(st), err[0] ? ": " : "", err);
}

static void
Lease_dealloc(LeaseObject *self)
{
	/*
	 * Not a release: that talks to the server, which a destructor must not
	 * wait for.  The number lapses after its ttl; release() (or a with
	 * block) gives it back at once.
	 */
	if (self->lease != NULL)
		cid_lease_free(self->lease);
	Py_TYPE(self)->tp_free((PyObject *) self);
}

#else							/* !CHRONOID_PY_LEASE */

static PyObject *
no_lease(void)
{
	return cpy_raise(cpy_Error, "this chronoid was built without libpq "
					 "(libpq-dev): no node leases");
}

static PyObject *
py_lease_setup(PyObject *mod, PyObject *args, PyObject *kw)
{
	return no_lease();
}

static int
Lease_init(LeaseObject *self, PyObject *args, PyObject *kw)
{
	return no_lease(), -1;
}

static PyObject *
Lease_never(LeaseObject *self, PyObject *unused)
{
	return no_lease();
}

#define Lease_next Lease_never
#define Lease_release Lease_never
#define Lease_enter Lease_never
#define Lease_exit Lease_never

static PyObject *
Lease_batch(LeaseObject *self, PyObject *arg)
{
	return no_lease();
}

static PyObject *
Lease_get_never(LeaseObject *self, void *closure)
{
	return no_lease();
}

#define Lease_get_node Lease_get_never
#define Lease_get_remaining_ms Lease_get_never
#define Lease_get_status Lease_get_never

static void
Lease_dealloc(LeaseObject *self)
{
	Py_TYPE(self)->tp_free((PyObject *) self);
}
#endif

static PyObject *
Lease_get_layout_name(LeaseObject *self, void *closure)
{
	return PyUnicode_FromString(self->layout_name[0] ? self->layout_name : "pgedge");
}

static PyMethodDef Lease_methods[] = {
	{"next", (PyCFunction) Lease_next, METH_NOARGS, "next() -> int: the next ID under the leased node."},
	{"batch", (PyCFunction) Lease_batch, METH_O, "batch(n) -> list[int]: n increasing IDs."},
	{"release", (PyCFunction) Lease_release, METH_NOARGS,
	"release(): give the number back now; the object mints nothing after."},
	{"__enter__", (PyCFunction) Lease_enter, METH_NOARGS, NULL},
	{"__exit__", (PyCFunction) Lease_exit, METH_VARARGS, NULL},
	{NULL, NULL, 0, NULL}
};

static PyGetSetDef Lease_getset[] = {
	{"node", (getter) Lease_get_node, NULL, "the leased node number", NULL},
	{"remaining_ms", (getter) Lease_get_remaining_ms, NULL,
	"ms until the local deadline (renewals push it on)", NULL},
	{"status", (getter) Lease_get_status, NULL, "'ok', or why it may not mint", NULL},
	{"layout_name", (getter) Lease_get_layout_name, NULL, "preset name or 'custom'", NULL},
	{NULL, NULL, NULL, NULL, NULL}
};

static PyTypeObject LeaseType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "chronoid.SnowflakeLease",
	.tp_basicsize = sizeof(LeaseObject),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "SnowflakeLease(conninfo=None, *, layout='pgedge', schema=None, ttl_ms=30000, "
	"grace_ms=None, lo=None, hi=None, owner=None, clock_wait_ms=None, on_behind='run_ahead', "
	"max_drift_ms=1000, max_wait_ms=1000, on_exhausted='wait', max_borrow_ticks=1000)",
	.tp_new = PyType_GenericNew,
	.tp_init = (initproc) Lease_init,
	.tp_dealloc = (destructor) Lease_dealloc,
	.tp_methods = Lease_methods,
	.tp_getset = Lease_getset,
};

static PyMethodDef lease_functions[] = {
	{"lease_setup", (PyCFunction) (void (*) (void)) py_lease_setup, METH_VARARGS | METH_KEYWORDS,
	"lease_setup(conninfo=None, *, schema=None): create the lease table if missing."},
	{NULL, NULL, 0, NULL}
};

int
cpy_lease_setup(PyObject *module)
{
	if (PyType_Ready(&LeaseType) < 0 || PyModule_AddFunctions(module, lease_functions) < 0)
		return -1;
	Py_INCREF(&LeaseType);
	if (PyModule_AddObject(module, "SnowflakeLease", (PyObject *) &LeaseType) < 0)
	{
		Py_DECREF(&LeaseType);
		return -1;
	}
#ifdef CHRONOID_PY_LEASE
	return PyModule_AddObjectRef(module, "has_leases", Py_True);
#else
	return PyModule_AddObjectRef(module, "has_leases", Py_False);
#endif
}
