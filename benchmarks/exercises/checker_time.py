#!/usr/bin/env python3
"""How long scripts/exercise.sh takes to check a file, with its precompiled headers and without.

For each compiler, each exercise's solution is checked once to make the cache (not timed), then
REPEAT times with the precompiled headers and REPEAT times without (CXMAT_EXERCISE_PCH=0),
alternating; prints the median wall time of each exercise's check both ways and the total.

    python3 benchmarks/exercises/checker_time.py [--compiler g++ --compiler clang++-19] [--repeat 3]
                                                 [--exercise NN ...]

The cache is a temporary folder, deleted at the end; the first check with a compiler makes the
precompiled header of each set of cxmat includes (its time is printed too).
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CHECKER = os.path.join(ROOT, "scripts", "exercise.sh")


def check(number, solution, env):
    start = time.perf_counter()
    run = subprocess.run(["bash", CHECKER, number, solution], env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, universal_newlines=True, check=False)
    took = time.perf_counter() - start
    if run.returncode != 0:
        sys.exit("exercise %s: the checker did not say PASS:\n%s" % (number, run.stdout))
    return took


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--compiler", action="append")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--exercise", action="append", help="only these exercises (NN), all by default")
    args = parser.parse_args()
    folders = sorted(d for d in os.listdir(os.path.join(ROOT, "exercises")) if d[:2].isdigit() and d[2] == "_"
                     and (not args.exercise or d[:2] in {n.zfill(2) for n in args.exercise}))
    if not folders:
        sys.exit("no exercise %s" % ", ".join(args.exercise))
    with tempfile.TemporaryDirectory(prefix="cxmat_checker_time_") as cache:
        for cxx in args.compiler or ["g++", "clang++-19"]:
            env = dict(os.environ, CXX=cxx, CXMAT_EXERCISE_CACHE=cache, CXMAT_EXERCISE_VALUES="0")
            print("%s (%s)" % (cxx, subprocess.run([cxx, "--version"], stdout=subprocess.PIPE,
                                                     universal_newlines=True).stdout.splitlines()[0]))
            print("  %-28s %10s %10s %10s" % ("exercise", "first", "cached", "no cache"))
            total = [0.0, 0.0, 0.0]
            for folder in folders:
                solution = os.path.join(ROOT, "exercises", folder, "solution.cpp")
                first = check(folder[:2], solution, env)
                cached, plain = [], []
                for _ in range(args.repeat):
                    cached.append(check(folder[:2], solution, env))
                    plain.append(check(folder[:2], solution, dict(env, CXMAT_EXERCISE_PCH="0")))
                row = [first, statistics.median(cached), statistics.median(plain)]
                total = [t + r for t, r in zip(total, row)]
                print("  %-28s %9.2fs %9.2fs %9.2fs" % (folder, *row))
            print("  %-28s %9.2fs %9.2fs %9.2fs  (cached / no cache: %.2f)" % ("all", *total, total[1] / total[2]))


if __name__ == "__main__":
    main()
