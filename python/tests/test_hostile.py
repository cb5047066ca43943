"""Hostile input: whatever text or object goes in, the answer is a value
or one of chronoid's exceptions (ValueError / TypeError subclasses whose
message shows the value), never another exception or a crash.

Randomized with a printed seed (CHRONOID_PY_SEED replays one).
"""
import os
import random
import string
import uuid

import pytest

import chronoid

SEED = int(os.environ.get("CHRONOID_PY_SEED", random.SystemRandom().randrange(1 << 30)))
ROUNDS = int(os.environ.get("CHRONOID_PY_ROUNDS", "3000"))

TEXT_FUNCS = {
    "inspect": chronoid.inspect,
    "inspect-twitter": lambda s: chronoid.inspect(s, layout="twitter"),
    "ulid_to_uuid": chronoid.ulid_to_uuid,
    "uuid_to_ulid": chronoid.uuid_to_ulid,
    "uuid1_to_uuid6": chronoid.uuid1_to_uuid6,
    "uuid6_to_uuid1": chronoid.uuid6_to_uuid1,
    "parse_ulid": chronoid.parse_ulid,
    "layout": lambda s: chronoid.Snowflake(s, node=0),
    "snowflake_range": lambda s: chronoid.snowflake_range(s, s),
    "uuid7_range": lambda s: chronoid.uuid7_range(s, "2100-01-01"),
    "parse_typeid": chronoid.parse_typeid,
    "typeid_to_uuid": lambda s: chronoid.typeid_to_uuid(s, "user"),
    "typeid": chronoid.typeid,
}

ALPHABETS = [
    string.hexdigits + "-{}",
    "0123456789ABCDEFGHJKMNPQRSTVWXYZabcdefghjkmnpqrstvwxyzILOU",
    "0123456789abcdefghjkmnpqrstvwxyz_iloU",
    string.digits + "-",
    "time:node:seq:reserved,;=epochtick0123456789ms- T",
    string.printable,
    "\udc80\ud800\udfff\u00e9\u0000\uffff\U0001F600",
]


def mutate(rng, s):
    s = list(s)
    for _ in range(rng.randint(1, 3)):
        op = rng.randrange(3)
        pos = rng.randrange(len(s) + 1)
        ch = rng.choice(rng.choice(ALPHABETS))
        if op == 0:
            s.insert(pos, ch)
        elif op == 1 and s:
            del s[min(pos, len(s) - 1)]
        elif s:
            s[min(pos, len(s) - 1)] = ch
    return "".join(s)


def samples(rng):
    seeds = [str(chronoid.uuid7()), chronoid.ulid(), str(chronoid.uuid6()), str(uuid.uuid1()), str(chronoid.Snowflake("pgedge", node=1).next()),
             "time:41,node:10,seq:12;epoch=2023-01-01", "2024-02-29T12:00:00.123Z", "{" + str(uuid.uuid4()) + "}",
             chronoid.typeid("user")]
    for _ in range(ROUNDS):
        if rng.random() < 0.5:
            yield mutate(rng, rng.choice(seeds))
        else:
            alpha = rng.choice(ALPHABETS)
            yield "".join(rng.choice(alpha) for _ in range(rng.choice([0, 1, 20, 26, 32, 36, 38, rng.randrange(80)])))


@pytest.mark.parametrize("name", sorted(TEXT_FUNCS))
def test_random_text(name):
    rng = random.Random(f"{SEED}-{name}")
    fn = TEXT_FUNCS[name]
    answered = refused = 0
    for s in samples(rng):
        try:
            fn(s)
            answered += 1
        except chronoid.ChronoidError as e:
            assert isinstance(e, (ValueError, TypeError)), (s, e)
            assert str(e), s
            refused += 1
        except Exception as e:  # pragma: no cover - the failure being tested for
            raise AssertionError(f"seed {SEED}: {name}({s!r}) raised {type(e).__name__}: {e}")
    assert answered + refused == ROUNDS


ODD = [None, True, False, 0, -1, 2 ** 64, 2 ** 200, -(2 ** 200), 10 ** 5000, -(10 ** 5000), 1.5, float("nan"), b"", b"x" * 16,
       bytearray(16), [], {}, (), object(), uuid, uuid.UUID, str, "", "\udc80", 1j]


@pytest.mark.parametrize("i", range(len(ODD)))
def test_odd_objects_everywhere(i):
    o = ODD[i]
    calls = [
        lambda: chronoid.inspect(o), lambda: chronoid.inspect("1", layout=o),
        lambda: chronoid.ulid_to_uuid(o), lambda: chronoid.uuid_to_ulid(o),
        lambda: chronoid.uuid1_to_uuid6(o), lambda: chronoid.uuid6_to_uuid1(o),
        lambda: chronoid.parse_typeid(o), lambda: chronoid.typeid(o),
        lambda: chronoid.typeid_to_uuid("user_" + "0" * 26, o), lambda: chronoid.typeid_from_uuid(o, o),
        lambda: chronoid.uuid7_batch(o), lambda: chronoid.ulid_batch(o),
        lambda: chronoid.uuid7_batch_bytes(o), lambda: chronoid.ulid_batch_bytes(o),
        lambda: chronoid.ulid_monotonic_batch_bytes(o),
        lambda: chronoid.objectid_batch(o), lambda: chronoid.objectid_batch_bytes(o),
        lambda: chronoid.ksuid_batch(o), lambda: chronoid.ksuid_batch_bytes(o),
        lambda: chronoid.uuid6_batch(o), lambda: chronoid.uuid6_batch_bytes(o),
        lambda: chronoid.uuid7_range(o, o), lambda: chronoid.snowflake_range(0, o),
        lambda: chronoid.Snowflake(o, node=1), lambda: chronoid.Snowflake("pgedge", node=o),
        lambda: chronoid.Snowflake("pgedge", node=1, on_behind=o),
        lambda: chronoid.Snowflake("pgedge", node=1).batch(o),
        lambda: chronoid.Snowflake("pgedge", node=1).next_at(o),
        lambda: chronoid.Snowflake("pgedge", node=1).decode(o),
        lambda: chronoid.Snowflake("pgedge", node=1).renode(o),
    ]
    for call in calls:
        try:
            call()
        except chronoid.ChronoidError as e:
            assert isinstance(e, (ValueError, TypeError)) and str(e)


def test_uuid_subclass_and_broken_uuid():
    class MyUUID(uuid.UUID):
        pass

    u = chronoid.uuid7()
    assert chronoid.uuid_to_ulid(MyUUID(int=u.int)) == chronoid.uuid_to_ulid(u)
    broken = uuid.UUID.__new__(uuid.UUID)  # no int slot set
    with pytest.raises(AttributeError):
        chronoid.uuid_to_ulid(broken)
