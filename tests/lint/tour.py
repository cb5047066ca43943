#!/usr/bin/env python3
"""tour.py — docs/design.md's tour is the map of the tree: check it both ways.

Every folder of the tree down to three levels (pg/test/standins, not the
stand-ins under it) and every file in scripts/ is named in the tour, and
every name the tour gives (the left-hand column, and `folder/` and
file.ext words in the descriptions) exists in the tree.  Names are matched by their last part, as
the tour writes them indented under their parent; `*` is a wildcard.
Prints what is missing, one line each; exit status 1 when anything is.
Run by tests/lint/run.sh (make lint, make check).
"""
import fnmatch
import os
import re
import subprocess
import sys

NAME_COLUMN = 26  # descriptions start here in the tour's text block
FILE_EXT = "c|h|sh|bash|py|pl|map|md|json|sql|control|js|ts|gyp|toml"
DEPTH = 3


def tour_block(path):
    text = open(path, encoding="utf-8").read()
    m = re.search(r"^## One core.*?^```text\n(.*?)^```", text, re.S | re.M)
    if not m:
        sys.exit(f"{path}: no ```text block after '## One core'")
    return m.group(1).splitlines()


def tour_names(lines):
    """(names from the left-hand column, folder words from anywhere)."""
    left, folders = set(), set()
    for line in lines:
        for tok in re.split(r"[\s,]+", line[:NAME_COLUMN].strip()):
            if tok:
                left.add(tok)
        # `sql/`, `standins/ (...)`, `cluster/,`: a folder named in prose;
        # `check.sh (make check)`: a file
        for tok in re.findall(r"(?:^|[\s(])([A-Za-z0-9_.*-]+/)(?=[\s,:;)]|$)", line):
            folders.add(tok)
        for tok in re.findall(r"(?:^|[\s(])([A-Za-z0-9_*-]+(?:\.[A-Za-z0-9_*-]+)*\.(?:" + FILE_EXT + r"))"
                              r"(?=[\s,:;)]|$)", line):
            folders.add(tok)
    return left, folders


def tree():
    files = subprocess.run(["git", "ls-files"], capture_output=True, text=True,
                           check=True).stdout.split()
    dirs = set()
    for f in files:
        parts = f.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            dirs.add("/".join(parts[:i]))
    return files, dirs


def main():
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    left, folders = tour_names(tour_block("docs/design.md"))
    named = left | folders
    files, dirs = tree()
    missing = []
    for d in sorted(dirs):
        if d.startswith(".") or d.count("/") >= DEPTH:
            continue
        if os.path.basename(d) + "/" not in named:
            missing.append(f"folder {d}/ is not in docs/design.md's tour")
    for f in files:
        if f.startswith("scripts/") and f.count("/") == 1 and os.path.basename(f) not in named:
            missing.append(f"script {f} is not in docs/design.md's tour")
    parts = {os.path.basename(f) for f in files} | {os.path.basename(d) + "/" for d in dirs}
    for name in sorted(named):
        if not any(fnmatch.fnmatchcase(p, name) for p in parts):
            missing.append(f"docs/design.md's tour names {name}, which is not in the tree")
    for m in missing:
        print(m)
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
