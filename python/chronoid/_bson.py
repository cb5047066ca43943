"""MongoDB ObjectIds as bson.ObjectId, the type pymongo stores as an
ObjectId (a str _id is stored as a string, and never equals one).  The
bytes come from the extension's objectid generator; bson (pymongo's, or
Debian's python3-bson) is imported on first use, so chronoid does not
depend on it."""
from __future__ import annotations

from typing import Any

from . import _chronoid


def _object_id() -> Any:
    try:
        from bson import ObjectId  # type: ignore[import]
    except ImportError as e:
        raise ImportError("objectid_bson() needs the bson module: pip install pymongo "
                          "(or apt-get install python3-bson)") from e
    return ObjectId


def objectid_bson() -> Any:
    """A new ObjectId (chronoid.objectid()'s generator) as a bson.ObjectId."""
    return _object_id()(_chronoid.objectid_bytes())


def objectid_bson_batch(n: int) -> list[Any]:
    """n new ObjectIds (objectid_batch_bytes()) as bson.ObjectIds, in the
    order made."""
    oid = _object_id()
    raw = _chronoid.objectid_batch_bytes(n)
    return [oid(raw[i:i + 12]) for i in range(0, len(raw), 12)]
