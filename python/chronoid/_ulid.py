"""chronoid.ULID: a ULID as an object (ordering, hashing, its time, its
bytes and UUID), for code written against python-ulid's ``ULID``.  The
object holds the 16 bytes; every text step (str(), from_str()) and every
new ULID is one call into the extension module, so the Crockford base32
code is the core's alone.  The str/bytes functions (chronoid.ulid(),
ulid_bytes()) stay the fast path."""
from __future__ import annotations

import builtins
import datetime as _dt
import math
import uuid as _uuid
from typing import Any

from . import _chronoid

_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)
_MAX_MS = (1 << 48) - 1


def _value_error(msg: str) -> _chronoid.ChronoidValueError:
    return _chronoid.ChronoidValueError(msg)


def _type_error(msg: str) -> _chronoid.ChronoidTypeError:
    return _chronoid.ChronoidTypeError(msg)


class ULID:
    """A ULID: 48 bits of Unix milliseconds, then 80 random bits.

    ``ULID()`` is a new one (as chronoid.ulid(): random within its
    millisecond); ``ULID(b)`` wraps 16 bytes.  Immutable; ordered as its
    bytes, which is time order; equal and hashed by value, to other ULIDs
    only (as uuid.UUID is never equal to its text).
    """

    __slots__ = ("_b",)
    _b: bytes

    def __init__(self, value: bytes | bytearray | memoryview | None = None) -> None:
        if value is None:
            b = _chronoid.ulid_bytes()
        elif isinstance(value, (bytes, bytearray, memoryview)):
            b = bytes(value)
            if len(b) != 16:
                raise _value_error(f"{value!r:.60} is not a ULID's bytes: expected 16 bytes, got {len(b)}")
        else:
            raise _type_error(f"ULID() takes 16 bytes or nothing, not {type(value).__name__} "
                              "(from_str(), from_uuid(), from_int(), parse() take the other forms)")
        object.__setattr__(self, "_b", b)

    # ---- other forms in --------------------------------------------------

    @classmethod
    def from_bytes(cls, value: bytes | bytearray | memoryview) -> ULID:
        """The ULID of 16 bytes."""
        if not isinstance(value, (bytes, bytearray, memoryview)):
            raise _type_error(f"ULID.from_bytes() takes bytes, not {type(value).__name__}")
        return cls(value)

    @classmethod
    def from_str(cls, value: str) -> ULID:
        """The ULID of 26 Crockford base32 characters (any case)."""
        return cls(_chronoid._ulid_from_text(value))

    @classmethod
    def from_hex(cls, value: str) -> ULID:
        """The ULID of 32 hex digits."""
        if not isinstance(value, str):
            raise _type_error(f"ULID.from_hex() takes str, not {type(value).__name__}")
        try:
            b = bytes.fromhex(value)
        except ValueError:
            b = b""
        if len(b) != 16 or len(value) != 32:
            raise _value_error(f"{value!r:.60} is not a ULID in hex: expected 32 hex digits")
        return cls(b)

    @classmethod
    def from_int(cls, value: int) -> ULID:
        """The ULID of an int in 0 .. 2**128-1."""
        if not isinstance(value, int) or isinstance(value, bool):
            raise _type_error(f"ULID.from_int() takes int, not {type(value).__name__}")
        if not 0 <= value < 1 << 128:
            raise _value_error(f"{value} is out of range for a ULID: expected 0 .. 2**128-1")
        return cls(value.to_bytes(16, "big"))

    @classmethod
    def from_uuid(cls, value: _uuid.UUID) -> ULID:
        """The same 128 bits as a ULID (the UUID's time is not read)."""
        if not isinstance(value, _uuid.UUID):
            raise _type_error(f"ULID.from_uuid() takes uuid.UUID, not {type(value).__name__}")
        return cls(value.bytes)

    @classmethod
    def from_datetime(cls, value: _dt.datetime) -> ULID:
        """A new ULID of the millisecond of an aware datetime (naive ones
        are refused: the core is UTC), its random part fresh."""
        if not isinstance(value, _dt.datetime):
            raise _type_error(f"ULID.from_datetime() takes datetime, not {type(value).__name__}")
        if value.tzinfo is None:
            raise _value_error(f"{value!r} is a naive datetime: ULID.from_datetime() needs one "
                               "with tzinfo (e.g. datetime.timezone.utc)")
        return cls(_chronoid.ulid_bytes_at(value))

    @classmethod
    def from_timestamp(cls, value: int | float) -> ULID:
        """A new ULID of the millisecond of Unix seconds (floor)."""
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise _type_error(f"ULID.from_timestamp() takes int or float seconds, not {type(value).__name__}")
        if isinstance(value, float):
            if not math.isfinite(value):
                raise _value_error(f"{value} is not a time: expected finite Unix seconds")
            # Rounded to the microsecond first: 1.001 * 1000 is 1000.9999...
            ms = math.floor(round(value * 1000, 3))
        else:
            ms = value * 1000
        return cls(_chronoid.ulid_bytes_at(ms))

    @classmethod
    def parse(cls, value: Any) -> ULID:
        """A ULID from whatever holds one: a ULID, a uuid.UUID, ULID text
        (26), UUID text (32 or 36 hex), 16 bytes, an int (the 128 bits); a
        datetime or float seconds make a new ULID of that time."""
        if isinstance(value, ULID):
            return value
        if isinstance(value, _uuid.UUID):
            return cls.from_uuid(value)
        if isinstance(value, str):
            if len(value) == 26:
                return cls.from_str(value)
            if len(value) in (32, 36, 38):
                return cls.from_str(_chronoid.uuid_to_ulid(value))
            raise _value_error(f"{value!r:.60} is no ULID: expected 26 Crockford base32 characters "
                               "or a UUID's 32 hex digits")
        if isinstance(value, (bytes, bytearray, memoryview)):
            return cls(value)
        if isinstance(value, int) and not isinstance(value, bool):
            return cls.from_int(value)
        if isinstance(value, float):
            return cls.from_timestamp(value)
        if isinstance(value, _dt.datetime):
            return cls.from_datetime(value)
        raise _type_error(f"cannot parse a ULID from {type(value).__name__}")

    # ---- what it holds ---------------------------------------------------

    @property
    def bytes(self) -> bytes:
        """The 16 bytes, big-endian (time first)."""
        return self._b

    @property
    def milliseconds(self) -> int:
        """The Unix milliseconds of the time field."""
        return int.from_bytes(self._b[:6], "big")

    @property
    def timestamp(self) -> float:
        """The time as Unix seconds."""
        return self.milliseconds / 1000

    @property
    def datetime(self) -> _dt.datetime:
        """The time as an aware UTC datetime.  ChronoidValueError past
        9999-12-31 (a ULID holds times to the year 10889)."""
        try:
            return _EPOCH + _dt.timedelta(milliseconds=self.milliseconds)
        except OverflowError:
            raise _value_error(f"ULID {self} is of Unix ms {self.milliseconds}: "
                               "past datetime's year 9999") from None

    @property
    def hex(self) -> str:
        """32 lower-case hex digits."""
        return self._b.hex()

    def to_uuid(self) -> _uuid.UUID:
        """The same 128 bits as a uuid.UUID (not a valid v7 in general)."""
        return _uuid.UUID(bytes=self._b)

    def to_uuid4(self) -> _uuid.UUID:
        """The bits as a version 4 UUID: version and variant overwritten."""
        return _uuid.UUID(bytes=self._b, version=4)

    # ---- protocol ----------------------------------------------------------

    def __str__(self) -> str:
        return _chronoid._ulid_text(self._b)

    def __repr__(self) -> str:
        return f"ULID({self})"

    def __bytes__(self) -> builtins.bytes:
        return self._b

    def __int__(self) -> int:
        return int.from_bytes(self._b, "big")

    def __hash__(self) -> int:
        return hash(self._b)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ULID):
            return self._b == other._b
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        if isinstance(other, ULID):
            return self._b != other._b
        return NotImplemented

    def __lt__(self, other: ULID) -> bool:
        if isinstance(other, ULID):
            return self._b < other._b
        return NotImplemented

    def __le__(self, other: ULID) -> bool:
        if isinstance(other, ULID):
            return self._b <= other._b
        return NotImplemented

    def __gt__(self, other: ULID) -> bool:
        if isinstance(other, ULID):
            return self._b > other._b
        return NotImplemented

    def __ge__(self, other: ULID) -> bool:
        if isinstance(other, ULID):
            return self._b >= other._b
        return NotImplemented

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"ULID is immutable: cannot set {name}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"ULID is immutable: cannot delete {name}")

    def __reduce__(self) -> tuple[Any, tuple[builtins.bytes]]:
        return (ULID, (self._b,))

    def __copy__(self) -> ULID:
        return self

    def __deepcopy__(self, memo: object) -> ULID:
        return self
