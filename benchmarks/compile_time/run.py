#!/usr/bin/env python3
"""Compile-time cost of one multi-head attention layer, evaluated by the compiler.

Compiles layer.cpp (one `constexpr auto y = multi_head_attention<H>(X, Wq, Wk, Wv, Wo);`) at
growing n = d on each compiler with default constexpr limits, and records whether it compiles,
which limit stops it if not, the compile time (median of --repeat runs) and the peak memory
(/usr/bin/time %M). inputs_only.cpp (same headers and inputs, no layer) is the baseline. At one
size (--piece-size) it also times the kernels alone (piece_*.cpp), and it finds by bisection
how many Clang steps (-fconstexpr-steps) and GCC operations (-fconstexpr-ops-limit) each
evaluation needs. Writes a markdown report (results.md beside this script by default) and the
raw numbers as JSON in the build directory.

One command, from anywhere:  python3 benchmarks/compile_time/run.py
Before include/cxmat/math.hpp is usable:  ... run.py --stub-math DIR  (DIR/cxmat/math.hpp is
put ahead of the repository's headers; the report says that a stub was used).
Quick look:  run.py --sizes 8,16,32 --repeat 1 --no-bisect --no-pieces --compilers g++
"""

import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
INCLUDE = os.path.join(REPO, "include")
WARNINGS = ["-Wall", "-Wextra", "-Wpedantic", "-Wshadow", "-Wconversion", "-Wsign-conversion",
            "-Wold-style-cast"]
DEFAULT_LIMITS = {"clang": ("-fconstexpr-steps", 1048576), "gcc": ("-fconstexpr-ops-limit", 1 << 25)}
PIECES = [
    # (source, what it evaluates, how many of it one layer does: a function of H)
    ("piece_matmul.cpp", "matmul X·Wq (n×d · d×d)", lambda h: 4),
    ("piece_attention.cpp", "multi_head_attention_qkv<H>(Q, K, V): all heads, no projections",
     lambda h: 1),
    ("piece_softmax.cpp", "softmax_rows on H·n rows of n scores (the layer's softmax work)", lambda h: 1),
    ("piece_exp.cpp", "H·n·n calls of cxmat::exp (the layer's exp calls)", lambda h: 1),
]

# Transformer encoders (encoder.cpp; --encoder): (what, n, d_model, H, d_ff, layers). Each is one
# constant expression; the same file with CXMAT_BENCH_INPUTS_ONLY has the weights and no layer.
ENCODERS = [
    ("one encoder layer", 32, 64, 8, 256, 1),
    ("2-layer encoder with final norm", 16, 32, 4, 128, 2),
]

ENCODER_PARTS = ["self-attention `self_attn(x)`", "feed-forward `feed_forward(x)`", "one LayerNorm `norm1(x)`"]


def encoder_flags(n, dm, h, dff, layers):
    return [f"-DCXMAT_BENCH_D={dm}", f"-DCXMAT_BENCH_HEADS={h}", f"-DCXMAT_BENCH_DFF={dff}",
            f"-DCXMAT_BENCH_LAYERS={layers}"]


# Other attention forms (path.cpp, CXMAT_BENCH_PATH = index), each a whole layer's worth of
# attention at the piece size: a form whose constant path misses the cheap kernels is an outlier.
PATHS = [
    "layer with mask(allowed)",
    "layer, causal",
    "layer with bias(B)",
    "per-head form (Hana tuple of H heads), then W_o",
    "grouped-query cross-attention, H query heads on H/2 key/value heads, W_o",
    "batched layer, one item",
    "layer with its weights (multi_head_attention_with_weights)",
]


def family(cxx):
    out = subprocess.run([cxx, "--version"], capture_output=True, text=True).stdout
    return ("clang" if "clang" in out else "gcc"), out.splitlines()[0].strip()


def limit_message(stderr):
    """Which constexpr limit (if any) a failed compile reports."""
    checks = [
        ("maximum step limit", "clang step limit (-fconstexpr-steps)"),
        ("operation count exceeds limit", "gcc ops limit (-fconstexpr-ops-limit)"),
        ("loop iteration count exceeds limit", "gcc loop limit (-fconstexpr-loop-limit)"),
        ("exceeded maximum depth", "depth limit (-fconstexpr-depth)"),
        ("maximum depth", "depth limit (-fconstexpr-depth)"),
        ("exceeds maximum", "depth limit (-fconstexpr-depth)"),
    ]
    for needle, name in checks:
        if needle in stderr:
            return name
    first = next((ln for ln in stderr.splitlines() if "error" in ln), "unknown error")
    return "other: " + first.strip()[:120]


class Bench:
    def __init__(self, args):
        self.args = args
        self.build = args.build_dir or tempfile.mkdtemp(prefix="cxmat_compile_time_")
        os.makedirs(self.build, exist_ok=True)
        self.pre_includes = [args.stub_math] if args.stub_math else []
        self.last_pass = None  # (seconds, MB) of the last compile that held, during bisection
        # Others edit the headers while a run takes minutes: measure one copy of them, taken now.
        self.include = os.path.join(self.build, "include_snapshot")
        shutil.rmtree(self.include, ignore_errors=True)
        shutil.copytree(INCLUDE, self.include)

    def command(self, cxx, src, n, extra=(), obj=None):
        obj = obj or os.path.join(self.build, "out.o")
        heads = self.args.heads
        if any(e.startswith("-DCXMAT_BENCH_HEADS=") for e in extra):  # an encoder's own H
            heads = None
        cmd = [cxx, "-std=c++20", "-O2", *WARNINGS]
        for inc in self.pre_includes:
            cmd += ["-I", inc]
        cmd += ["-I", self.include, f"-DCXMAT_BENCH_N={n}"]
        cmd += [f"-DCXMAT_BENCH_HEADS={heads}"] if heads else []
        cmd += [*extra, "-c", os.path.join(HERE, src), "-o", obj]
        return cmd

    def compile_once(self, cxx, src, n, extra=(), obj=None):
        """One compile under /usr/bin/time: (ok, seconds, MB, stderr)."""
        tfile = os.path.join(self.build, "time.txt")
        cmd = ["/usr/bin/time", "-f", "%e %M", "-o", tfile] + self.command(cxx, src, n, extra, obj)
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=self.args.timeout)
        except subprocess.TimeoutExpired:
            return False, float(self.args.timeout), float("nan"), "timeout"
        with open(tfile) as f:
            fields = f.read().split()
        seconds, kb = float(fields[-2]), float(fields[-1])
        return p.returncode == 0, seconds, kb / 1024.0, p.stderr

    def measure(self, cxx, src, n, extra=(), repeat=None, obj=None):
        repeat = repeat or self.args.repeat
        runs = []
        for _ in range(repeat):
            load = os.getloadavg()[0]
            ok, s, mb, err = self.compile_once(cxx, src, n, extra, obj)
            runs.append({"ok": ok, "seconds": s, "mb": mb, "load": load})
        r = {
            "ok": all(x["ok"] for x in runs),
            "seconds": statistics.median(x["seconds"] for x in runs),
            "seconds_all": [x["seconds"] for x in runs],
            "mb": statistics.median(x["mb"] for x in runs),
            "load": statistics.median(x["load"] for x in runs),
            "limit": None if runs[-1]["ok"] else limit_message(err),
            "warnings": [ln for ln in err.splitlines() if "warning:" in ln][:5],
        }
        if any(x["ok"] for x in runs) and not r["ok"]:
            r["limit"] = "flaky (some runs failed)"
        return r

    def bisect(self, cxx, fam, src, n, extra=()):
        """Smallest limit (within --bisect-precision) at which the whole TU compiles, or None.
        Every other constant expression of a TU (its inputs) is much cheaper than `y`, so this
        is y's cost; run.py reports the inputs' own figure beside it to show that."""
        flag, default = DEFAULT_LIMITS[fam]
        self.last_pass = None

        def holds(limit):
            ok, s, mb, err = self.compile_once(cxx, src, n, [*extra, f"{flag}={limit}"])
            if ok:
                self.last_pass = (s, mb)
            if err == "timeout":
                raise TimeoutError
            # GCC sometimes reports a limit hit only as "non-constant condition": any error that
            # is about constant evaluation counts as "does not hold", anything else is a bug.
            if not ok and limit_message(err).startswith("other") and "constant" not in err:
                raise RuntimeError(f"{src} n={n} {cxx} {flag}={limit}: {limit_message(err)}")
            return ok, s

        cap = 1 << 34
        try:
            ok, _ = holds(default)
            lo, hi = (None, default) if ok else (default, None)
            while lo is None:
                cand = max(hi // 4, 1)
                if holds(cand)[0]:
                    hi = cand
                    if cand == 1:
                        return 1
                else:
                    lo = cand
            while hi is None:
                cand = lo * 4
                if cand > cap:
                    return None
                if holds(cand)[0]:
                    hi = cand
                else:
                    lo = cand
            while (hi - lo) > max(1, hi * self.args.bisect_precision):
                mid = (lo + hi) // 2
                if holds(mid)[0]:
                    hi = mid
                else:
                    lo = mid
            return hi
        except TimeoutError:
            return None

    def time_trace(self, cxx, src, n):
        """Clang -ftime-trace of one compile; returns (trace path, seconds in constant
        evaluation as the trace reports it, frontend seconds)."""
        obj = os.path.join(self.build, f"trace_{os.path.basename(cxx)}_n{n}_{src[:-4]}.o")
        self.compile_once(cxx, src, n, ["-ftime-trace"], obj)
        trace = obj[:-2] + ".json"
        if not os.path.exists(trace):
            return None, None, None
        with open(trace) as f:
            events = json.load(f).get("traceEvents", [])
        totals = {e["name"]: e.get("dur", 0) / 1e6 for e in events if e.get("name", "").startswith("Total ")}
        evaluate = sum(v for k, v in totals.items() if k.startswith("Total Evaluate"))
        return trace, evaluate, totals.get("Total Frontend")


def fmt_s(x):
    return "—" if x is None else f"{x:.2f}"


def fmt_mb(x):
    return "—" if x is None or x != x else f"{x:.0f}"


def fmt_count(x):
    if x is None:
        return "—"
    return f"{x / 1e6:.2f} M" if x >= 1e6 else f"{x / 1e3:.1f} k"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--compilers", default="g++,clang++-19,clang++-14",
                    help="comma-separated; missing ones are skipped (default: %(default)s)")
    ap.add_argument("--sizes", default="8,16,24,32,40,48,56,64", help="n = d values (default: %(default)s)")
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--repeat", type=int, default=3, help="runs per point; medians are reported")
    ap.add_argument("--piece-size", type=int, default=32)
    ap.add_argument("--no-pieces", action="store_true")
    ap.add_argument("--no-paths", action="store_true", help="skip the other attention forms (path.cpp)")
    ap.add_argument("--no-bisect", action="store_true")
    ap.add_argument("--bisect-compilers", default="clang++-19,g++",
                    help="compilers whose step/op counts are bisected (default: %(default)s)")
    ap.add_argument("--bisect-precision", type=float, default=0.002,
                    help="relative width at which bisection stops (default: %(default)s)")
    ap.add_argument("--time-trace", action="store_true",
                    help="also compile the layer with clang's -ftime-trace; traces stay in the build dir")
    ap.add_argument("--stub-math", metavar="DIR",
                    help="include DIR ahead of the repository (DIR/cxmat/math.hpp replaces cxmat's)")
    ap.add_argument("--build-dir", help="where objects, traces and results.json go (default: a temp dir)")
    ap.add_argument("--output", default=os.path.join(HERE, "results.md"))
    ap.add_argument("--encoder", action="store_true",
                    help="measure only the transformer encoders (encoder.cpp) and write --encoder-output")
    ap.add_argument("--encoder-output", default=os.path.join(HERE, "encoder_results.md"))
    ap.add_argument("--timeout", type=int, default=600, help="seconds per compile")
    args = ap.parse_args()

    bench = Bench(args)
    sizes = [int(s) for s in args.sizes.split(",")]
    compilers = []
    for c in args.compilers.split(","):
        if shutil.which(c):
            compilers.append((c, *family(c)))
        else:
            print(f"skipping {c}: not found", file=sys.stderr)
    if not os.path.exists(os.path.join(INCLUDE, "cxmat", "math.hpp")) and not args.stub_math:
        sys.exit("include/cxmat/math.hpp does not exist yet: pass --stub-math DIR")
    def git(*a):
        return subprocess.run(["git", "--no-optional-locks", "-C", REPO, *a], capture_output=True, text=True).stdout.strip()
    changed = [ln for ln in git("status", "--porcelain", "--", "include").splitlines() if ln]
    tree = f"commit {git('rev-parse', '--short', 'HEAD') or '?'}" + \
        (f" plus {len(changed)} uncommitted changes under include/" if changed else "")
    math_kind = "stub (--stub-math; exp is a throwaway slow loop, numbers are not final)" \
        if args.stub_math else "include/cxmat/math.hpp of the work tree"

    if args.encoder:
        run_encoders(args, bench, compilers, math_kind, tree)
        return
    ok, _, _, err = bench.compile_once(compilers[0][0], "layer.cpp", 8)
    if not ok:
        sys.exit(f"layer.cpp does not compile at n = 8 with {compilers[0][0]}:\n{err}")
    results = {"layer": {}, "baseline": {}, "raised": {}, "pieces": {}, "piece_baseline": {}, "counts": {},
               "piece_counts": {}, "traces": {}, "paths": {}, "path_counts": {}}
    started = time.time()

    def log(msg):
        print(f"[{time.time() - started:6.0f} s] {msg}", flush=True)

    for cxx, fam, version in compilers:
        for n in sizes:
            r = bench.measure(cxx, "layer.cpp", n)
            b = bench.measure(cxx, "inputs_only.cpp", n)
            results["layer"][f"{cxx}/{n}"] = r
            results["baseline"][f"{cxx}/{n}"] = b
            log(f"{cxx} n={n}: layer {'holds' if r['ok'] else 'FAILS: ' + str(r['limit'])} "
                f"{r['seconds']:.2f} s {r['mb']:.0f} MB; inputs only {b['seconds']:.2f} s")
            for w in r["warnings"]:
                log("  warning: " + w)

    bisect_set = [] if args.no_bisect else [c for c in compilers if c[0] in args.bisect_compilers.split(",")]
    for cxx, fam, _ in bisect_set:
        for n in sizes:
            count = bench.bisect(cxx, fam, "layer.cpp", n)
            results["counts"][f"{cxx}/{n}"] = count
            results["raised"][f"{cxx}/{n}"] = bench.last_pass if count else None
            log(f"{cxx} n={n}: layer needs {count} ({DEFAULT_LIMITS[fam][0]})")

    if not args.no_pieces:
        n = args.piece_size
        # The pieces exist for their bisected counts; a quick look (--no-bisect) skips them.
        for cxx, fam, _ in compilers if bisect_set else []:
            results["piece_baseline"][cxx] = bench.measure(cxx, "intermediates_only.cpp", n)
            for src, _, _ in PIECES:
                results["pieces"][f"{cxx}/{src}"] = bench.measure(cxx, src, n)
                log(f"{cxx} n={n}: {src} {results['pieces'][f'{cxx}/{src}']['seconds']:.2f} s")
        for cxx, fam, _ in bisect_set:
            for src in [p[0] for p in PIECES] + ["inputs_only.cpp", "intermediates_only.cpp"]:
                results["piece_counts"][f"{cxx}/{src}"] = bench.bisect(cxx, fam, src, n)
                log(f"{cxx} n={n}: {src} needs {results['piece_counts'][f'{cxx}/{src}']}")
    if not args.no_paths:
        n = args.piece_size
        for cxx, fam, _ in compilers:
            for i, _ in enumerate(PATHS):
                r = bench.measure(cxx, "path.cpp", n, [f"-DCXMAT_BENCH_PATH={i}"])
                results["paths"][f"{cxx}/{i}"] = r
                log(f"{cxx} n={n}: path {i} {'holds' if r['ok'] else 'FAILS'} {r['seconds']:.2f} s")
        for cxx, fam, _ in bisect_set:
            for i, _ in enumerate(PATHS):
                results["path_counts"][f"{cxx}/{i}"] = bench.bisect(cxx, fam, "path.cpp", n,
                                                                    [f"-DCXMAT_BENCH_PATH={i}"])
                log(f"{cxx} n={n}: path {i} needs {results['path_counts'][f'{cxx}/{i}']}")

    if args.time_trace:
        for cxx, fam, _ in compilers:
            if fam != "clang":
                continue
            for n in sizes:
                results["traces"][f"{cxx}/{n}"] = bench.time_trace(cxx, "layer.cpp", n)
                log(f"{cxx} n={n}: time trace {results['traces'][f'{cxx}/{n}']}")

    with open(os.path.join(bench.build, "results.json"), "w") as f:
        json.dump({"args": vars(args), "results": results}, f, indent=1, default=str)
    write_report(args, compilers, sizes, results, math_kind, tree, time.time() - started)
    log(f"wrote {args.output}; raw numbers in {os.path.join(bench.build, 'results.json')}")


def run_encoders(args, bench, compilers, math_kind, tree):
    """Holds / seconds / MB of each encoder on every compiler under default limits, and (for
    --bisect-compilers, and clang++-14 too) the steps or operations it needs; the same file with
    the weights alone (CXMAT_BENCH_INPUTS_ONLY) is the baseline of the compile time."""
    started = time.time()
    rows = []
    bisect_set = set() if args.no_bisect else set(args.bisect_compilers.split(",")) | {"clang++-14"}
    for what, n, dm, h, dff, layers in ENCODERS:
        flags = encoder_flags(n, dm, h, dff, layers)
        for cxx, fam, _ in compilers:
            r = bench.measure(cxx, "encoder.cpp", n, flags)
            need = bench.bisect(cxx, fam, "encoder.cpp", n, flags) if cxx in bisect_set else None
            base = bench.measure(cxx, "encoder.cpp", n, [*flags, "-DCXMAT_BENCH_INPUTS_ONLY"])
            base["needs"] = bench.bisect(cxx, fam, "encoder.cpp", n, [*flags, "-DCXMAT_BENCH_INPUTS_ONLY"]) \
                if cxx in bisect_set else None
            rows.append((what, n, dm, h, dff, layers, cxx, fam, r, need, base))
            print(f"[{time.time() - started:6.0f} s] {what} {cxx}: {'holds' if r['ok'] else r['limit']} "
                  f"{r['seconds']:.2f} s {r['mb']:.0f} MB; needs {need}; weights alone {base['seconds']:.2f} s", flush=True)
    # Where one layer's cost goes: its parts, each alone in one constant expression, on the
    # compilers whose counts are bisected (--bisect-compilers).
    parts = {}
    one = ENCODERS[0]
    for cxx, fam, _ in compilers:
        if args.no_bisect or cxx not in args.bisect_compilers.split(","):
            continue
        for i, part in enumerate(ENCODER_PARTS, start=1):
            parts[(cxx, part)] = bench.bisect(cxx, fam, "encoder.cpp", one[1],
                                              [*encoder_flags(*one[1:]), f"-DCXMAT_BENCH_PART={i}"])
            print(f"[{time.time() - started:6.0f} s] {one[0]} {cxx}: {part} needs {parts[(cxx, part)]}", flush=True)
    with open(os.path.join(bench.build, "encoder_results.json"), "w") as f:
        json.dump({"rows": rows, "parts": {f"{c}|{p}": v for (c, p), v in parts.items()}}, f, indent=1, default=str)
    L = ["# Compile-time cost of transformer encoder layers\n",
         "Written by `benchmarks/compile_time/run.py --encoder` (see docs/compile_time.md for the method). "
         "Do not edit by hand; re-run the script.\n",
         f"- date: {time.strftime('%Y-%m-%d %H:%M')} UTC{time.strftime('%z')}; {os.cpu_count()} cores, "
         f"{platform.machine()}; script run took {(time.time() - started) / 60:.1f} min",
         f"- headers: {tree} (copied at the start of the run and measured as copied)",
         f"- math: {math_kind}",
         "- flags: `-std=c++20 -O2 -c` and the project's warnings; default constexpr limits "
         "(Clang `-fconstexpr-steps` 1048576, GCC `-fconstexpr-ops-limit` 2^25)",
         f"- each time and memory figure is the median of {args.repeat} runs, one compile at a time, "
         "on a shared machine (1-minute load average shown); counts do not depend on load"]
    for cxx, _, version in compilers:
        L.append(f"- `{cxx}`: {version}")
    L.append("")
    L.append("`encoder_layer<double, d_model, H, d_ff>` (ReLU, post-norm) called on an n x d_model "
             "input, or `transformer_encoder<that layer, 2>` with its final norm: one constant "
             "expression (encoder.cpp). 'needs' is the bisected limit at which it still evaluates "
             f"(within {args.bisect_precision * 100:.1f} %), 'share' that of the default limit; "
             "'weights alone' is the same file without the layer (its needs: generating the weights, "
             "which is a separate constant expression; its compile time).\n")
    L.append("| encoder | n | d_model | H | d_ff | compiler | holds | seconds | MB | needs | share of default | "
             "weights alone needs | weights alone s | load |")
    L.append("|---|---:|---:|---:|---:|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for what, n, dm, h, dff, layers, cxx, fam, r, need, base in rows:
        unit = " steps" if fam == "clang" else " ops"
        share = f"{100 * need / DEFAULT_LIMITS[fam][1]:.1f} %" if need else "—"
        L.append(f"| {what} | {n} | {dm} | {h} | {dff} | {cxx} | {'yes' if r['ok'] else '**no** ' + str(r['limit'])} | "
                 f"{fmt_s(r['seconds'])} | {fmt_mb(r['mb'])} | {fmt_count(need) + unit if need else '—'} | {share} | "
                 f"{fmt_count(base['needs']) + unit if base['needs'] else '—'} | {fmt_s(base['seconds'])} | {r['load']:.1f} |")
    if parts:
        L.append("")
        L.append(f"### Where the cost goes: the parts of the {one[0]} (n = {one[1]}, d_model = {one[2]}, "
                 f"H = {one[3]}, d_ff = {one[4]})\n")
        L.append("Each part alone in one constant expression (encoder.cpp with CXMAT_BENCH_PART), on the "
                 "layer's input; shares are of the whole layer's needs. The layer is the self-attention, "
                 "the feed-forward, two LayerNorms and two residual additions. A file's needs are those of "
                 "its costliest constant expression: a part that needs no more than the weights alone "
                 "(table above) costs at most that, shown as ≤.\n")
        bis = sorted({c for c, _ in parts}, key=lambda c: [x[0] for x in compilers].index(c))
        L.append("| part |" + "".join(f" {c} needs | share |" for c in bis))
        L.append("|---|" + "---:|---:|" * len(bis))
        whole = {r[6]: r[9] for r in rows if r[0] == one[0]}
        weights = {r[6]: r[10]["needs"] for r in rows if r[0] == one[0]}
        for part in ENCODER_PARTS:
            row = f"| {part} |"
            for c in bis:
                v = parts[(c, part)]
                w = weights.get(c) or 0
                le = "≤ " if v and v <= w * (1 + 2 * args.bisect_precision) else ""
                row += f" {le}{fmt_count(v)} | {le}{100 * v / whole[c]:.0f} % |" if v and whole.get(c) else " — | — |"
            L.append(row)
    text = "\n".join(L) + "\n"
    for cxx, _, _ in compilers:
        text = text.replace(cxx, os.path.basename(cxx))
    with open(args.encoder_output, "w") as f:
        f.write(text)
    print(f"wrote {args.encoder_output}", flush=True)


def write_report(args, compilers, sizes, results, math_kind, tree, elapsed):
    H = args.heads
    L = []
    L.append("# Compile-time cost of one multi-head attention layer\n")
    L.append("Written by `benchmarks/compile_time/run.py` (see docs/compile_time.md for the method). "
             "Do not edit by hand; re-run the script.\n")
    L.append(f"- date: {time.strftime('%Y-%m-%d %H:%M')} UTC{time.strftime('%z')}; "
             f"{os.cpu_count()} cores, {platform.machine()}; script run took {elapsed / 60:.1f} min")
    L.append(f"- headers: {tree} (copied at the start of the run and measured as copied)")
    L.append(f"- math: {math_kind}")
    L.append(f"- flags: `-std=c++20 -O2 -c` and the project's warnings; default constexpr limits "
             f"(Clang `-fconstexpr-steps` 1048576, GCC `-fconstexpr-ops-limit` 2^25)")
    L.append(f"- each time and memory figure is the median of {args.repeat} runs, one compile at a time; the "
             f"machine is shared, so the 1-minute load average during the runs is shown")
    for cxx, _, version in compilers:
        L.append(f"- `{cxx}`: {version}")
    L.append("")

    L.append(f"## One layer: `multi_head_attention<{H}>(X, Wq, Wk, Wv, Wo)`, n = d\n")
    L.append("'holds' means the layer compiles under default limits. 'needs' is the bisected limit "
             "at which the layer's constant expression still evaluates (Clang: steps, GCC: operations; "
             f"within {args.bisect_precision * 100:.1f} %). 'inputs only' compiles the same headers and "
             "generated inputs without the layer.\n")
    L.append("| n = d | compiler | holds | stopped by | seconds | MB | inputs only s | inputs only MB | "
             "needs | s, MB with limit = needs | load |")
    L.append("|---:|---|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for n in sizes:
        for cxx, fam, _ in compilers:
            key = f"{cxx}/{n}"
            r, b = results["layer"].get(key), results["baseline"].get(key)
            if r is None:
                continue
            count = results["counts"].get(key)
            unit = " steps" if fam == "clang" else " ops"
            raised = results["raised"].get(key)
            raised = f"{raised[0]:.2f} s, {raised[1]:.0f} MB" if raised and not r["ok"] else ""
            L.append(f"| {n} | {cxx} | {'yes' if r['ok'] else '**no**'} | {r['limit'] or ''} | "
                     f"{fmt_s(r['seconds'])} | {fmt_mb(r['mb'])} | {fmt_s(b['seconds'])} | {fmt_mb(b['mb'])} | "
                     f"{fmt_count(count) + unit if count else '—'} | {raised} | {r['load']:.1f} |")
    L.append("")
    L.append("Largest n = d that holds under default limits:\n")
    for cxx, _, _ in compilers:
        held = [n for n in sizes if results["layer"].get(f"{cxx}/{n}", {}).get("ok")]
        L.append(f"- `{cxx}`: {max(held) if held else 'none'} "
                 f"(target 32: {'met' if 32 in held else 'missed' if 32 in sizes else 'not measured'})")
    L.append("")

    if results["pieces"]:
        n = args.piece_size
        L.append(f"## Where the cost goes at n = d = {n}, H = {H}\n")
        L.append("Each piece is one constant expression on data like what it sees inside the layer; "
                 "its inputs are separate, cheaper constant expressions. 'per layer' is how many of the "
                 "piece one layer evaluates. Seconds are whole compiles of the piece's file (median); "
                 "the inputs' rows give the compile of the inputs alone.\n")
        bis = [c for c in compilers if any(k.startswith(c[0] + "/") for k in results["piece_counts"])]
        head = "| piece | per layer |" + "".join(f" {c[0]} needs |" for c in bis) + \
               "".join(f" {c[0]} s |" for c in compilers)
        L.append(head)
        L.append("|---|---:|" + "---:|" * (len(bis) + len(compilers)))
        for src, what, per in PIECES:
            row = f"| {what} | {per(H)} |"
            for cxx, fam, _ in bis:
                c = results["piece_counts"].get(f"{cxx}/{src}")
                row += f" {fmt_count(c)} |"
            for cxx, _, _ in compilers:
                p = results["pieces"].get(f"{cxx}/{src}")
                row += f" {fmt_s(p['seconds'])} |" if p and p["ok"] else " fails |"
            L.append(row)
        for src, what in [("inputs_only.cpp", "inputs of matmul and the layer (inputs_only.cpp)"),
                          ("intermediates_only.cpp", "inputs of the other pieces (intermediates_only.cpp)")]:
            row = f"| {what} | — |"
            for cxx, fam, _ in bis:
                row += f" {fmt_count(results['piece_counts'].get(f'{cxx}/{src}'))} |"
            for cxx, _, _ in compilers:
                base = results["baseline"].get(f"{cxx}/{n}") if src == "inputs_only.cpp" \
                    else results["piece_baseline"].get(cxx)
                row += f" {fmt_s(base['seconds']) if base else '—'} |"
            L.append(row)
        L.append("")
        L.append("A file's 'needs' is that of its costliest constant expression; the inputs' rows "
                 "are well below the pieces', so it is the piece's own.\n")
        for cxx, fam, _ in bis:
            c = {src: results["piece_counts"].get(f"{cxx}/{src}") for src, _, _ in PIECES}
            layer = results["counts"].get(f"{cxx}/{n}")
            if not layer or any(v is None for v in c.values()):
                continue
            mm, att, sm, ex = (c["piece_matmul.cpp"], c["piece_attention.cpp"], c["piece_softmax.cpp"],
                               c["piece_exp.cpp"])
            unit = "steps" if fam == "clang" else "ops"
            parts = [("4 projections (Q, K, V, W_o): matmul", 4 * mm),
                     ("attention without softmax (Q·Kᵀ and weights·V): attend", att - sm),
                     ("softmax without exp: softmax_row", sm - ex),
                     (f"exp ({H}·n² = {H * n * n} calls)", ex)]
            L.append(f"`{cxx}`, layer = {fmt_count(layer)} {unit}; "
                     f"sum of parts = {fmt_count(sum(p for _, p in parts))}:\n")
            L.append(f"| part | {unit} | share of layer |")
            L.append("|---|---:|---:|")
            for name, v in parts:
                L.append(f"| {name} | {fmt_count(v)} | {100 * v / layer:.0f} % |")
            macs = n * n * n
            budget = DEFAULT_LIMITS[fam][1]
            L.append("")
            calls = H * n * n
            L.append(f"Per unit: {mm / macs:.2f} {unit} per multiply-add in matmul; "
                     f"{(att - sm) / (2 * n * n * n):.2f} per multiply-add in attend's two products; "
                     f"{(sm - ex) / calls:.1f} per softmax entry besides exp; "
                     f"{ex / calls:.1f} per exp call (loop included), so the default budget of "
                     f"{budget} allows about {budget * calls // ex} exp calls.\n")

    if results["paths"]:
        n = args.piece_size
        L.append(f"## Every attention form at n = d = {n}, H = {H}\n")
        L.append("Each row is `path.cpp` with one form (see the file); all evaluate a layer's worth of "
                 "attention, so their needs should be close to the plain layer's. 'needs' as above.\n")
        bis = [c for c in compilers if any(k.startswith(c[0] + "/") for k in results["path_counts"])]
        L.append("| form |" + "".join(f" {c[0]} needs |" for c in bis) + "".join(f" {c[0]} s |" for c in compilers))
        L.append("|---|" + "---:|" * (len(bis) + len(compilers)))
        row = "| plain layer (layer.cpp) |"
        for cxx, fam, _ in bis:
            row += f" {fmt_count(results['counts'].get(f'{cxx}/{n}'))} |"
        for cxx, _, _ in compilers:
            r = results["layer"].get(f"{cxx}/{n}")
            row += f" {fmt_s(r['seconds'])} |" if r else " — |"
        L.append(row)
        for i, what in enumerate(PATHS):
            row = f"| {what} |"
            for cxx, fam, _ in bis:
                row += f" {fmt_count(results['path_counts'].get(f'{cxx}/{i}'))} |"
            for cxx, _, _ in compilers:
                r = results["paths"].get(f"{cxx}/{i}")
                row += f" {fmt_s(r['seconds'])} |" if r and r["ok"] else " fails |"
            L.append(row)
        L.append("")

    if results["traces"]:
        L.append("## Clang -ftime-trace\n")
        L.append("| compiler / n | constant evaluation s (trace 'Total Evaluate*') | frontend s |")
        L.append("|---|---:|---:|")
        for key, (path, ev, fe) in results["traces"].items():
            L.append(f"| {key} | {fmt_s(ev) if ev else '— (not traced)' if fe else '— (fails)'} | "
                     f"{fmt_s(fe) if fe else '—'} |")
        L.append("")
        L.append("(The trace files stay in the build directory, which is printed at the end of the run.)\n")

    text = "\n".join(L) + "\n"
    for cxx, _, _ in compilers:  # name compilers, not where this machine keeps them
        text = text.replace(cxx, os.path.basename(cxx))
    with open(args.output, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
