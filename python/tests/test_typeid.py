"""TypeIDs: the spec's valid and invalid cases (jetify-com/typeid spec 0.3.0,
tests/vectors.md), generation under a prefix, conversion, errors."""
import re
import uuid

import pytest

import chronoid

VALID = [
    ("nil", "00000000000000000000000000", "", "00000000-0000-0000-0000-000000000000"),
    ("one", "00000000000000000000000001", "", "00000000-0000-0000-0000-000000000001"),
    ("ten", "0000000000000000000000000a", "", "00000000-0000-0000-0000-00000000000a"),
    ("sixteen", "0000000000000000000000000g", "", "00000000-0000-0000-0000-000000000010"),
    ("thirty-two", "00000000000000000000000010", "", "00000000-0000-0000-0000-000000000020"),
    ("max-valid", "7zzzzzzzzzzzzzzzzzzzzzzzzz", "", "ffffffff-ffff-ffff-ffff-ffffffffffff"),
    ("valid-alphabet", "prefix_0123456789abcdefghjkmnpqrs", "prefix", "0110c853-1d09-52d8-d73e-1194e95b5f19"),
    ("valid-uuidv7", "prefix_01h455vb4pex5vsknk084sn02q", "prefix", "01890a5d-ac96-774b-bcce-b302099a8057"),
    ("prefix-underscore", "pre_fix_00000000000000000000000000", "pre_fix", "00000000-0000-0000-0000-000000000000"),
]

# name, text, status, words the message must hold
INVALID = [
    ("prefix-uppercase", "PREFIX_00000000000000000000000000", "ESYNTAX", "'P' at position 0"),
    ("prefix-numeric", "12345_00000000000000000000000000", "ESYNTAX", "'1' at position 0"),
    ("prefix-period", "pre.fix_00000000000000000000000000", "ESYNTAX", "'.' at position 3"),
    # the package refuses text outside ASCII before any parser (no status)
    ("prefix-non-ascii", "pr\u00e9fix_00000000000000000000000000", None, "U+00E9 at position 2"),
    ("prefix-spaces", "  prefix_00000000000000000000000000", "ESYNTAX", "' ' at position 0"),
    ("prefix-64-chars", "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijkl_00000000000000000000000000",
     "ELENGTH", "TypeID"),
    ("separator-empty-prefix", "_00000000000000000000000000", "ESYNTAX", "'_' at position 0"),
    ("separator-empty", "_", "ESYNTAX", "'_' at position 0"),
    ("suffix-short", "prefix_1234567890123456789012345", "ELENGTH", "TypeID"),
    ("suffix-long", "prefix_123456789012345678901234567", "ELENGTH", "TypeID"),
    ("suffix-spaces", "prefix_1234567890123456789012345 ", "ESYNTAX", "' ' at position 32"),
    ("suffix-uppercase", "prefix_0123456789ABCDEFGHJKMNPQRS", "ESYNTAX", "'A' at position 17"),
    ("suffix-hyphens", "prefix_123456789-123456789-123456", "ESYNTAX", "'-' at position 16"),
    ("suffix-wrong-alphabet", "prefix_ooooooiiiiiiuuuuuuulllllll", "ESYNTAX", "'o' at position 7"),
    ("suffix-ambiguous-crockford", "prefix_i23456789ol23456789oi23456", "ESYNTAX", "'i' at position 7"),
    ("suffix-hyphens-crockford", "prefix_123456789-0123456789-0123456", "ELENGTH", "TypeID"),
    ("suffix-overflow", "prefix_8zzzzzzzzzzzzzzzzzzzzzzzzz", "EOVERFLOW", "largest"),
    ("prefix-underscore-start", "_prefix_00000000000000000000000000", "ESYNTAX", "'_' at position 0"),
    ("prefix-underscore-end", "prefix__00000000000000000000000000", "ESYNTAX", "'_' at position 6"),
    ("empty", "", "ELENGTH", "TypeID"),
    ("prefix-empty", "prefix_", "ELENGTH", "TypeID"),
]

SUFFIX = r"[0-7][0-9a-hjkmnp-tv-z]{25}"
# the core's status codes (include/chronoid.h), as .status carries them
STATUS = {"EINVAL": -1, "ESYNTAX": -4, "ELENGTH": -5, "EOVERFLOW": -6}


@pytest.mark.parametrize("name,text,prefix,uid", VALID)
def test_spec_valid(name, text, prefix, uid):
    assert chronoid.parse_typeid(text) == (prefix, uuid.UUID(uid))
    assert chronoid.typeid_to_uuid(text) == uuid.UUID(uid)
    assert chronoid.typeid_to_uuid(text, prefix) == uuid.UUID(uid)
    assert chronoid.typeid_from_uuid(prefix, uuid.UUID(uid)) == text
    assert chronoid.typeid_from_uuid(prefix, uid) == text


@pytest.mark.parametrize("name,text,status,words", INVALID)
def test_spec_invalid(name, text, status, words):
    for fn in (chronoid.parse_typeid, chronoid.typeid_to_uuid):
        with pytest.raises(chronoid.ChronoidValueError) as e:
            fn(text)
        assert getattr(e.value, "status", None) == (STATUS[status] if status else None), name
        assert words in str(e.value), str(e.value)


def test_generate_ordered_v7():
    prev = ""
    for _ in range(2000):
        t = chronoid.typeid("user")
        assert re.fullmatch("user_" + SUFFIX, t)
        assert t > prev
        prev = t
        prefix, u = chronoid.parse_typeid(t)
        assert prefix == "user" and u.version == 7
        assert chronoid.typeid_from_uuid("user", u) == t
    assert re.fullmatch(SUFFIX, chronoid.typeid())
    assert re.fullmatch(SUFFIX, chronoid.typeid(""))
    assert len(chronoid.typeid("a" * 63)) == 90


def test_prefixes_and_expected_prefix():
    t = "user_01h455vb4pex5vsknk084sn02q"
    with pytest.raises(chronoid.ChronoidValueError) as e:
        chronoid.typeid_to_uuid(t, "order")
    assert e.value.status == STATUS["EINVAL"] and "'user'" in str(e.value) and "'order'" in str(e.value)
    assert chronoid.typeid_to_uuid(t, None) == uuid.UUID("01890a5d-ac96-774b-bcce-b302099a8057")
    for bad, words in (("User", "'U' at position 0"), ("user_", "'_' at position 4"), ("a" * 64, "64 characters")):
        with pytest.raises(chronoid.ChronoidValueError) as e:
            chronoid.typeid(bad)
        assert words in str(e.value)
    with pytest.raises(chronoid.ChronoidTypeError):
        chronoid.typeid(7)
    with pytest.raises(chronoid.ChronoidTypeError):
        chronoid.parse_typeid(None)
    with pytest.raises(TypeError):
        chronoid.typeid_from_uuid("user")
    with pytest.raises(chronoid.ChronoidValueError):
        chronoid.typeid_from_uuid("user", "nope")
    assert chronoid.typeid_from_uuid("my__type", uuid.UUID(int=0)) == "my__type_" + "0" * 26
