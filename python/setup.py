"""Build of chronoid's extension module: the glue in src/ and the core's
own sources from ../src, compiled into one module (as the PostgreSQL
extension does), so that there is one implementation of every ID format.

The version is the core's (CID_VERSION_* in ../include/chronoid.h).
CHRONOID_WERROR=1 makes warnings errors; CHRONOID_SAN=address,undefined
(or thread) builds the module with sanitizers (the tests' ASan and TSan
passes), in a build directory of its own.
"""
import os
import re

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CORE = os.path.join(ROOT, "src")
INCLUDE = os.path.join(ROOT, "include")


def core_version():
    with open(os.path.join(INCLUDE, "chronoid.h"), encoding="utf-8") as f:
        text = f.read()
    parts = [re.search(r"#define CID_VERSION_%s (\d+)" % p, text).group(1)
             for p in ("MAJOR", "MINOR", "PATCH")]
    return ".".join(parts)


def glue_sources():
    return sorted(os.path.join("src", f) for f in os.listdir(os.path.join(HERE, "src"))
                  if f.endswith(".c"))


class build_ext_with_core(build_ext):
    """Adds the core's sources at build time.  Named in setup()'s
    arguments they would go into the source manifest, which takes no path
    outside this directory; their objects land under build/temp.*/."""

    def build_extension(self, ext):
        ext.sources = ext.sources + sorted(
            os.path.join(CORE, f) for f in os.listdir(CORE) if f.endswith(".c"))
        ext.depends = ext.depends + [os.path.join(INCLUDE, "chronoid.h")] + sorted(
            os.path.join(CORE, f) for f in os.listdir(CORE) if f.endswith(".h"))
        super().build_extension(ext)


cflags = ["-std=gnu11", "-fvisibility=hidden", "-pthread", "-Wall", "-Wextra",
          "-Wno-missing-field-initializers", "-Wno-unused-parameter"]
ldflags = ["-pthread"]
if os.environ.get("CHRONOID_WERROR"):
    cflags.append("-Werror")
san = os.environ.get("CHRONOID_SAN")
options = {}
if san:
    cflags += ["-fsanitize=" + san, "-fno-omit-frame-pointer", "-O1", "-g"]
    ldflags.append("-fsanitize=" + san)
    # Its own build directory: setuptools would otherwise take the plain
    # build's module as up to date.
    options["build"] = {"build_base": "build-san-" + re.sub(r"[^a-z]+", "-", san)}

setup(
    version=core_version(),
    options=options,
    cmdclass={"build_ext": build_ext_with_core},
    packages=["chronoid"],
    package_data={"chronoid": ["py.typed", "*.pyi"]},
    ext_modules=[Extension(
        "chronoid._chronoid",
        sources=glue_sources(),
        include_dirs=[INCLUDE, CORE, os.path.join(HERE, "src")],
        # The core's functions stay the module's own (hidden), not
        # libchronoid's exported API.
        define_macros=[("CID_API", "")],
        depends=[os.path.join("src", "chronoid_py.h")],
        extra_compile_args=cflags,
        extra_link_args=ldflags,
        libraries=["m"],
    )],
)
