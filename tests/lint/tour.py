#!/usr/bin/env python3
"""tour.py — docs/design.md's tour is the map of the tree: check it both ways.

Every folder of the tree down to three levels (pg/test/standins, not the
stand-ins under it) and every file in scripts/ is named in the tour, and
every name the tour gives (the left-hand column, and `folder/` and
file.ext words in the descriptions) exists in the tree.  Names are matched by their last part, as
the tour writes them indented under their parent; `*` is a wildcard.

The front door is held to the code the same way: the kinds of IDs are
`chronoid gen`'s schemes (cli/cmd_gen.c), the database tools the
Makefile's TOOLS.  README's first paragraph and docs/cli.md's name every
kind and every tool; include/chronoid.h's opening comment, the command's
--help (cli/usage.c), the manual page's DESCRIPTION, pg/chronoid.control's
comment and both packages' descriptions (node/package.json,
python/pyproject.toml) and READMEs name every kind; a count ("eight
kinds", "eight schemes", "four database tools") is the real one.  README's
C tables name every function the shared libraries export
(src/libchronoid.map, db/lease/libchronoid_lease.map), and every cid_
name in backquotes there is exported or declared in include/.

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


NUMBERS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight",
           "nine", "ten", "eleven", "twelve"]


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def kinds():
    """chronoid gen's schemes: the kinds of IDs the core makes."""
    m = re.search(r"scheme_names\[\]\s*=\s*\{(.*?)\}", read("cli/cmd_gen.c"), re.S)
    if not m:
        sys.exit("cli/cmd_gen.c: no scheme_names[] list")
    return re.findall(r'"([a-z0-9]+)"', m.group(1))


def tools():
    """The command's database tools: the Makefile's TOOLS."""
    m = re.search(r"^TOOLS\s*:?=\s*(.*)$", read("Makefile"), re.M)
    if not m:
        sys.exit("Makefile: no TOOLS line")
    return m.group(1).split()


def exported():
    names = []
    for path in ("src/libchronoid.map", "db/lease/libchronoid_lease.map"):
        names += re.findall(r"^\s+(cid_[a-z0-9_]+);", read(path), re.M)
    return names


def first_paragraph(text):
    """The first paragraph after the leading '# title' line."""
    body = re.sub(r"\A#[^\n]*\n+", "", text)
    return body.split("\n\n", 1)[0]


def names_all(where, text, kinds_, tools_=()):
    """What text lacks of the kinds and tools, and counts that are wrong."""
    out = []
    for k in kinds_:
        if not re.search(r"(?<![A-Za-z0-9])" + k + r"(?![A-Za-z0-9])", text, re.I):
            out.append(f"{where} does not name the kind {k}")
    for t in tools_:
        if not re.search(r"`" + re.escape(t) + r"`", text):
            out.append(f"{where} does not name the database tool `{t}`")
    for what, real in (("kinds", len(kinds_)), ("schemes", len(kinds_)),
                       ("database tools", len(tools_))):
        for word in re.findall(r"\b([a-z]+)\s+" + what, text, re.I):
            if word.lower() in NUMBERS and NUMBERS.index(word.lower()) != real and (what != "database tools" or tools_):
                out.append(f"{where} says {word} {what}; there are {real}")
    return out


def front_door():
    k, t = kinds(), tools()
    out = []
    out += names_all("README.md's first paragraph", first_paragraph(read("README.md")), k, t)
    out += names_all("docs/cli.md's first paragraph", first_paragraph(read("docs/cli.md")), k, t)
    m = re.search(r"\A/\*(.*?)\n \*\n", read("include/chronoid.h"), re.S)
    out += names_all("include/chronoid.h's opening comment", m.group(1) if m else "", k)
    m = re.search(r"cli_usage_main\(FILE \*fp\)\n\{\n\tfputs\(\"usage:[^\n]*\n\s*\"\\n\"\n(.*?)\\n\"\n\s*\"\\n\"",
                  read("cli/usage.c"), re.S)
    out += names_all("chronoid --help's first line (cli/usage.c)", m.group(1) if m else "", k)
    m = re.search(r"^comment\s*=\s*'(.*)'", read("pg/chronoid.control"), re.M)
    out += names_all("pg/chronoid.control's comment", m.group(1) if m else "", k)
    m = re.search(r"^\.SH DESCRIPTION\n(.*?)^\.SH ", read("docs/chronoid.1"), re.S | re.M)
    out += names_all("docs/chronoid.1's DESCRIPTION", m.group(1) if m else "", k)
    for path in ("node/README.md", "python/README.md"):
        out += names_all(f"{path}'s first paragraph", first_paragraph(read(path)), k)
    m = re.search(r'^\s*"description":\s*"(.*)"', read("node/package.json"), re.M)
    out += names_all("node/package.json's description", m.group(1) if m else "", k)
    m = re.search(r'^description\s*=\s*"(.*)"', read("python/pyproject.toml"), re.M)
    out += names_all("python/pyproject.toml's description", m.group(1) if m else "", k)

    readme = read("README.md")
    rows = "\n".join(line for line in readme.splitlines()
                     if line.startswith("| ") and "`cid_" in line)
    listed = set(re.findall(r"`(cid_[a-z0-9_]+)`", rows))
    exp = exported()
    for f in exp:
        if f not in listed:
            out.append(f"README.md's C tables do not name {f} (exported by the libraries)")
    headers = read("include/chronoid.h") + read("include/chronoid_lease.h")
    for f in sorted(listed - set(exp)):
        if not re.search(r"\b" + f + r"\b", headers):
            out.append(f"README.md's C tables name {f}, which no public header declares")
    return out


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
    missing += front_door()
    for m in missing:
        print(m)
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
