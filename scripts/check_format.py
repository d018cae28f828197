#!/usr/bin/env python3
"""Checks that every C++ file of the project is formatted by .clang-format (clang-format
--dry-run --Werror). Generated files are left out (their generators decide their layout, and a test
compares them with the generators' output), and so are the compile-fail snippets and exercises,
whose lines are read one by one. Exits 1 and names the files that differ.

    python3 scripts/check_format.py [--clang-format clang-format] [--fix]
"""
import argparse
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
GENERATED = {
    "include/cxmat/math/detail/exp_table.hpp",
    "test_support/reference_values.hpp",
    "test_support/coverage_reference.hpp",
    "test_support/transformer_reference.hpp",
    "test_support/positions_reference.hpp",
    "exercises/answers.hpp",
}
# Parsed inputs laid out by hand: a compile-fail snippet's "// Expect:" lines (compile_fail/ and the
# safetensors reader's NN_*.cpp) are regexes read one line each (and the gallery quotes the
# snippets' lines), and an exercise is read by a student line by line, its checks compared by the
# checker.
HAND_LAID_OUT = ("static_tests/compile_fail/", "static_tests/safetensors/0", "exercises/")


def sources():
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "*.cpp", "*.hpp"],
                            cwd=ROOT, check=True, capture_output=True, text=True).stdout.split()
    return [f for f in listed
            if f not in GENERATED and not f.startswith(HAND_LAID_OUT) and (ROOT / f).exists()]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--clang-format", default="clang-format")
    parser.add_argument("--fix", action="store_true", help="reformat the files in place")
    args = parser.parse_args()
    files = sources()
    if args.fix:
        subprocess.run([args.clang_format, "-i", *files], cwd=ROOT, check=True)
        return 0
    result = subprocess.run([args.clang_format, "--dry-run", "--Werror", *files], cwd=ROOT,
                            capture_output=True, text=True)
    bad = sorted({line.split(":")[0] for line in result.stderr.splitlines() if ": error:" in line})
    for f in bad:
        print("not formatted:", f)
    print(f"check_format: {len(files)} files, {len(bad)} not formatted")
    return 1 if bad or result.returncode not in (0, 1) else 0


if __name__ == "__main__":
    sys.exit(main())
