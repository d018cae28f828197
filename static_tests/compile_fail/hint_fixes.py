#!/usr/bin/env python3
"""Writes and checks the table of hints in docs/shape_errors.md: for every mistake of the
compile-fail snippets (static_tests/compile_fail/NN_*.cpp) and of the exercises
(exercises/*/mistakes.txt) that cxmat reports with a sentence (plain-error mode: clang++ 17+ with
-std=c++2c), the sentence, the fix its hint gives, and whether that fix leads to the correct
program. Every mistake of an exercise whose hint.txt chooses its hint by what is wrong ("when:"
sections: exercises 15-24) is in the table too, failed checks included, with the hint the checker
shows for it (scripts/exercise.sh --hint), which must be the one its mistakes.txt names (`hint:`).

A hint is mechanical when it names one edit of the line the compiler points to:
    transpose(K) / transpose(B) in matmul(A, B) or A * B   B becomes transpose(B) (or W, if B is transpose(W))
    matmul(B, A)                                           the operands of the product swap
    transpose(B) in A + B, A - B                           B becomes transpose(B)
    "Is Wq transposed?" (Wk, Wv, W_o)                      that argument of the attention call is transposed
A hint that names two readings (a transpose or a swap, a transpose or stacked blocks) names no
single fix; other hints (CXMAT_DIM_EQUALS, a rename) are not mechanical. The fix is applied to
the line the compiler points to; "correct program" means: for a snippet, the snippet with the fix
in place of the mistake, followed by the checks of its twin (the fix), compiles (g++ -fsyntax-only);
for an exercise, scripts/exercise.sh says PASS.

Write (needs a plain-error compiler for the sentences, and g++ for the fixes):
    python3 static_tests/compile_fail/hint_fixes.py --plain-compiler clang++-19 --compiler g++
Check (CTest's compile_fail.hint_fixes; one compile per mechanical fix):
    python3 static_tests/compile_fail/hint_fixes.py --check --compiler g++
The check reads the sentences back from the page, derives each fix again, compiles it and
compares the whole table; gen_shape_errors.py keeps the table when it rewrites the page.
"""

import argparse
import concurrent.futures
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
INCLUDE = os.path.join(ROOT, "include")
DOC = os.path.join(ROOT, "docs", "shape_errors.md")
CHECKER = os.path.join(ROOT, "scripts", "exercise.sh")
sys.path.insert(0, os.path.join(ROOT, "exercises"))
import check_mistakes  # noqa: E402  (the exercises' mistakes.txt reader)

BEGIN = "<!-- begin hints -->"
END = "<!-- end hints -->"


def run(cmd, env=None, cwd=None):
    env = dict(os.environ, LC_ALL="C", LANG="C", **(env or {}))
    return subprocess.run(cmd, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, check=False)


# ---- the mistakes -------------------------------------------------------------------------------

class Case:
    """One mistake: its program with the mistake, the lines the mistake changed, and how to
    build the program with a replacement for the line the compiler points to."""

    def __init__(self, ident, title, lines, changed, finish, hint=None):
        self.ident, self.title, self.lines, self.changed, self.finish = ident, title, lines, changed, finish
        self.hint = hint  # for an exercise whose hint.txt chooses: the regex of the hint its mistake names
        self.sentence, self.line = None, None


def snippet_cases():
    cases = []
    for name in sorted(os.listdir(HERE)):
        if not re.match(r"^\d\d_\w+\.cpp$", name):
            continue
        with open(os.path.join(HERE, name), encoding="utf-8") as f:
            src = f.read().split("\n")
        title = next(l[len("// Mistake: "):] for l in src if l.startswith("// Mistake: "))
        start = next(i for i, l in enumerate(src) if l.startswith("#ifdef CXMAT_COMPILE_FAIL"))
        mid = next(i for i in range(start, len(src)) if src[i].startswith("#else"))
        end = next(i for i in range(mid, len(src)) if src[i].startswith("#endif"))
        # The program with the mistake (the #ifdef branch kept) and, for a fix, with the twin's
        # checks after the fixed mistake (the fix's lines after its first).
        lines = src[:start] + [""] + src[start + 1:mid] + [""] * (end - mid + 1) + src[end + 1:]
        changed = set(range(start + 2, mid + 1))
        twin_checks = src[mid + 2:end]

        def finish(fixed, twin_checks=twin_checks, start=start, mid=mid, end=end):
            return "\n".join(fixed[:mid] + twin_checks + fixed[end + 1:]) + "\n"
        cases.append(Case(name[:-4], title, lines, changed, finish))
    return cases


def chooses_hint(d):
    """Whether the exercise's hint.txt chooses its hint by what is wrong ("when:" sections)."""
    with open(os.path.join(d, "hint.txt"), encoding="utf-8") as f:
        return re.search(r"^when: ", f.read(), re.M) is not None


def exercise_cases():
    cases = []
    for d in check_mistakes.exercise_dirs():
        with open(os.path.join(d, "solution.cpp"), encoding="utf-8") as f:
            solution = f.read()
        choosing = chooses_hint(d)
        for i, m in enumerate(check_mistakes.read_mistakes(d), 1):
            # The mistakes reported by a cxmat sentence, and all of an exercise that chooses hints.
            if "c++2c" not in m.expect and not choosing:
                continue
            text, changed = m.apply(solution)
            cases.append(Case("%s#%d" % (os.path.basename(d)[:2], i), m.title, text.split("\n"), changed,
                              lambda fixed: "\n".join(fixed), m.hint if choosing else None))
    return cases


def shown_hint(case):
    """The hint the checker shows for the case's sentence (exercise.sh --hint)."""
    return run(["bash", CHECKER, "--hint", case.ident[:2], case.sentence]).stdout


# ---- sentences ----------------------------------------------------------------------------------

def snippet_sentence(case, plain_cxx):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, case.ident + ".cpp")
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(case.lines))
        out = run([plain_cxx, "-std=c++2c", "-fsyntax-only", "-I", INCLUDE, path]).stdout
    m = re.search(r"/include/cxmat/[\w/]+\.hpp:\d+:\d+: error: static assertion failed: (.*)", out)
    at = re.search(r"^%s:(\d+):\d+: note: in instantiation of" % re.escape(path), out, re.M)
    return (m.group(1), int(at.group(1))) if m and at else (None, None)


def exercise_sentence(case, plain_cxx):
    number = case.ident[:2]
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "mistake.cpp")
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(case.lines))
        out = run(["bash", CHECKER, number, path], env={"CXX": plain_cxx, "CXMAT_EXERCISE_VALUES": "0"}).stdout
    # What the checker says is wrong: cxmat's sentence, or the failed check's words.
    m = re.search(r"^NOT YET: .*\n  (?:cxmat says: )?(.*)$", out, re.M)
    at = re.search(r"^  at %s:(\d+): " % re.escape(path), out, re.M)
    return (m.group(1), int(at.group(1))) if m and at else (None, None)


# ---- hints and their fixes ----------------------------------------------------------------------

def split_args(text):
    """'a, f(b, c), d' -> ['a', 'f(b, c)', 'd'] (commas inside brackets kept)."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch in "([{<" and not (ch == "<" and cur.endswith(" ")):
            depth += 1
        elif ch in ")]}>" and depth > 0 and not (ch == ">" and cur.endswith(" ")):
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    parts.append(cur.strip())
    return parts


def call_at(line, names):
    """(start of the argument list, end, arguments) of the first call of one of `names` on the
    line (a name followed by optional <...> and '('), or None."""
    m = re.search(r"\b(?:%s)\b(?:<[^()]*>)?\(" % "|".join(names), line)
    if not m:
        return None
    depth, i = 1, m.end()
    while i < len(line) and depth:
        depth += {"(": 1, ")": -1}.get(line[i], 0)
        i += 1
    return m.end(), i - 1, split_args(line[m.end():i - 1])


def transposed(expr):
    m = re.match(r"^(?:cxmat::)?transpose\((.*)\)$", expr)
    return m.group(1) if m and split_args(m.group(1)) == [m.group(1)] else "cxmat::transpose(%s)" % expr


def binary(line, op):
    """The statement's right-hand side split at a top-level ' op ' into two operands:
    (prefix, a, b, suffix), or None."""
    m = re.match(r"^(.*?=\s*)(.*?)(;.*)$", line)
    if not m:
        return None
    parts = [p.strip() for p in split_on(m.group(2), " %s " % op)]
    if len(parts) != 2:
        return None
    return m.group(1), parts[0], parts[1], m.group(3)


def split_on(text, sep):
    parts, depth, cur, i = [], 0, "", 0
    while i < len(text):
        ch = text[i]
        depth += {"(": 1, ")": -1, "{": 1, "}": -1}.get(ch, 0)
        if depth == 0 and text.startswith(sep, i):
            parts.append(cur)
            cur, i = "", i + len(sep)
            continue
        cur += ch
        i += 1
    return parts + [cur]


ARGUMENT = {"Wq": 1, "Wk": 2, "Wv": 3, "W_o": 4}


def hint_of(sentence):
    """The kind of fix a sentence's hint names, or None."""
    if re.search(r"write matmul\((?:Q, transpose\(K\)|A, transpose\(B\))\)", sentence):
        return "transpose B"
    if "write matmul(B, A)" in sentence and "stacked by rows" not in sentence:
        return "swap"
    if "B looks transposed: write transpose(B)" in sentence:
        return "transpose B"
    m = re.search(r"Is (Wq|Wk|Wv|W_o) transposed\?|pass transpose\((W_o)\)", sentence)
    if m:
        return "transpose " + (m.group(1) or m.group(2))
    return None


def fixed_line(kind, line):
    """The line with the hint's fix applied, or None where the line has no single place for it."""
    if kind in ("transpose B", "swap"):
        call = call_at(line, ["matmul"])
        if call and len(call[2]) == 2:
            a, b = call[2]
            args = "%s, %s" % ((b, a) if kind == "swap" else (a, transposed(b)))
            return line[:call[0]] + args + line[call[1]:]
        for op in ("*", "+", "-"):
            parts = binary(line, op)
            if parts and (op == "*" or kind == "transpose B"):
                pre, a, b, post = parts
                a, b = (b, a) if kind == "swap" else (a, transposed(b))
                return "%s%s %s %s%s" % (pre, a, op, b, post)
        return None
    if kind.startswith("transpose W"):
        call = call_at(line, [r"\w*attention\w*"])
        index = ARGUMENT[kind.split()[1]]
        if call and len(call[2]) > index:
            args = list(call[2])
            args[index] = transposed(args[index])
            return line[:call[0]] + ", ".join(args) + line[call[1]:]
    return None


def try_fix(case, fixed, cxx):
    """Whether the program with `fixed` in place of the line the compiler pointed to is correct."""
    lines = list(case.lines)
    lines[case.line - 1] = fixed
    program = case.finish(lines)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "fixed.cpp")
        with open(path, "w", encoding="utf-8") as f:
            f.write(program)
        if "#" in case.ident:
            result = run(["bash", CHECKER, case.ident[:2], path], env={"CXX": cxx, "CXMAT_EXERCISE_VALUES": "0"})
            return result.returncode == 0 and re.search(r"^PASS", result.stdout, re.M) is not None
        return run([cxx, "-std=c++20", "-fsyntax-only", "-I", INCLUDE, path]).returncode == 0


# ---- the table ----------------------------------------------------------------------------------

def cell(text):
    return text.replace("|", "\\|")


def row(case, cxx):
    """(markdown row, mechanical, the exercise's hint is the one its mistake names) for a case
    whose sentence and line are known."""
    kind = hint_of(case.sentence)
    source = case.lines[case.line - 1].strip()
    fix = fixed_line(kind, case.lines[case.line - 1]) if kind else None
    if kind is None:
        verdict, shown = "no single fix named", ""
    elif fix is None:
        verdict, shown = "not mechanical", ""
    else:
        verdict = "yes" if try_fix(case, fix, cxx) else "**no**"
        shown = "`%s`" % cell(fix.strip())
    where = ("snippet %s" % case.ident) if "#" not in case.ident else ("exercise %s" % case.ident)
    hint, named = "", True
    if case.hint is not None:
        text = shown_hint(case)
        first = text.split("\n", 1)[0]
        named = re.search(case.hint, text, re.S) is not None
        hint = "%s (%s)" % (first, "the one mistakes.txt names" if named else "**not the one mistakes.txt names**")
    return ("| %s | %s | `%s` | `%s` | %s | %s | %s | %s |" % (where, cell(case.title), cell(source),
                                                             cell(case.sentence), kind or "", shown, verdict,
                                                             cell(hint))), fix is not None, named


def render(cases, cxx, jobs):
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        rows = list(pool.map(lambda c: row(c, cxx), cases))
    fixes = sum(1 for _, m, _ in rows if m)
    good = sum(1 for r, m, _ in rows if m and re.search(r"\| yes \|[^|]*\|$", r))
    hints = sum(1 for c in cases if c.hint is not None)
    named = sum(1 for (_, _, n), c in zip(rows, cases) if c.hint is not None and n)
    out = [BEGIN, "## Hints and their fixes\n",
           "Every mistake above and every mistake of the exercises (exercises/*/mistakes.txt) that cxmat reports\n"
           "with a sentence (plain-error mode), the line the compiler points to, the sentence, and the fix its\n"
           "hint names. Where the fix is one mechanical edit of that line (transpose or drop the transpose of an\n"
           "operand, swap the operands of a product, transpose the named argument of an attention call),\n"
           "`compile_fail.hint_fixes` applies it and checks the result: the snippet with the twin's checks\n"
           "compiles (g++), the exercise passes its checker. Exercises 15-24 choose their hint by what is wrong\n"
           "(hint.txt's \"when:\" sections): every mistake of theirs is here, failed checks too, with the first line\n"
           "of the hint the checker shows, which must be the one the mistake names. Written by\n"
           "static_tests/compile_fail/hint_fixes.py.\n",
           "%d mistakes, %d mechanical fixes, %d of them lead to the correct program; %d hints chosen by the "
           "mistake, %d of them the one it names.\n" % (len(rows), fixes, good, hints, named),
           "| Mistake | What | Line | Sentence | Hint | Fix applied | Correct program | Exercise's hint (hint.txt) |",
           "|---|---|---|---|---|---|---|---|"]
    out += [r for r, _, _ in rows]
    out.append(END)
    return "\n".join(out) + "\n"


TABLE = re.compile(re.escape(BEGIN) + r".*?" + re.escape(END) + r"\n", re.S)


def stored_sentences(page):
    """{mistake id: (sentence, line text)} from the table on the page."""
    found = {}
    for m in re.finditer(r"^\| (?:snippet|exercise) (\S+) \| .*? \| `(.*?)` \| `(.*?)` \| [^|]* \| [^|]* \| [^|]* \| "
                         r"(?:[^|\\]|\\.)* \|$", page, re.M):
        found[m.group(1)] = (m.group(3).replace("\\|", "|"), m.group(2).replace("\\|", "|"))
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--compiler", default="g++", help="compiler of the fixes (and the exercise checker)")
    parser.add_argument("--plain-compiler", help="clang++ 17+ whose -std=c++2c states the sentences (writing)")
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    with open(DOC, encoding="utf-8") as f:
        page = f.read()
    cases = snippet_cases() + exercise_cases()
    if args.check:
        stored = stored_sentences(page)
        kept = []
        for c in cases:
            if c.ident in stored:
                c.sentence, source = stored[c.ident]
                c.line = next((i + 1 for i, l in enumerate(c.lines) if l.strip() == source), None)
                if c.line is None:
                    sys.exit("%s: the line %r is no longer in the mistake: regenerate the table" % (c.ident, source))
                kept.append(c)
        table = render(kept, args.compiler, args.jobs)
        wrong = [l for l in table.splitlines() if re.search(r"\| \*\*no\*\* \|[^|]*\|$", l)]
        if wrong:
            print("a hint's fix does not lead to the correct program:\n" + "\n".join(wrong))
            return 1
        unnamed = [l for l in table.splitlines() if "**not the one mistakes.txt names**" in l]
        if unnamed:
            print("an exercise shows another hint than its mistake names:\n" + "\n".join(unnamed))
            return 1
        current = TABLE.search(page)
        if current and current.group(0) == table:
            print("the hints table of docs/shape_errors.md is current (%d mistakes)" % len(kept))
            return 0
        print(table)
        print("the hints table of docs/shape_errors.md is stale or a fix no longer compiles: regenerate it")
        return 1
    if not args.plain_compiler:
        sys.exit("writing the table needs --plain-compiler (clang++ 17 or later)")

    def sentence(c):
        return (exercise_sentence if "#" in c.ident else snippet_sentence)(c, args.plain_compiler)
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for c, (s, line) in zip(cases, pool.map(sentence, cases)):
            c.sentence, c.line = s, line
    kept = [c for c in cases if c.sentence]
    table = render(kept, args.compiler, args.jobs)
    page = TABLE.sub(lambda _: table, page) if TABLE.search(page) else page.rstrip("\n") + "\n\n" + table
    with open(DOC, "w", encoding="utf-8") as f:
        f.write(page)
    print("wrote the hints table: %d mistakes" % len(kept))
    return 0


if __name__ == "__main__":
    sys.exit(main())
