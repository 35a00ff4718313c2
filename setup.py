"""Builds pegsat's compiled search core (``pegsat.engine._core``), the independent checker's
compiled loops (``pegsat.checks._check``, sharing nothing with the core) and the byte planes of
sealed files (``pegsat._planes``); everything else is in
pyproject.toml. A C compiler is needed at install time (gcc on Debian/Ubuntu); numpy's headers come from
the build requirements (its allocation-policy hook, ``engine/_pool.h``)."""

import platform

import numpy
from setuptools import Extension, setup

flags = ["-O3", "-std=c11", "-fno-strict-aliasing"]
if platform.machine() in ("x86_64", "AMD64"):
    flags.append("-mpopcnt")

setup(ext_modules=[Extension("pegsat.engine._core", ["src/pegsat/engine/_core.c"],
                             depends=["src/pegsat/engine/_core_impl.h", "src/pegsat/engine/_levels_impl.h",
                                      "src/pegsat/engine/_dfs_impl.h", "src/pegsat/engine/_pool.h"],
                             include_dirs=[numpy.get_include()], extra_compile_args=flags),
                   # the independent checker's own loops: no header or function of the core
                   Extension("pegsat.checks._check", ["src/pegsat/checks/_check.c"], extra_compile_args=flags),
                   # the byte planes of sealed files, the format both read (neither includes it)
                   Extension("pegsat._planes", ["src/pegsat/_planes.c"], extra_compile_args=flags)])
