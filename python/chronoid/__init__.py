"""chronoid: unique, time-sortable IDs (Snowflake, UUIDv7, ULID, and
MongoDB ObjectId, KSUID, UUIDv6) from chronoid's C core.  docs/python.md in the source tree is the manual;
chronoid/_chronoid.pyi has every signature."""
from . import _chronoid
from ._chronoid import *  # noqa: F401,F403  (the module is the API)
from ._bson import objectid_bson, objectid_bson_batch
from ._ulid import ULID

__all__ = [name for name in dir(_chronoid) if not name.startswith("_")] + [
    "ULID", "objectid_bson", "objectid_bson_batch"]
__version__ = _chronoid.core_version
