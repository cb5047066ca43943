/*
 * chronoid_py.h — what the extension module's files share: the exception
 * classes, argument conversion with messages that name the value, and the
 * conversions between the core's types and Python's (uuid.UUID, datetime).
 * The glue parses, calls cid_*, and builds Python objects; it never
 * computes an ID itself.
 */
#ifndef CHRONOID_PY_H
#define CHRONOID_PY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdbool.h>
#include <stdint.h>

#include "bind_internal.h"
#include "chronoid.h"

/* Exception classes (convert.c): see chronoid/_chronoid.pyi. */
extern PyObject *cpy_Error;
extern PyObject *cpy_ValueError;
extern PyObject *cpy_TypeError;
extern PyObject *cpy_GeneratorError;
extern PyObject *cpy_ForkError;
extern PyObject *cpy_WouldWait;

/*
 * The batch calls (convert.c) of a kind (bind/kinds.c): arg is the
 * count (cpy_count's checks and messages), made by k->fill, which runs
 * without the GIL from 4096 IDs on (so it and its generator must be
 * thread-safe).  what names the call ("uuid7_batch()") in a generator
 * failure's message.  n = 0 gives b"" or [].  cpy_batch_bytes returns one
 * bytes object of k->size * n, cpy_batch_list a list of make(each ID's
 * bytes).  NULL with an exception.
 */
PyObject   *cpy_batch_bytes(const cid_bind_kind *k, PyObject *arg, const char *what);
PyObject   *cpy_batch_list(const cid_bind_kind *k, PyObject *arg, const char *what,
						   PyObject *(*make) (const uint8_t *));

/*
 * The class a failed status raises (bind/errors.c's table): ChronoidValueError,
 * GeneratorError, WouldWait or ForkError.
 */
PyObject   *cpy_status_class(int status);

/*
 * Raise the class that fits status (a negative CID_E* code) with a message
 * built like PyUnicode_FromFormat's, then ": " and cid_strerror(status)
 * unless the message ends with '.'; the exception gets .status (the code)
 * and .reason (cid_strerror).  Returns NULL.
 */
PyObject   *cpy_raise_status(int status, const char *fmt, ...);

/*
 * As cpy_raise_status, but the message is the caller's alone: for the
 * lease and block failures, whose words already say what the status
 * means.  Returns NULL.
 */
PyObject   *cpy_raise_coded(int status, const char *fmt, ...);

/* Raise cls with a formatted message; .status None.  Returns NULL. */
PyObject   *cpy_raise(PyObject *cls, const char *fmt, ...);

/* repr(o), shortened to about 60 characters: for messages. */
PyObject   *cpy_show(PyObject *o);

/*
 * o must be a str of ASCII characters (an ID or a layout is ASCII; a
 * surrogate or any other non-ASCII character is refused by position).
 * what names the expected value ("a ULID").  0 with *s, *len set; -1 with
 * an exception.
 */
int			cpy_text(PyObject *o, const char *what, const char **s, Py_ssize_t *len);

/*
 * An int (not a bool) in 0..max, into *out.  name says what it is ("node"),
 * ctx ends the out-of-range message (may be "").  -1 with TypeError or
 * ValueError subclasses naming the value.
 */
int			cpy_uint(PyObject *o, const char *name, uint64_t max, const char *ctx,
					 uint64_t *out);

/*
 * An int (not a bool) of either sign within 2^53 - 1 of zero, whose range
 * the caller checks (bind/lease_opts.c); None or NULL leaves *out.  -1 with
 * TypeError or ValueError subclasses naming the value.
 */
int			cpy_int_opt(PyObject *o, const char *name, int64_t *out);

/*
 * The functions that take no argument are METH_FASTCALL rather than
 * METH_NOARGS: CPython 3.11 specializes calls of fast-call builtins
 * (PRECALL_NO_KW_BUILTIN_FAST) but not of no-argument ones held in a
 * variable (fn = gen.next; fn()), which go the generic vectorcall way.
 * This is the argument check METH_NOARGS would have made, with its
 * message (what names the call: "uuid7()"); 0 or -1 with
 * ChronoidTypeError, as every argument error of the module.
 */
static inline int
cpy_no_args(const char *what, Py_ssize_t nargs)
{
	if (nargs == 0)
		return 0;
	cpy_raise(cpy_TypeError, "%s takes no arguments (%zd given)", what, nargs);
	return -1;
}

/* A PyMethodDef entry's function of either calling convention. */
#define CPY_FN(f) ((PyCFunction) (void (*) (void)) (f))

/* A batch size: an int in 0..CID_BIND_MAX_BATCH. */
int			cpy_count(PyObject *o, Py_ssize_t *n);

/*
 * A point in time as Unix ms: an aware datetime (exact, floor to the ms),
 * an int of Unix ms, or RFC 3339 text (cid_time_parse).  Naive datetimes
 * are refused: the core is UTC and guessing a zone is a bug.
 */
int			cpy_time_ms(PyObject *o, const char *name, int64_t *ms);

/* An aware UTC datetime for unix_ms; None outside datetime's years 1..9999. */
PyObject   *cpy_datetime(int64_t unix_ms);

/* A layout: None ("pgedge"), a preset name or a text spec. */
int			cpy_layout(PyObject *o, cid_layout *out);

/* A uuid.UUID of these 16 bytes, without UUID.__init__. */
PyObject   *cpy_uuid_new(const uint8_t bytes[16]);

/* The 16 bytes of a uuid.UUID (or subclass); -1 with TypeError otherwise. */
int			cpy_uuid_bytes(PyObject *o, uint8_t out[16]);

/* Whether o is a uuid.UUID (or subclass). */
bool		cpy_is_uuid(PyObject *o);

/*
 * A UUID argument: a uuid.UUID or UUID text.  -1 with an
 * exception naming the value: TypeError for another type (bool too),
 * ValueError for text that is no UUID.
 */
int			cpy_uuid_arg(PyObject *o, cid_uuid *out);

/* What ULID and UUID text look like, for messages about text that is not. */
#define CPY_ULID_FORM "26 Crockford base32 characters (0-9, A-Z without I L O U), the first 0-7"
#define CPY_UUID_FORM "8-4-4-4-12 hex digits, or 32 hex digits, either in braces or not"

/*
 * ULID text (ulid) or UUID text into its 16 bytes; -1 with an exception
 * that names the value and the form.
 */
int			cpy_id_text(PyObject *o, bool ulid, uint8_t out[16]);

/* A str of n ASCII characters (an ID's canonical text). */
PyObject   *cpy_ascii(const char *text, Py_ssize_t n);

/*
 * An optional str argument as a NUL-terminated copy in PyMem (*out NULL
 * for None or absent): UTF-8, or the file system's encoding when fs_path.
 * Refused: another type, text that does not encode, a NUL inside.
 */
int			cpy_cstr_opt(PyObject *o, const char *name, bool fs_path, char **out);

/* A list of n ints (Snowflake IDs). */
PyObject   *cpy_u64_list(const uint64_t *ids, Py_ssize_t n);

/* chronoid.IdInfo for what cid_inspect found. */
PyObject   *cpy_info(const cid_id_info *info);

/* Parse errors of UUID / ULID text, naming the value and the form. */
PyObject   *cpy_parse_error(PyObject *value, const char *what, const char *form,
							int status, size_t errpos);

/*
 * The Snowflake policy's CID_BIND_POLICY_NOPTS keywords (cid_bind_policy_opt's
 * order; NULL: not given) into v: on_behind's "run_ahead", "wait", "fail"
 * and on_exhausted's "wait", "borrow" as the core's numbers, the rest as
 * ints (cpy_int_opt), CID_BIND_UNSET where not given; their ranges are
 * cid_bind_snowflake_policy's.  None is refused (TypeError).  -1 with the
 * exception set.
 */
int			cpy_policy_opts(PyObject *const *o, int64_t *v);

/* The Snowflake type (snowflake.c), SnowflakeLease and lease_setup
 * (lease.c), the datetime/info setup (convert.c). */
int			cpy_snowflake_setup(PyObject *module);
int			cpy_lease_setup(PyObject *module);
/* BlockAllocator (block.c): sequence values a block at a time. */
int			cpy_block_setup(PyObject *module);
int			cpy_convert_setup(PyObject *module);
/* The exception classes (convert.c), first of all. */
int			cpy_errors_setup(PyObject *module);
/* objectid(), ksuid(), uuid6() and the v1 <-> v6 conversions (kinds.c). */
int			cpy_kinds_setup(PyObject *module);
/* uuid7_at(), ulid_at() and ULID's text steps (at.c). */
int			cpy_at_setup(PyObject *module);

#endif							/* CHRONOID_PY_H */
