from ._bson import objectid_bson as objectid_bson, objectid_bson_batch as objectid_bson_batch
from ._chronoid import *
from ._ulid import ULID as ULID

__version__: str
__all__ = [
    "ULID", "objectid_bson", "objectid_bson_batch", "ulid_at", "ulid_bytes_at", "uuid7_at",
    "BlockAllocator", "ChronoidError", "ChronoidTypeError", "ChronoidValueError", "ForkError",
    "GeneratorError", "IdInfo", "Snowflake", "SnowflakeLease", "WouldWait", "core_version",
    "has_leases", "inspect", "ksuid", "ksuid_batch", "ksuid_batch_bytes", "ksuid_bytes",
    "layouts", "lease_setup", "objectid", "objectid_batch", "objectid_batch_bytes",
    "objectid_bytes", "parse_ulid", "random_source",
    "snowflake_range", "ulid", "ulid_batch",
    "ulid_batch_bytes", "ulid_bytes", "ulid_monotonic", "ulid_monotonic_batch",
    "ulid_monotonic_batch_bytes", "ulid_monotonic_bytes",
    "parse_typeid", "typeid", "typeid_from_uuid", "typeid_to_uuid",
    "ulid_range", "ulid_to_uuid", "uuid1_to_uuid6", "uuid4", "uuid6", "uuid6_batch",
    "uuid6_batch_bytes", "uuid6_bytes",
    "uuid6_to_uuid1", "uuid7", "uuid7_batch",
    "uuid7_batch_bytes", "uuid7_bytes", "uuid7_range", "uuid_to_ulid",
]
