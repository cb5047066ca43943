"""UUIDv7 and UUIDv4 as the standard library's uuid.UUID."""
import copy
import gc
import os
import pickle
import time
import uuid
import weakref

import chronoid
from util import assert_threads_mint_unique_increasing


def test_uuid7_is_a_standard_uuid_v7():
    u = chronoid.uuid7()
    assert type(u) is uuid.UUID
    assert u.version == 7
    assert u.variant == uuid.RFC_4122
    assert u.is_safe is uuid.SafeUUID.unknown


def test_uuid7_behaves_as_one_made_by_uuid_module():
    u = chronoid.uuid7()
    same = uuid.UUID(str(u))
    assert u == same and hash(u) == hash(same)
    assert uuid.UUID(bytes=u.bytes) == u and uuid.UUID(int=u.int) == u
    assert pickle.loads(pickle.dumps(u)) == u
    assert copy.deepcopy(u) == u
    assert {u: 1}[same] == 1
    assert str(u) == str(same) and repr(u) == repr(same)


def test_uuid7_built_without_uuid_init():
    # The fast path is on for the CPython uuid module we know; if it ever
    # turns off, uuid7() still works through UUID(int=...), but slower.
    assert chronoid._chronoid._uuid_fast_path == 1


def test_uuids_left_to_reference_counting():
    # Untracked by the cycle collector (they can be in no cycle), freed
    # as soon as the last reference goes.
    made = [chronoid.uuid7(), chronoid.uuid4(), chronoid.uuid7_batch(3)[1],
            chronoid.ulid_to_uuid(chronoid.ulid()), chronoid.uuid7_range(0, 1)[1]]
    assert not any(gc.is_tracked(u) for u in made)
    assert gc.is_tracked(uuid.UUID(int=5))  # what it differs from
    refs = [weakref.ref(u) for u in made]
    del made
    assert all(r() is None for r in refs)


def test_uuid7_immutable_like_any_uuid():
    u = chronoid.uuid7()
    try:
        u.int = 5
    except TypeError:
        pass
    else:
        raise AssertionError("a UUID from uuid7() accepted a new value")


def test_uuid7_time_is_now():
    before = time.time_ns() // 1_000_000
    u = chronoid.uuid7()
    after = time.time_ns() // 1_000_000
    ms = u.int >> 80
    assert before <= ms <= after + 1


def test_uuid7_strictly_increasing_single_and_batches():
    seen = []
    for _ in range(200):
        seen.append(chronoid.uuid7())
        seen.extend(chronoid.uuid7_batch(50))
        b = chronoid.uuid7_batch_bytes(7)
        seen.extend(uuid.UUID(bytes=b[i:i + 16]) for i in range(0, len(b), 16))
        seen.append(uuid.UUID(bytes=chronoid.uuid7_bytes()))
    assert all(a < b for a, b in zip(seen, seen[1:]))
    assert all(u.version == 7 for u in seen)


def test_uuid7_batch_sizes():
    assert chronoid.uuid7_batch(0) == []
    assert chronoid.uuid7_batch_bytes(0) == b""
    big = chronoid.uuid7_batch(10000)  # large enough to run without the GIL
    assert len(big) == 10000 and len(set(big)) == 10000
    assert len(chronoid.uuid7_batch_bytes(5000)) == 80000


def test_uuid7_unique_and_ordered_per_thread_across_threads():
    assert_threads_mint_unique_increasing(chronoid.uuid7, chronoid.uuid7_batch, 200, 20)


def test_random_source_is_the_one_built_in():
    # bind/random_source.c: OpenSSL's DRBG where the module was built with its
    # headers, else getrandom(2); the name says which, and the module links
    # libcrypto exactly when it says "openssl".  run.sh says which to
    # expect, so that a build that lost OpenSSL (and its speed) fails here;
    # test_fork checks that a child's random bits are its own.
    assert chronoid.random_source in ("openssl", "getrandom")
    with open(chronoid._chronoid.__file__, "rb") as f:
        module = f.read()
    linked = b"RAND_bytes" in module and b"libcrypto" in module
    assert linked == (chronoid.random_source == "openssl")
    want = os.environ.get("CHRONOID_PY_EXPECT_RANDOM")
    if want:
        assert chronoid.random_source == want


def test_uuid4():
    us = [chronoid.uuid4() for _ in range(1000)]
    assert all(type(u) is uuid.UUID and u.version == 4 and u.variant == uuid.RFC_4122 for u in us)
    assert len(set(us)) == 1000
