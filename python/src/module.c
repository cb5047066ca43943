/*
 * module.c — chronoid._chronoid: its init, and UUIDv7, UUIDv4 and ULID
 * functions over the process's generators (bind/generators.c),
 * conversion, time ranges and inspection.  The Snowflake generator class
 * is in snowflake.c; ObjectId, KSUID and UUIDv6 in kinds.c; what they all
 * share in convert.c.
 *
 * The module-level generators never wait (UUIDv7 steps past a stalled
 * clock, ULIDs take a few instructions under a spin lock), so they run
 * with the GIL held; large batches let other threads run meanwhile.
 */
#include "chronoid_py.h"

#include <string.h>

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
	if ((st = cid_uuidv7_next(&cid_bind_gen.uuidv7, &u)) < 0)
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
	if ((st = cid_uuidv7_next(&cid_bind_gen.uuidv7, &u)) < 0)
		return generator_failed(st, "uuid7_bytes()");
	return PyBytes_FromStringAndSize((const char *) u.bytes, 16);
}

static PyObject *
py_uuid7_batch(PyObject *mod, PyObject *arg)
{
	return cpy_batch_list(&cid_bind_uuidv7, arg, "uuid7_batch()", cpy_uuid_new);
}

static PyObject *
py_uuid7_batch_bytes(PyObject *mod, PyObject *arg)
{
	return cpy_batch_bytes(&cid_bind_uuidv7, arg, "uuid7_batch_bytes()");
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
	return ulid_one(&cid_bind_gen.ulid, false, "ulid()", nargs);
}

static PyObject *
py_ulid_bytes(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
	return ulid_one(&cid_bind_gen.ulid, true, "ulid_bytes()", nargs);
}

static PyObject *
py_ulid_monotonic(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
	return ulid_one(&cid_bind_gen.ulid_mono, false, "ulid_monotonic()", nargs);
}

static PyObject *
py_ulid_monotonic_bytes(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
	return ulid_one(&cid_bind_gen.ulid_mono, true, "ulid_monotonic_bytes()", nargs);
}

static PyObject *
py_ulid_batch(PyObject *mod, PyObject *arg)
{
	return cpy_batch_list(&cid_bind_ulid, arg, "ulid_batch()", ulid_text);
}

static PyObject *
py_ulid_monotonic_batch(PyObject *mod, PyObject *arg)
{
	return cpy_batch_list(&cid_bind_ulid_mono, arg, "ulid_monotonic_batch()", ulid_text);
}

static PyObject *
py_ulid_batch_bytes(PyObject *mod, PyObject *arg)
{
	return cpy_batch_bytes(&cid_bind_ulid, arg, "ulid_batch_bytes()");
}

static PyObject *
py_ulid_monotonic_batch_bytes(PyObject *mod, PyObject *arg)
{
	return cpy_batch_bytes(&cid_bind_ulid_mono, arg, "ulid_monotonic_batch_bytes()");
}

/* ---- conversion ------------------------------------------------------ */

static int
parse_ulid(PyObject *o, cid_ulid *out)
{
	return cpy_id_text(o, true, out->bytes);
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

/* The rest of the largest ID of a time (cid_bind_kind.at). */
static const uint8_t all_ones[16] = {
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff
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
 * The smallest ID of kind k in start's millisecond and the largest in
 * end's (the kind's own bounds, bind/kinds.c): WHERE id BETWEEN lo
 * AND hi selects what was minted from start to end.  fn names the call,
 * holds what the kind can hold, make its Python form.
 */
static PyObject *
kind_range(const cid_bind_kind *k, PyObject *const *args, Py_ssize_t nargs, const char *fn,
		   const char *holds, PyObject *(*make) (const uint8_t *))
{
	int64_t		lo_ms,
				hi_ms;
	uint8_t		lo[16],
				hi[16];
	int			st;

	if (range_args(args, nargs, fn, &lo_ms, &hi_ms) < 0)
		return NULL;
	if ((st = k->at(lo, lo_ms, NULL)) < 0 || (st = k->at(hi, hi_ms, all_ones)) < 0)
		return cpy_raise_status(st, "%s(%lld, %lld): %s holds Unix ms 0..2**48-1", fn,
								(long long) lo_ms, (long long) hi_ms, holds);
	return Py_BuildValue("(NN)", make(lo), make(hi));
}

static PyObject *
py_uuid7_range(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
	return kind_range(&cid_bind_uuidv7, args, nargs, "uuid7_range", "UUIDv7", cpy_uuid_new);
}

static PyObject *
py_ulid_range(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
	return kind_range(&cid_bind_ulid, args, nargs, "ulid_range", "ULID", ulid_text);
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
	return typeid_text(cid_typeid_next(&cid_bind_gen.uuidv7, buf, sizeof(buf), prefix, (size_t) plen, NULL),
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

PyMODINIT_FUNC
PyInit__chronoid(void)
{
	PyObject   *m = PyModule_Create(&moduledef);

	if (m == NULL)
		return NULL;
	if (cid_bind_start() != CID_OK)
	{
		PyErr_SetString(PyExc_ImportError, "chronoid: generator setup failed");
		goto fail;
	}

	if (cpy_errors_setup(m) < 0 || cpy_convert_setup(m) < 0 || cpy_snowflake_setup(m) < 0 ||
		cpy_lease_setup(m) < 0 || cpy_block_setup(m) < 0 || cpy_kinds_setup(m) < 0 ||
		cpy_at_setup(m) < 0)
		goto fail;
	if (PyModule_AddStringConstant(m, "core_version", cid_version()) < 0 ||
		PyModule_AddStringConstant(m, "random_source", CID_BIND_RANDOM_SOURCE) < 0)
		goto fail;
	return m;

fail:
	Py_DECREF(m);
	return NULL;
}
