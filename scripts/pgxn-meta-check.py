#!/usr/bin/env python3
"""pgxn-meta-check.py [DIR] — check DIR/META.json (DIR: default ".").

PGXN's own validator (PGXN::Meta::Validator, Perl from CPAN; pgxn_meta,
Rust) is not packaged by Debian, so this checks what the PGXN Meta Spec
1.0.0 requires, key by key: the required keys and every key's type, SemVer
versions, the license names, provides entries whose files exist, prereqs
phases and relationships, and nothing unknown except x_ keys.  Then what
chronoid adds: one version, pg/chronoid.control's default_version, for the
distribution and its extension.  Prints each problem on stderr and exits
1 when there is any; `make dist` and tests/scenarios/dist.sh run it.
"""

import json
import os
import re
import sys

# SemVer 1.0.0, which the 1.0.0 spec cites (a pre-release is "-" then an
# alphanumeric tag, no dots or build metadata).
SEMVER = re.compile(r"^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z-]+)?$")
# A term: at least two characters, none of them slash, backslash, space or
# a control character.
TERM = re.compile(r"^[^/\\\s\x00-\x1f]{2,}$")
LICENSES = {
    "agpl_3", "apache_1_1", "apache_2_0", "artistic_1", "artistic_2", "bsd",
    "freebsd", "gfdl_1_2", "gfdl_1_3", "gpl_1", "gpl_2", "gpl_3", "lgpl_2_1",
    "lgpl_3_0", "mit", "mozilla_1_0", "mozilla_1_1", "openssl", "perl_5",
    "postgresql", "qpl_1_0", "ssleay", "sun", "zlib", "open_source",
    "restricted", "unrestricted", "unknown",
}
TOP_KEYS = {
    "name", "version", "abstract", "maintainer", "license", "provides",
    "meta-spec", "description", "generated_by", "tags", "no_index",
    "prereqs", "release_status", "resources",
}
REQUIRED = ["name", "version", "abstract", "maintainer", "license", "provides", "meta-spec"]
PHASES = {"configure", "build", "test", "runtime", "develop"}
RELATIONS = {"requires", "recommends", "suggests", "conflicts"}
URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:\S+$")
# A version range: 0, a SemVer, or comma-separated "OP SemVer" clauses.
CLAUSE = re.compile(r"^\s*(==|!=|>=|<=|>|<)?\s*(\S+)\s*$")

problems = []


def bad(where, what):
    problems.append(f"{where}: {what}")


def custom(key):
    return re.match(r"^[xX]_.", key) is not None


def nonempty_string(where, v):
    if not isinstance(v, str) or v == "":
        bad(where, "must be a non-empty string")
        return False
    return True


def semver(where, v):
    if not isinstance(v, str) or not SEMVER.match(v):
        bad(where, f"must be a SemVer string such as 1.2.0, not {json.dumps(v)}")


def uri(where, v):
    if not isinstance(v, str) or not URI.match(v):
        bad(where, f"must be a URI, not {json.dumps(v)}")


def only_keys(where, obj, allowed):
    for k in obj:
        if k not in allowed and not custom(k):
            bad(f"{where}.{k}", "is not a key the spec knows (custom keys start with x_)")


def check_license(v):
    if isinstance(v, str):
        if v not in LICENSES:
            bad("license", f"{json.dumps(v)} is not one of the spec's license names")
    elif isinstance(v, list):
        if not v:
            bad("license", "an empty list")
        for i, name in enumerate(v):
            if name not in LICENSES:
                bad(f"license[{i}]", f"{json.dumps(name)} is not one of the spec's license names")
    elif isinstance(v, dict):
        if not v:
            bad("license", "an empty object")
        for name, link in v.items():
            uri(f"license.{name}", link)
    else:
        bad("license", "must be a license name, a list of them, or an object of name: URI")


def check_provides(v, root):
    if not isinstance(v, dict) or not v:
        bad("provides", "must be a non-empty object of extension: {file, version, ...}")
        return
    for ext, spec in v.items():
        where = f"provides.{ext}"
        if not TERM.match(ext):
            bad(where, "an extension name must be a term (2+ characters, no slash or space)")
        if not isinstance(spec, dict):
            bad(where, "must be an object")
            continue
        only_keys(where, spec, {"file", "version", "abstract", "docfile"})
        for key in ("file", "version"):
            if key not in spec:
                bad(where, f"lacks the required key {key}")
        if "version" in spec:
            semver(f"{where}.version", spec["version"])
        if "abstract" in spec:
            nonempty_string(f"{where}.abstract", spec["abstract"])
        for key in ("file", "docfile"):
            if key in spec and nonempty_string(f"{where}.{key}", spec[key]):
                path = spec[key]
                if path.startswith("/") or "\\" in path or ".." in path.split("/"):
                    bad(f"{where}.{key}", "must be a relative Unix path inside the distribution")
                elif not os.path.isfile(os.path.join(root, path)):
                    bad(f"{where}.{key}", f"{path} is not a file of the distribution")


def check_prereqs(v):
    if not isinstance(v, dict) or not v:
        bad("prereqs", "must be a non-empty object of phase: relationships")
        return
    for phase, rels in v.items():
        if custom(phase):
            continue
        if phase not in PHASES:
            bad(f"prereqs.{phase}", f"is not a phase ({', '.join(sorted(PHASES))})")
            continue
        if not isinstance(rels, dict) or not rels:
            bad(f"prereqs.{phase}", "must be a non-empty object of relationship: prerequisites")
            continue
        for rel, reqs in rels.items():
            where = f"prereqs.{phase}.{rel}"
            if custom(rel):
                continue
            if rel not in RELATIONS:
                bad(where, f"is not a relationship ({', '.join(sorted(RELATIONS))})")
                continue
            if not isinstance(reqs, dict) or not reqs:
                bad(where, "must be a non-empty object of name: version range")
                continue
            for name, rng in reqs.items():
                if not TERM.match(name):
                    bad(f"{where}.{name}", "a prerequisite's name must be a term")
                if rng == 0 or rng == "0":
                    continue
                if not isinstance(rng, str):
                    bad(f"{where}.{name}", "a version range is 0 or a string")
                    continue
                for clause in rng.split(","):
                    m = CLAUSE.match(clause)
                    if not m or not SEMVER.match(m.group(2)):
                        bad(f"{where}.{name}", f"{json.dumps(rng)} is not a version range")
                        break


def check_resources(v):
    if not isinstance(v, dict) or not v:
        bad("resources", "must be a non-empty object")
        return
    only_keys("resources", v, {"homepage", "bugtracker", "repository"})
    if "homepage" in v:
        uri("resources.homepage", v["homepage"])
    for key, sub in (("bugtracker", {"web", "mailto"}), ("repository", {"url", "web", "type"})):
        if key not in v:
            continue
        if not isinstance(v[key], dict) or not v[key]:
            bad(f"resources.{key}", "must be a non-empty object")
            continue
        only_keys(f"resources.{key}", v[key], sub)
        for k in ("web", "url"):
            if k in v[key]:
                uri(f"resources.{key}.{k}", v[key][k])
        if "mailto" in v[key]:
            nonempty_string(f"resources.{key}.mailto", v[key]["mailto"])
        if "type" in v[key] and (not isinstance(v[key]["type"], str) or
                                 not re.match(r"^[a-z]+$", v[key]["type"])):
            bad(f"resources.{key}.type", "must be a lower-case word such as git")


def check(root):
    path = os.path.join(root, "META.json")
    try:
        with open(path, encoding="utf-8") as f:
            meta = json.load(f)
    except (OSError, ValueError) as e:
        bad(path, f"not readable JSON: {e}")
        return
    if not isinstance(meta, dict):
        bad(path, "must hold a JSON object")
        return
    for key in REQUIRED:
        if key not in meta:
            bad(key, "is required")
    only_keys("META.json", meta, TOP_KEYS)

    if "name" in meta and (not isinstance(meta["name"], str) or not TERM.match(meta["name"])):
        bad("name", "must be a term (2+ characters, no slash, backslash or space)")
    if "version" in meta:
        semver("version", meta["version"])
    for key in ("abstract", "description", "generated_by"):
        if key in meta:
            nonempty_string(key, meta[key])
    if "maintainer" in meta:
        m = meta["maintainer"]
        if isinstance(m, list):
            if not m:
                bad("maintainer", "an empty list")
            for i, who in enumerate(m):
                nonempty_string(f"maintainer[{i}]", who)
        else:
            nonempty_string("maintainer", m)
    if "license" in meta:
        check_license(meta["license"])
    if "provides" in meta:
        check_provides(meta["provides"], root)
    if "meta-spec" in meta:
        ms = meta["meta-spec"]
        if not isinstance(ms, dict):
            bad("meta-spec", "must be an object {version, url}")
        else:
            only_keys("meta-spec", ms, {"version", "url"})
            if not isinstance(ms.get("version"), str) or not re.match(r"^1\.0\.\d+$", ms["version"]):
                bad("meta-spec.version", "must be 1.0.x: this file follows the 1.0.0 spec")
            if "url" in ms:
                uri("meta-spec.url", ms["url"])
    if "tags" in meta:
        t = meta["tags"]
        if not isinstance(t, list) or not t:
            bad("tags", "must be a non-empty list of strings")
        else:
            for i, tag in enumerate(t):
                if not isinstance(tag, str) or not 1 <= len(tag) <= 255:
                    bad(f"tags[{i}]", "must be a string of 1 to 255 characters")
    if "no_index" in meta:
        ni = meta["no_index"]
        if not isinstance(ni, dict) or not ni:
            bad("no_index", "must be a non-empty object {file, directory}")
        else:
            only_keys("no_index", ni, {"file", "directory"})
            for key, val in ni.items():
                vals = [val] if isinstance(val, str) else val
                if not isinstance(vals, list) or not vals or \
                        not all(isinstance(x, str) and x for x in vals):
                    bad(f"no_index.{key}", "must be a path or a non-empty list of paths")
    if "prereqs" in meta:
        check_prereqs(meta["prereqs"])
    if "release_status" in meta and meta["release_status"] not in ("stable", "testing", "unstable"):
        bad("release_status", "must be stable, testing or unstable")
    if "resources" in meta:
        check_resources(meta["resources"])

    # chronoid's rule: the extension's control file holds the one version.
    control = os.path.join(root, "pg", "chronoid.control")
    try:
        with open(control, encoding="utf-8") as f:
            m = re.search(r"^default_version\s*=\s*'([^']*)'", f.read(), re.M)
    except OSError as e:
        bad(control, f"not readable: {e}")
        return
    if not m:
        bad(control, "has no default_version")
        return
    want = m.group(1)
    if meta.get("version") != want:
        bad("version", f"{json.dumps(meta.get('version'))} is not pg/chronoid.control's default_version {want}")
    ext = meta.get("provides", {}).get("chronoid") if isinstance(meta.get("provides"), dict) else None
    if not isinstance(ext, dict):
        bad("provides.chronoid", "the chronoid extension must be listed")
    elif ext.get("version") != want:
        bad("provides.chronoid.version",
            f"{json.dumps(ext.get('version'))} is not pg/chronoid.control's default_version {want}")


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    check(root)
    for p in problems:
        print(f"META.json: {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
