"""ObjectIds into bson/pymongo (Debian's python3-bson, which
scripts/setup.sh installs; python/tests/run.sh sets CHRONOID_PY_BSON=1 so
that a missing bson fails rather than skips): objectid_bson() is a
bson.ObjectId that BSON encodes as an ObjectId (type 0x07, not a string),
with the time inspect() reads; chronoid's text and bytes forms give the
same ObjectId; a batch keeps the generator's order."""
import os
import time

import pytest

import chronoid

if os.environ.get("CHRONOID_PY_BSON") != "1":
    pytest.importorskip("bson", reason="bson not installed (apt-get install python3-bson)")
import bson  # noqa: E402
from bson import ObjectId  # noqa: E402


def test_objectid_bson_is_an_objectid_bson_encodes_as_one():
    before = int(time.time())
    oid = chronoid.objectid_bson()
    after = int(time.time())
    assert type(oid) is ObjectId
    assert before <= oid.generation_time.timestamp() <= after
    info = chronoid.inspect(str(oid))
    assert info.kind == "objectid" and info.datetime == oid.generation_time
    doc = bson.encode({"_id": oid})
    # Element type 0x07 (ObjectId) before the key "_id".
    assert doc[4:9] == b"\x07_id\x00" and doc[9:21] == oid.binary
    assert bson.decode(doc)["_id"] == oid
    # A str is stored as a string (type 0x02): why the object matters.
    assert bson.encode({"_id": str(oid)})[4] == 0x02


def test_text_and_bytes_forms_are_the_same_objectid():
    text = chronoid.objectid()
    raw = chronoid.objectid_bytes()
    assert ObjectId(text) == ObjectId(bytes.fromhex(text)) and str(ObjectId(text)) == text
    assert ObjectId(raw).binary == raw and ObjectId.is_valid(text)
    assert chronoid.inspect(str(ObjectId(raw))).ms // 1000 == ObjectId(raw).generation_time.timestamp()


def test_batch_in_generator_order_and_unique():
    oids = chronoid.objectid_bson_batch(5000)
    assert len(oids) == 5000 and all(type(o) is ObjectId for o in oids)
    assert len(set(oids)) == 5000
    # One process's counter steps by one: consecutive ObjectIds of a
    # second sort by it (ObjectId compares its bytes).
    same_second = [o for o in oids if o.generation_time == oids[0].generation_time]
    assert same_second == sorted(same_second)
    assert chronoid.objectid_bson_batch(0) == []

