#!/usr/bin/env python3
"""Tests check_mistakes.py's reading of mistakes.txt and its verdict on what the checker showed,
without a compiler (CTest exercises.check_mistakes_format):
- a '-' line matches the solution's line whatever the spaces at either end (a teacher need not
  copy the indentation);
- 'at:' defaults as documented: for a failed check any line, whatever 'expect:' says; for an
  error in the code a line the mistake changed;
- 'hint:' is required where hint.txt chooses among hints, and the hint shown must match it.
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_mistakes  # noqa: E402

SOLUTION = "int main() {\n    int x = 1;\n    return x;\n}\n// ---- The checks. Leave them as they are. ----\n"
failures = []


def expect(what, ok):
    if not ok:
        failures.append(what)


def mistakes(text):
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "mistakes.txt"), "w", encoding="utf-8") as f:
            f.write(text)
        return check_mistakes.read_mistakes(tmp)


# A '-' line with other indentation than the solution's.
m, = mistakes("## x is 2\n- int x = 1;\n+     int x = 2;\nexpect: x\n")
try:
    text, changed = m.apply(SOLUTION)
    expect("the '-' line without the indentation replaces line 2", text.split("\n")[1] == "    int x = 2;" and changed == {2})
except ValueError as e:
    expect("the '-' line without the indentation is found (%s)" % e, False)
m, = mistakes("## x is 2\n-     int x = 1;   \n+ int x = 2;\nexpect: x\n")
try:
    m.apply(SOLUTION)
except ValueError as e:
    expect("the '-' line with more spaces is found (%s)" % e, False)


def output(path, line, source, failed_check, hint="Look at x."):
    what = "  a check failed: x is 1" if failed_check else "  cxmat says: x is wrong"
    return ("Exercise 99: x (%s, g++)\nNOT YET: it does not compile.\n%s\n  at %s:%d: %s\n\nHint (hint.txt):\n  %s\n\n"
            "The compiler says:\n  ...\n" % (path, what, path, line, source, hint))


text, changed = m.apply(SOLUTION)
path = "/tmp/x.cpp"
# A failed check (the checker says "a check failed") at a line the mistake did not change, an
# expect: without "static.assert", no at: -- any line will do.
m, = mistakes("## x is 2\n- int x = 1;\n+ int x = 2;\nexpect: x is 1\n")
verdict = check_mistakes.judge(m, output(path, 3, "return x;", True), "c++20", path, text, changed, 1)
expect("a failed check may point to any line without at: (%s)" % verdict, verdict is None)
# An error in the code must point to a line the mistake changed.
m, = mistakes("## x is 2\n- int x = 1;\n+ int x = 2;\nexpect: x is wrong\n")
verdict = check_mistakes.judge(m, output(path, 3, "return x;", False), "c++20", path, text, changed, 1)
expect("an error in the code at an unchanged line is refused", verdict is not None and "not one the mistake" in verdict)
verdict = check_mistakes.judge(m, output(path, 2, "int x = 2;", False), "c++20", path, text, changed, 1)
expect("an error in the code at the changed line is accepted (%s)" % verdict, verdict is None)
# Hints chosen by kind: required, and checked.
verdict = check_mistakes.judge(m, output(path, 2, "int x = 2;", False), "c++20", path, text, changed, 2)
expect("a mistake without hint: is refused where hint.txt has sections", verdict is not None and "hint:" in verdict)
m, = mistakes("## x is 2\n- int x = 1;\n+ int x = 2;\nexpect: x is wrong\nhint: ^Look at y\n")
verdict = check_mistakes.judge(m, output(path, 2, "int x = 2;", False), "c++20", path, text, changed, 2)
expect("a hint that does not match hint: is refused", verdict is not None and "hint shown" in verdict)
m, = mistakes("## x is 2\n- int x = 1;\n+ int x = 2;\nexpect: x is wrong\nhint: ^Look at x\n")
verdict = check_mistakes.judge(m, output(path, 2, "int x = 2;", False), "c++20", path, text, changed, 2)
expect("a hint that matches hint: is accepted (%s)" % verdict, verdict is None)

for f in failures:
    print("FAILED: " + f)
print("check_mistakes.py: %d failures" % len(failures))
sys.exit(1 if failures else 0)
