#!/usr/bin/env python3
"""Checks that the headers ask whether they are being constant-evaluated only in the allowed
places: std::is_constant_evaluated() only where cxmat::detail::in_constant_evaluation() is defined
(math/fp.hpp), and in_constant_evaluation() only in fp.hpp's two mechanisms (by_evaluation and its
condition run_time_form, the switch between a computation's run-time and constant-evaluation forms;
refuse_in_constant_evaluation, a named error of constant evaluation) and in the few places listed below with their reason. A new
call elsewhere fails with its file and line: use by_evaluation or refuse_in_constant_evaluation.
`if consteval` is C++23 and counts as asking too."""

import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
INCLUDE = os.path.join(ROOT, "include")

# file (under include/) -> how many calls it may hold, and why.
ALLOWED = {
    "cxmat/math/fp.hpp": (4, "in_constant_evaluation's definition, run_time_form (by_evaluation's condition), "
                             "refuse_in_constant_evaluation, and multiply_add_scalar's float FMA for Clang"),
    "cxmat/math/sqrt.hpp": (1, "sqrt's named error for a negative argument"),
    "cxmat/math/log.hpp": (1, "log's named error for a negative argument"),
    "cxmat/attention/detail/constant_checks.hpp": (3, "value checks that exist only in constant evaluation"),
    "cxmat/transformer/embedding.hpp": (1, "the named error of a token index beyond the vocabulary"),
}
ASKS = re.compile(r"\bis_constant_evaluated\s*\(|\bin_constant_evaluation\s*\(\s*\)\s*[;)|&]|\bif\s+!?\s*consteval\b")
DEFINITION = re.compile(r"constexpr bool in_constant_evaluation\(\) noexcept")


def code_of(line):
    """The line without its // comment (the headers use no /* */ comments around code)."""
    return line.split("//", 1)[0]


def main():
    found, problems = {}, []
    for folder, _, files in os.walk(INCLUDE):
        for name in sorted(files):
            if not name.endswith(".hpp"):
                continue
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, INCLUDE).replace(os.sep, "/")
            with open(path, encoding="utf-8") as f:
                for number, line in enumerate(f, 1):
                    code = code_of(line)
                    calls = len(ASKS.findall(code))
                    if DEFINITION.search(code):
                        calls = 1  # the definition asks std::is_constant_evaluated once
                    if calls == 0:
                        continue
                    found[rel] = found.get(rel, 0) + calls
                    if "is_constant_evaluated" in code and rel != "cxmat/math/fp.hpp":
                        problems.append(f"{rel}:{number}: std::is_constant_evaluated() outside math/fp.hpp")
                    elif rel not in ALLOWED:
                        problems.append(f"{rel}:{number}: asks whether it is constant-evaluated; use "
                                        "cxmat::detail::by_evaluation (a kernel switch) or "
                                        "refuse_in_constant_evaluation (a named error)")
    for rel, count in sorted(found.items()):
        if rel in ALLOWED and count > ALLOWED[rel][0]:
            problems.append(f"{rel}: {count} calls, {ALLOWED[rel][0]} allowed ({ALLOWED[rel][1]})")
    for rel, (count, why) in ALLOWED.items():
        if found.get(rel, 0) < count:
            problems.append(f"{rel}: {found.get(rel, 0)} calls, the list allows {count} ({why}): update the list")
    if problems:
        print("\n".join(problems))
        return 1
    print(f"check_constant_evaluation: {sum(found.values())} calls in {len(found)} headers, all allowed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
