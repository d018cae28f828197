#!/usr/bin/env python3
"""Generates docs/learn.md, "Learn attention with cxmat", from the exercises and from real compiler
runs, and checks that it is current.

The page is the text below (the introduction, the names of the shapes, how to read an error),
each exercise's README.md, for each exercise and compiler what `scripts/exercise.sh` shows
for the start file (what is wrong, where, and the lines of the compiler's output that matter), and
for each compiler how many of the exercises' plausible wrong answers (mistakes.txt) the checker
refused (exercises/check_mistakes.py). "How to read an error" also
shows the compiler's whole output for three start files. Nothing on the page that a compiler
printed is typed by hand.

Generate (with every compiler the page should show):
    python3 exercises/gen_learn.py --compiler g++ --compiler clang++-19
Check (CTest runs this with the build's compiler):
    python3 exercises/gen_learn.py --check --compiler g++
The check reruns the compiler given (or, with --checker-outputs, reads what the checker tests
showed for the start files), rebuilds the page from those outputs and the outputs recorded for
the other compilers, and fails if the page differs. It exits with 77 (skipped)
when the page has no section for that compiler (e.g. another major version).

Outputs are made deterministic as in static_tests/compile_fail/gen_shape_errors.py: LC_ALL=C,
no colours, paths reduced to `cxmat/<header>` or a file name, and the line numbers of library
headers removed (so editing a header does not stale the page unless the messages change).
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
ROOT = os.path.dirname(HERE)
INCLUDE = os.path.join(ROOT, "include")
CHECKER = os.path.join(ROOT, "scripts", "exercise.sh")
DOC = os.path.join(ROOT, "docs", "learn.md")
README = os.path.join(HERE, "README.md")
# The sentence of exercises/README.md that counts the mistakes (written and checked here).
README_COUNT = re.compile(r"(per mistake: for )(\d+)( mistakes)")
SKIPPED = 77
# Start files whose whole output "How to read an error" shows: a shape error (plain sizes), a
# failed check, and a shape error of grouped-query attention (a count of heads that does not fit).
FULL_OUTPUTS = [("01", "a shape error"), ("04", "a failed check"), ("13", "a shape error about head counts")]
FULL_SHOWN_LINES = 24


def run(cmd, env_extra=None, cwd=None):
    env = dict(os.environ, LC_ALL="C", LANG="C")
    env.pop("GCC_COLORS", None)
    env.update(env_extra or {})
    try:
        return subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              universal_newlines=True, check=False)
    except OSError as e:
        sys.exit("cannot run %s: %s" % (cmd[0], e))


def compiler_label(cxx):
    """'g++ 12' or 'clang++ 19', from the compiler itself."""
    version_text = run([cxx, "--version"]).stdout
    major = run([cxx, "-dumpversion"]).stdout.strip().split(".")[0]
    if "clang" in version_text.lower():
        return "clang++ " + major
    if "Free Software Foundation" in version_text or "g++" in version_text or "GCC" in version_text:
        return "g++ " + major
    sys.exit("unknown compiler: " + cxx)


class Exercise:
    def __init__(self, path):
        self.path = path
        self.stem = os.path.basename(path)
        self.number = self.stem[:2]
        with open(os.path.join(path, "README.md"), encoding="utf-8") as f:
            readme = f.read()
        first, _, body = readme.partition("\n")
        m = re.match(r"^# (\d\d) · (.*)$", first)
        if not m or m.group(1) != self.number:
            sys.exit("%s/README.md: the first line must be '# %s · <title>'" % (path, self.number))
        self.title = m.group(2)
        # The statement without its "Check:" line (the page says how to check once).
        self.body = re.sub(r"\n*Check: `bash scripts/exercise.sh \d+`\n*$", "\n", body).strip("\n")
        with open(os.path.join(path, "expect.txt"), encoding="utf-8") as f:
            self.expect = f.readline().rstrip("\n")
        # The shape error as a sentence, for a checker run in plain-error mode (exercise.sh --std).
        self.expect_plain = self.expect
        if os.path.exists(os.path.join(path, "expect_plain.txt")):
            with open(os.path.join(path, "expect_plain.txt"), encoding="utf-8") as f:
                self.expect_plain = f.readline().rstrip("\n")


# One normalisation of compiler output for both generated pages (paths shortened, gutter numbers
# of library headers blanked): the gallery's.
sys.path.insert(0, os.path.join(ROOT, "static_tests", "compile_fail"))
from gen_shape_errors import normalize  # noqa: E402
sys.path.insert(0, HERE)
from check_mistakes import read_mistakes  # noqa: E402


def mistake_counts(cxx, flags, saved=None):
    """exercises/check_mistakes.py's counts for one compiler: run here, or read from `saved`, where
    the test exercises.mistakes kept them (check_mistakes.py --save)."""
    if saved:
        try:
            with open(os.path.join(saved, "mistakes.txt"), encoding="utf-8") as f:
                text = f.read()
        except OSError as e:
            sys.exit("no saved counts of the mistakes (%s): run the test exercises.mistakes first" % e)
    else:
        text = run([sys.executable, os.path.join(HERE, "check_mistakes.py"), "--compiler", cxx,
                    "--flags", " ".join(flags)]).stdout
        text = "\n".join(l for l in text.splitlines() if re.match(r"^(\d\d_\w+: |\d+ mistakes tried)", l))
        text = re.sub(r" mistakes tried with \S+ \(", " mistakes tried (", text)
    return text.rstrip("\n").splitlines()


def checker_lines(cxx, flags, ex, saved=None):
    """What scripts/exercise.sh shows of the compiler's output for the start file: run here, or
    read from `saved`, a folder where exercises/check_checker.sh --save kept that run's output
    (NN.txt) for the same compiler and flags."""
    if saved:
        try:
            with open(os.path.join(saved, ex.number + ".txt"), encoding="utf-8") as f:
                text = f.read()
        except OSError as e:
            sys.exit("%s: no saved checker output (%s): run its checker test first" % (ex.stem, e))
    else:
        result = run(["bash", CHECKER, ex.number],  # the default file, exercises/NN_name/start.cpp
                     {"CXX": cxx, "CXMAT_EXERCISE_FLAGS": " ".join(flags)})
        text = result.stdout
        if result.returncode != 1:
            sys.exit("%s with %s: the checker exited with %d, not 1:\n%s" % (ex.stem, cxx, result.returncode, text))
    if "NOT YET: it does not compile." not in text or "The compiler says:" not in text:
        sys.exit("%s with %s: the checker did not report a compile error:\n%s" % (ex.stem, cxx, text))
    # What the checker shows but its first line (which names the compiler's exact version) and
    # the hint (the exercise's hint.txt).
    shown = re.sub(r"\nHint \(.*?\n\n", "\n", text.split("\n", 1)[1], flags=re.S).rstrip("\n").splitlines()
    std = run(["bash", CHECKER, "--std"], {"CXX": cxx}).stdout.strip()
    expect = ex.expect_plain if std == "c++2c" else ex.expect
    if not any(re.search(expect, l) for l in shown):
        sys.exit("%s with %s: the lines shown do not match expect%s.txt (%s)"
                 % (ex.stem, cxx, "_plain" if std == "c++2c" else "", expect))
    return shown


def full_output(cxx, flags, ex):
    """The compiler's whole output for the start file, normalized, and its line count."""
    cmd = [cxx, "-std=c++20", "-fsyntax-only", "-fdiagnostics-color=never", "-I", INCLUDE, "-I", HERE] + \
        flags + ["start.cpp"]
    result = run(cmd, cwd=ex.path)
    if result.returncode == 0:
        sys.exit("%s/start.cpp compiles with %s" % (ex.stem, cxx))
    lines = result.stdout.splitlines()
    shown = normalize(lines)
    if len(shown) > FULL_SHOWN_LINES:
        shown = shown[:FULL_SHOWN_LINES] + ["[... %d more lines]" % (len(lines) - FULL_SHOWN_LINES)]
    return shown, len(lines)


def block(key, label, text_lines, note=""):
    return ("<!-- begin output %s | %s -->\n**%s**%s:\n\n```text\n%s\n```\n<!-- end output -->\n"
            % (key, label, label, note, "\n".join(text_lines)))


BLOCK = re.compile(r"<!-- begin output (\S+) \| (.+?) -->\n.*?<!-- end output -->\n", re.S)

INTRO = """\
# Learn attention with cxmat

<!-- Generated by exercises/gen_learn.py from exercises/*/README.md and real compiler runs.
     Do not edit: regenerate. -->
<!-- compilers: %(labels)s -->

Attention is a few matrix products and a softmax, and almost every mistake in it is a **shape**
mistake: a product in the wrong order, a missing transpose, a mask written the wrong way round.
cxmat keeps the shape of every matrix in its type, so the compiler checks the shapes for you, and
it computes the numbers too (`constexpr`), so a `static_assert` can check them. The exercises in
`exercises/` use that: **an exercise is done when its file compiles.** Nothing has to run.

## How to work

1. Install a compiler and Boost's headers once (Debian: `apt-get install g++ libboost-dev`;
   `bash scripts/install-deps.sh` does it for the whole project).
2. Read `exercises/NN_name/README.md`: what to do and what the shapes should be.
3. Edit `exercises/NN_name/start.cpp` where it says `TODO`. The checks at the end stay as they are.
4. Run `bash scripts/exercise.sh NN` from the top folder. It compiles your file and says **PASS**,
   or shows the lines of the compiler's output that matter and a hint.
5. Stuck? `bash scripts/exercise.sh --full NN` shows the whole output; `solution.cpp` is next to
   your file.

The first check with a compiler takes a second or three more: the checker precompiles the cxmat
headers your file includes and keeps them in `~/.cache/cxmat/exercises` (`CXMAT_EXERCISE_CACHE`
names another folder). Later checks with the same includes reuse them: checking all 24 solutions
takes under half the time it takes without (`exercises/README.md`). Editing a cxmat header or
changing compiler makes new ones; `CXMAT_EXERCISE_PCH=0` checks without.

Declare results with `constexpr auto` (`constexpr auto Q = X * Wq;`): the shape then follows
from the product, and a shape mistake is reported by cxmat at the product. A declared shape that
does not match (`constexpr cxmat::matrix<double, 3, 2> Q = X * Wq;` with a 2 x 3 product) is
reported by C++ itself as a conversion error ("no viable conversion", "conversion from ... to
non-scalar type"), not by a cxmat sentence.

`CXX=clang++-19 bash scripts/exercise.sh NN` uses another compiler; `bash scripts/exercise.sh NN
my_try.cpp` checks another file against exercise NN. Each exercise is one small change, and each
builds on the one before. The numbers the checks compare with are computed without cxmat, by hand
or in exact arithmetic rounded once to float64 (`exercises/reference/answers.py`, which writes
`exercises/answers.hpp`).

## The names of the shapes

| name | what it counts | example |
|---|---|---|
| n | tokens in the sequence (self-attention: every token is a query and a key) | 3 in exercises 01-05 |
| d_model | numbers per token, the width of X | 4 |
| d_k | width of a query and of a key (they are compared, so it is one width) | 2 |
| d_v | width of a value, and so of a head's output | 3 |
| H | heads: H·d_k and H·d_v are the widths of all heads side by side | 2 in exercises 07-09 |
| L | queries, when they are not the keys' tokens (cross-attention) | 2 in exercises 10, 12 |
| S | keys and values (one value per key) | 3 in exercises 10, 12 |
| H_kv | key/value heads shared by groups of query heads (grouped-query attention) | 2 in exercise 13 |
| d_ff | the hidden width of the feed-forward block | 3 in exercise 16, 6 in exercise 17 |

The formulas, with their shapes:

| step | formula | shape |
|---|---|---|
| projections | Q = X·W^Q, K = X·W^K, V = X·W^V | n x d_k, n x d_k, n x d_v |
| scores | Q·Kᵀ / √d_k | L x S (n x n in self-attention) |
| weights | softmax of each row of the scores | L x S, each row sums to 1 |
| one head | weights·V | L x d_v |
| H heads | Concat(Z_0, ..., Z_{H-1}) | n x (H·d_v) |
| output | Concat(...)·W_o | n x d_out |
| layer norm | (x - mean) / √(var + eps)·γ + β, each row | n x d_model |
| feed-forward | relu(X·W1 + b1)·W2 + b2 | n x d_ff, then n x d_model |
| encoder layer (post-norm) | h = norm1(X + attention(X)), Y = norm2(h + ff(h)) | n x d_model |
| rotary positions | pair i of row p of Q and K turned by p·base^(-2i/d_k) | n x d_k |

A **named dimension** (`CXMAT_DIM(d_k, 2);`, exercise 06) carries its name in the type, so two
dimensions of the same size but different meaning never mix: `cxmat::shape_text(m)` prints
`2 x 2 (n x d_v)`, and the compiler's messages show `cxmat::dim<2, d_k_dim>`.

"""

READING = """\
## How to read an error

`scripts/exercise.sh` starts with what is wrong and where: cxmat's sentence or the compiler's
first error (a shape error's name with its rule's comment, or the words of the check that
failed), then `at <your file>:<line>:` with that line of your file, then the exercise's hint,
then, when a check `answers::close(yours, expected)` failed, the first element out of tolerance
and both values (the checker compiles the file again without its checks, as a program that prints
them), and last the compiler's lines that matter. A call to a `<cmath>` function such as `std::sqrt` or
`std::exp` gets its own sentence: they are not constexpr in C++20 (g++ evaluates them as an
extension, clang++ does not, so the checker refuses them on every compiler); use `cxmat::sqrt` and
`cxmat::exp`. Two kinds of failure come up in the exercises:

**A shape error** (exercises %(shape)s). The first line names the operation and the
rule it breaks, `cxmat::shape_error::<operation>_<rule>`, followed by the dimensions involved as
`cxmat::dim<size, name>`: `cxmat::anonymous` for a plain size, `d_k_dim` for a dimension named
d_k. `matmul_a_cols_must_equal_b_rows<cxmat::dim<3, cxmat::anonymous>, cxmat::dim<2, cxmat::anonymous>,
cxmat::dim<3, cxmat::anonymous>, cxmat::dim<2, cxmat::anonymous>>` reads "in matmul(a, b), a is 3 x 2 and b is
3 x 2, and a's 2 columns must equal b's 3 rows". The note
after it quotes the rule's declaration in cxmat, whose comment is a hint (`Q·Kᵀ is matmul(Q,
transpose(K))`). The checker shows it as `cxmat says:`. With clang++ 17 or later the checker
compiles with `-std=c++2c`, where cxmat states the same error as a sentence instead
(`cxmat says: matmul(A, B): A's columns (2) must equal B's rows (3). ...`; see the clang++ 19
lines below and [shapes.md](shapes.md)).

**A failed check** (exercises %(check)s). The file compiles as C++, but a `static_assert`
at the end finds a wrong number or shape: `static assertion failed: <the check's own words>`.
clang++ also prints the condition that was false (`due to requirement '...'`).

Every shape rule and the message it produces, for g++ and clang++, is in the
[gallery of shape errors](shape_errors.md); [shapes.md](shapes.md) explains named dimensions.

Here is the whole output of three start files, as each compiler prints it (paths shortened).
"""


# After the path: what two trained models attend to, the outputs of programs whose own tests
# (exercises/check_learn_output.py) write and check their blocks; the page keeps those blocks.
SORTER_KEY = ("sort-attention", "sort_attention")
SORTER = """\
## After the exercises: what a trained model attends to

Every matrix in the exercises was typed in by hand. [examples/sort_digits](../examples/sort_digits/README.md)
is a transformer trained with PyTorch to sort 8 digits (`31415926` → `11234569`): learned
embeddings and positions, then two encoder layers of exercise 17's kind (post-norm, relu) with
d_model = 32, H = 4 heads of d_k = 8 and d_ff = 64, then a linear map to the 10 digits at each
position. `scripts/cxmat_import.py` turns its weights into constexpr cxmat layers, and
`examples/sort_digits/sort_attention.cpp` runs them with `cxmat::trace_encoder_layer`
([show.md](show.md)), which keeps every intermediate: here, each head's weights.

The program first measures each head over 500 pseudo-random sequences: how peaked its rows are
(the mean of each row's largest weight; 1/8 would be uniform) and how often a row's largest weight
falls on a key that holds the digit the model outputs at that row's position (against how often a
key chosen at random holds it). Then it draws the weights for `31415926`, one heatmap per head and
their mean: row i is the query at position i, column j the key at position j, both labelled with
the input digit there. The first layer's weights are spread out, all near 1/8: its heatmaps use a
relative scale, each from its own smallest to its largest weight (the legend under each gives
the two ends), so that their pattern shows. The second layer's, on the fixed scale from 0 to 1,
are peaked, with a row's largest weight on the digit that its position outputs far more often
than on a key chosen at random: for each position, the second layer looks up the digit the model
writes there. From the top folder, after `cmake --preset gcc`:

    cmake --build build/gcc --target sort_attention && build/gcc/examples/sort_digits/sort_attention sort_attention.svg

prints the output below and writes the second layer's heads and their mean as an SVG picture,
`sort_attention.svg` (the panels in rows of two, about 900 pixels wide; the test
`docs.learn_md_shows_sort_attention` runs this command's program, compares its output with the
page and checks the picture).
"""

GENERATOR_KEY = ("adder-attention", "adder_attention")
GENERATOR = """\
## See a model generate

The sorter reads a whole sequence at once. A language model writes one token at a time, and
exercises 19-24 took such a step apart. [examples/lm_adder](../examples/lm_adder/README.md) is
one trained here: a LLaMA of 2 blocks (d_model = 48, 4 query heads and 2 key/value heads of
width 12, rotary positions, SwiGLU of width 96) that writes the sum after a prompt such as
`123+456=`, one character per token. `examples/lm_adder/adder_attention.cpp` runs it with
`cxmat::generate_recording`, which keeps the weights each head gave each earlier position while
the model computed: the prompt's 8 positions in one prefill, then one step per generated token
over the cache of keys and values. It prints one step's tensors with their shapes (the names are
the model's dimensions), then one heatmap per head and block and their mean: row i is the query at
position i, which chooses the character after it, column j the key at position j, both labelled
with the character there; the rows of `=`, `5`, `7` and `9` are the steps that wrote `5`, `7`,
`9` and the stop token `$`. From the top folder, after `cmake --preset gcc`:

    cmake --build build/gcc --target adder_attention && build/gcc/examples/lm_adder/adder_attention adder_attention.svg

prints the output below and writes the second block's heads and their mean as an SVG picture,
`adder_attention.svg` (panels in rows, at most 1000 pixels wide; the test
`docs.learn_md_shows_adder_attention` runs this command's program, compares its output with the
page and checks the picture).
"""

TRAINED = [(SORTER, SORTER_KEY), (GENERATOR, GENERATOR_KEY)]


def kind_of(ex):
    """How the start file fails, from its expected message."""
    if "shape_error::" in ex.expect:
        return "shape"
    if "static.assert" in ex.expect:
        return "check"
    return "constraint"


KIND_WORDS = {"shape": "a shape error", "check": "a failed check", "constraint": "a broken constraint"}


def render(exercises, labels, blocks):
    kinds = {k: ", ".join(ex.number for ex in exercises if kind_of(ex) == k) for k in KIND_WORDS}
    out = [INTRO % {"labels": " | ".join(labels)}, READING % kinds]
    by_number = {ex.number: ex for ex in exercises}
    for number, kind in FULL_OUTPUTS:
        ex = by_number[number]
        out.append("### %s: exercise %s (%s)\n" % (kind[0].upper() + kind[1:], number, ex.title))
        for label in labels:
            entry = blocks.get(("full-" + ex.stem, label))
            out.append(entry or "<!-- begin output full-%s | %s -->\n**%s**: missing, regenerate the page "
                       "with this compiler.\n<!-- end output -->\n" % (ex.stem, label, label))
    out.append("## The path\n")
    out.append("| # | exercise | the start file fails with |\n|---|---|---|")
    for ex in exercises:
        out.append("| %s | [%s](#%s) | %s |" % (ex.number, ex.title, anchor(ex), KIND_WORDS[kind_of(ex)]))
    out.append("")
    for ex in exercises:
        out.append("### %s · %s\n" % (ex.number, ex.title))
        out.append(re.sub(r"^#", "###", ex.body, flags=re.M) + "\n")
        out.append("Files: `exercises/%s/` (`start.cpp`, `hint.txt`, `solution.cpp`). "
                   "Check: `bash scripts/exercise.sh %d`. What the checker shows for the start file:\n"
                   % (ex.stem, int(ex.number)))
        for label in labels:
            entry = blocks.get((ex.stem, label))
            out.append(entry or "<!-- begin output %s | %s -->\n**%s**: missing, regenerate the page "
                       "with this compiler.\n<!-- end output -->\n" % (ex.stem, label, label))
    for text, key in TRAINED:
        out.append(text)
        out.append(blocks.get(key) or "<!-- begin output %s | %s -->\n**%s**: missing, run "
                   "exercises/check_learn_output.py with --update.\n<!-- end output -->\n" % (key + key[1:]))
    out.append(TEACHERS)
    out.append("| # | exercise | wrong answers tried |\n|---|---|---|")
    for ex in exercises:
        mistakes = read_mistakes(ex.path)
        out.append("| %s | [%s](#%s) | %d: %s |" % (ex.number, ex.title, anchor(ex), len(mistakes),
                                                  "; ".join(m.title.replace("|", "\\|") for m in mistakes)))
    out.append("\nWhat the test showed, per compiler:\n")
    for label in labels:
        entry = blocks.get(("mistakes", label))
        out.append(entry or "<!-- begin output mistakes | %s -->\n**%s**: missing, regenerate the page "
                   "with this compiler.\n<!-- end output -->\n" % (label, label))
    return "\n".join(out)


TEACHERS = """## For teachers: the wrong answers each exercise refuses

An exercise that a wrong answer passes teaches the wrong thing. Each exercise comes with the
wrong answers students plausibly write (`exercises/NN_name/mistakes.txt`: a change to the
solution and the message the checker must then show): transposes on the wrong side, operands
swapped, the scale forgotten, doubled or taken as √d_model, the softmax over the wrong axis,
heads in the wrong order or stacked by rows, the wrong H, W_o not transposed, masks inverted,
`std::` functions that are constexpr only as a GCC extension; in the decoder's exercises (19-24),
a causal mask shifted by one, hidden scores of 0 instead of -inf, off-by-one cache rows and
positions, rotary at the wrong position, a cache that re-appends the prompt, the temperature
after the softmax, weights declared as PyTorch stores them. The test `exercises.mistakes`
(`exercises/check_mistakes.py`) applies each to the solution, runs `scripts/exercise.sh` on it
and requires NOT YET, the listed message, the hint, and the line of the file the error is about
(for an error in the code, a line the mistake changed). The inputs are chosen so that none
passes by accident: Q·Kᵀ is not symmetric and no softmax saturates (exercise 14 takes worksheet
000's X divided by 10 and reverses the first row of each W^K for that reason). To add a mistake,
append it to the exercise's `mistakes.txt` (the format is in `check_mistakes.py`).

To write an exercise of your own, copy `exercises/template/` to a folder of yours and check it with
`bash scripts/exercise.sh <folder>` and `python3 exercises/check_mistakes.py --compiler g++ --folder
<folder>` ([exercises/README.md](../exercises/README.md#writing-your-own-exercise), "Writing your own
exercise"; the test `exercises.template` follows it). Its checks come from `exercises/check.hpp`:
`check::close(actual, expected, rel_tol, abs_tol)` and `CXMAT_EXPECT_NEAR(actual, expected, tol)`,
which print the element out of tolerance, both values and the tolerance when they fail.
"""


def anchor(ex):
    """GitHub's anchor for the heading '### NN · title'."""
    text = ("%s · %s" % (ex.number, ex.title)).lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--compiler", action="append", required=True, help="C++ compiler (repeatable)")
    parser.add_argument("--flags", default="", help="extra compiler flags, e.g. the build's CMAKE_CXX_FLAGS")
    parser.add_argument("--check", action="store_true", help="check docs/learn.md instead of writing it")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--checker-outputs", metavar="DIR",
                        help="read what the checker shows for each start file from DIR/NN.txt (saved by "
                             "exercises/check_checker.sh --save, with the one compiler given) instead of running it")
    args = parser.parse_args()
    flags = shlex.split(args.flags)
    if args.checker_outputs and len(args.compiler) != 1:
        sys.exit("--checker-outputs holds one compiler's outputs: give one --compiler")

    exercises = [Exercise(os.path.join(HERE, d)) for d in sorted(os.listdir(HERE))
                 if re.match(r"^\d\d_\w+$", d) and os.path.isdir(os.path.join(HERE, d))]
    compilers = [(cxx, compiler_label(cxx)) for cxx in args.compiler]
    labels = [label for _, label in compilers]

    stored, current = {}, None
    if args.check:
        if not os.path.exists(DOC):
            sys.exit("%s does not exist: generate it" % DOC)
        with open(DOC, encoding="utf-8") as f:
            current = f.read()
        m = re.search(r"<!-- compilers: (.*?) -->", current)
        labels = m.group(1).split(" | ") if m else []
        for b in BLOCK.finditer(current):
            stored[(b.group(1), b.group(2))] = b.group(0)
        if not any(label in labels for _, label in compilers):
            print("docs/learn.md has no section for %s (it has: %s): skipped"
                  % (", ".join(l for _, l in compilers), ", ".join(labels)))
            return SKIPPED
    elif os.path.exists(DOC):  # keep the trained model's block, which its own test writes
        with open(DOC, encoding="utf-8") as f:
            for b in BLOCK.finditer(f.read()):
                if (b.group(1), b.group(2)) in [key for _, key in TRAINED]:
                    stored[(b.group(1), b.group(2))] = b.group(0)

    by_number = {ex.number: ex for ex in exercises}
    jobs = []
    for cxx, label in compilers:
        if label not in labels:
            continue
        jobs += [("short", ex, cxx, label) for ex in exercises]
        jobs += [("full", by_number[n], cxx, label) for n, _ in FULL_OUTPUTS]
        jobs += [("mistakes", None, cxx, label)]

    def do(job):
        kind, ex, cxx, label = job
        if kind == "mistakes":
            return ("mistakes", label), block("mistakes", label, mistake_counts(cxx, flags, args.checker_outputs))
        if kind == "short":
            return (ex.stem, label), block(ex.stem, label, checker_lines(cxx, flags, ex, args.checker_outputs))
        shown, count = full_output(cxx, flags, ex)
        return ("full-" + ex.stem, label), block("full-" + ex.stem, label, shown, " (%d lines in all)" % count)

    blocks = dict(stored)
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for key, text in pool.map(do, jobs):
            blocks[key] = text

    page = render(exercises, labels, blocks)
    # exercises/README.md states how many wrong answers the test tries: the same count as the
    # page's table, from the mistakes.txt files.
    with open(README, encoding="utf-8") as f:
        readme = f.read()
    total = sum(len(read_mistakes(ex.path)) for ex in exercises)
    counted = README_COUNT.sub(lambda m: "%s%d%s" % (m.group(1), total, m.group(3)), readme, count=1)
    if not README_COUNT.search(readme):
        sys.exit("exercises/README.md no longer says 'for N mistakes': update gen_learn.py's README_COUNT")
    if args.check and counted != readme:
        print("exercises/README.md says %s mistakes, the mistakes.txt files hold %d: regenerate with "
              "exercises/gen_learn.py" % (README_COUNT.search(readme).group(2), total))
        return 1
    if not args.check and counted != readme:
        with open(README, "w", encoding="utf-8") as f:
            f.write(counted)
    if args.check:
        if page == current:
            print("docs/learn.md is current for %s (%d exercises)" % (", ".join(labels), len(exercises)))
            return 0
        sys.stdout.writelines(difflib.unified_diff(current.splitlines(True), page.splitlines(True),
                                                   "docs/learn.md", "regenerated"))
        print("\ndocs/learn.md is stale: regenerate it with exercises/gen_learn.py and every compiler")
        return 1
    with open(DOC, "w", encoding="utf-8") as f:
        f.write(page)
    print("wrote docs/learn.md: %d exercises, %s" % (len(exercises), ", ".join(labels)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
