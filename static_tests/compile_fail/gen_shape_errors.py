#!/usr/bin/env python3
"""Generates docs/shape_errors.md, the gallery of shape errors, from the compile-fail snippets in
this folder, and checks that it is current.

Each snippet NN_name.cpp starts with comment lines "// Mistake: ...", "// Rule: ...",
"// Expect: <regex>" and "// Expect-plain: <regex>" (the sentence of plain-error mode), then code whose `#ifdef CXMAT_COMPILE_FAIL` branch holds the mistake and
whose `#else` branch holds the fix. For every snippet and every compiler the gallery shows the
first lines the compiler prints for the mistake and how many lines it prints in all.

Generate (with every compiler the gallery should show; CXX@STD compiles with -std=STD instead
of c++20, and clang++ 19 with @c++2c is plain-error mode, whose sentences get a table of their own):
    python3 static_tests/compile_fail/gen_shape_errors.py --compiler g++ --compiler clang++-14 \
        --compiler clang++-19 --compiler clang++-19@c++2c
Check (CTest runs this with the build's compiler):
    python3 static_tests/compile_fail/gen_shape_errors.py --check --compiler g++
The check recompiles the snippets with the given compiler, rebuilds the whole page from those
outputs and the outputs recorded for the other compilers, and fails if the page differs. CTest
compiles each snippet once: its test compile_fail.NN_name runs
    gen_shape_errors.py --compiler g++ --snippet NN_name --save DIR
(compile, check the expected message, save the output), and the gallery check reads the saved
outputs with --check --outputs DIR instead of compiling again. It exits
with 77 (skipped) when the page has no section for that compiler (e.g. another major version).

Outputs are the compiler's default output made deterministic: LC_ALL=C (ASCII quotes), no
colours, paths reduced to `cxmat/<header>` or a file name, and the line numbers of library headers
removed, in locations and in the gutter of source excerpts (so editing a header does not stale
the page unless the messages change). Line counts are of the unmodified output.
"""

import argparse
import concurrent.futures
import difflib
import os
import re
import shlex
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
INCLUDE = os.path.join(ROOT, "include")
DOC = os.path.join(ROOT, "docs", "shape_errors.md")
SHOWN_LINES = 14
SKIPPED = 77


def run(cmd, cwd=None):
    env = dict(os.environ, LC_ALL="C", LANG="C")
    env.pop("GCC_COLORS", None)
    try:
        return subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              universal_newlines=True, check=False)
    except OSError as e:
        sys.exit("cannot run %s: %s" % (cmd[0], e))


def split_std(spec):
    """'clang++-19@c++2c' -> ('clang++-19', 'c++2c'); a plain compiler name gets c++20."""
    cxx, _, std = spec.partition("@")
    return cxx, std or "c++20"


def is_plain(label):
    return label.endswith(" c++2c")


def compiler_info(spec):
    """('g++ 12', 'gcc') or ('clang++ 19', 'clang'), from the compiler itself; a standard other
    than c++20 is added to the label ('clang++ 19 c++2c')."""
    cxx, std = split_std(spec)
    suffix = "" if std == "c++20" else " " + std
    version_text = run([cxx, "--version"]).stdout
    major = run([cxx, "-dumpversion"]).stdout.strip().split(".")[0]
    if "clang" in version_text.lower():
        return "clang++ " + major + suffix, "clang"
    if "Free Software Foundation" in version_text or "g++" in version_text or "GCC" in version_text:
        return "g++ " + major + suffix, "gcc"
    sys.exit("unknown compiler: " + cxx)


class Snippet:
    def __init__(self, path):
        self.path = path
        self.stem = os.path.splitext(os.path.basename(path))[0]
        self.fields = {}
        self.setup, self.mistake, self.fix = [], [], []
        section = "header"
        with open(path, encoding="utf-8") as f:
            for line in f.read().splitlines():
                if section == "header":
                    m = re.match(r"^// (Mistake|Rule|Expect|Expect-plain): (.*)$", line)
                    if m:
                        self.fields[m.group(1)] = m.group(2)
                        continue
                    section = "setup"
                if line.startswith("#ifdef CXMAT_COMPILE_FAIL"):
                    section = "mistake"
                elif line.startswith("#else") and section == "mistake":
                    section = "fix"
                elif line.startswith("#endif") and section == "fix":
                    section = "after"
                elif section == "setup":
                    self.setup.append(line)
                elif section == "mistake":
                    self.mistake.append(line)
                elif section == "fix":
                    self.fix.append(line)
        for key in ("Mistake", "Rule", "Expect", "Expect-plain"):
            if key not in self.fields:
                sys.exit("%s: no '// %s:' line" % (path, key))
        if not self.mistake or not self.fix:
            sys.exit("%s: needs an #ifdef CXMAT_COMPILE_FAIL / #else / #endif block" % path)
        m = re.search(r"shape_error::(\w+)|(\w+_in_a_constant_expression)", self.fields["Expect"]) or \
            re.match(r"^(\w+)", self.fields["Expect"])
        self.error_name = next((g for g in m.groups() if g), "?") if m else "?"

    def code(self):
        setup = "\n".join(self.setup).strip("\n")
        return setup + "\n\n// The mistake:\n" + "\n".join(self.mistake) + "\n"

    def fix_code(self):
        # The first line of the fix is the corrected statement; the rest checks it in the twin.
        return self.fix[0]


LOCATION = re.compile(r"^(\S+?):\d+(?::\d+)?: (?:error|note|warning|fatal error)")
GUTTER = re.compile(r"^(\s*)(\d+)( \| )")


def normalize_path(line):
    # Library headers: cxmat/<header>, without line and column.
    line = re.sub(r"[^\s'\"`(,]*?/include/(cxmat/[\w/.]+\.hpp)(:\d+)?(:\d+)?", r"\1", line)
    # Any other absolute or relative path: its file name (line numbers of snippets are kept).
    return re.sub(r"(?<![\w.])(?:/|\.\./|\./)[^\s'\"`:(,]*/([\w.+-]+)", r"\1", line)


def normalize(lines):
    """Paths shortened; the gutter numbers of excerpts from library headers blanked."""
    out, in_header = [], False
    for line in lines:
        m = LOCATION.match(line)
        if m:
            in_header = "/include/cxmat/" in m.group(1)
        g = GUTTER.match(line)
        if g and in_header:
            line = g.group(1) + " " * len(g.group(2)) + g.group(3) + line[g.end():]
        out.append(normalize_path(line).rstrip())
    return out


def compile_snippet(spec, flags, snippet):
    cxx, std = split_std(spec)
    cmd = [cxx, "-std=" + std, "-fsyntax-only", "-DCXMAT_COMPILE_FAIL", "-I", INCLUDE,
           "-fdiagnostics-color=never"] + flags + [os.path.basename(snippet.path)]
    result = run(cmd, cwd=HERE)
    if result.returncode == 0:
        sys.exit("%s compiles with %s: it is not a compile-fail snippet" % (snippet.stem, cxx))
    return result.stdout.splitlines()


def check_expected(cxx, label, snippet, full):
    """Exits unless the output has the snippet's expected message (Expect-plain in plain mode)."""
    key = "Expect-plain" if is_plain(label) else "Expect"
    expect = re.compile(snippet.fields[key])
    if not any(expect.search(l) for l in full):
        sys.exit("%s with %s: the output does not match '// %s: %s'" % (snippet.stem, cxx, key, expect.pattern))


def saved_output(outputs, snippet):
    """The output a --snippet run saved for this snippet (see main)."""
    path = os.path.join(outputs, snippet.stem + ".txt")
    if not os.path.exists(path):
        sys.exit("%s: no saved output; run the snippet first (--snippet %s --save %s)" % (path, snippet.stem, outputs))
    with open(path, encoding="utf-8") as f:
        return f.read().splitlines()


def messages(cxx, label, flags, snippet, outputs=None):
    """(shown lines, total line count) for one snippet and one compiler: compiled now, or read
    from the outputs folder where --snippet runs saved them."""
    full = saved_output(outputs, snippet) if outputs else compile_snippet(cxx, flags, snippet)
    check_expected(cxx, label, snippet, full)
    shown = normalize(full)
    if len(shown) > SHOWN_LINES:
        shown = shown[:SHOWN_LINES] + ["[... %d more lines]" % (len(full) - SHOWN_LINES)]
    return shown, len(full)


def output_block(snippet, label, shown, count):
    return ("<!-- begin output %s | %s | lines %d -->\n" % (snippet.stem, label, count) +
            "**%s** (%d lines in all):\n\n```text\n%s\n```\n<!-- end output -->\n"
            % (label, count, "\n".join(shown)))


BLOCK = re.compile(r"<!-- begin output (\S+) \| (.+?) \| lines (\d+) -->\n.*?<!-- end output -->\n", re.S)


def first_error(block):
    """The message of the first error line of an output block, for a table cell."""
    for line in block.splitlines():
        m = re.search(r"\berror: (?:static assertion failed: )?(.*)$", line)
        if m:
            return m.group(1).replace("|", "\\|")
    return "?"


def render(snippets, labels, blocks):
    """The whole page. blocks: {(stem, label): (block text, line count)}."""
    out = []
    out.append("# Shape errors gallery\n")
    out.append("<!-- Generated by static_tests/compile_fail/gen_shape_errors.py from the snippets in\n"
               "     static_tests/compile_fail/. Do not edit: regenerate. -->\n"
               "<!-- compilers: %s -->\n" % " | ".join(labels))
    out.append(
        "Each entry is a shape mistake a learner makes, the rule it breaks, and what the compiler\n"
        "says, copied from real compiler runs by a script (never typed by hand). A CTest entry\n"
        "(`compile_fail.gallery_is_current`) recompiles every snippet with the build's compiler and\n"
        "fails if this page no longer shows what that compiler prints; each snippet is also a\n"
        "CTest entry of its own (`compile_fail.<name>`) that checks the message, paired with a twin\n"
        "holding the fix that must compile (`compile_fail.twins`).\n\n"
        "The outputs are what `<compiler> -std=c++20 -fsyntax-only` prints for the snippet (`-std=c++2c`\n"
        "for a compiler labelled c++2c; at most\n"
        "%d lines shown), with paths shortened to `cxmat/<header>` and the line numbers of library\n"
        "headers blanked. \"Lines in all\" counts every line printed. Every error names the rule in its type,\n"
        "`cxmat::shape_error::<operation>_<rule>`, with the dimensions involved as\n"
        "`cxmat::dim<size, name>` (`cxmat::anonymous` for a plain size): see docs/shapes.md.\n"
        % SHOWN_LINES)
    out.append("## Summary\n")
    out.append("| # | Mistake | Reported as `cxmat::shape_error::` | " +
               " | ".join("%s lines" % l for l in labels) + " |")
    out.append("|---|---|---|" + "---|" * len(labels))
    for i, s in enumerate(snippets, 1):
        counts = []
        for label in labels:
            entry = blocks.get((s.stem, label))
            counts.append(str(entry[1]) if entry else "missing")
        out.append("| %d | %s | `%s` | %s |" % (i, s.fields["Mistake"], s.error_name, " | ".join(counts)))
    out.append("")
    for label in [l for l in labels if is_plain(l)]:
        out.append("## In plain words: %s\n" % label)
        out.append(
            "With a compiler that accepts static_assert messages computed by constant expressions (P2741:\n"
            "clang++ 17 or later with `-std=c++2c`), cxmat defines each shape error as a static_assert whose\n"
            "message is a sentence built from the sizes and names (`CXMAT_PLAIN_ERRORS`, on by default\n"
            "there). The first error line of each snippet, as %s prints it (clang prints the include\n"
            "stack of the library header above it):\n" % label)
        out.append("| # | First error line |")
        out.append("|---|---|")
        for i, s in enumerate(snippets, 1):
            entry = blocks.get((s.stem, label))
            out.append("| %d | %s |" % (i, first_error(entry[0]) if entry else "missing"))
        out.append("")
    for i, s in enumerate(snippets, 1):
        out.append("## %d. %s\n" % (i, s.fields["Mistake"]))
        out.append("Rule: %s  \nSnippet: `static_tests/compile_fail/%s.cpp`\n" % (s.fields["Rule"], s.stem))
        out.append("```cpp\n%s```\n" % s.code())
        out.append("The fix:\n\n```cpp\n%s\n```\n" % s.fix_code())
        for label in labels:
            entry = blocks.get((s.stem, label))
            out.append(entry[0] if entry else
                       "<!-- begin output %s | %s | lines 0 -->\n**%s**: missing, regenerate the page with "
                       "this compiler.\n<!-- end output -->\n" % (s.stem, label, label))
    return "\n".join(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--compiler", action="append", required=True, help="C++ compiler (repeatable)")
    parser.add_argument("--flags", default="", help="extra compiler flags, e.g. the build's CMAKE_CXX_FLAGS")
    parser.add_argument("--check", action="store_true", help="check docs/shape_errors.md instead of writing it")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--snippet", metavar="STEM",
                        help="compile this one snippet with the (one) compiler, check its expected message and "
                             "save the output in --save's folder (CTest's compile_fail.STEM)")
    parser.add_argument("--save", metavar="DIR", help="with --snippet: where to save the output")
    parser.add_argument("--outputs", metavar="DIR",
                        help="with --check: read the outputs --snippet saved instead of compiling again")
    args = parser.parse_args()
    flags = shlex.split(args.flags)

    snippets = [Snippet(os.path.join(HERE, f)) for f in sorted(os.listdir(HERE))
                if re.match(r"^\d\d_\w+\.cpp$", f)]
    compilers = [(cxx, compiler_info(cxx)[0]) for cxx in args.compiler]

    if args.snippet:
        if len(compilers) != 1 or not args.save:
            sys.exit("--snippet needs one --compiler and --save DIR")
        (cxx, label), = compilers
        snippet = next((s for s in snippets if s.stem == args.snippet), None)
        if snippet is None:
            sys.exit("no snippet " + args.snippet)
        full = compile_snippet(cxx, flags, snippet)
        print("\n".join(full))
        check_expected(cxx, label, snippet, full)
        os.makedirs(args.save, exist_ok=True)
        with open(os.path.join(args.save, snippet.stem + ".txt"), "w", encoding="utf-8") as f:
            f.write("\n".join(full) + "\n")
        return 0

    stored, labels = {}, [label for _, label in compilers]
    if args.check:
        if not os.path.exists(DOC):
            sys.exit("%s does not exist: generate it" % DOC)
        with open(DOC, encoding="utf-8") as f:
            current = f.read()
        m = re.search(r"<!-- compilers: (.*?) -->", current)
        labels = m.group(1).split(" | ") if m else []
        for b in BLOCK.finditer(current):
            stored[(b.group(1), b.group(2))] = (b.group(0), int(b.group(3)))
        fresh_labels = [label for _, label in compilers]
        if not any(label in labels for label in fresh_labels):
            print("docs/shape_errors.md has no section for %s (it has: %s): skipped"
                  % (", ".join(fresh_labels), ", ".join(labels)))
            return SKIPPED

    blocks = dict(stored)
    jobs = [(s, cxx, label) for s in snippets for cxx, label in compilers if label in labels]
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = pool.map(lambda j: (j, messages(j[1], j[2], flags, j[0], args.outputs)), jobs)
        for (s, _cxx, label), (shown, count) in results:
            blocks[(s.stem, label)] = (output_block(s, label, shown, count), count)

    page = render(snippets, labels, blocks)
    # The table of hints and their fixes (hint_fixes.py writes and checks it) is kept as it is.
    old_page = current if args.check else (open(DOC, encoding="utf-8").read() if os.path.exists(DOC) else "")
    hints = re.search(r"<!-- begin hints -->.*?<!-- end hints -->\n", old_page, re.S)
    if hints:
        page = page.rstrip("\n") + "\n\n" + hints.group(0)
    if args.check:
        if page == current:
            print("docs/shape_errors.md is current for %s (%d snippets)" % (", ".join(c[1] for c in compilers),
                                                                           len(snippets)))
            return 0
        sys.stdout.writelines(difflib.unified_diff(current.splitlines(True), page.splitlines(True),
                                                   "docs/shape_errors.md", "regenerated"))
        print("\ndocs/shape_errors.md is stale: regenerate it with gen_shape_errors.py and every compiler")
        return 1
    os.makedirs(os.path.dirname(DOC), exist_ok=True)
    with open(DOC, "w", encoding="utf-8") as f:
        f.write(page)
    print("wrote docs/shape_errors.md: %d snippets, %s" % (len(snippets), ", ".join(labels)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
