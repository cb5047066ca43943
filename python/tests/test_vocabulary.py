"""docs/packages.md's table "Errors, case by case": each mistake made
here, and the class and .status the Python column names checked
(node/test/vocabulary.test.js checks the JavaScript one).  A row the
table has and this file cannot make, or the reverse, fails.  The node
lease table's "A .. B" limits are checked against the code too."""
import os
import re

import pytest

import chronoid

NOWHERE = "host=/nonexistent-chronoid-dir port=1"
DOC = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "packages.md")

CASES = {
    "batch size out of range": lambda: chronoid.uuid7_batch((1 << 24) + 1),
    "batch size of the wrong type": lambda: chronoid.uuid7_batch("5"),
    "node outside the layout": lambda: chronoid.Snowflake(node=1024, claim=False),
    "unknown layout": lambda: chronoid.Snowflake("nope", node=1, claim=False),
    "unknown policy name": lambda: chronoid.Snowflake(node=1, on_behind="later", claim=False),
    "relative claim directory": lambda: chronoid.Snowflake(node=1, claim_dir="claims"),
    "ULID text with a bad character": lambda: chronoid.ulid_to_uuid("0000000000000000000000000!"),
    "ULID text of the wrong length": lambda: chronoid.ulid_to_uuid("000"),
    "ULID text above the largest": lambda: chronoid.ulid_to_uuid("80000000000000000000000000"),
    "text of no known ID form": lambda: chronoid.inspect("zz"),
    "a time UUIDv7 cannot hold": lambda: chronoid.uuid7_range(-1, 0),
    "v6 to v1 of another version": lambda: chronoid.uuid6_to_uuid1(chronoid.uuid7()),
    # Refused before any connection: the server named is never asked.
    "lease option out of range": lambda: chronoid.SnowflakeLease(NOWHERE, ttl_ms=999),
    "lease range outside the layout": lambda: chronoid.SnowflakeLease(NOWHERE, hi=1024),
    "lease owner with a control character": lambda: chronoid.SnowflakeLease(NOWHERE, owner="a\nb"),
}
LEASE_CASES = {"lease option out of range", "lease range outside the layout",
               "lease owner with a control character"}


def table():
    text = open(DOC, encoding="utf-8").read()
    section = text.split("## Errors, case by case")[1].split("\n## ")[0]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.split("|")[1:-1]]
        if len(cells) == 3 and cells[0] != "case" and not cells[0].startswith("---"):
            cls, status = cells[2].replace("`", "").split(", ")
            rows[cells[0]] = (cls, None if status == "none" else int(status))
    return rows


def test_table_and_cases_are_the_same():
    assert sorted(table()) == sorted(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_case_raises_the_python_column(name):
    if name in LEASE_CASES and not chronoid.has_leases:
        pytest.skip("built without libpq: no leases")
    cls, status = table()[name]
    with pytest.raises(chronoid.ChronoidError) as e:
        CASES[name]()
    assert type(e.value).__name__ == cls, str(e.value)
    assert getattr(e.value, "status", None) == status, str(e.value)
    if status is not None:
        assert re.match(r"^[a-z]", e.value.reason)


def lease_ranges():
    """The node lease table's rows whose limits are "A .. B"."""
    text = open(DOC, encoding="utf-8").read()
    section = text.split("## Node leases")[1].split("\n## ")[0]
    ranges = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.split("|")[1:-1]]
        m = len(cells) == 5 and re.match(r"^(\d+) \.\. (\d+)$", cells[4])
        if m and re.match(r"^`\w+`$", cells[2]):
            ranges.append((cells[2].strip("`"), int(m[1]), int(m[2])))
    return ranges


@pytest.mark.skipif(not chronoid.has_leases, reason="built without libpq: no leases")
def test_lease_limits_of_the_options_table_are_the_ones_enforced():
    ranges = lease_ranges()
    assert sorted(name for name, _, _ in ranges) == ["clock_wait_ms", "grace_ms", "ttl_ms"]
    for name, lo, hi in ranges:
        for v in (lo - 1, hi + 1):
            with pytest.raises(chronoid.ChronoidValueError,
                               match=re.escape(f"{name} {v} is out of range: expected {lo}..{hi}")):
                chronoid.SnowflakeLease(NOWHERE, **{name: v})
        # A and B pass the check and fail only at the server, never there.
        for v in (lo, hi):
            with pytest.raises(chronoid.GeneratorError, match="lease database error"):
                chronoid.SnowflakeLease(NOWHERE, **{name: v})
