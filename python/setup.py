"""Build of chronoid's extension module: the glue in src/ and the core's
own sources from ../src, compiled into one module (as the PostgreSQL
extension does), so that there is one implementation of every ID format.

The version is the core's (CID_VERSION_* in ../include/chronoid.h).
Where libpq's header is, libchronoid_lease's sources (../db/lease,
../db/pq) go in too, for SnowflakeLease (CHRONOID_NO_LEASE=1 leaves them
out).  ../bind, what the packages decide alike (status table, batch
limit, the process's generators, block options, the random source), goes
in with the core.  Where OpenSSL's headers are (libssl-dev), the core's
random buffer draws from OpenSSL's DRBG (RAND_bytes) and the module links
libcrypto; else, or with CHRONOID_NO_OPENSSL=1, from getrandom(2)
(chronoid.random_source says which; bind/random_source.c).
CHRONOID_WERROR=1 makes warnings errors; CHRONOID_SAN=address,undefined
(or thread) builds the module with sanitizers (the tests' ASan and TSan
passes), in a build directory of its own.
"""
import os
import re
import subprocess

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CORE = os.path.join(ROOT, "src")
INCLUDE = os.path.join(ROOT, "include")
BIND = os.path.join(ROOT, "bind")


def core_version():
    with open(os.path.join(INCLUDE, "chronoid.h"), encoding="utf-8") as f:
        text = f.read()
    parts = [re.search(r"#define CID_VERSION_%s (\d+)" % p, text).group(1)
             for p in ("MAJOR", "MINOR", "PATCH")]
    return ".".join(parts)


def glue_sources():
    return sorted(os.path.join("src", f) for f in os.listdir(os.path.join(HERE, "src"))
                  if f.endswith(".c"))


def libpq_include():
    """Where libpq-fe.h is (libpq-dev), or None: then no node leases."""
    dirs = []
    try:
        dirs.append(subprocess.run(["pg_config", "--includedir"], capture_output=True,
                                   text=True, check=True).stdout.strip())
    except (OSError, subprocess.CalledProcessError):
        pass
    dirs += ["/usr/include/postgresql", "/usr/include"]
    return next((d for d in dirs if d and os.path.exists(os.path.join(d, "libpq-fe.h"))), None)


def openssl_include():
    """Where openssl/rand.h is (libssl-dev): pkg-config's word for
    libcrypto, else the usual places; None means no OpenSSL."""
    dirs = []
    try:
        flags = subprocess.run(["pkg-config", "--cflags-only-I", "libcrypto"],
                               capture_output=True, text=True, check=True).stdout.split()
        dirs += [f[2:] for f in flags if f.startswith("-I")]
    except (OSError, subprocess.CalledProcessError):
        pass
    dirs += ["/usr/include", "/usr/local/include"]
    return next((d for d in dirs if os.path.exists(os.path.join(d, "openssl", "rand.h"))), None)


def sources_of(*dirs):
    return sorted(os.path.join(ROOT, d, f) for d in dirs
                  for f in os.listdir(os.path.join(ROOT, d)) if f.endswith(".c"))


class build_ext_with_core(build_ext):
    """Adds the core's sources at build time.  Named in setup()'s
    arguments they would go into the source manifest, which takes no path
    outside this directory; their objects land under build/temp.*/."""

    def build_extension(self, ext):
        ext.sources = ext.sources + sources_of("src", "bind")
        ext.depends = ext.depends + [os.path.join(INCLUDE, "chronoid.h"),
                                     os.path.join(BIND, "bind_internal.h")] + sorted(
            os.path.join(CORE, f) for f in os.listdir(CORE) if f.endswith(".h"))
        # Node leases: libchronoid_lease's own sources, where libpq is.
        pq = libpq_include()
        if pq and not os.environ.get("CHRONOID_NO_LEASE"):
            ext.sources += sources_of(os.path.join("db", "lease"), os.path.join("db", "pq"))
            ext.include_dirs += [pq, os.path.join(ROOT, "db", "lease"), os.path.join(ROOT, "db", "pq")]
            ext.define_macros += [("CHRONOID_PY_LEASE", "1"), ("CID_BIND_LEASE", "1")]
            ext.libraries.append("pq")
        # Random bytes: OpenSSL's DRBG where its headers are (bind/random_source.c).
        ssl = openssl_include()
        if ssl and not os.environ.get("CHRONOID_NO_OPENSSL"):
            ext.include_dirs.append(ssl)
            ext.define_macros.append(("CID_BIND_OPENSSL", "1"))
            ext.libraries.append("crypto")
        super().build_extension(ext)


cflags = ["-std=gnu11", "-fvisibility=hidden", "-pthread", "-Wall", "-Wextra",
          "-Wno-missing-field-initializers", "-Wno-unused-parameter"]
ldflags = ["-pthread"]
if os.environ.get("CHRONOID_WERROR"):
    cflags.append("-Werror")
san = os.environ.get("CHRONOID_SAN")
# A build directory of each variant's own: setuptools would otherwise take
# another variant's module (the plain build's, OpenSSL's) as up to date.
build_base = "build"
if san:
    cflags += ["-fsanitize=" + san, "-fno-omit-frame-pointer", "-O1", "-g"]
    ldflags.append("-fsanitize=" + san)
    build_base += "-san-" + re.sub(r"[^a-z]+", "-", san)
if os.environ.get("CHRONOID_NO_OPENSSL"):
    build_base += "-nossl"
options = {"build": {"build_base": build_base}} if build_base != "build" else {}

setup(
    version=core_version(),
    options=options,
    cmdclass={"build_ext": build_ext_with_core},
    packages=["chronoid"],
    package_data={"chronoid": ["py.typed", "*.pyi"]},
    ext_modules=[Extension(
        "chronoid._chronoid",
        sources=glue_sources(),
        include_dirs=[INCLUDE, CORE, BIND, os.path.join(HERE, "src")],
        # The core's functions stay the module's own (hidden), not
        # libchronoid's exported API.
        define_macros=[("CID_API", "")],
        depends=[os.path.join("src", "chronoid_py.h")],
        extra_compile_args=cflags,
        extra_link_args=ldflags,
        libraries=["m"],
    )],
)
