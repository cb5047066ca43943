/*
 * block.c — chronoid.BlockAllocator: values of a PostgreSQL sequence
 * reserved a block at a time by libchronoid_lease's cid_block_* (db/lease,
 * compiled into the module), not by a second implementation.  Opening and
 * next() may talk to or wait for the server, so they run without the GIL;
 * the allocator's own thread prefetches.  In a child after fork() the
 * library refuses (ForkError): the child opens its own.
 *
 * Built only where libpq's header was found (CHRONOID_PY_LEASE); elsewhere
 * the class exists and refuses to construct.
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
	cid_block  *blk;			/* NULL before __init__ and after close */
#endif
	int			busy;			/* threads in next() without the GIL */
	uint64_t	forkgen;
} BlockObject;

#ifdef CHRONOID_PY_LEASE

static PyObject *
block_error(int st, const char *what, const char *detail)
{
	if (st == CID_EBLOCK_FORKED)
		return cpy_raise_coded(st, "%s: %s; a child opens its own", what, cid_bind_strerror(st));
	if (st <= CID_ELEASE_DB)
		return cpy_raise_coded(st, "%s: %s%s%s", what, cid_bind_strerror(st),
							   detail && *detail ? ": " : "", detail ? detail : "");
	return cpy_raise_status(st, "%s%s%s", what, detail && *detail ? ": " : "",
							detail ? detail : "");
}

static int
Block_init(BlockObject *self, PyObject *args, PyObject *kw)
{
	static char *names[] = {"sequence", "conninfo", "target_ms", "min_size", "max_size",
	"initial_size", "prefetch_pct", "wait_ms", "timeout_ms", NULL};
	PyObject   *seq = NULL,
			   *conninfo = NULL,
			   *o[CID_BIND_BLOCK_NOPTS] = {NULL};
	uint64_t	v[CID_BIND_BLOCK_NOPTS];
	char	   *seq_s = NULL,
			   *conn_s = NULL;
	char		err[512] = "";
	cid_block_opts opts;
	cid_block  *blk = NULL;
	int			st;

	if (self->blk != NULL)
		return cpy_raise(cpy_TypeError, "a BlockAllocator is opened once"), -1;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O$OOOOOOO:BlockAllocator", names, &seq,
									 &conninfo, &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &o[6]))
		return -1;
	if (!PyUnicode_Check(seq))
		return cpy_raise(cpy_TypeError, "sequence must be a str (a schema-qualified name "
						 "such as 'public.order_ids'), not %s", Py_TYPE(seq)->tp_name), -1;
	cid_bind_block_defaults(v);
	for (int i = 0; i < CID_BIND_BLOCK_NOPTS; i++)
		if (o[i] != NULL && o[i] != Py_None &&
			cpy_uint(o[i], cid_bind_block_opt_names[i].snake, CID_BIND_MAX_OPTION, "", &v[i]) < 0)
			return -1;
	if (cpy_cstr_opt(seq, "sequence", false, &seq_s) < 0 ||
		cpy_cstr_opt(conninfo, "conninfo", false, &conn_s) < 0)
	{
		PyMem_Free(seq_s);
		return -1;
	}
	st = cid_bind_block_opts(&opts, seq_s, conn_s, v, err, sizeof(err));
	if (st == CID_OK)
	{
		Py_BEGIN_ALLOW_THREADS
			st = cid_block_open(&blk, &opts, err, sizeof(err));
		Py_END_ALLOW_THREADS
	}
	PyMem_Free(seq_s);
	PyMem_Free(conn_s);
	if (st < 0)
		return block_error(st, "BlockAllocator()", err), -1;
	self->blk = blk;
	self->forkgen = cid_bind_fork_generation;
	return 0;
}

static int
opened(BlockObject *self)
{
	if (self->blk == NULL)
		return cpy_raise(cpy_GeneratorError, "this BlockAllocator was closed "
						 "(or never opened)"), -1;
	if (self->forkgen != cid_bind_fork_generation)
	{
		/* The parent's threads do not exist in a child. */
		self->busy = 0;
		self->forkgen = cid_bind_fork_generation;
	}
	return 0;
}

static PyObject *
Block_next(BlockObject *self, PyObject *unused)
{
	int64_t		id = 0;
	int			st;
	char		err[256] = "";

	if (opened(self) < 0)
		return NULL;
	self->busy++;
	Py_BEGIN_ALLOW_THREADS
		st = cid_block_next(self->blk, &id);
	Py_END_ALLOW_THREADS
		self->busy--;
	if (st < 0)
	{
		if (st != CID_EBLOCK_FORKED)
			cid_block_errmsg(self->blk, err, sizeof(err));
		return block_error(st, "BlockAllocator.next()", err);
	}
	return PyLong_FromLongLong(id);
}

static PyObject *
Block_close(BlockObject *self, PyObject *unused)
{
	cid_block  *blk = self->blk;

	if (blk == NULL)
		Py_RETURN_NONE;
	if (opened(self) < 0)
		return NULL;
	if (self->busy > 0)
		return cpy_raise(cpy_GeneratorError, "BlockAllocator.close(): another thread "
						 "is taking values from it");
	self->blk = NULL;
	/* joins the prefetching thread: at most one statement's timeout */
	Py_BEGIN_ALLOW_THREADS
		cid_block_free(blk);
	Py_END_ALLOW_THREADS
		Py_RETURN_NONE;
}

static PyObject *
Block_enter(BlockObject *self, PyObject *unused)
{
	if (opened(self) < 0)
		return NULL;
	return Py_NewRef(self);
}

static PyObject *
Block_exit(BlockObject *self, PyObject *args)
{
	PyObject   *r = Block_close(self, NULL);

	if (r == NULL)
		return NULL;
	Py_DECREF(r);
	Py_RETURN_FALSE;
}

static PyObject *
Block_get_stats(BlockObject *self, void *closure)
{
	cid_block_stats st;

	if (opened(self) < 0)
		return NULL;
	cid_block_get_stats(self->blk, &st);
	return Py_BuildValue("{sKsKsKsKsLsL}", "issued", (unsigned long long) st.issued,
						 "blocks", (unsigned long long) st.blocks,
						 "failures", (unsigned long long) st.failures,
						 "waits", (unsigned long long) st.waits,
						 "in_hand", (long long) st.in_hand, "size", (long long) st.size);
}

static void
Block_dealloc(BlockObject *self)
{
	if (self->blk != NULL)
		cid_block_free(self->blk);
	Py_TYPE(self)->tp_free((PyObject *) self);
}

#else							/* !CHRONOID_PY_LEASE */

static PyObject *
no_block(void)
{
	return cpy_raise(cpy_Error, "this chronoid was built without libpq "
					 "(libpq-dev): no block allocator");
}

static int
Block_init(BlockObject *self, PyObject *args, PyObject *kw)
{
	return no_block(), -1;
}

static PyObject *
Block_never(BlockObject *self, PyObject *unused)
{
	return no_block();
}

#define Block_next Block_never
#define Block_close Block_never
#define Block_enter Block_never
#define Block_exit Block_never

static PyObject *
Block_get_stats(BlockObject *self, void *closure)
{
	return no_block();
}

static void
Block_dealloc(BlockObject *self)
{
	Py_TYPE(self)->tp_free((PyObject *) self);
}
#endif

static PyMethodDef Block_methods[] = {
	{"next", (PyCFunction) Block_next, METH_NOARGS,
	"next() -> int: the next value (waits only when no block is in hand)."},
	{"close", (PyCFunction) Block_close, METH_NOARGS,
	"close(): stop the prefetching thread; the values in hand are lost (gaps)."},
	{"__enter__", (PyCFunction) Block_enter, METH_NOARGS, NULL},
	{"__exit__", (PyCFunction) Block_exit, METH_VARARGS, NULL},
	{NULL, NULL, 0, NULL}
};

static PyGetSetDef Block_getset[] = {
	{"stats", (getter) Block_get_stats, NULL,
	"issued, blocks (round trips), failures, waits, in_hand, size", NULL},
	{NULL, NULL, NULL, NULL, NULL}
};

static PyTypeObject BlockType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "chronoid.BlockAllocator",
	.tp_basicsize = sizeof(BlockObject),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "BlockAllocator(sequence, conninfo=None, *, target_ms=60000, min_size=16, "
	"max_size=1000000, initial_size=0, prefetch_pct=10, wait_ms=10000, timeout_ms=10000)",
	.tp_new = PyType_GenericNew,
	.tp_init = (initproc) Block_init,
	.tp_dealloc = (destructor) Block_dealloc,
	.tp_methods = Block_methods,
	.tp_getset = Block_getset,
};

int
cpy_block_setup(PyObject *module)
{
	if (PyType_Ready(&BlockType) < 0)
		return -1;
	Py_INCREF(&BlockType);
	if (PyModule_AddObject(module, "BlockAllocator", (PyObject *) &BlockType) < 0)
	{
		Py_DECREF(&BlockType);
		return -1;
	}
	return 0;
}
