#!/usr/bin/env python3
"""What the adder costs the compiler: the smallest constexpr budget at which a generation of N
tokens compiles, per compiler, found by bisection as benchmarks/compile_time/run.py does.

    compile_cost.py BUILD_DIR [--compiler g++ --compiler clang++-14 ...] [--tokens 1,5]

BUILD_DIR is a configured build tree that has made the adder's header
(examples/lm_adder/generated/adder_model.hpp: build any lm_adder target). For each compiler and
N, one translation unit whose only costly constant expression is

    constexpr auto out = cxmat::generate<N>(adder, "999+999=" as 8 tokens, greedy, stop at '$');

is compiled with -fsyntax-only, C++20 and the project's warnings, at the default limits (time and
peak memory) and under a bisected -fconstexpr-steps (Clang) or -fconstexpr-ops-limit (GCC), to
within 0.5 %. The prompt's prefill and the first token cost the N = 1 figure; each further token
(its step through both blocks at a later position, and its choice) costs the difference divided
by the tokens. Prints a Markdown table for the README.
"""
import argparse
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
DEFAULTS = {"gcc": ("-fconstexpr-ops-limit", 1 << 25), "clang": ("-fconstexpr-steps", 1 << 20)}
WARNINGS = ["-Wall", "-Wextra", "-Wpedantic", "-Wshadow", "-Wconversion", "-Wsign-conversion", "-Wold-style-cast"]
SOURCE = """#include "adder.hpp"
constexpr auto prompt = lm_adder::tokens_of<8>("999+999=");
constexpr auto out = cxmat::generate<{n}>(lm_adder::adder, prompt, cxmat::greedy, cxmat::stop_token{{lm_adder::stop}});
static_assert(out(0, {n} - 1) == {last});
int main() {{ return 0; }}
"""
ANSWER = [1, 9, 9, 8, 12]  # 999 + 999 = 1998, then the stop token


def family(cxx):
    return "clang" if "clang" in os.path.basename(cxx) else "gcc"


def compile_once(cxx, src, generated, extra=()):
    cmd = ["/usr/bin/time", "-f", "%e %M", cxx, "-std=c++20", "-fsyntax-only", *WARNINGS, "-Werror",
           f"-I{ROOT / 'include'}", f"-I{generated}", f"-I{HERE}", *extra, str(src)]
    p = subprocess.run(cmd, capture_output=True, text=True)
    seconds, kb = p.stderr.strip().splitlines()[-1].split()
    ok = p.returncode == 0
    if not ok and not re.search(r"constexpr|constant", p.stderr):
        sys.exit(f"{cxx} failed for another reason than a constexpr limit:\n{p.stderr[-3000:]}")
    return ok, float(seconds), int(kb) // 1024


def bisect(cxx, src, generated, precision):
    flag, default = DEFAULTS[family(cxx)]
    lo, hi = 1, None
    cand = default
    while hi is None:  # a passing upper bound
        if compile_once(cxx, src, generated, [f"{flag}={cand}"])[0]:
            hi = cand
        else:
            lo, cand = cand, cand * 4
    while hi - lo > max(1, int(hi * precision)):
        mid = (lo + hi) // 2
        if compile_once(cxx, src, generated, [f"{flag}={mid}"])[0]:
            hi = mid
        else:
            lo = mid
    return hi


def main():
    p = argparse.ArgumentParser()
    p.add_argument("build")
    p.add_argument("--compiler", action="append")
    p.add_argument("--tokens", default="1,5")
    p.add_argument("--precision", type=float, default=0.005)
    a = p.parse_args()
    compilers = a.compiler or ["g++", "clang++-14", "clang++-19"]
    generated = pathlib.Path(a.build).resolve() / "examples" / "lm_adder" / "generated"
    if not (generated / "adder_model.hpp").exists():
        sys.exit(f"{generated / 'adder_model.hpp'} is missing: build an lm_adder target first")
    counts = [int(n) for n in a.tokens.split(",")]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for cxx in compilers:
            version = subprocess.run([cxx, "--version"], capture_output=True, text=True).stdout.splitlines()[0]
            needs = {}
            for n in counts:
                src = pathlib.Path(tmp) / f"generate_{n}.cpp"
                src.write_text(SOURCE.format(n=n, last=ANSWER[n - 1]))
                started = time.time()
                ok, seconds, mb = compile_once(cxx, src, generated)
                needs[n] = bisect(cxx, src, generated, a.precision)
                flag, default = DEFAULTS[family(cxx)]
                print(f"{cxx} N={n}: {'holds' if ok else 'FAILS'} at the default limit ({seconds:.1f} s, {mb} MB); "
                      f"needs {flag}={needs[n]} ({100 * needs[n] / default:.1f} % of the default); "
                      f"{time.time() - started:.0f} s to measure", file=sys.stderr, flush=True)
                rows.append((cxx, version, n, ok, seconds, mb, needs[n], default, flag))
            if len(counts) > 1:
                first, last = counts[0], counts[-1]
                per_token = (needs[last] - needs[first]) / (last - first)
                print(f"{cxx}: prefill and first token {needs[first]}, each further token {per_token:.0f}",
                      file=sys.stderr, flush=True)
    print("| compiler | tokens generated | holds at the default limit | needs | share of the default | "
          "time (s) | memory (MB) |")
    print("|---|---:|---|---:|---:|---:|---:|")
    for cxx, version, n, ok, seconds, mb, need, default, flag in rows:
        print(f"| {cxx} | {n} | {'yes' if ok else 'no'} | {flag}={need} | {100 * need / default:.1f} % | "
              f"{seconds:.1f} | {mb} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
