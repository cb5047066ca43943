/*
 * kinds.c — the module's other ID kinds: MongoDB ObjectIds, KSUIDs and
 * UUIDv6 made by the core's generators, and UUID version 1 <-> 6
 * conversion.  Parsing them is inspect()'s (module.c).
 *
 * The generators are the process's (bind/generators.c).  ObjectIds come
 * from one process-wide generator; the core draws its
 * process bytes anew in a child after fork(), so nothing here watches
 * forks.  KSUIDs have no state (16 random bytes each).  The v6 generator
 * keeps only the last tick; its clock sequence and node are random per
 * UUID, so a child that goes on from its parent's tick mints other UUIDs.
 * None of them waits: they run with the GIL held, and their batches
 * (the core's fill: one clock reading, one random request, one atomic
 * step) give it up from 4096 IDs on, as the UUIDv7 and ULID batches do:
 * the core's steps are thread-safe.
 */
#include "chronoid_py.h"

static PyObject *
objectid_text(const uint8_t *bytes)
{
	char		text[CID_OBJECTID_STRLEN + 1];

	cid_objectid_format(text, (const cid_objectid *) (const void *) bytes);
	return cpy_ascii(text, CID_OBJECTID_STRLEN);
}

static PyObject *
ksuid_text(const uint8_t *bytes)
{
	char		text[CID_KSUID_STRLEN + 1];

	cid_ksuid_format(text, (const cid_ksuid *) (const void *) bytes);
	return cpy_ascii(text, CID_KSUID_STRLEN);
}

/* A kind (bind/kinds.c) and its Python form (text or UUID). */
typedef struct kind
{
	const cid_bind_kind *k;
	PyObject   *(*as_object) (const uint8_t *);
} kind;

static const kind k_objectid = {&cid_bind_objectid, objectid_text};
static const kind k_ksuid = {&cid_bind_ksuid, ksuid_text};
static const kind k_uuid6 = {&cid_bind_uuidv6, cpy_uuid_new};

/*
 * what() for every kind: one new ID, as its Python form or, as_bytes, its
 * bytes.
 */
static PyObject *
make_one(Py_ssize_t nargs, const char *what, const kind *k, bool as_bytes)
{
	uint8_t		id[sizeof(cid_ksuid)];	/* the largest */
	int			st;

	if (cpy_no_args(what, nargs) < 0)
		return NULL;
	if ((st = k->k->fill(&cid_bind_gen, id, 1)) < 0)
		return cpy_raise_status(st, "%s failed", what);
	if (as_bytes)
		return PyBytes_FromStringAndSize((const char *) id, (Py_ssize_t) k->k->size);
	return k->as_object(id);
}

static PyObject *
batch(PyObject *arg, const char *what, const kind *k, bool as_bytes)
{
	if (as_bytes)
		return cpy_batch_bytes(k->k, arg, what);
	return cpy_batch_list(k->k, arg, what, k->as_object);
}

static PyObject *
py_objectid(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
	return make_one(nargs, "objectid()", &k_objectid, false);
}

static PyObject *
py_objectid_bytes(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
	return make_one(nargs, "objectid_bytes()", &k_objectid, true);
}

static PyObject *
py_objectid_batch(PyObject *mod, PyObject *arg)
{
	return batch(arg, "objectid_batch()", &k_objectid, false);
}

static PyObject *
py_objectid_batch_bytes(PyObject *mod, PyObject *arg)
{
	return batch(arg, "objectid_batch_bytes()", &k_objectid, true);
}

static PyObject *
py_ksuid(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
	return make_one(nargs, "ksuid()", &k_ksuid, false);
}

static PyObject *
py_ksuid_bytes(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
	return make_one(nargs, "ksuid_bytes()", &k_ksuid, true);
}

static PyObject *
py_ksuid_batch(PyObject *mod, PyObject *arg)
{
	return batch(arg, "ksuid_batch()", &k_ksuid, false);
}

static PyObject *
py_ksuid_batch_bytes(PyObject *mod, PyObject *arg)
{
	return batch(arg, "ksuid_batch_bytes()", &k_ksuid, true);
}

static PyObject *
py_uuid6(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
	return make_one(nargs, "uuid6()", &k_uuid6, false);
}

static PyObject *
py_uuid6_bytes(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
	return make_one(nargs, "uuid6_bytes()", &k_uuid6, true);
}

static PyObject *
py_uuid6_batch(PyObject *mod, PyObject *arg)
{
	return batch(arg, "uuid6_batch()", &k_uuid6, false);
}

static PyObject *
py_uuid6_batch_bytes(PyObject *mod, PyObject *arg)
{
	return batch(arg, "uuid6_batch_bytes()", &k_uuid6, true);
}

/*
 * fn's argument as a UUID of version from, converted by conv; a ValueError
 * naming the value and its version when it is another one.
 */
static PyObject *
convert_version(PyObject *arg, const char *fn, int from,
				int (*conv) (cid_uuid *, const cid_uuid *))
{
	cid_uuid	u;
	PyObject   *shown;
	int			version;

	if (cpy_uuid_arg(arg, &u) < 0)
		return NULL;
	if (conv(&u, &u) == CID_OK)
		return cpy_uuid_new(u.bytes);
	shown = cpy_show(arg);
	if (shown == NULL)
		return NULL;
	version = cid_uuid_version(&u);
	if (version < 0)
		cpy_raise_status(CID_EINVAL, "%s(): %U is not a version %d UUID: it is not of "
						 "the RFC 9562 variant.", fn, shown, from);
	else
		cpy_raise_status(CID_EINVAL, "%s(): %U is not a version %d UUID: its version "
						 "is %d.", fn, shown, from, version);
	Py_DECREF(shown);
	return NULL;
}

static PyObject *
py_uuid1_to_uuid6(PyObject *mod, PyObject *arg)
{
	return convert_version(arg, "uuid1_to_uuid6", 1, cid_uuid_v1_to_v6);
}

static PyObject *
py_uuid6_to_uuid1(PyObject *mod, PyObject *arg)
{
	return convert_version(arg, "uuid6_to_uuid1", 6, cid_uuid_v6_to_v1);
}

static PyMethodDef kinds_methods[] = {
	{"objectid", CPY_FN(py_objectid), METH_FASTCALL,
	"objectid() -> str: a new MongoDB ObjectId, 24 lower-case hex digits."},
	{"objectid_bytes", CPY_FN(py_objectid_bytes), METH_FASTCALL,
	"objectid_bytes() -> bytes: a new ObjectId's 12 bytes."},
	{"objectid_batch", py_objectid_batch, METH_O,
	"objectid_batch(n) -> list[str]: n new ObjectIds."},
	{"objectid_batch_bytes", py_objectid_batch_bytes, METH_O,
	"objectid_batch_bytes(n) -> bytes: n new ObjectIds, 12 bytes each."},
	{"ksuid", CPY_FN(py_ksuid), METH_FASTCALL, "ksuid() -> str: a new KSUID, 27 base62 characters."},
	{"ksuid_bytes", CPY_FN(py_ksuid_bytes), METH_FASTCALL,
	"ksuid_bytes() -> bytes: a new KSUID's 20 bytes."},
	{"ksuid_batch", py_ksuid_batch, METH_O,
	"ksuid_batch(n) -> list[str]: n new KSUIDs (random order within a second)."},
	{"ksuid_batch_bytes", py_ksuid_batch_bytes, METH_O,
	"ksuid_batch_bytes(n) -> bytes: n new KSUIDs, 20 bytes each."},
	{"uuid6", CPY_FN(py_uuid6), METH_FASTCALL,
	"uuid6() -> uuid.UUID: a new UUIDv6, above every one this process made before."},
	{"uuid6_bytes", CPY_FN(py_uuid6_bytes), METH_FASTCALL,
	"uuid6_bytes() -> bytes: a new UUIDv6's 16 bytes."},
	{"uuid6_batch", py_uuid6_batch, METH_O, "uuid6_batch(n) -> list[uuid.UUID]: n increasing UUIDv6s."},
	{"uuid6_batch_bytes", py_uuid6_batch_bytes, METH_O,
	"uuid6_batch_bytes(n) -> bytes: n increasing UUIDv6s, 16 bytes each."},
	{"uuid1_to_uuid6", py_uuid1_to_uuid6, METH_O,
	"uuid1_to_uuid6(uuid) -> uuid.UUID: the version 1 UUID's time, clock sequence "
	"and node as a UUIDv6."},
	{"uuid6_to_uuid1", py_uuid6_to_uuid1, METH_O,
	"uuid6_to_uuid1(uuid) -> uuid.UUID: the UUIDv6 back as version 1."},
	{NULL, NULL, 0, NULL}
};

int
cpy_kinds_setup(PyObject *module)
{
	/* The generators are cid_bind_start()'s (module.c starts them). */
	return PyModule_AddFunctions(module, kinds_methods);
}
