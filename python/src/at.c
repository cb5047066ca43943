/*
 * at.c — IDs for a given time (backfills of historical rows, deterministic
 * tests) and the ULID text <-> bytes steps under chronoid.ULID: each call
 * is one cid_* function, so the Python layer never encodes an ID itself.
 */
#include "chronoid_py.h"

#include <string.h>

/*
 * The Unix ms of time for the call what, and fresh random bytes; -1 with
 * an exception.  A time the kind cannot hold is the core's to refuse.
 */
static int
at_args(PyObject *time, const char *what, int64_t *ms, uint8_t *rand, size_t nrand)
{
	int			st;

	if (cpy_time_ms(time, what, ms) < 0)
		return -1;
	if ((st = cid_random_bytes(rand, nrand)) < 0)
	{
		cpy_raise_status(st, "%s: no random bytes", what);
		return -1;
	}
	return 0;
}

/*
 * uuid7_at(time): a UUIDv7 of that millisecond, its other 74 bits random
 * (no order among UUIDs of one millisecond, unlike uuid7()'s generator).
 */
static PyObject *
py_uuid7_at(PyObject *mod, PyObject *time)
{
	int64_t		ms;
	uint8_t		rand[10];
	cid_uuid	u;
	int			st;

	if (at_args(time, "uuid7_at()", &ms, rand, sizeof(rand)) < 0)
		return NULL;
	if ((st = cid_uuidv7_from_ms(&u, ms, rand)) < 0)
		return cpy_raise_status(st, "uuid7_at(%lld): a UUIDv7 holds Unix ms 0..2**48-1",
								(long long) ms);
	return cpy_uuid_new(u.bytes);
}

/* A ULID of time's millisecond with a random part of its own. */
static int
ulid_at(PyObject *time, const char *what, cid_ulid *l)
{
	int64_t		ms;
	uint8_t		rand[10];
	int			st;

	if (at_args(time, what, &ms, rand, sizeof(rand)) < 0)
		return -1;
	if ((st = cid_ulid_from_ms(l, ms, rand)) < 0)
	{
		cpy_raise_status(st, "%s(%lld): a ULID holds Unix ms 0..2**48-1", what, (long long) ms);
		return -1;
	}
	return 0;
}

static PyObject *
py_ulid_at(PyObject *mod, PyObject *time)
{
	cid_ulid	l;
	char		text[CID_ULID_STRLEN + 1];

	if (ulid_at(time, "ulid_at", &l) < 0)
		return NULL;
	cid_ulid_format(text, &l);
	return cpy_ascii(text, CID_ULID_STRLEN);
}

static PyObject *
py_ulid_bytes_at(PyObject *mod, PyObject *time)
{
	cid_ulid	l;

	if (ulid_at(time, "ulid_bytes_at", &l) < 0)
		return NULL;
	return PyBytes_FromStringAndSize((const char *) l.bytes, 16);
}

/* _ulid_text(b): the text of a ULID's 16 bytes (chronoid.ULID's str()). */
static PyObject *
py_ulid_text(PyObject *mod, PyObject *arg)
{
	cid_ulid	l;
	char		text[CID_ULID_STRLEN + 1];

	if (!PyBytes_Check(arg) || PyBytes_GET_SIZE(arg) != 16)
		return cpy_raise(cpy_TypeError, "_ulid_text() takes 16 bytes, not %s",
						 Py_TYPE(arg)->tp_name);
	memcpy(l.bytes, PyBytes_AS_STRING(arg), 16);
	cid_ulid_format(text, &l);
	return cpy_ascii(text, CID_ULID_STRLEN);
}

/* _ulid_from_text(s): a ULID's 16 bytes from its text, any case. */
static PyObject *
py_ulid_from_text(PyObject *mod, PyObject *arg)
{
	const char *s;
	Py_ssize_t	len;
	size_t		errpos = 0;
	cid_ulid	l;
	int			st;

	if (cpy_text(arg, "a ULID", &s, &len) < 0)
		return NULL;
	if ((st = cid_ulid_parse(&l, s, (size_t) len, &errpos)) < 0)
		return cpy_parse_error(arg, "a ULID", CPY_ULID_FORM, st, errpos);
	return PyBytes_FromStringAndSize((const char *) l.bytes, 16);
}

static PyMethodDef at_methods[] = {
	{"uuid7_at", py_uuid7_at, METH_O,
	"uuid7_at(time, /)\n--\n\nA UUIDv7 of the millisecond of time (an aware datetime, Unix ms or\n"
	"RFC 3339 text), the rest random."},
	{"ulid_at", py_ulid_at, METH_O,
	"ulid_at(time, /)\n--\n\nA ULID of the millisecond of time, its random part fresh."},
	{"ulid_bytes_at", py_ulid_bytes_at, METH_O,
	"ulid_bytes_at(time, /)\n--\n\nulid_at() as 16 bytes."},
	{"_ulid_text", py_ulid_text, METH_O, NULL},
	{"_ulid_from_text", py_ulid_from_text, METH_O, NULL},
	{NULL, NULL, 0, NULL}
};

int
cpy_at_setup(PyObject *module)
{
	return PyModule_AddFunctions(module, at_methods);
}
