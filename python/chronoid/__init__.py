"""chronoid: unique, time-sortable IDs (Snowflake, UUIDv7, ULID, and
MongoDB ObjectId, KSUID, UUIDv6) from chronoid's C core.  docs/python.md in the source tree is the manual;
chronoid/_chronoid.pyi has every signature."""
from . import _chronoid
from ._chronoid import *  # noqa: F401,F403  (the module is the API)

__all__ = [name for name in dir(_chronoid) if not name.startswith("_")]
__version__ = _chronoid.core_version
