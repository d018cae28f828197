#!/usr/bin/env python3
"""Checks that every exercise's solution compiles with the common standard headers included
first, as a student's file often has them: a global name of an exercise that is also a name of
the C library (glibc's ::gamma, ::y0, ::j1, ::index, ...) would make a correct answer fail with
"redeclared as different kind of entity".

    python3 exercises/check_std_headers.py --compiler g++ [--flags "..."]

One compile (-fsyntax-only) per exercise, the template's included.
"""

import argparse
import concurrent.futures
import os
import re
import shlex
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
HEADERS = ["cmath", "cstdlib", "cstring", "algorithm", "iostream", "numeric"]


def folders():
    names = sorted(d for d in os.listdir(HERE) if re.match(r"^\d\d_\w+$", d) or d == "template")
    return [os.path.join(HERE, d) for d in names if os.path.isfile(os.path.join(HERE, d, "solution.cpp"))]


def check(folder, cxx, flags, tmp):
    with open(os.path.join(folder, "solution.cpp"), encoding="utf-8") as f:
        source = f.read()
    path = os.path.join(tmp, os.path.basename(folder) + ".cpp")
    with open(path, "w", encoding="utf-8") as f:
        f.write("".join("#include <%s>\n" % h for h in HEADERS) + source)
    run = subprocess.run([cxx, "-std=c++20", "-fsyntax-only", "-I", os.path.join(ROOT, "include"), "-I", HERE,
                          "-I", folder] + flags + [path], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         universal_newlines=True, env=dict(os.environ, LC_ALL="C"), check=False)
    errors = [l for l in run.stdout.splitlines() if ": error: " in l]
    return os.path.basename(folder), run.returncode, errors[:3]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--compiler", required=True)
    parser.add_argument("--flags", default="", help="extra compiler flags (the build's CMAKE_CXX_FLAGS)")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    flags = shlex.split(args.flags)
    failed = 0
    with tempfile.TemporaryDirectory(prefix="cxmat_std_headers_") as tmp:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            results = list(pool.map(lambda d: check(d, args.compiler, flags, tmp), folders()))
    for name, status, errors in results:
        if status != 0:
            failed += 1
            print("FAILED: %s/solution.cpp with <%s> included first:" % (name, ">, <".join(HEADERS)))
            for e in errors:
                print("    " + re.sub(r"^.*/", "", e))
    print("%d solutions compiled with the standard headers first, %d failed" % (len(results), failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
