/*
 * module.c — chronoid._chronoid: UUIDv7, UUIDv4 and ULID functions over
 * process-wide generators, conversion, time ranges and inspection.  The
 * Snowflake generator class is in snowflake.c; ObjectId, KSUID and UUIDv6
 * in kinds.c.
 *
 * The module-level generators never wait (UUIDv7 steps past a stalled
 * clock, ULIDs take a few instructions under a spin lock), so they run
 * with the GIL held; large batches let other threads run meanwhile.
 */
#include "chronoid_py.h"

#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#ifdef CHRONOID_PY_OPENSSL
#include <openssl/rand.h>
#endif

PyObject   *cpy_Error;
PyObject   *cpy_ValueError;
PyObject   *cpy_TypeError;
PyObject   *cpy_GeneratorError;
PyObject   *cpy_ForkError;
PyObject   *cpy_WouldWait;

uint64_t	cpy_fork_generation;

static cid_uuidv7_gen g_uuidv7;
static cid_ulid_gen g_ulid;
static cid_ulid_gen g_ulid_mono;

/* Batches at least this long give the GIL up while the core fills them. */
#define RELEASE_GIL_FROM 4096

#define ULID_FORM "26 Crockford base32 characters (0-9, A-Z without I L O U), the first 0-7"
#define UUID_FORM "8-4-4-4-12 hex digits, or 32 hex digits, either in braces or not"

/*
 * In the child of a fork: the random bytes are the core's business
 * (src/random.c discards the parent's buffer).  The monotonic ULID's last
 * value is not: a child that went on from it would mint the parent's next
 * ULIDs, so it starts afresh (a new random start in the millisecond).
 * Its spin lock is reset too, in case another thread held it at the fork.
 */
static void
after_fork_child(void)
{
	cpy_fork_generation++;
	/* Cannot fail: gen is not NULL and env NULL is the platform's. */
	if (cid_ulid_init(&g_ulid_mono, true, NULL) < 0)
		abort();
}

#ifdef CHRONOID_PY_OPENSSL
/*
 * The raw random source of the module's copy of the core (the core's own
 * buffer and fork defences stay in front of it): OpenSSL's DRBG, seeded
 * from the kernel and reseeded in a forked child, as the PostgreSQL
 * extension's pg_strong_random() is.  getrandom(2) costs about 2 ns per
 * byte here, most of a UUIDv7 or ULID batch (docs/benchmarks.md); the
 * DRBG, about a third of that.
 */
static int
openssl_random(void *buf, size_t len)
{
	/* The largest request is a batch's, 16 * CPY_BATCH_MAX bytes. */
	if (len > (size_t) INT_MAX)
		return -1;
	return RAND_bytes(buf, (int) len) == 1 ? 0 : -1;
}
#define RANDOM_SOURCE "openssl"
#else
#define RANDOM_SOURCE "getrandom"
#endif

static PyObject *
generator_failed(int st, const char *what)
{
	return cpy_raise_status(st, "%s failed", what);
}

/* ---- UUIDv7 ---------------------------------------------------------- */

static PyObject *
py_uuid7(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
	cid_uuid	u;
	int			st;

	if (cpy_no_args("uuid7()", nargs) < 0)
		return NULL;
	if ((st = cid_uuidv7_next(&g_uuidv7, &u)) < 0)
		return generator_failed(st, "uuid7()");
	return cpy_uuid_new(u.bytes);
}

static PyObject *
py_uuid7_bytes(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
	cid_uuid	u;
	int			st;

	if (cpy_no_args("uuid7_bytes()", nargs) < 0)
		return NULL;
	if ((st = cid_uuidv7_next(&g_uuidv7, &u)) < 0)
		return generator_failed(st, "uuid7_bytes()");
	return PyBytes_FromStringAndSize((const char *) u.bytes, 16);
}

/*
 * The core's batch fills: one clock reading and one random request per
 * batch.  On failure the IDs issued so far are valid but unused; they are
 * dropped with the rest.
 */
static int
fill_uuidv7(void *gen, uint8_t *out, Py_ssize_t n)
{
	return cid_uuidv7_fill(gen, (cid_uuid *) out, (size_t) n, NULL);
}

static int
fill_ulid(void *gen, uint8_t *out, Py_ssize_t n)
{
	return cid_ulid_fill(gen, (cid_ulid *) out, (size_t) n, NULL);
}

static int
run_fill(cpy_fill_fn fill, void *gen, uint8_t *out, Py_ssize_t n)
{
	int			st;

	if (n < RELEASE_GIL_FROM)
		return fill(gen, out, n);
	Py_BEGIN_ALLOW_THREADS
		st = fill(gen, out, n);
	Py_END_ALLOW_THREADS
		return st;
}

PyObject *
cpy_batch_bytes(cpy_fill_fn fill, void *gen, Py_ssize_t size, PyObject *arg, const char *what)
{
	Py_ssize_t	n;
	PyObject   *b;
	int			st;

	if (cpy_count(arg, &n) < 0)
		return NULL;
	b = PyBytes_FromStringAndSize(NULL, size * n);
	if (b == NULL)
		return NULL;
	st = run_fill(fill, gen, (uint8_t *) PyBytes_AS_STRING(b), n);
	if (st < 0)
	{
		Py_DECREF(b);
		return generator_failed(st, what);
	}
	return b;
}

PyObject *
cpy_batch_list(cpy_fill_fn fill, void *gen, Py_ssize_t size, PyObject *arg, const char *what,
			   PyObject *(*make) (const uint8_t *))
{
	Py_ssize_t	n,
				i;
	uint8_t    *buf;
	PyObject   *list;
	int			st;

	if (cpy_count(arg, &n) < 0)
		return NULL;
	buf = PyMem_Malloc(n > 0 ? (size_t) size * (size_t) n : 1);
	if (buf == NULL)
		return PyErr_NoMemory();
	st = run_fill(fill, gen, buf, n);
	if (st < 0)
	{
		PyMem_Free(buf);
		return generator_failed(st, what);
	}
	list = PyList_New(n);
	if (list != NULL)
	{
		for (i = 0; i < n; i++)
		{
			PyObject   *item = make(buf + size * i);

			if (item == NULL)
			{
				Py_CLEAR(list);
				break;
			}
			PyList_SET_ITEM(list, i, item);
		}
	}
	PyMem_Free(buf);
	return list;
}

static PyObject *
py_uuid7_batch(PyObject *mod, PyObject *arg)
{
	return cpy_batch_list(fill_uuidv7, &g_uuidv7, 16, arg, "uuid7_batch()", cpy_uuid_new);
}

static PyObject *
py_uuid7_batch_bytes(PyObject *mod, PyObject *arg)
{
	return cpy_batch_bytes(fill_uuidv7, &g_uuidv7, 16, arg, "uuid7_batch_bytes()");
}

static PyObject *
py_uuid4(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
	cid_uuid	u;
	int			st;

	if (cpy_no_args("uuid4()", nargs) < 0)
		return NULL;
	if ((st = cid_uuidv4_new(&u, NULL)) < 0)
		return generator_failed(st, "uuid4()");
	return cpy_uuid_new(u.bytes);
}

/* ---- ULID ------------------------------------------------------------ */

static PyObject *
ulid_text(const uint8_t *bytes)
{
	char		text[CID_ULID_STRLEN + 1];

	cid_ulid_format(text, (const cid_ulid *) bytes);
	return cpy_ascii(text, CID_ULID_STRLEN);
}

/* what is the function's name with "()": for its messages. */
static PyObject *
ulid_one(cid_ulid_gen *gen, bool as_bytes, const char *what, Py_ssize_t nargs)
{
	cid_ulid	u;
	int			st;

	if (cpy_no_args(what, nargs) < 0)
		return NULL;
	if ((st = cid_ulid_next(gen, &u)) < 0)
		return generator_failed(st, what);
	if (as_bytes)
		return PyBytes_FromStringAndSize((const char *) u.bytes, 16);
	return ulid_text(u.bytes);
}

static PyObject *
py_ulid(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
	return ulid_one(&g_ulid, false, "ulid()", nargs);
}

static PyObject *
py_ulid_bytes(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
	return ulid_one(&g_ulid, true, "ulid_bytes()", nargs);
}

static PyObject *
py_ulid_monotonic(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
	return ulid_one(&g_ulid_mono, false, "ulid_monotonic()", nargs);
}

static PyObject *
py_ulid_monotonic_bytes(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
	return ulid_one(&g_ulid_mono, true, "ulid_monotonic_bytes()", nargs);
}

static PyObject *
py_ulid_batch(PyObject *mod, PyObject *arg)
{
	return cpy_batch_list(fill_ulid, &g_ulid, 16, arg, "ulid_batch()", ulid_text);
}

static PyObject *
py_ulid_monotonic_batch(PyObject *mod, PyObject *arg)
{
	return cpy_batch_list(fill_ulid, &g_ulid_mono, 16, arg, "ulid_monotonic_batch()", ulid_text);
}

static PyObject *
py_ulid_batch_bytes(PyObject *mod, PyObject *arg)
{
	return cpy_batch_bytes(fill_ulid, &g_ulid, 16, arg, "ulid_batch_bytes()");
}

static PyObject *
py_ulid_monotonic_batch_bytes(PyObject *mod, PyObject *arg)
{
	return cpy_batch_bytes(fill_ulid, &g_ulid_mono, 16, arg, "ulid_monotonic_batch_bytes()");
}

/* ---- conversion ------------------------------------------------------ */

/*
 * ULID text (ulid) or UUID text into its 16 bytes; -1 with an exception
 * that names the value and the form.
 */
static int
parse_id_text(PyObject *o, bool ulid, uint8_t out[16])
{
	const char *what = ulid ? "a ULID" : "a UUID";
	const char *s;
	Py_ssize_t	len;
	size_t		errpos = 0;
	int			st;
	cid_ulid	l;
	cid_uuid	u;

	if (cpy_text(o, what, &s, &len) < 0)
		return -1;
	st = ulid ? cid_ulid_parse(&l, s, (size_t) len, &errpos) :
		cid_uuid_parse(&u, s, (size_t) len, &errpos);
	if (st < 0)
		return cpy_parse_error(o, what, ulid ? ULID_FORM : UUID_FORM, st, errpos), -1;
	memcpy(out, ulid ? l.bytes : u.bytes, 16);
	return 0;
}

static int
parse_ulid(PyObject *o, cid_ulid *out)
{
	return parse_id_text(o, true, out->bytes);
}

int
cpy_uuid_arg(PyObject *o, cid_uuid *out)
{
	PyObject   *shown;

	if (PyUnicode_Check(o))
		return parse_id_text(o, false, out->bytes);
	if (cpy_is_uuid(o))
		return cpy_uuid_bytes(o, out->bytes);
	shown = cpy_show(o);
	if (shown != NULL)
	{
		cpy_raise(cpy_TypeError, "%U is not a UUID: expected a uuid.UUID or UUID text, "
				  "not %s", shown, Py_TYPE(o)->tp_name);
		Py_DECREF(shown);
	}
	return -1;
}

static PyObject *
py_ulid_to_uuid(PyObject *mod, PyObject *arg)
{
	cid_ulid	l;
	cid_uuid	u;

	if (parse_ulid(arg, &l) < 0)
		return NULL;
	cid_ulid_to_uuid(&u, &l);
	return cpy_uuid_new(u.bytes);
}

static PyObject *
py_uuid_to_ulid(PyObject *mod, PyObject *arg)
{
	cid_uuid	u;
	cid_ulid	l;

	if (cpy_uuid_arg(arg, &u) < 0)
		return NULL;
	cid_ulid_from_uuid(&l, &u);
	return ulid_text(l.bytes);
}

static PyObject *
py_parse_ulid(PyObject *mod, PyObject *arg)
{
	cid_ulid	l;

	if (parse_ulid(arg, &l) < 0)
		return NULL;
	return ulid_text(l.bytes);
}

/* ---- time ranges ------------------------------------------------------ */

static const uint8_t all_ones[10] = {
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff
};

static int
range_args(PyObject *const *args, Py_ssize_t nargs, const char *fn,
		   int64_t *lo, int64_t *hi)
{
	if (nargs != 2)
	{
		cpy_raise(cpy_TypeError, "%s() takes 2 arguments (start, end), %zd given", fn, nargs);
		return -1;
	}
	if (cpy_time_ms(args[0], "start", lo) < 0 || cpy_time_ms(args[1], "end", hi) < 0)
		return -1;
	if (*lo > *hi)
	{
		cpy_raise(cpy_ValueError, "%s(): start (%lld ms) is after end (%lld ms)", fn,
				  (long long) *lo, (long long) *hi);
		return -1;
	}
	return 0;
}

/*
 * The smallest UUIDv7 of start's millisecond and the largest of end's:
 * WHERE id BETWEEN lo AND hi selects what was minted from start to end.
 */
static PyObject *
py_uuid7_range(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
	int64_t		lo_ms,
				hi_ms;
	cid_uuid	lo,
				hi;
	int			st;

	if (range_args(args, nargs, "uuid7_range", &lo_ms, &hi_ms) < 0)
		return NULL;
	if ((st = cid_uuidv7_from_ms(&lo, lo_ms, NULL)) < 0 ||
		(st = cid_uuidv7_from_ms(&hi, hi_ms, all_ones)) < 0)
		return cpy_raise_status(st, "uuid7_range(%lld, %lld): UUIDv7 holds Unix ms "
								"0..2**48-1", (long long) lo_ms, (long long) hi_ms);
	return Py_BuildValue("(NN)", cpy_uuid_new(lo.bytes), cpy_uuid_new(hi.bytes));
}

static PyObject *
py_ulid_range(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
	int64_t		lo_ms,
				hi_ms;
	cid_ulid	lo,
				hi;
	int			st;

	if (range_args(args, nargs, "ulid_range", &lo_ms, &hi_ms) < 0)
		return NULL;
	if ((st = cid_ulid_from_ms(&lo, lo_ms, NULL)) < 0 ||
		(st = cid_ulid_from_ms(&hi, hi_ms, all_ones)) < 0)
		return cpy_raise_status(st, "ulid_range(%lld, %lld): ULID holds Unix ms "
								"0..2**48-1", (long long) lo_ms, (long long) hi_ms);
	return Py_BuildValue("(NN)", ulid_text(lo.bytes), ulid_text(hi.bytes));
}

static PyObject *
py_snowflake_range(PyObject *mod, PyObject *args, PyObject *kw)
{
	static char *names[] = {"start", "end", "layout", NULL};
	PyObject   *start,
			   *end,
			   *layout_arg = Py_None;
	PyObject   *pos[2];
	cid_layout	layout;
	int64_t		lo_ms,
				hi_ms;
	uint64_t	lo,
				hi;
	int			st;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|O:snowflake_range", names,
									 &start, &end, &layout_arg))
		return NULL;
	pos[0] = start;
	pos[1] = end;
	if (cpy_layout(layout_arg, &layout) < 0 ||
		range_args(pos, 2, "snowflake_range", &lo_ms, &hi_ms) < 0)
		return NULL;
	if ((st = cid_snowflake_min_at(&lo, &layout, lo_ms)) < 0 ||
		(st = cid_snowflake_max_at(&hi, &layout, hi_ms)) < 0)
		return cpy_raise_status(st, "snowflake_range(%lld, %lld): layout %s holds Unix ms "
								"%lld..%lld", (long long) lo_ms, (long long) hi_ms,
								layout.name, (long long) layout.epoch_ms,
								(long long) cid_layout_max_ms(&layout));
	return Py_BuildValue("(KK)", (unsigned long long) lo, (unsigned long long) hi);
}

/* ---- inspection ------------------------------------------------------- */

static PyObject *
py_inspect(PyObject *mod, PyObject *args, PyObject *kw)
{
	static char *names[] = {"id", "layout", NULL};
	PyObject   *id,
			   *layout_arg = Py_None,
			   *text_obj = NULL;
	cid_layout	layout;
	cid_id_info info;
	const char *s;
	Py_ssize_t	len;
	size_t		errpos = 0;
	char		buf[CID_UUID_STRLEN + 1];
	int			st;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|$O:inspect", names, &id, &layout_arg))
		return NULL;
	if (cpy_layout(layout_arg, &layout) < 0)
		return NULL;
	if (PyUnicode_Check(id))
	{
		if (cpy_text(id, "an ID", &s, &len) < 0)
			return NULL;
	}
	else if (PyLong_Check(id) && !PyBool_Check(id))
	{
		/* A Snowflake: its decimal text, which the core reads per layout. */
		if (_PyLong_NumBits(id) > 64)
		{
			PyObject   *shown = cpy_show(id);

			if (shown != NULL)
			{
				cpy_raise(cpy_ValueError, "%U is not an ID: a Snowflake has at most 64 bits", shown);
				Py_DECREF(shown);
			}
			return NULL;
		}
		text_obj = PyObject_Str(id);
		if (text_obj == NULL)
			return NULL;
		s = PyUnicode_AsUTF8AndSize(text_obj, &len);
		if (s == NULL)
		{
			Py_DECREF(text_obj);
			return NULL;
		}
	}
	else
	{
		cid_uuid	u;

		if (PyBool_Check(id) || cpy_uuid_bytes(id, u.bytes) < 0)
		{
			PyErr_Clear();
			return cpy_raise(cpy_TypeError, "inspect() takes an ID as str, int "
							 "(Snowflake) or uuid.UUID, not %s", Py_TYPE(id)->tp_name);
		}
		cid_uuid_format(buf, &u);
		s = buf;
		len = CID_UUID_STRLEN;
	}
	st = cid_inspect_id(&info, sizeof(info), s, (size_t) len, &layout, &errpos);
	Py_XDECREF(text_obj);
	if (st < 0)
	{
		PyObject   *shown = cpy_show(id);

		if (shown == NULL)
			return NULL;
		if (st == CID_EUNKNOWN)
			cpy_raise_status(st, "%U is no known ID: expected a UUID (32 to 38 "
							 "characters), a ULID (26), a Snowflake (decimal digits), "
							 "a MongoDB ObjectId (24 hex digits) or a KSUID (27 base62).",
							 shown);
		else if (st == CID_ESYNTAX)
			cpy_raise_status(st, "%U is not an ID: bad character at position %zu",
							 shown, errpos);
		else
			cpy_raise_status(st, "%U is not an ID of its form (layout %s for Snowflakes)",
							 shown, layout.name);
		Py_DECREF(shown);
		return NULL;
	}
	return cpy_info(&info);
}

static PyObject *
py_layouts(PyObject *mod, PyObject *unused)
{
	PyObject   *list = PyList_New(0);
	int			i;

	if (list == NULL)
		return NULL;
	for (i = 0; cid_layout_preset_names[i] != NULL; i++)
	{
		PyObject   *name = PyUnicode_FromString(cid_layout_preset_names[i]);

		if (name == NULL || PyList_Append(list, name) < 0)
		{
			Py_XDECREF(name);
			Py_DECREF(list);
			return NULL;
		}
		Py_DECREF(name);
	}
	{
		PyObject   *t = PyList_AsTuple(list);

		Py_DECREF(list);
		return t;
	}
}

/* ---- TypeID (cid_typeid_*) -------------------------------------------- */

#define TYPEID_FORM "a prefix of a-z and '_' (at most 63, a letter first and last) and '_', " \
	"then 26 lower-case base32 digits (0-9, a-z without i l o u), the first 0-7"
#define TYPEID_PREFIX_FORM "at most 63 characters of a-z and '_', a letter first and last"

/* A prefix argument (NULL: none) into *s, *len; -1 after an exception. */
static int
parse_prefix(PyObject *o, const char **s, Py_ssize_t *len)
{
	size_t		errpos = 0;
	int			st;

	if (o == NULL)
	{
		*s = "";
		*len = 0;
		return 0;
	}
	if (cpy_text(o, "a TypeID prefix", s, len) < 0)
		return -1;
	st = cid_typeid_prefix_check(*s, (size_t) *len, &errpos);
	if (st < 0)
		return cpy_parse_error(o, "a TypeID prefix", TYPEID_PREFIX_FORM, st, errpos), -1;
	return 0;
}

/* TypeID text into *u and its prefix's length; -1 after an exception. */
static int
parse_typeid_arg(PyObject *o, const char **s, cid_uuid *u, size_t *plen)
{
	Py_ssize_t	len;
	size_t		errpos = 0;
	int			st;

	if (cpy_text(o, "a TypeID", s, &len) < 0)
		return -1;
	st = cid_typeid_parse(u, plen, *s, (size_t) len, &errpos);
	if (st < 0)
		return cpy_parse_error(o, "a TypeID", TYPEID_FORM, st, errpos), -1;
	return 0;
}

/* fn() takes lo to hi positional arguments; 0, or -1 after a TypeError. */
static int
nargs_ok(const char *fn, Py_ssize_t nargs, Py_ssize_t lo, Py_ssize_t hi)
{
	if (nargs >= lo && nargs <= hi)
		return 0;
	cpy_raise(cpy_TypeError, "%s() takes %zd to %zd arguments, %zd given", fn, lo, hi, nargs);
	return -1;
}

static PyObject *
typeid_text(int n, const char *buf)
{
	if (n < 0)
		return generator_failed(n, "typeid");
	return PyUnicode_FromStringAndSize(buf, n);
}

static PyObject *
py_typeid(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
	const char *prefix;
	Py_ssize_t	plen;
	char		buf[CID_TYPEID_STRLEN_MAX + 1];

	if (nargs_ok("typeid", nargs, 0, 1) < 0 ||
		parse_prefix(nargs > 0 ? args[0] : NULL, &prefix, &plen) < 0)
		return NULL;
	return typeid_text(cid_typeid_next(&g_uuidv7, buf, sizeof(buf), prefix, (size_t) plen, NULL),
					   buf);
}

static PyObject *
py_typeid_from_uuid(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
	const char *prefix;
	Py_ssize_t	plen;
	cid_uuid	u;
	char		buf[CID_TYPEID_STRLEN_MAX + 1];

	if (nargs_ok("typeid_from_uuid", nargs, 2, 2) < 0 ||
		parse_prefix(args[0], &prefix, &plen) < 0 || cpy_uuid_arg(args[1], &u) < 0)
		return NULL;
	return typeid_text(cid_typeid_format(buf, sizeof(buf), prefix, (size_t) plen, &u), buf);
}

static PyObject *
py_typeid_to_uuid(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
	const char *s;
	const char *want;
	Py_ssize_t	wlen;
	size_t		plen = 0;
	cid_uuid	u;

	if (nargs_ok("typeid_to_uuid", nargs, 1, 2) < 0 ||
		parse_typeid_arg(args[0], &s, &u, &plen) < 0)
		return NULL;
	if (nargs > 1 && args[1] != Py_None)
	{
		if (parse_prefix(args[1], &want, &wlen) < 0)
			return NULL;
		if ((size_t) wlen != plen || memcmp(want, s, plen) != 0)
		{
			PyObject   *got = PyUnicode_FromStringAndSize(s, (Py_ssize_t) plen);

			if (got != NULL)
				cpy_raise_status(CID_EINVAL, "TypeID %R has prefix %R, not %R.", args[0], got,
								 args[1]);
			Py_XDECREF(got);
			return NULL;
		}
	}
	return cpy_uuid_new(u.bytes);
}

static PyObject *
py_parse_typeid(PyObject *mod, PyObject *arg)
{
	const char *s;
	size_t		plen = 0;
	cid_uuid	u;
	PyObject   *prefix,
			   *uuid;

	if (parse_typeid_arg(arg, &s, &u, &plen) < 0)
		return NULL;
	prefix = PyUnicode_FromStringAndSize(s, (Py_ssize_t) plen);
	uuid = prefix != NULL ? cpy_uuid_new(u.bytes) : NULL;
	if (uuid == NULL)
	{
		Py_XDECREF(prefix);
		return NULL;
	}
	return Py_BuildValue("(NN)", prefix, uuid);
}

static PyMethodDef methods[] = {
	{"uuid7", CPY_FN(py_uuid7), METH_FASTCALL, "uuid7() -> uuid.UUID: a new UUIDv7."},
	{"uuid7_bytes", CPY_FN(py_uuid7_bytes), METH_FASTCALL, "uuid7_bytes() -> bytes: a new UUIDv7's 16 bytes."},
	{"uuid7_batch", py_uuid7_batch, METH_O, "uuid7_batch(n) -> list[uuid.UUID]: n increasing UUIDv7s."},
	{"uuid7_batch_bytes", py_uuid7_batch_bytes, METH_O,
	"uuid7_batch_bytes(n) -> bytes: n increasing UUIDv7s, 16 bytes each."},
	{"uuid4", CPY_FN(py_uuid4), METH_FASTCALL, "uuid4() -> uuid.UUID: a new random UUIDv4."},
	{"ulid", CPY_FN(py_ulid), METH_FASTCALL, "ulid() -> str: a new ULID."},
	{"ulid_bytes", CPY_FN(py_ulid_bytes), METH_FASTCALL, "ulid_bytes() -> bytes: a new ULID's 16 bytes."},
	{"ulid_batch", py_ulid_batch, METH_O, "ulid_batch(n) -> list[str]: n new ULIDs."},
	{"ulid_batch_bytes", py_ulid_batch_bytes, METH_O,
	"ulid_batch_bytes(n) -> bytes: n new ULIDs, 16 bytes each."},
	{"ulid_monotonic", CPY_FN(py_ulid_monotonic), METH_FASTCALL,
	"ulid_monotonic() -> str: a ULID above every one this process made before."},
	{"ulid_monotonic_bytes", CPY_FN(py_ulid_monotonic_bytes), METH_FASTCALL,
	"ulid_monotonic_bytes() -> bytes: the same as 16 bytes."},
	{"ulid_monotonic_batch", py_ulid_monotonic_batch, METH_O,
	"ulid_monotonic_batch(n) -> list[str]: n increasing monotonic ULIDs."},
	{"ulid_monotonic_batch_bytes", py_ulid_monotonic_batch_bytes, METH_O,
	"ulid_monotonic_batch_bytes(n) -> bytes: the same, 16 bytes each."},
	{"ulid_to_uuid", py_ulid_to_uuid, METH_O, "ulid_to_uuid(ulid) -> uuid.UUID: the same 128 bits."},
	{"uuid_to_ulid", py_uuid_to_ulid, METH_O, "uuid_to_ulid(uuid) -> str: the same 128 bits."},
	{"parse_ulid", py_parse_ulid, METH_O, "parse_ulid(text) -> str: canonical (upper-case) ULID."},
	{"typeid", (PyCFunction) (void (*) (void)) py_typeid, METH_FASTCALL,
	"typeid(prefix='') -> str: a new TypeID, a UUIDv7 under the prefix."},
	{"typeid_from_uuid", (PyCFunction) (void (*) (void)) py_typeid_from_uuid, METH_FASTCALL,
	"typeid_from_uuid(prefix, uuid) -> str: the UUID as a TypeID."},
	{"typeid_to_uuid", (PyCFunction) (void (*) (void)) py_typeid_to_uuid, METH_FASTCALL,
	"typeid_to_uuid(typeid, expected_prefix=None) -> uuid.UUID: its UUID."},
	{"parse_typeid", py_parse_typeid, METH_O,
	"parse_typeid(typeid) -> (prefix, uuid.UUID): its parts."},
	{"uuid7_range", (PyCFunction) (void (*) (void)) py_uuid7_range, METH_FASTCALL,
	"uuid7_range(start, end) -> (lo, hi): UUIDv7 bounds of a time range."},
	{"ulid_range", (PyCFunction) (void (*) (void)) py_ulid_range, METH_FASTCALL,
	"ulid_range(start, end) -> (lo, hi): ULID bounds of a time range."},
	{"snowflake_range", (PyCFunction) (void (*) (void)) py_snowflake_range,
		METH_VARARGS | METH_KEYWORDS,
	"snowflake_range(start, end, layout=None) -> (lo, hi): Snowflake bounds."},
	{"inspect", (PyCFunction) (void (*) (void)) py_inspect, METH_VARARGS | METH_KEYWORDS,
	"inspect(id, *, layout=None) -> IdInfo: what an ID is and carries."},
	{"layouts", py_layouts, METH_NOARGS, "layouts() -> tuple[str, ...]: the preset layout names."},
	{NULL, NULL, 0, NULL}
};

static struct PyModuleDef moduledef = {
	PyModuleDef_HEAD_INIT, "chronoid._chronoid",
	"chronoid's C core: Snowflake, UUIDv7, ULID, ObjectId, KSUID and UUIDv6 generators and decoders.",
	-1, methods, NULL, NULL, NULL, NULL
};

static PyObject *
new_exc(PyObject *module, const char *name, PyObject *bases, const char *doc)
{
	char		full[64];
	PyObject   *cls;

	snprintf(full, sizeof(full), "chronoid.%s", name);
	cls = PyErr_NewExceptionWithDoc(full, doc, bases, NULL);
	if (cls == NULL)
		return NULL;
	if (PyModule_AddObjectRef(module, name, cls) < 0)
	{
		Py_DECREF(cls);
		return NULL;
	}
	return cls;
}

PyMODINIT_FUNC
PyInit__chronoid(void)
{
	PyObject   *m = PyModule_Create(&moduledef);
	PyObject   *bases;
	static bool atfork_done;

	if (m == NULL)
		return NULL;
#ifdef CHRONOID_PY_OPENSSL
	/* Before any generator runs; this module's copy of the core only. */
	cid_random_set_source(openssl_random);
#endif
	if (cid_uuidv7_init(&g_uuidv7, NULL) < 0 || cid_ulid_init(&g_ulid, false, NULL) < 0 ||
		cid_ulid_init(&g_ulid_mono, true, NULL) < 0)
	{
		PyErr_SetString(PyExc_ImportError, "chronoid: generator setup failed");
		goto fail;
	}
	if (!atfork_done)
	{
		if (pthread_atfork(NULL, NULL, after_fork_child) != 0)
		{
			PyErr_SetString(PyExc_ImportError, "chronoid: pthread_atfork failed");
			goto fail;
		}
		atfork_done = true;
	}

	cpy_Error = new_exc(m, "ChronoidError", NULL, "Base of every chronoid error.");
	if (cpy_Error == NULL)
		goto fail;
	bases = PyTuple_Pack(2, cpy_Error, PyExc_ValueError);
	cpy_ValueError = bases ? new_exc(m, "ChronoidValueError", bases,
									 "A value that is no valid ID, layout, node or time.") : NULL;
	Py_XDECREF(bases);
	bases = PyTuple_Pack(2, cpy_Error, PyExc_TypeError);
	cpy_TypeError = bases ? new_exc(m, "ChronoidTypeError", bases,
									"An argument of the wrong type.") : NULL;
	Py_XDECREF(bases);
	bases = PyTuple_Pack(2, cpy_Error, PyExc_RuntimeError);
	cpy_GeneratorError = bases ? new_exc(m, "GeneratorError", bases,
										 "A generator could not issue an ID (clock, "
										 "random source, exhausted sequence).") : NULL;
	Py_XDECREF(bases);
	if (cpy_ValueError == NULL || cpy_TypeError == NULL || cpy_GeneratorError == NULL)
		goto fail;
	cpy_ForkError = new_exc(m, "ForkError", cpy_GeneratorError,
							"A Snowflake generator inherited through fork() has no "
							"node of its own in this process.");
	cpy_WouldWait = new_exc(m, "WouldWait", cpy_GeneratorError,
							"Snowflake.next_at(): the generator would have to wait.");
	if (cpy_ForkError == NULL || cpy_WouldWait == NULL)
		goto fail;

	if (cpy_convert_setup(m) < 0 || cpy_snowflake_setup(m) < 0 || cpy_lease_setup(m) < 0 ||
		cpy_block_setup(m) < 0 || cpy_kinds_setup(m) < 0 ||
		cpy_at_setup(m) < 0)
		goto fail;
	if (PyModule_AddStringConstant(m, "core_version", cid_version()) < 0 ||
		PyModule_AddStringConstant(m, "random_source", RANDOM_SOURCE) < 0)
		goto fail;
	return m;

fail:
	Py_DECREF(m);
	return NULL;
}
