/*
 * convert.c — what every file of the module shares, calling nothing above
 * it: the exception classes and the errors of a status (bind/errors.c's
 * table), arguments in with messages that name a bad value, the batch
 * calls, and Python objects out: uuid.UUID without its __init__,
 * datetimes in UTC, the IdInfo struct sequence.
 */
#include "chronoid_py.h"

#include <datetime.h>
#include <stdarg.h>
#include <string.h>
#include <structmember.h>

#ifdef Py_T_OBJECT_EX
#define CPY_T_OBJECT_EX Py_T_OBJECT_EX
#else
#define CPY_T_OBJECT_EX T_OBJECT_EX
#endif

static PyTypeObject *uuid_type;
static PyObject *uuid_safe_unknown;

/*
 * uuid.UUID keeps its value in two __slots__ (int, is_safe) and forbids
 * __setattr__, so UUID(int=...) costs a keyword call, range checks and two
 * object.__setattr__ calls.  When the slots are the plain member
 * descriptors we expect, a UUID is made as object.__new__ makes it (the
 * type's tp_alloc) and its two slots are stored directly, which is what
 * object.__setattr__ would end up doing.  Otherwise (a future or patched
 * uuid module) every UUID goes through UUID(int=...).
 */
static Py_ssize_t uuid_int_off = -1;
static Py_ssize_t uuid_safe_off = -1;

static PyObject *epoch_utc;

static PyTypeObject info_type;
static PyStructSequence_Field info_fields[] = {
	{"kind", "'snowflake', 'uuid', 'ulid', 'objectid' or 'ksuid'"},
	{"value", "the ID: int (Snowflake), uuid.UUID or str (ULID)"},
	{"datetime", "its time as an aware UTC datetime; None when it has none or "
	 "the year is past 9999"},
	{"ms", "its time in Unix milliseconds, or None"},
	{"node", "Snowflake node number, or None"},
	{"sequence", "Snowflake sequence number, or None"},
	{"version", "UUID version (0..15, -1 for a non-RFC variant), or None"},
	{NULL, NULL}
};
static PyStructSequence_Desc info_desc = {
	"chronoid.IdInfo",
	"What an ID is and what it carries (chronoid.inspect).",
	info_fields, 7
};

PyObject   *cpy_Error;
PyObject   *cpy_ValueError;
PyObject   *cpy_TypeError;
PyObject   *cpy_GeneratorError;
PyObject   *cpy_ForkError;
PyObject   *cpy_WouldWait;

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

/* The exception classes, on module (chronoid/_chronoid.pyi). */
int
cpy_errors_setup(PyObject *module)
{
	PyObject   *bases;

	cpy_Error = new_exc(module, "ChronoidError", NULL, "Base of every chronoid error.");
	if (cpy_Error == NULL)
		return -1;
	bases = PyTuple_Pack(2, cpy_Error, PyExc_ValueError);
	cpy_ValueError = bases ? new_exc(module, "ChronoidValueError", bases,
									 "A value that is no valid ID, layout, node or time.") : NULL;
	Py_XDECREF(bases);
	bases = PyTuple_Pack(2, cpy_Error, PyExc_TypeError);
	cpy_TypeError = bases ? new_exc(module, "ChronoidTypeError", bases,
									"An argument of the wrong type.") : NULL;
	Py_XDECREF(bases);
	bases = PyTuple_Pack(2, cpy_Error, PyExc_RuntimeError);
	cpy_GeneratorError = bases ? new_exc(module, "GeneratorError", bases,
										 "A generator could not issue an ID (clock, "
										 "random source, exhausted sequence).") : NULL;
	Py_XDECREF(bases);
	if (cpy_ValueError == NULL || cpy_TypeError == NULL || cpy_GeneratorError == NULL)
		return -1;
	cpy_ForkError = new_exc(module, "ForkError", cpy_GeneratorError,
							"A Snowflake generator inherited through fork() has no "
							"node of its own in this process.");
	cpy_WouldWait = new_exc(module, "WouldWait", cpy_GeneratorError,
							"Snowflake.next_at(): the generator would have to wait.");
	if (cpy_ForkError == NULL || cpy_WouldWait == NULL)
		return -1;

	return 0;
}

/*
 * Raise cls with the message of fmt; a negative status also goes into
 * .status, its words (cid_bind_strerror: the lease and block codes too)
 * into .reason, and, when add_reason is set, after the message.
 */
static PyObject *
vraise(PyObject *cls, int status, bool add_reason, const char *fmt, va_list ap)
{
	PyObject   *msg = PyUnicode_FromFormatV(fmt, ap);
	PyObject   *exc;

	if (msg == NULL)
		return NULL;
	if (status < 0 && add_reason)
	{
		Py_ssize_t	n = PyUnicode_GET_LENGTH(msg);

		if (n == 0 || PyUnicode_READ_CHAR(msg, n - 1) != '.')
		{
			PyObject   *full = PyUnicode_FromFormat("%U: %s", msg, cid_strerror(status));

			Py_DECREF(msg);
			if (full == NULL)
				return NULL;
			msg = full;
		}
	}
	exc = PyObject_CallOneArg(cls, msg);
	Py_DECREF(msg);
	if (exc == NULL)
		return NULL;
	if (status < 0)
	{
		PyObject   *code = PyLong_FromLong(status);
		PyObject   *reason = PyUnicode_FromString(cid_bind_strerror(status));
		int			bad = code == NULL || reason == NULL ||
			PyObject_SetAttrString(exc, "status", code) < 0 ||
			PyObject_SetAttrString(exc, "reason", reason) < 0;

		Py_XDECREF(code);
		Py_XDECREF(reason);
		if (bad)
		{
			Py_DECREF(exc);
			return NULL;
		}
	}
	PyErr_SetObject(cls, exc);
	Py_DECREF(exc);
	return NULL;
}

PyObject *
cpy_status_class(int status)
{
	switch (cid_bind_status_of(status)->cls)
	{
		case CID_BIND_VALUE_ERROR:
			return cpy_ValueError;
		case CID_BIND_WOULD_WAIT:
			return cpy_WouldWait;
		case CID_BIND_FORK_ERROR:
			return cpy_ForkError;
		case CID_BIND_GENERATOR_ERROR:
			break;
	}
	return cpy_GeneratorError;
}

PyObject *
cpy_raise_status(int status, const char *fmt, ...)
{
	va_list		ap;

	va_start(ap, fmt);
	vraise(cpy_status_class(status), status, true, fmt, ap);
	va_end(ap);
	return NULL;
}

PyObject *
cpy_raise_coded(int status, const char *fmt, ...)
{
	va_list		ap;

	va_start(ap, fmt);
	vraise(cpy_status_class(status), status, false, fmt, ap);
	va_end(ap);
	return NULL;
}

PyObject *
cpy_raise(PyObject *cls, const char *fmt, ...)
{
	va_list		ap;

	va_start(ap, fmt);
	vraise(cls, 0, false, fmt, ap);
	va_end(ap);
	return NULL;
}

PyObject *
cpy_show(PyObject *o)
{
	PyObject   *r = PyObject_Repr(o);
	PyObject   *cut;

	if (r == NULL)
	{
		/* An int too long for str() (sys.set_int_max_str_digits), say. */
		PyErr_Clear();
		if (PyLong_Check(o))
			return PyUnicode_FromFormat("<int of %zu bits>", (size_t) _PyLong_NumBits(o));
		return PyUnicode_FromFormat("<%s object>", Py_TYPE(o)->tp_name);
	}
	if (PyUnicode_GET_LENGTH(r) <= 60)
		return r;
	cut = PyUnicode_Substring(r, 0, 56);
	Py_DECREF(r);
	if (cut == NULL)
		return NULL;
	r = PyUnicode_FromFormat("%U...", cut);
	Py_DECREF(cut);
	return r;
}

/* Raise with the value's shortened repr as the first %U. */
#define RAISE_SHOWING(cls, value, fmt, ...) \
	do { \
		PyObject   *shown_ = cpy_show(value); \
		if (shown_ != NULL) \
		{ \
			cpy_raise((cls), fmt, shown_, __VA_ARGS__); \
			Py_DECREF(shown_); \
		} \
	} while (0)

int
cpy_text(PyObject *o, const char *what, const char **s, Py_ssize_t *len)
{
	if (!PyUnicode_Check(o))
	{
		cpy_raise(cpy_TypeError, "expected %s as str, not %s", what, Py_TYPE(o)->tp_name);
		return -1;
	}
	if (!PyUnicode_IS_ASCII(o))
	{
		Py_ssize_t	i,
					n = PyUnicode_GET_LENGTH(o);

		for (i = 0; i < n; i++)
			if (PyUnicode_READ_CHAR(o, i) > 127)
				break;
		char		code[16];

		snprintf(code, sizeof(code), "U+%04X", (unsigned) PyUnicode_READ_CHAR(o, i));
		RAISE_SHOWING(cpy_ValueError, o,
					  "%U is not %s: character %s at position %zd is not ASCII",
					  what, code, i);
		return -1;
	}
	*s = (const char *) PyUnicode_DATA(o);
	*len = PyUnicode_GET_LENGTH(o);
	return 0;
}

int
cpy_uint(PyObject *o, const char *name, uint64_t max, const char *ctx, uint64_t *out)
{
	int			overflow;
	long long	v;
	unsigned long long u;

	if (PyBool_Check(o))
	{
		cpy_raise(cpy_TypeError, "%s must be an int, not bool (%R)", name, o);
		return -1;
	}
	if (!PyLong_Check(o))
	{
		cpy_raise(cpy_TypeError, "%s must be an int, not %s", name, Py_TYPE(o)->tp_name);
		return -1;
	}
	v = PyLong_AsLongLongAndOverflow(o, &overflow);
	if (v == -1 && PyErr_Occurred())
		return -1;
	if (overflow < 0 || (overflow == 0 && v < 0))
		goto range;
	if (overflow == 0)
		u = (unsigned long long) v;
	else
	{
		u = PyLong_AsUnsignedLongLong(o);
		if (u == (unsigned long long) -1 && PyErr_Occurred())
		{
			PyErr_Clear();
			goto range;
		}
	}
	if (u > max)
		goto range;
	*out = u;
	return 0;

range:
	{
		PyObject   *shown = cpy_show(o);

		if (shown != NULL)
		{
			cpy_raise(cpy_ValueError, "%s %U is out of range: expected 0..%llu%s",
					  name, shown, (unsigned long long) max, ctx);
			Py_DECREF(shown);
		}
	}
	return -1;
}

int
cpy_count(PyObject *o, Py_ssize_t *n)
{
	uint64_t	v;

	if (cpy_uint(o, "n", (uint64_t) CID_BIND_MAX_BATCH, " IDs per batch", &v) < 0)
		return -1;
	*n = (Py_ssize_t) v;
	return 0;
}

int
cpy_time_ms(PyObject *o, const char *name, int64_t *ms)
{
	if (PyDateTime_Check(o))
	{
		PyObject   *delta;
		int64_t		days,
					secs,
					us;

		if (PyDateTime_DATE_GET_TZINFO(o) == Py_None)
		{
			RAISE_SHOWING(cpy_ValueError, o,
						  "%U is a naive datetime: %s needs one with tzinfo "
						  "(e.g. datetime.timezone.utc)", name);
			return -1;
		}
		delta = PyNumber_Subtract(o, epoch_utc);
		if (delta == NULL)
			return -1;
		days = PyDateTime_DELTA_GET_DAYS(delta);
		secs = PyDateTime_DELTA_GET_SECONDS(delta);
		us = PyDateTime_DELTA_GET_MICROSECONDS(delta);
		Py_DECREF(delta);
		/* seconds and microseconds are never negative: floor is exact. */
		*ms = days * 86400000 + secs * 1000 + us / 1000;
		return 0;
	}
	if (PyLong_Check(o) && !PyBool_Check(o))
	{
		int			overflow;
		long long	v = PyLong_AsLongLongAndOverflow(o, &overflow);

		if (v == -1 && PyErr_Occurred())
			return -1;
		if (overflow != 0)
		{
			RAISE_SHOWING(cpy_ValueError, o, "%U is out of range for %s: "
						  "expected Unix milliseconds in a signed 64-bit int", name);
			return -1;
		}
		*ms = v;
		return 0;
	}
	if (PyUnicode_Check(o))
	{
		const char *s;
		Py_ssize_t	len;
		size_t		errpos = 0;
		int			st;

		if (cpy_text(o, "a time", &s, &len) < 0)
			return -1;
		st = cid_time_parse(ms, s, (size_t) len, &errpos);
		if (st == CID_ESYNTAX)
		{
			RAISE_SHOWING(cpy_ValueError, o, "%U is not a time for %s: unexpected "
						  "character at position %zu (expected YYYY-MM-DD"
						  "[THH:MM:SS[.fff]][Z] in UTC, or Unix ms)", name, errpos);
			return -1;
		}
		if (st < 0)
		{
			PyObject   *shown = cpy_show(o);

			if (shown != NULL)
			{
				cpy_raise_status(st, "%U is not a time for %s", shown, name);
				Py_DECREF(shown);
			}
			return -1;
		}
		return 0;
	}
	cpy_raise(cpy_TypeError, "%s must be an aware datetime, an int of Unix ms "
			  "or RFC 3339 text, not %s", name, Py_TYPE(o)->tp_name);
	return -1;
}

PyObject *
cpy_datetime(int64_t unix_ms)
{
	int64_t		days = unix_ms / 86400000,
				rem = unix_ms % 86400000;
	PyObject   *delta,
			   *dt;

	if (rem < 0)
	{
		rem += 86400000;
		days--;
	}
	/* datetime ends at year 9999; the formats reach 10889. */
	if (days > 2932896 || days < -719162)
		Py_RETURN_NONE;
	delta = PyDelta_FromDSU((int) days, (int) (rem / 1000), (int) (rem % 1000) * 1000);
	if (delta == NULL)
		return NULL;
	dt = PyNumber_Add(epoch_utc, delta);
	Py_DECREF(delta);
	if (dt == NULL && PyErr_ExceptionMatches(PyExc_OverflowError))
	{
		PyErr_Clear();
		Py_RETURN_NONE;
	}
	return dt;
}

int
cpy_layout(PyObject *o, cid_layout *out)
{
	const char *s;
	Py_ssize_t	len;
	char		err[256];
	char		buf[512];
	int			st;

	if (o == NULL || o == Py_None)
		return cid_layout_preset(out, "pgedge") < 0 ?
			(cpy_raise(cpy_GeneratorError, "the pgedge preset failed"), -1) : 0;
	if (cpy_text(o, "a layout (a preset name or a spec)", &s, &len) < 0)
		return -1;
	if ((size_t) len >= sizeof(buf) || memchr(s, '\0', (size_t) len) != NULL)
	{
		RAISE_SHOWING(cpy_ValueError, o, "%U is not a layout: expected a preset "
					  "name or a spec of at most %d characters", (int) sizeof(buf) - 1);
		return -1;
	}
	memcpy(buf, s, (size_t) len);
	buf[len] = '\0';
	err[0] = '\0';
	st = cid_layout_resolve(out, buf, err, sizeof(err));
	if (st < 0)
	{
		RAISE_SHOWING(cpy_ValueError, o, "%U is not a layout: %s", err[0] ? err : cid_strerror(st));
		return -1;
	}
	return 0;
}

PyObject *
cpy_uuid_new(const uint8_t bytes[16])
{
	PyObject   *value = _PyLong_FromByteArray(bytes, 16, 0, 0);
	PyObject   *u;

	if (value == NULL)
		return NULL;
	if (uuid_int_off < 0)
	{
		PyObject   *kw = Py_BuildValue("{sN}", "int", value);

		if (kw == NULL)
			return NULL;
		{
			PyObject   *empty = PyTuple_New(0);

			u = empty ? PyObject_Call((PyObject *) uuid_type, empty, kw) : NULL;
			Py_XDECREF(empty);
		}
		Py_DECREF(kw);
		return u;
	}
	u = uuid_type->tp_alloc(uuid_type, 0);
	if (u == NULL)
	{
		Py_DECREF(value);
		return NULL;
	}
	/* Fresh object: both slots are NULL; the references are the slots'. */
	*(PyObject **) ((char *) u + uuid_int_off) = value;
	*(PyObject **) ((char *) u + uuid_safe_off) = Py_NewRef(uuid_safe_unknown);

	/*
	 * A UUID refers to an int and to SafeUUID.unknown, neither of which
	 * refers back to it, so it can be in no cycle and the collector has
	 * nothing to find in it: untracked (as CPython leaves tuples of atoms),
	 * it costs no collection a look.  A list of a million UUIDs otherwise
	 * has them traversed by every collection of their generation (a
	 * third of uuid7_batch()'s time).
	 */
	if (PyObject_GC_IsTracked(u))
		PyObject_GC_UnTrack(u);
	return u;
}

bool
cpy_is_uuid(PyObject *o)
{
	return PyObject_TypeCheck(o, uuid_type);
}

PyObject *
cpy_ascii(const char *text, Py_ssize_t n)
{
	/* Build the compact str directly: no decoding to do. */
	PyObject   *s = PyUnicode_New(n, 127);

	if (s != NULL)
		memcpy(PyUnicode_DATA(s), text, (size_t) n);
	return s;
}

int
cpy_uuid_bytes(PyObject *o, uint8_t out[16])
{
	PyObject   *value;
	int			rc;

	if (!PyObject_TypeCheck(o, uuid_type))
	{
		cpy_raise(cpy_TypeError, "expected a uuid.UUID, not %s", Py_TYPE(o)->tp_name);
		return -1;
	}
	if (Py_IS_TYPE(o, uuid_type) && uuid_int_off >= 0 &&
		*(PyObject **) ((char *) o + uuid_int_off) != NULL)
		value = Py_NewRef(*(PyObject **) ((char *) o + uuid_int_off));
	else if ((value = PyObject_GetAttrString(o, "int")) == NULL)
		return -1;
	if (!PyLong_Check(value))
	{
		cpy_raise(cpy_TypeError, "UUID.int must be an int, not %s", Py_TYPE(value)->tp_name);
		Py_DECREF(value);
		return -1;
	}
#if PY_VERSION_HEX >= 0x030D0000
	rc = _PyLong_AsByteArray((PyLongObject *) value, out, 16, 0, 0, 1);
#else
	rc = _PyLong_AsByteArray((PyLongObject *) value, out, 16, 0, 0);
#endif
	if (rc < 0)
	{
		PyErr_Clear();
		RAISE_SHOWING(cpy_ValueError, value, "UUID.int %U is out of range: expected 0..2**128-1%s", "");
	}
	Py_DECREF(value);
	return rc < 0 ? -1 : 0;
}

int
cpy_int_opt(PyObject *o, const char *name, int64_t *out)
{
	int			overflow;
	long long	v;

	if (o == NULL || o == Py_None)
		return 0;
	if (PyBool_Check(o))
		return cpy_raise(cpy_TypeError, "%s must be an int, not bool (%R)", name, o), -1;
	if (!PyLong_Check(o))
		return cpy_raise(cpy_TypeError, "%s must be an int, not %s", name,
						 Py_TYPE(o)->tp_name), -1;
	v = PyLong_AsLongLongAndOverflow(o, &overflow);
	if (v == -1 && PyErr_Occurred())
		return -1;
	if (overflow != 0 || v > (long long) CID_BIND_MAX_OPTION || v < -(long long) CID_BIND_MAX_OPTION)
	{
		PyObject   *shown = cpy_show(o);

		if (shown != NULL)
		{
			cpy_raise(cpy_ValueError, "%s %U is out of range: expected an integer from "
					  "-%llu to %llu", name, shown, (unsigned long long) CID_BIND_MAX_OPTION,
					  (unsigned long long) CID_BIND_MAX_OPTION);
			Py_DECREF(shown);
		}
		return -1;
	}
	*out = (int64_t) v;
	return 0;
}

int
cpy_cstr_opt(PyObject *o, const char *name, bool fs_path, char **out)
{
	PyObject   *b;
	Py_ssize_t	len;

	*out = NULL;
	if (o == NULL || o == Py_None)
		return 0;
	if (!PyUnicode_Check(o))
		return cpy_raise(cpy_TypeError, "%s must be a str, not %s", name,
						 Py_TYPE(o)->tp_name), -1;
	b = fs_path ? PyUnicode_EncodeFSDefault(o) : PyUnicode_AsUTF8String(o);
	if (b == NULL)
	{
		PyErr_Clear();
		return cpy_raise(cpy_ValueError, "%s cannot be encoded (a lone surrogate?)", name), -1;
	}
	len = PyBytes_GET_SIZE(b);
	if (strlen(PyBytes_AS_STRING(b)) != (size_t) len)
	{
		Py_DECREF(b);
		return cpy_raise(cpy_ValueError, "%s contains a NUL character", name), -1;
	}
	*out = PyMem_Malloc((size_t) len + 1);
	if (*out != NULL)
		memcpy(*out, PyBytes_AS_STRING(b), (size_t) len + 1);
	Py_DECREF(b);
	return *out == NULL ? (PyErr_NoMemory(), -1) : 0;
}

PyObject *
cpy_u64_list(const uint64_t *ids, Py_ssize_t n)
{
	PyObject   *list = PyList_New(n);
	Py_ssize_t	i;

	for (i = 0; list != NULL && i < n; i++)
	{
		PyObject   *v = PyLong_FromUnsignedLongLong(ids[i]);

		if (v == NULL)
			Py_CLEAR(list);
		else
			PyList_SET_ITEM(list, i, v);
	}
	return list;
}

static PyObject *
opt_u64(bool has, uint64_t v)
{
	if (!has)
		Py_RETURN_NONE;
	return PyLong_FromUnsignedLongLong(v);
}

PyObject *
cpy_info(const cid_id_info *in)
{
	PyObject   *r = PyStructSequence_New(&info_type);
	PyObject   *items[7] = {NULL};
	int			i;

	if (r == NULL)
		return NULL;
	items[0] = PyUnicode_FromString(cid_kind_name(in->kind));
	switch (in->kind)
	{
		case CID_KIND_SNOWFLAKE:
			items[1] = PyLong_FromUnsignedLongLong(in->snowflake);
			break;
		case CID_KIND_UUID:
			items[1] = cpy_uuid_new(in->bytes);
			break;
		case CID_KIND_OBJECTID:
			{
				cid_objectid o;
				char		text[CID_OBJECTID_STRLEN + 1];

				memcpy(o.bytes, in->bytes, sizeof(o.bytes));
				cid_objectid_format(text, &o);
				items[1] = PyUnicode_FromStringAndSize(text, CID_OBJECTID_STRLEN);
			}
			break;
		case CID_KIND_KSUID:
			{
				cid_ksuid	k;
				char		text[CID_KSUID_STRLEN + 1];

				memcpy(k.bytes, in->bytes, sizeof(k.bytes));
				cid_ksuid_format(text, &k);
				items[1] = PyUnicode_FromStringAndSize(text, CID_KSUID_STRLEN);
			}
			break;
		default:
			{
				cid_ulid	u;
				char		text[CID_ULID_STRLEN + 1];

				memcpy(u.bytes, in->bytes, 16);
				cid_ulid_format(text, &u);
				items[1] = PyUnicode_FromStringAndSize(text, CID_ULID_STRLEN);
			}
			break;
	}
	if (in->has_time)
	{
		items[2] = cpy_datetime(in->unix_ms);
		items[3] = PyLong_FromLongLong(in->unix_ms);
	}
	else
	{
		items[2] = Py_NewRef(Py_None);
		items[3] = Py_NewRef(Py_None);
	}
	/* a Snowflake's node and sequence only, as before the other kinds came */
	items[4] = opt_u64(in->kind == CID_KIND_SNOWFLAKE && in->has_node, in->node);
	items[5] = opt_u64(in->kind == CID_KIND_SNOWFLAKE && in->has_sequence, in->sequence);
	items[6] = in->kind == CID_KIND_UUID ? PyLong_FromLong(in->version) : Py_NewRef(Py_None);
	for (i = 0; i < 7; i++)
	{
		if (items[i] == NULL)
		{
			int			j;

			for (j = 0; j < 7; j++)
				Py_XDECREF(items[j]);
			Py_DECREF(r);
			return NULL;
		}
	}
	for (i = 0; i < 7; i++)
		PyStructSequence_SetItem(r, i, items[i]);
	return r;
}

PyObject *
cpy_parse_error(PyObject *value, const char *what, const char *form, int status,
				size_t errpos)
{
	PyObject   *shown = cpy_show(value);

	if (shown == NULL)
		return NULL;
	if (status == CID_ESYNTAX && (Py_ssize_t) errpos < PyUnicode_GET_LENGTH(value))
		cpy_raise_status(status, "%U is not %s: character '%c' at position %zu is not "
						 "allowed (expected %s).", shown, what,
						 (int) PyUnicode_READ_CHAR(value, (Py_ssize_t) errpos),
						 errpos, form);
	else if (status == CID_ELENGTH)
		cpy_raise_status(status, "%U is not %s: %zd characters (expected %s).",
						 shown, what, PyUnicode_GET_LENGTH(value), form);
	else if (status == CID_EOVERFLOW)
		cpy_raise_status(status, "%U is not %s: its value is above the largest "
						 "one (expected %s).", shown, what, form);
	else
		cpy_raise_status(status, "%U is not %s (expected %s)", shown, what, form);
	Py_DECREF(shown);
	return NULL;
}

int
cpy_convert_setup(PyObject *module)
{
	PyObject   *uuid_mod,
			   *safe,
			   *d;
	PyObject   *utc;

	PyDateTime_IMPORT;
	if (PyDateTimeAPI == NULL)
		return -1;
	utc = PyDateTime_TimeZone_UTC;
	epoch_utc = PyDateTimeAPI->DateTime_FromDateAndTime(1970, 1, 1, 0, 0, 0, 0, utc,
														PyDateTimeAPI->DateTimeType);
	if (epoch_utc == NULL)
		return -1;

	uuid_mod = PyImport_ImportModule("uuid");
	if (uuid_mod == NULL)
		return -1;
	uuid_type = (PyTypeObject *) PyObject_GetAttrString(uuid_mod, "UUID");
	safe = PyObject_GetAttrString(uuid_mod, "SafeUUID");
	Py_DECREF(uuid_mod);
	if (uuid_type == NULL || safe == NULL || !PyType_Check(uuid_type))
	{
		Py_XDECREF(safe);
		if (!PyErr_Occurred())
			PyErr_SetString(PyExc_ImportError, "uuid.UUID is not a class");
		return -1;
	}
	uuid_safe_unknown = PyObject_GetAttrString(safe, "unknown");
	Py_DECREF(safe);
	if (uuid_safe_unknown == NULL)
		return -1;

	/*
	 * The fast path only when UUID is the slotted class we know, with no
	 * __dict__ (where a cycle could hang: see cpy_uuid_new).
	 */
	d = PyDict_GetItemString(uuid_type->tp_dict, "int");
	if (d != NULL && Py_IS_TYPE(d, &PyMemberDescr_Type) &&
		((PyMemberDescrObject *) d)->d_member->type == CPY_T_OBJECT_EX)
	{
		PyObject   *s = PyDict_GetItemString(uuid_type->tp_dict, "is_safe");

		if (s != NULL && Py_IS_TYPE(s, &PyMemberDescr_Type) &&
			((PyMemberDescrObject *) s)->d_member->type == CPY_T_OBJECT_EX &&
			PyDict_GetItemString(uuid_type->tp_dict, "__init__") != NULL &&
			uuid_type->tp_new == PyBaseObject_Type.tp_new && uuid_type->tp_dictoffset == 0)
		{
			uuid_int_off = ((PyMemberDescrObject *) d)->d_member->offset;
			uuid_safe_off = ((PyMemberDescrObject *) s)->d_member->offset;
		}
	}

	if (PyStructSequence_InitType2(&info_type, &info_desc) < 0)
		return -1;
	Py_INCREF(&info_type);
	if (PyModule_AddObject(module, "IdInfo", (PyObject *) &info_type) < 0)
	{
		Py_DECREF(&info_type);
		return -1;
	}
	return PyModule_AddIntConstant(module, "_uuid_fast_path", uuid_int_off >= 0);
}

/* ---- batches ----------------------------------------------------------- */

/* Batches at least this long give the GIL up while the core fills them. */
#define RELEASE_GIL_FROM 4096

/*
 * The core's batch fills: one clock reading and one random request per
 * batch.  On failure the IDs issued so far are valid but unused; they are
 * dropped with the rest.
 */
static int
run_fill(const cid_bind_kind *k, uint8_t *out, Py_ssize_t n)
{
	int			st;

	if (n < RELEASE_GIL_FROM)
		return k->fill(&cid_bind_gen, out, (size_t) n);
	Py_BEGIN_ALLOW_THREADS
		st = k->fill(&cid_bind_gen, out, (size_t) n);
	Py_END_ALLOW_THREADS
		return st;
}

PyObject *
cpy_batch_bytes(const cid_bind_kind *k, PyObject *arg, const char *what)
{
	Py_ssize_t	n;
	PyObject   *b;
	int			st;

	if (cpy_count(arg, &n) < 0)
		return NULL;
	b = PyBytes_FromStringAndSize(NULL, (Py_ssize_t) k->size * n);
	if (b == NULL)
		return NULL;
	st = run_fill(k, (uint8_t *) PyBytes_AS_STRING(b), n);
	if (st < 0)
	{
		Py_DECREF(b);
		return cpy_raise_status(st, "%s failed", what);
	}
	return b;
}

PyObject *
cpy_batch_list(const cid_bind_kind *k, PyObject *arg, const char *what,
			   PyObject *(*make) (const uint8_t *))
{
	Py_ssize_t	n,
				i;
	uint8_t    *buf;
	PyObject   *list;
	int			st;

	if (cpy_count(arg, &n) < 0)
		return NULL;
	buf = PyMem_Malloc(n > 0 ? k->size * (size_t) n : 1);
	if (buf == NULL)
		return PyErr_NoMemory();
	st = run_fill(k, buf, n);
	if (st < 0)
	{
		PyMem_Free(buf);
		return cpy_raise_status(st, "%s failed", what);
	}
	list = PyList_New(n);
	if (list != NULL)
	{
		for (i = 0; i < n; i++)
		{
			PyObject   *item = make(buf + k->size * (size_t) i);

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

/* ---- IDs as text ------------------------------------------------------- */


/*
 * ULID text (ulid) or UUID text into its 16 bytes; -1 with an exception
 * that names the value and the form.
 */
int
cpy_id_text(PyObject *o, bool ulid, uint8_t out[16])
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
		return cpy_parse_error(o, what, ulid ? CPY_ULID_FORM : CPY_UUID_FORM, st, errpos), -1;
	memcpy(out, ulid ? l.bytes : u.bytes, 16);
	return 0;
}

int
cpy_uuid_arg(PyObject *o, cid_uuid *out)
{
	PyObject   *shown;

	if (PyUnicode_Check(o))
		return cpy_id_text(o, false, out->bytes);
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
