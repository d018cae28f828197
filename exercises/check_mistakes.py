#!/usr/bin/env python3
"""Checks that every exercise rejects the wrong answers a student plausibly writes.

Each exercise folder holds `mistakes.txt`: a list of mistakes, each a change to the solution
(whole lines replaced) and the message the checker must then show. For every mistake this
applies the change to solution.cpp, runs scripts/exercise.sh on the result as a student would,
and requires: NOT YET (a compile error, not a changed checks section), a line shown that matches
the expected regular expression, and a hint from the exercise's hint.txt (the one its `hint:`
line names, where given). A mistake that compiles would be a wrong answer the exercise accepts.

    python3 exercises/check_mistakes.py --compiler g++ [--flags "..."] [NN ...]
    python3 exercises/check_mistakes.py --compiler g++ --folder path/to/your_exercise

The format of mistakes.txt (blank lines and lines starting with '#' between mistakes ignored):

    ## what the student did (one line: it is listed on docs/learn.md)
    - a whole line of solution.cpp (it must occur once; spaces at either end are not compared)
    + the line that replaces it (any number of '+' lines, none deletes it)
    expect: a regular expression a line shown by the checker must match
    expect c++2c: the same, where the checker compiles with -std=c++2c (shape errors as sentences)
    expect c++20: the same, where it compiles with -std=c++20
    at: a regular expression the line of the file the checker points to must match (default: for
        a compile error, one of the lines the mistake changed; for a failed check, any line)
    hint: a regular expression the hint shown must match (required where hint.txt has
        "when:" sections, which choose the hint by what is wrong: see scripts/exercise.sh)
    values: the number of failed checks whose values the checker must show (it then compiles
        the values program too, which the other mistakes skip)

One '- / +' group or several; `expect:` applies where no `expect <std>:` is given.
"""

import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CHECKER = os.path.join(ROOT, "scripts", "exercise.sh")


class Mistake:
    def __init__(self, title, where):
        self.title = title
        self.where = where
        self.edits = []  # [(line removed, [lines added])]
        self.expect = {}  # std or "" -> regex
        self.at = None  # a regex the source line shown must match, if not a line the mistake changed
        self.hint = None  # a regex the hint shown must match
        self.values = None  # how many failed checks' values must be shown

    def apply(self, source):
        """The solution with the mistake, and the numbers (from 1) of the lines it changed."""
        lines = [(l, False) for l in source.split("\n")]
        for old, new in self.edits:
            hits = [i for i, (l, _) in enumerate(lines) if l.strip() == old.strip()]
            if len(hits) != 1:
                raise ValueError("%s: the line %r occurs %d times in solution.cpp, not once"
                                 % (self.where, old, len(hits)))
            lines[hits[0]:hits[0] + 1] = [(l, True) for l in new]
        return "\n".join(l for l, _ in lines), {i + 1 for i, (_, changed) in enumerate(lines) if changed}

    def expected(self, std):
        return self.expect.get(std, self.expect.get(""))


def read_mistakes(exercise_dir):
    """The mistakes of one exercise folder, in file order ([] when it has no mistakes.txt)."""
    path = os.path.join(exercise_dir, "mistakes.txt")
    if not os.path.exists(path):
        return []
    mistakes = []
    with open(path, encoding="utf-8") as f:
        for number, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            where = "%s:%d" % (os.path.relpath(path, ROOT), number)
            if line.startswith("## "):
                mistakes.append(Mistake(line[3:].strip(), where))
            elif not line.strip() or line.startswith("#"):
                continue
            elif not mistakes:
                raise ValueError("%s: a mistake starts with '## <title>'" % where)
            elif line.startswith("- "):
                mistakes[-1].edits.append((line[2:], []))
            elif line.startswith("+ ") or line == "+":
                if not mistakes[-1].edits:
                    raise ValueError("%s: a '+' line follows a '-' line" % where)
                mistakes[-1].edits[-1][1].append(line[2:])
            elif line.startswith("at: "):
                mistakes[-1].at = line[4:]
            elif line.startswith("hint: "):
                mistakes[-1].hint = line[6:]
            elif line.startswith("values: "):
                mistakes[-1].values = int(line[8:])
            else:
                m = re.match(r"^expect( c\+\+\w+)?: (.+)$", line)
                if not m:
                    raise ValueError("%s: not a '- ', '+ ' or 'expect:' line: %r" % (where, line))
                mistakes[-1].expect[(m.group(1) or "").strip()] = m.group(2)
    for m in mistakes:
        if not m.edits or not m.expect:
            raise ValueError("%s: the mistake %r needs a change and an expect: line" % (m.where, m.title))
    return mistakes


def shown_hint(out):
    """The hint the checker printed (the lines under "Hint (...):", unindented)."""
    m = re.search(r"^Hint \(.*?\):\n((?:  .*\n?)+)", out, re.M)
    return "\n".join(l[2:] for l in m.group(1).rstrip("\n").split("\n")) if m else ""


def values_shown(out):
    """How many failed checks the checker printed values for."""
    block = re.search(r"^The values \(.*?\n((?:  .*\n|\n)+)", out, re.M)
    if not block:
        return 0
    headers = len(re.findall(r"^  line \d+: .*:$", block.group(1), re.M))
    return headers or 1


def judge(m, out, std, path, text, changed, sections):
    """What is wrong with the checker's output `out` for the mistake `m` (None: as expected).
    `text` is the file with the mistake, `changed` its changed lines, `sections` how many hints
    hint.txt holds."""
    # Every line the checker shows but the hint's (checked on its own below).
    shown = re.sub(r"\nHint \(.*?\n\n", "\n", out, flags=re.S).splitlines()
    expect = m.expected(std)
    hint = shown_hint(out)
    if not re.search(r"^NOT YET: it (does not compile|compiles with .*, but not with every compiler|compiles, but it "
                     r"calls what the exercise does by hand)\.", out, re.M):
        return "the checker did not say NOT YET for a compile error"
    if expect is None:
        return "no expect line for -std=%s" % std
    if not any(re.search(expect, l) for l in shown):
        return "no line shown matches %r" % expect
    if not hint:
        return "the hint is not printed"
    if m.hint is None and sections > 1:
        return "hint.txt chooses among %d hints: the mistake needs a 'hint:' line" % sections
    if m.hint is not None and not re.search(m.hint, hint, re.S):
        return "the hint shown does not match %r:\n%s" % (m.hint, "\n".join("    " + l for l in hint.splitlines()))
    # The checker leads to the student's line: "at <file>:<line>: <source line>", for an error in
    # the code (not a failed check) a line the mistake changed.
    at = re.search(r"^  at %s:(\d+): (.*)$" % re.escape(path), out, re.M)
    lines = text.split("\n")
    failed_check = re.search(r"^  a check failed: ", out, re.M) is not None
    if not at:
        return "no line 'at %s:<line>: ...' shown" % path
    if at.group(2) != lines[int(at.group(1)) - 1].strip():
        return "the source line shown is not line %s of the file" % at.group(1)
    if m.at and not re.search(m.at, at.group(2)):
        return "the line shown, %s, does not match %r" % (at.group(1), m.at)
    if not m.at and not failed_check and int(at.group(1)) not in changed:
        return "the line shown, %s, is not one the mistake changed (%s)" % (
            at.group(1), ", ".join(map(str, sorted(changed))))
    return None


def exercise_dirs():
    return [os.path.join(HERE, d) for d in sorted(os.listdir(HERE))
            if re.match(r"^\d\d_\w+$", d) and os.path.isdir(os.path.join(HERE, d))]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--compiler", required=True)
    parser.add_argument("--flags", default="", help="extra compiler flags (the build's CMAKE_CXX_FLAGS)")
    parser.add_argument("--show", action="store_true", help="print what the checker showed for each mistake")
    parser.add_argument("--save", metavar="DIR", help="also write the counts to DIR/mistakes.txt (for the learn "
                        "page's check, exercises/gen_learn.py --checker-outputs DIR)")
    parser.add_argument("--folder", action="append", default=[],
                        help="an exercise folder of your own, laid out like exercises/NN_name/ (repeatable; "
                        "instead of the path's exercises)")
    parser.add_argument("numbers", nargs="*", help="exercise numbers (default: all)")
    args = parser.parse_args()

    env = dict(os.environ, CXX=args.compiler, CXMAT_EXERCISE_FLAGS=" ".join(shlex.split(args.flags)),
               LC_ALL="C", LANG="C")
    std = subprocess.run(["bash", CHECKER, "--std"], env=env, stdout=subprocess.PIPE,
                         universal_newlines=True, check=True).stdout.strip()
    # The checker runs once per mistake; it need not ask the compiler for the standard each time.
    env["CXMAT_EXERCISE_STD"] = std
    # Nor compile a failed check's values a second time: check_checker.sh tests that on the start files.
    env["CXMAT_EXERCISE_VALUES"] = "0"

    failures, tried, summary = [], 0, []
    with tempfile.TemporaryDirectory(prefix="cxmat_mistakes_") as tmp:
        for d in [os.path.abspath(f) for f in args.folder] or exercise_dirs():
            number = os.path.basename(d)[:2]
            if args.numbers and number not in [n.zfill(2) for n in args.numbers]:
                continue
            exercise = d if args.folder else number  # what the checker is given: a folder or a number
            try:
                mistakes = read_mistakes(d)
            except ValueError as e:
                failures.append(str(e))
                continue
            if not mistakes:
                failures.append("%s has no mistakes.txt" % os.path.basename(d))
            with open(os.path.join(d, "solution.cpp"), encoding="utf-8") as f:
                solution = f.read()
            with open(os.path.join(d, "hint.txt"), encoding="utf-8") as f:
                sections = f.read().count("\nwhen: ") + 1
            caught = 0
            for i, m in enumerate(mistakes, 1):
                tried += 1
                try:
                    text, changed = m.apply(solution)
                except ValueError as e:
                    failures.append(str(e))
                    continue
                path = os.path.join(tmp, "%s_mistake_%02d.cpp" % (os.path.basename(d), i))
                with open(path, "w", encoding="utf-8") as f:
                    f.write(text)
                run = subprocess.run(["bash", CHECKER, exercise, path], env=env, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, universal_newlines=True, check=False)
                out = run.stdout
                if args.show:
                    print("---- %s (%s)\n%s" % (m.title, m.where, out))
                problem = ("the checker exited with %d, not 1 (not yet)" % run.returncode if run.returncode != 1
                           else judge(m, out, std, path, text, changed, sections))
                if problem is None and m.values:
                    # The values program, for the mistakes that ask for it.
                    again = subprocess.run(["bash", CHECKER, exercise, path], env=dict(env, CXMAT_EXERCISE_VALUES="1"),
                                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True,
                                           check=False).stdout
                    shown_values = values_shown(again)
                    if shown_values != m.values:
                        problem = "the values of %d failed checks shown, not %d:\n%s" % (
                            shown_values, m.values, "\n".join("    " + l for l in again.splitlines()))
                if problem:
                    failures.append("%s: %s (%s): %s\n%s" % (os.path.basename(d), m.title, m.where, problem,
                                                            "\n".join("    " + l for l in out.splitlines())))
                else:
                    caught += 1
            summary.append("%s: %d of %d mistakes caught" % (os.path.basename(d), caught, len(mistakes)))
            print(summary[-1])
    summary.append("%d mistakes tried (-std=%s), %d not caught as expected" % (tried, std, len(failures)))
    print(summary[-1].replace(" (", " with %s (" % args.compiler, 1))
    if args.save:
        os.makedirs(args.save, exist_ok=True)
        with open(os.path.join(args.save, "mistakes.txt"), "w", encoding="utf-8") as f:
            f.write("\n".join(summary) + "\n")
    for f in failures:
        print("FAILED: " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
