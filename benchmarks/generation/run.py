#!/usr/bin/env python3
"""Generation with a LLaMA model (dim 64, 5 layers, 8 heads, 4 KV heads, hidden 172, vocabulary
512, context 512; random weights from gen_weights.py) by the compiler and at run time.

Run time: cxmat's step (step.cpp; g++ and clang++-19), the plain C baseline
(plain_c_llama.c; gcc and clang-19, and gcc with -ffast-math as llama2.c's `make runfast`) and
PyTorch (torch_llama.py, one thread), all at -O3 -march=native, 128 greedy steps from BOS, each
program run --rounds times in turn, each run timing --repeats passes; tokens per second is 128 over
the seconds of one pass. All must give the same tokens.

Compile time: chain.cpp (32 tokens in a chain of constant expressions, --per-link per expression)
under default limits with g++ and clang++-19 at capacities 40 and 512: seconds and peak memory
(/usr/bin/time), --compile-repeat times each; the compiler's tokens are checked by static_assert
against the run-time ones. Then bisection (within --precision) of the GCC operations
(-fconstexpr-ops-limit) and Clang steps (-fconstexpr-steps) that one link and each piece of a
step (pieces.cpp) need.

Imported (--parts import): the same weights as llama2.c's checkpoint through scripts/cxmat_import.py;
the import's and the header's compile times, the first tokens in static_asserts with g++ and
clang++-19, 128 tokens at run time, all checked against the run-time programs' tokens.

Cortex-M4F (--parts m4f): the model in int8 groups of 32, quantized by arm-none-eabi-g++ under
default limits, as firmware (m4f/) run in QEMU: its 63 tokens must be the host's; flash, RAM, the
stack with the cache and the instructions per token. Needs arm-none-eabi-g++ and qemu-system-arm.

Writes the raw figures as JSON (--output) and, with --doc, the tables of docs/generation_benchmark.md
between its "<!-- begin: NAME -->" / "<!-- end: NAME -->" lines. --doc-only rewrites the tables
from an existing JSON.

    python3 benchmarks/generation/run.py --doc docs/generation_benchmark.md     # everything, about 40 min
    python3 benchmarks/generation/run.py --parts runtime --rounds 1    # a quick look at run time
"""
import argparse
import json
import os
import platform
import re
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
C_WARNINGS = ["-Wall", "-Wextra", "-Wpedantic", "-Wshadow", "-Wconversion"]
LIMITS = {"gcc": ("-fconstexpr-ops-limit", 1 << 25), "clang": ("-fconstexpr-steps", 1 << 20)}
CXX = {"gcc": "g++", "clang": "clang++-19"}
CC = {"gcc": "gcc", "clang": "clang-19"}
STEPS = 128
TOKENS = 32
PIECES = {
    0: "the inputs alone (baseline)",
    1: "step(model, cache, token): the whole step",
    2: "hidden: the 5 blocks, no final norm or logits",
    3: "logits_of: final RMSNorm and the 512 x 64 head",
    4: "one block",
    5: "the 7 products of one block (one row)",
    6: "rotary of one block's q and k (per call)",
    7: "cached attention of one block (8 heads)",
    8: "choose_token, greedy (per call)",
    9: "generation<M, Cap>{} made and copied once",
}
REPEATED = {6: 10, 8: 10}  # pieces.cpp runs these 10 times in their expression
ALTERNATIVES = {
    0: "the inputs alone (baseline)",
    1: "logits_of as it is: a scalar loop over 512 x 64",
    2: "logits as one fold per token over the head's row",
    3: "the 7 products of one block as matmul does them (b copied transposed)",
    4: "the 7 products as sums of b's rows (no transposed copy)",
    5: "rotary of one block's q and k as it is (per call)",
    6: "rotary from cos and sin computed once per position (per call)",
}
ALT_REPEATED = {5: 10, 6: 10}
# Where bisection starts (from earlier runs): it only saves compiles.
GUESSES = {("link", "gcc"): 10_000_000, ("link", "clang"): 150_000, ("piece 1", "gcc"): 9_000_000,
           ("piece 1", "clang"): 140_000, ("piece 2", "gcc"): 8_000_000, ("piece 2", "clang"): 100_000,
           ("piece 7", "gcc"): 200_000, ("piece 7", "clang"): 3_000, ("piece 0", "gcc"): 5_000,
           ("piece 0", "clang"): 500, ("alt 0", "gcc"): 5_000, ("alt 0", "clang"): 500,
           ("alt 1", "gcc"): 800_000, ("alt 1", "clang"): 35_000, ("alt 2", "gcc"): 400_000,
           ("alt 2", "clang"): 1_000, ("alt 3", "gcc"): 1_500_000, ("alt 3", "clang"): 3_000,
           ("alt 4", "gcc"): 1_000_000, ("alt 4", "clang"): 3_000, ("alt 5", "gcc"): 100_000,
           ("alt 5", "clang"): 3_000, ("alt 6", "gcc"): 20_000, ("alt 6", "clang"): 500}


def sh(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def version(tool):
    return sh([tool, "--version"]).stdout.splitlines()[0]


def machine():
    cpu = "unknown"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    flags = open("/proc/cpuinfo").read()
    isa = [f for f in ("avx2", "fma", "avx512f") if re.search(rf"\b{f}\b", flags)]
    return {"cpu": cpu, "cpus": os.cpu_count(), "isa": isa, "kernel": platform.release(),
            "load_at_start": os.getloadavg()}


def generate_weights(build):
    gen = os.path.join(HERE, "gen_weights.py")
    header, raw = os.path.join(build, "llama_weights.hpp"), os.path.join(build, "model.bin")
    subprocess.run([sys.executable, gen, "--header", header, "--raw", raw], check=True)
    return raw


# ---- the model imported from its checkpoint ----

IMPORTED_TOKENS = 8  # generated by the compiler from the imported header, in a chain of constant expressions


def imported(args, build, expected):
    """The benchmark's llama2.c checkpoint through the importer (scripts/cxmat_import.py): the import's
    seconds, the header's compile (without generating) with g++, the first IMPORTED_TOKENS tokens
    in static_asserts (chain.cpp on the imported header, default limits) and 128 tokens at run
    time (imported.cpp), both checked against the run-time programs' tokens."""
    work = os.path.join(build, "imported")
    os.makedirs(work, exist_ok=True)
    timed = sh(["/usr/bin/time", "-f", "TIME %e %U %S %M", sys.executable, os.path.join(REPO, "scripts", "cxmat_import.py"),
                os.path.join(build, "model.bin"), "--module", "llama", "--name", "story", "-o",
                os.path.join(work, "story.hpp")])
    m = re.search(r"TIME ([\d.]+) ([\d.]+) ([\d.]+) (\d+)\s*$", timed.stderr)
    if timed.returncode != 0 or not m:
        sys.exit(f"the import failed:\n{timed.stdout}{timed.stderr}")
    result = {"import_seconds": [float(m.group(1)), float(m.group(2)) + float(m.group(3))],
              "header_mb": os.path.getsize(os.path.join(work, "story.hpp")) / 1e6}
    # chain.cpp reads bench::model and bench::vocab from llama_weights.hpp: here the imported model.
    with open(os.path.join(work, "llama_weights.hpp"), "w") as f:
        f.write("// The imported checkpoint as the benchmark's model (run.py --parts import).\n#pragma once\n"
                "#include <cstddef>\n\n#include \"story.hpp\"\n\nnamespace bench {\n"
                "inline constexpr std::size_t vocab = 512;\ninline constexpr const auto& model = story;\n}\n")
    chain = os.path.join(HERE, "chain.cpp")
    ok, secs, mb, err = compile_once("g++", chain, work, ["CXMAT_BENCH_WEIGHTS_ONLY"])
    if not ok:
        sys.exit(f"the imported header does not compile:\n{err}")
    result["header_compile"] = {"seconds": secs, "mb": mb}
    defs = [f"CXMAT_BENCH_CAP={IMPORTED_TOKENS + 1}", f"CXMAT_BENCH_K={args.per_link}",
            f"CXMAT_BENCH_TOKENS={IMPORTED_TOKENS}",
            "CXMAT_BENCH_EXPECTED=" + ",".join(str(t) for t in expected[:IMPORTED_TOKENS])]
    result["static"] = {}
    for fam in ("gcc", "clang"):
        ok, secs, mb, err = compile_once(CXX[fam], chain, work, defs)
        if not ok:
            sys.exit(f"{CXX[fam]}: the imported model's tokens in static_asserts fail:\n{err[:3000]}")
        result["static"][CXX[fam]] = {"seconds": secs, "mb": mb}
    exe = os.path.join(work, "imported")
    subprocess.run(["g++", "-std=c++20", "-O2", *WARNINGS, "-Werror", "-I", INCLUDE, "-I", work,
                    os.path.join(HERE, "imported.cpp"), "-o", exe], check=True)
    tokens = json.loads(sh([exe]).stdout)["tokens"]
    if tokens != expected[:len(tokens)] or len(tokens) != STEPS:
        sys.exit(f"the imported model's run-time tokens differ:\n{tokens}\n{expected}")
    result.update({"static_tokens": IMPORTED_TOKENS, "runtime_tokens": len(tokens), "per_link": args.per_link})
    return result


# ---- the Cortex-M4F ----

QEMU_ARGS = ["-M", "mps2-an386", "-nographic", "-monitor", "none", "-semihosting-config", "enable=on,target=native",
             "-icount", "shift=7"]


def m4f(args, build):
    """The model in int8 groups of 32 on the Cortex-M4F (m4f/): built with arm-none-eabi-g++ under
    default limits, run in QEMU (-icount: SysTick counts instructions, calibrated by the harness's
    loops), its 63 tokens checked against the same code on the host; flash, RAM and stack from
    the production image and the harness."""
    fw = os.path.join(build, "m4f")
    subprocess.run(["cmake", "-S", os.path.join(HERE, "m4f"), "-B", fw, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=MinSizeRel",
                    f"-DCXMAT_LLAMA_WEIGHTS={build}"], check=True, capture_output=True)
    # The compile of one image (the weights quantized by the compiler): seconds and peak memory.
    timed = sh(["/usr/bin/time", "-f", "%e %U %M", "cmake", "--build", fw, "--target", "llama_q8"])
    if timed.returncode != 0:
        sys.exit(f"the Cortex-M4F image did not build:\n{timed.stdout}{timed.stderr}")
    wall, cpu, kb = timed.stderr.strip().splitlines()[-1].split()
    subprocess.run(["cmake", "--build", fw], check=True, capture_output=True)
    host = os.path.join(build, "m4f_host")
    subprocess.run(["g++", "-std=c++20", "-O2", *WARNINGS, "-Werror", "-I", INCLUDE, "-I", build,
                    os.path.join(HERE, "m4f", "m4f_host.cpp"), "-o", host], check=True)
    want = [l for l in sh([host]).stdout.splitlines() if l.startswith("row ")]
    run = sh(["qemu-system-arm", *QEMU_ARGS, "-kernel", os.path.join(fw, "llama_q8-qemu.elf")], timeout=600)
    out = run.stdout + run.stderr  # semihosting writes to QEMU's stderr
    got = [l for l in out.splitlines() if l.startswith("row ")]
    if run.returncode != 0 or not want or got != want:
        sys.exit(f"the Cortex-M4F run differs from the host's tokens (QEMU status {run.returncode}):\n{out}")
    fields = {l.split()[0]: [int(x) for x in l.split()[1:] if x.isdigit()] for l in out.splitlines()
              if l.split() and l.split()[0] in ("ticks", "calibration", "stack")}
    ticks, empty = fields["ticks"][0], fields["ticks"][1]
    n_short, t_short, n_long, t_long = fields["calibration"]
    instructions = round((ticks - empty) * (n_long - n_short) / (t_long - t_short))
    sizes = {}
    for line in sh(["arm-none-eabi-size", "-A", os.path.join(fw, "llama_q8.elf")]).stdout.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[0].startswith("."):
            sizes[parts[0]] = int(parts[1])
    model = 0
    for line in sh(["arm-none-eabi-nm", "-S", "-C", os.path.join(fw, "llama_q8.elf")]).stdout.splitlines():
        if line.endswith("layers::external::model"):
            model = int(line.split()[1], 16)
    tokens = len(want) * len(want[0].split()[1:])
    sys.path.insert(0, HERE)
    from gen_weights import FULL as cfg  # the sizes the weights were made with
    positions = tokens + 1  # BOS and the generated tokens: the cache's capacity
    cache = cfg["layers"] * 2 * positions * cfg["dim"] // cfg["heads"] * cfg["kv_heads"] * 4
    return {"cache": cache, "positions": positions, "compiler": version("arm-none-eabi-g++"), "qemu": version("qemu-system-arm"),
            "compile_seconds": [float(wall), float(cpu)], "compile_mb": int(kb) / 1024, "tokens": tokens,
            "instructions": instructions, "flash": sizes[".isr_vector"] + sizes[".text"] + sizes[".rodata"],
            "text": sizes[".text"], "rodata": sizes[".rodata"], "model": model, "bss": sizes[".bss"],
            "data": sizes[".data"], "stack": fields["stack"][0]}


# ---- run time ----

def build_runtime(build):
    progs = {}
    for fam in ("gcc", "clang"):
        exe = os.path.join(build, f"step_{fam}")
        subprocess.run([CXX[fam], "-std=c++20", "-O3", "-march=native", *WARNINGS, "-Werror", "-I", INCLUDE,
                        os.path.join(HERE, "step.cpp"), "-o", exe], check=True)
        progs[f"cxmat step, {CXX[fam]}"] = [exe]
    for fam, extra in (("gcc", []), ("clang", []), ("gcc", ["-ffast-math"])):
        exe = os.path.join(build, f"plain_{fam}{'_fast' if extra else ''}")
        subprocess.run([CC[fam], "-std=c99", "-D_POSIX_C_SOURCE=199309L", "-O3", "-march=native", *extra,
                        *C_WARNINGS, "-Werror", os.path.join(HERE, "plain_c_llama.c"), "-o", exe, "-lm"], check=True)
        progs[f"plain C, {CC[fam]}{' -ffast-math' if extra else ''}"] = [exe]
    progs["PyTorch, one thread"] = ["/usr/bin/python3", os.path.join(HERE, "torch_llama.py")]
    return progs


def runtime(args, build, raw):
    progs = build_runtime(build)
    runs = {name: [] for name in progs}
    tokens = {}
    for r in range(args.rounds):
        for name, cmd in progs.items():
            reps = args.repeats if "PyTorch" not in name else max(3, args.repeats // 3)
            out = sh([*cmd, raw, str(STEPS), str(reps)], check=True).stdout
            res = json.loads(out)
            runs[name] += res["seconds"]
            tokens[name] = res["tokens"]
            print(f"  round {r}: {name}: {STEPS / statistics.median(res['seconds']):.0f} tokens/s", flush=True)
    first = next(iter(tokens.values()))
    agree = {name: sum(a == b for a, b in zip(t, first)) for name, t in tokens.items()}
    return {"steps": STEPS, "runs": runs, "tokens": first, "agree": agree,
            "torch": sh(["/usr/bin/python3", "-c", "import torch; print(torch.__version__)"]).stdout.strip()}


def parts_timing(args, build, raw):
    exe = os.path.join(build, "parts_gcc")
    subprocess.run(["g++", "-std=c++20", "-O3", "-march=native", *WARNINGS, "-Werror", "-I", INCLUDE,
                    os.path.join(HERE, "step_parts.cpp"), "-o", exe], check=True)
    return json.loads(sh([exe, raw, "64", str(args.rounds * 2)], check=True).stdout)


# Source files of the headers, grouped into the parts of a step for the profile.
PROFILE_GROUPS = [
    ("logits_of: the head, eight vocabulary rows at a time (transformer/embedding.hpp)", ("embedding.hpp",)),
    ("packets: the products' register-blocked gemm, and softmax's packet operations (runtime_gemm.hpp, "
     "runtime_simd.hpp)",
     ("runtime_gemm.hpp", "runtime_simd.hpp")),
    ("cached attention: scores and weighted sums (cached_attention.hpp, multiply_add_scalar in fp.hpp)",
     ("cached_attention.hpp", "fp.hpp", "loops.hpp")),
    ("softmax over the cached keys (runtime_softmax.hpp, runtime_exp.hpp, softmax.hpp)",
     ("runtime_softmax.hpp", "runtime_exp.hpp", "softmax.hpp", "softmax_rules.hpp")),
    ("SwiGLU's silu and exp (linear.hpp, activations.hpp, exp.hpp)", ("linear.hpp", "activations.hpp", "exp.hpp")),
    ("rotary: sin, cos, exp, log per call (rotary.hpp, sin_cos.hpp, log.hpp)", ("rotary.hpp", "sin_cos.hpp", "log.hpp")),
    ("RMSNorm and sqrt (norms.hpp, sqrt.hpp)", ("norms.hpp", "sqrt.hpp")),
    ("choose_token (sampling.hpp)", ("sampling.hpp",)),
]


def profile(args, build, raw):
    """perf's samples of the g++ step program by source line, summed per part."""
    exe = os.path.join(build, "step_gcc_g")
    subprocess.run(["g++", "-std=c++20", "-O3", "-march=native", "-g", "-I", INCLUDE,
                    os.path.join(HERE, "step.cpp"), "-o", exe], check=True)
    data = os.path.join(build, "perf.data")
    subprocess.run(["perf", "record", "-q", "-o", data, "-F", "4000", exe, raw, str(STEPS), "100"],
                   check=True, capture_output=True)
    rep = sh(["perf", "report", "-i", data, "--no-children", "--sort", "srcline", "--percent-limit", "0",
              "--stdio"], check=True).stdout
    shares = {name: 0.0 for name, _ in PROFILE_GROUPS}
    other, lines = 0.0, {}
    for line in rep.splitlines():
        m = re.match(r"\s*([\d.]+)%\s+(\S+)", line)
        if not m:
            continue
        pct, where = float(m.group(1)), m.group(2)
        lines[where] = pct
        f = where.split(":")[0]
        for name, files in PROFILE_GROUPS:
            if f in files:
                shares[name] += pct
                break
        else:
            other += pct
    shares["everything else (the step's own code, copies, the kernel)"] = other
    top = sorted(lines.items(), key=lambda kv: -kv[1])[:12]
    rep = sh(["perf", "report", "-i", data, "--no-children", "--sort", "sym", "--percent-limit", "0.5", "--stdio"],
             check=True).stdout
    symbols = []
    for line in rep.splitlines():
        m = re.match(r"\s*([\d.]+)%\s+\[\.\]\s+(.+)", line)
        if m:
            name = re.sub(r"<.*", "", m.group(2).strip())  # the function's name without its template arguments
            symbols.append((name, float(m.group(1))))
    return {"shares": shares, "top_lines": top, "symbols": symbols}


# ---- compile time ----

def compile_once(cxx, src, build, defs, extra=(), obj=True, timeout=900):
    cmd = ["/usr/bin/time", "-f", "TIME %e %U %S %M", cxx, "-std=c++20", *WARNINGS, "-I", INCLUDE, "-I", build,
           *[f"-D{d}" for d in defs], *extra, src]
    cmd += ["-O2", "-c", "-o", os.path.join(build, "out.o")] if obj else ["-fsyntax-only"]
    p = sh(cmd, timeout=timeout)
    m = re.search(r"TIME ([\d.]+) ([\d.]+) ([\d.]+) (\d+)\s*$", p.stderr)
    # seconds: (wall, processor = user + system); on a loaded machine the processor time is the steadier
    secs = (float(m.group(1)), float(m.group(2)) + float(m.group(3))) if m else None
    kb = int(m.group(4)) if m else None
    err = p.stderr[:m.start()] if m else p.stderr
    return p.returncode == 0, secs, kb / 1024 if kb else None, err


def chain_defs(cap, per_link, expected):
    return [f"CXMAT_BENCH_CAP={cap}", f"CXMAT_BENCH_K={per_link}", f"CXMAT_BENCH_TOKENS={TOKENS}",
            "CXMAT_BENCH_EXPECTED=" + ",".join(str(t) for t in expected[:TOKENS])]


def compile_time(args, build, expected):
    chain, res = os.path.join(HERE, "chain.cpp"), []
    configs = [("weights only", ["CXMAT_BENCH_WEIGHTS_ONLY"], None)]
    for cap in (40, 512):
        configs.append((f"{TOKENS} tokens, capacity {cap}", chain_defs(cap, args.per_link, expected), cap))
    for what, defs, cap in configs:
        for fam in ("gcc", "clang"):
            times, mems, ok, warnings = [], [], True, ""
            for _ in range(args.compile_repeat):
                ok1, s, mb, err = compile_once(CXX[fam], chain, build, defs)
                ok &= ok1
                warnings = warnings or err.strip()
                times.append(s)
                mems.append(mb)
                if not ok1:
                    break
            print(f"  {CXX[fam]}: {what}: {'holds' if ok else 'FAILS'} {times} s {max(mems):.0f} MB", flush=True)
            if warnings:
                print(warnings[:3000])
            res.append({"what": what, "cap": cap, "compiler": CXX[fam], "family": fam, "holds": ok, "seconds": times,
                        "mb": mems, "warnings": bool(warnings), "error": warnings[:2000] if not ok else ""})
    return res


def bisect(args, fam, src, build, defs, guess):
    """Smallest limit at which src compiles (-fsyntax-only), within args.precision."""
    flag, default = LIMITS[fam]

    def holds(limit):
        ok, _, _, err = compile_once(CXX[fam], src, build, defs, [f"{flag}={limit}"], obj=False)
        if not ok and "constexpr" not in err and "constant" not in err:
            raise RuntimeError(f"{src} {defs} {flag}={limit}: {err[:1500]}")
        return ok

    lo, hi = None, None
    cand = max(int(guess), 1000)
    while lo is None or hi is None:
        if holds(cand):
            hi = cand
            cand = int(cand / 2) if lo is None else cand
        else:
            lo = cand
            cand = int(cand * 2) if hi is None else cand
        if hi is not None and lo is None and cand < 1000:
            return hi
    while hi - lo > hi * args.precision:
        mid = (lo + hi) // 2
        if holds(mid):
            hi = mid
        else:
            lo = mid
    return hi


def repeated(key):
    kind, _, n = key.partition(" ")
    return {"piece": REPEATED, "alt": ALT_REPEATED}.get(kind, {}).get(int(n) if n else -1, 1)


def counts(args, build, expected, guesses, alternatives=False):
    pieces, chain = os.path.join(HERE, "pieces.cpp"), os.path.join(HERE, "chain.cpp")
    jobs = []
    if alternatives:
        src = os.path.join(HERE, "alternatives.cpp")
        for alt in ALTERNATIVES:
            if args.alts and alt not in args.alts:
                continue
            jobs.append((f"alt {alt}", ALTERNATIVES[alt], src, [f"CXMAT_BENCH_ALT={alt}"], 0, 0))
        out = run_jobs(args, build, jobs, guesses)
        for alt in (2, 4, 6):  # the alternatives give the library's bits (static_assert), at default limits
            for fam in ("gcc", "clang"):
                ok, _, _, err = compile_once(CXX[fam], src, build, [f"CXMAT_BENCH_ALT={alt}", "CXMAT_BENCH_CHECK"],
                                             obj=False)
                print(f"  {CXX[fam]}: alt {alt} gives the library's bits: {ok} {err[:500]}", flush=True)
                out.append({"key": f"check {alt}", "family": fam, "same_bits": ok})
        return out
    # One real link: gen<1> = advance<1>(model, gen<0>), the cache filled to 1 row.
    jobs.append(("link", "advance<1> at fill 1, capacity 40", chain,
                 ["CXMAT_BENCH_CAP=40", "CXMAT_BENCH_K=1", "CXMAT_BENCH_TOKENS=2",
                  "CXMAT_BENCH_EXPECTED=" + ",".join(str(t) for t in expected[:2])], 1, 40))
    # The step at the chain's first and last fill, at capacities 40 and 512; the parts that
    # alternatives.cpp does not already measure as they are.
    for piece, fill, cap in ((1, 1, 40), (1, 31, 40), (1, 31, 512), (2, 1, 40), (7, 31, 40), (0, 1, 40)):
        jobs.append((f"piece {piece}", PIECES[piece], pieces,
                     [f"CXMAT_BENCH_PIECE={piece}", f"CXMAT_BENCH_FILL={fill}", f"CXMAT_BENCH_CAP={cap}"], fill, cap))
    return run_jobs(args, build, jobs, guesses)


def run_jobs(args, build, jobs, guesses):
    out = []
    for key, what, src, defs, fill, cap in jobs:
        for fam in ("gcc", "clang"):
            t0 = time.time()
            g = guesses.get((key, fam), GUESSES.get((key, fam), LIMITS[fam][1] // 8))
            n = bisect(args, fam, src, build, defs, g)
            guesses[(key, fam)] = n
            print(f"  {CXX[fam]}: {key} ({what}) fill {fill} cap {cap}: {n} ({time.time() - t0:.0f} s)", flush=True)
            out.append({"key": key, "what": what, "fill": fill, "cap": cap, "family": fam, "compiler": CXX[fam],
                        "needs": n, "repeated": repeated(key)})
    return out


# ---- the doc's tables ----

def fmt_count(n):
    return f"{n / 1e6:.2f} M" if n >= 1e6 else f"{n / 1e3:.1f} k"


def tables(r):
    t = {}
    m = r["machine"]
    t["machine"] = (f"{m['cpu']}, {m['cpus']} CPUs ({', '.join(m['isa'])}), Linux {m['kernel']}; "
                    f"{r['versions']['g++']}; {r['versions']['clang++-19']}; PyTorch {r['runtime']['torch']}; "
                    f"load average at start {m['load_at_start'][0]:.1f}; headers of commit {r['commit']}.\n")
    rt = r["runtime"]
    lines = ["| implementation | tokens/s (median) | min .. max | runs | same tokens (of 128) |",
             "|---|---:|---:|---:|---:|"]
    for name, secs in rt["runs"].items():
        tps = sorted(STEPS / s for s in secs)
        lines.append(f"| {name} | {statistics.median(tps):,.0f} | {tps[0]:,.0f} .. {tps[-1]:,.0f} | {len(tps)} | "
                     f"{rt['agree'][name]} |")
    t["runtime"] = "\n".join(lines) + "\n"
    lines = ["| compile | compiler | holds (default limits) | processor seconds (each run) | wall seconds | "
             "peak MB |", "|---|---|---|---|---|---:|"]
    for c in r["compile"]:
        cpu = ", ".join(f"{s[1]:.1f}" for s in c["seconds"] if s is not None)
        wall = ", ".join(f"{s[0]:.1f}" for s in c["seconds"] if s is not None)
        lines.append(f"| {c['what']} | {c['compiler']} | {'yes' if c['holds'] else '**no**'} | {cpu} | {wall} | "
                     f"{max(x for x in c['mb'] if x):.0f} |")
    t["compile"] = "\n".join(lines) + "\n"
    lines = ["| what | filled rows | capacity | g++ 12 operations | clang++ 19 steps |", "|---|---:|---:|---:|---:|"]
    rows = {}
    for c in r.get("counts", []) + [c for c in r.get("alts", []) if c["key"].startswith("alt ")]:
        k = (c["key"], c["what"], c["fill"], c["cap"])
        rows.setdefault(k, {})[c["family"]] = c
    alt_lines = ["| written as | g++ 12 operations | clang++ 19 steps |", "|---|---:|---:|"]
    for (key, what, fill, cap), fams in rows.items():
        if key.startswith("alt"):
            alt_lines.append(f"| {key}: {what} | {fmt_count(fams['gcc']['needs'] / fams['gcc']['repeated'])} | "
                             f"{fmt_count(fams['clang']['needs'] / fams['clang']['repeated'])} |")
            continue
        cells = []
        for fam in ("gcc", "clang"):
            c = fams[fam]
            cells.append(fmt_count(c["needs"] / c["repeated"]))
        label = f"{key}: {what}" if key != "link" else f"one link of the chain: {what.split(',')[0]}"
        lines.append(f"| {label} | {fill} | {cap} | {cells[0]} | {cells[1]} |")
    t["counts"] = "\n".join(lines) + "\n"
    t["alternatives"] = "\n".join(alt_lines) + "\n"
    t["summary"] = summary(r)
    t["hotspots"] = hotspots(r)
    if "parts" in r:
        per_step = {"one block": 5, "7 products of one block": 5, "rotary of one block (q and k)": 5,
                    "cached attention of one block": 5}
        parts = r["parts"]["parts"]
        step = statistics.median(parts["step"])
        lines = [f"| part (cache filled to {r['parts']['fill']} rows) | ns per call (median) | min .. max | "
                 "calls per step | share of a step |", "|---|---:|---:|---:|---:|"]
        for name, ns in parts.items():
            k = per_step.get(name, 1)
            med = statistics.median(ns)
            lines.append(f"| {name} | {med:,.0f} | {min(ns):,.0f} .. {max(ns):,.0f} | {k} | "
                         f"{100 * k * med / step:.0f} % |")
        t["parts"] = "\n".join(lines) + "\n"
    if "imported" in r:
        f = r["imported"]
        static = "; ".join(f"{cxx} {v['seconds'][1]:.1f} s, {v['mb']:.0f} MB" for cxx, v in f["static"].items())
        t["imported"] = "\n".join([
            "| the llama2.c checkpoint through the importer | |", "|---|---|",
            f"| `scripts/cxmat_import.py model.bin --module llama --name story -o story.hpp` | "
            f"{f['import_seconds'][1]:.2f} s processor ({f['import_seconds'][0]:.2f} s wall), a header of "
            f"{f['header_mb']:.1f} MB |",
            f"| the header compiled, nothing generated (g++ -O2) | {f['header_compile']['seconds'][1]:.1f} s, "
            f"{f['header_compile']['mb']:.0f} MB |",
            f"| its first {f['static_tokens']} tokens in `static_assert`s (chain.cpp, {f['per_link']} a constant "
            f"expression, default limits) | {static} |",
            f"| at run time, greedy from BOS | the plain C program's {f['runtime_tokens']} tokens |",
            "", f"Headers of commit {f['commit']}.", ""])
    if "m4f" in r:
        f = r["m4f"]
        t["m4f"] = "\n".join([
            "| image (arm-none-eabi-g++ -Os, no C library) | bytes |", "|---|---:|",
            f"| flash: code and constants (`.isr_vector`, `.text`, `.rodata`) | {f['flash']:,} |",
            f"| of which the int8 model object (`layers::external::model`) | {f['model']:,} |",
            f"| of which code (`.text`) | {f['text']:,} |",
            f"| RAM: static data (`.data` + `.bss`), the generation's storage included | {f['data'] + f['bss']:,} |",
            f"| of which the cache (keys and values of 5 layers, {f['positions']} positions x 32 floats) | "
            f"{f['cache']:,} |",
            f"| RAM: peak stack of the generation (harness, painted stack) | {f['stack']:,} |",
            "", "| run (QEMU `mps2-an386`, `-icount`) | |", "|---|---:|",
            f"| tokens generated (greedy from BOS; the same {f['tokens']} as on the host) | {f['tokens']} |",
            f"| instructions, the whole generation | {f['instructions']:,} |",
            f"| instructions per token (mean; the cache fills from 1 to {f['positions'] - 1} positions) | "
            f"{f['instructions'] / f['tokens']:,.0f} |",
            f"| compile of the image (the weights quantized by the compiler, default limits) | "
            f"{f['compile_seconds'][1]:.1f} s, {f['compile_mb']:.0f} MB |",
            "", f"{f['compiler']}; {f['qemu']}; headers of commit {f['commit']}.", ""])
    if "profile" in r:
        lines = ["| where (perf samples by source line, g++ 12) | share |", "|---|---:|"]
        for name, pct in sorted(r["profile"]["shares"].items(), key=lambda kv: -kv[1]):
            lines.append(f"| {name} | {pct:.1f} % |")
        if "symbols" in r["profile"]:
            lines += ["", "| function (not inlined) | share |", "|---|---:|"]
            lines += [f"| `{name}` | {pct:.1f} % |" for name, pct in r["profile"]["symbols"]]
        t["profile"] = "\n".join(lines) + "\n"
    return t


def summary(r):
    """The doc's claims, as sentences computed from the figures."""
    out = []
    rt = r["runtime"]
    med = {name: statistics.median(STEPS / s for s in secs) for name, secs in rt["runs"].items()}
    same = [n for n, k in rt["agree"].items() if k == STEPS]
    out.append(f"- **Agreement:** {len(same)} of {len(rt['agree'])} run-time implementations gave the same {STEPS} "
               f"greedy tokens from BOS" + ("" if len(same) == len(rt["agree"]) else
                                            " (differing: " + ", ".join(n for n in rt["agree"] if n not in same) + ")")
               + "; the compiler's first 32 are checked against them by static_assert in every compile below.")
    cx = {n: v for n, v in med.items() if n.startswith("cxmat")}
    for n, v in cx.items():
        rel = ", ".join(f"{v / med[o]:.1f} x {o}" for o in med if not o.startswith("cxmat"))
        out.append(f"- **{n}:** {v:,.0f} tokens/s (medians), {rel}.")
    comp = r.get("compile", [])
    chains = [c for c in comp if c["cap"]]
    if chains:
        held = all(c["holds"] for c in chains)
        out.append(f"- **Compile time:** {TOKENS} tokens, {r.get('per_link', '?')} per constant expression after the "
                   f"first, {'hold' if held else 'do NOT all hold'} under default limits with "
                   + " and ".join(sorted({c['compiler'] for c in chains})) + " at capacities 40 and 512.")
    for fam in ("gcc", "clang"):
        base = [max(c["mb"]) for c in comp if c["family"] == fam and not c["cap"]]
        mb = {c["cap"]: max(c["mb"]) for c in chains if c["family"] == fam}
        cpu = {c["cap"]: [s[1] for s in c["seconds"]] for c in chains if c["family"] == fam}
        if base and 40 in mb and 512 in mb:
            out.append(f"- **{CXX[fam]} memory and time:** peak {mb[40]:,.0f} MB at capacity 40 and {mb[512]:,.0f} MB "
                       f"at 512, against {base[0]:,.0f} MB for the weights alone: "
                       f"{(mb[40] - base[0]) / (TOKENS + 1):.1f} MB more per token; processor seconds "
                       f"{', '.join(f'{x:.0f}' for x in cpu[40])} (capacity 40) and "
                       f"{', '.join(f'{x:.0f}' for x in cpu[512])} (512).")
    cnt = {(c["key"], c["fill"], c["cap"], c["family"]): c["needs"] / c["repeated"] for c in r.get("counts", [])}
    if cnt:
        for fam, unit, default in (("gcc", "operations", LIMITS["gcc"][1]), ("clang", "steps", LIMITS["clang"][1])):
            link = cnt.get(("link", 1, 40, fam))
            s1, s31, s31b = (cnt.get(("piece 1", f, c, fam)) for f, c in ((1, 40), (31, 40), (31, 512)))
            if None in (link, s1, s31, s31b):
                continue
            out.append(f"- **{CXX[fam]} {unit} per token:** {fmt_count(link)} for a link of one token (a step, the "
                       f"choice and the generation's copies) at 1 filled row; a step alone {fmt_count(s1)} at 1 "
                       f"filled row and {fmt_count(s31)} at 31 ({100 * (s31 / s1 - 1):+.1f} %: the attention over the "
                       f"filled rows), and {fmt_count(s31b)} at 31 rows of a 512-row cache "
                       f"({100 * (s31b / s31 - 1):+.2f} % against 40 rows). About {int(default // s31)} tokens fit "
                       f"one constant expression under the default {default:,}.")
    return "\n".join(out) + "\n"


def hotspots(r):
    """The hot spots' measured shares, as sentences computed from the figures."""
    out = []
    if "parts" in r:
        p = {k: statistics.median(v) for k, v in r["parts"]["parts"].items()}
        step = p["step"]
        share = lambda name, k=1: 100 * k * p[name] / step  # noqa: E731
        out.append(f"- **Run time, g++ 12, cache filled to {r['parts']['fill']} rows** (one step "
                   f"{step / 1000:.0f} µs): `logits_of` {share('logits_of (final norm and head)'):.0f} %, the cached "
                   f"attention {share('cached attention of one block', 5):.0f} %, the 35 products "
                   f"{share('7 products of one block', 5):.0f} %, rotary {share('rotary of one block (q and k)', 5):.0f} %, "
                   f"choose_token {share('choose_token (greedy)'):.1f} % (on top of the step).")
    cnt = {}
    for c in r.get("counts", []) + [c for c in r.get("alts", []) if c["key"].startswith("alt ")]:
        cnt[(c["key"], c["fill"], c["family"])] = c["needs"] / c["repeated"]
    for fam, unit in (("gcc", "operations"), ("clang", "steps")):
        step, hidden = cnt.get(("piece 1", 1, fam)), cnt.get(("piece 2", 1, fam))
        a = {i: cnt.get((f"alt {i}", 0, fam)) for i in range(7)}
        s31 = cnt.get(("piece 1", 31, fam))
        if None in (step, hidden, s31) or None in a.values():
            continue
        # The products as sums of b's rows (alternative 4) and rotary from angles shared per position
        # (alternative 6) are the library's own forms; alternatives 3 and 5 are the earlier ones.
        out.append(f"- **{CXX[fam]}, {unit} of a step at 1 filled row** ({fmt_count(step)}): the final norm, head "
                   f"and choice {100 * (step - hidden) / step:.0f} % ({fmt_count(step - hidden)}), of which "
                   f"`logits_of` {fmt_count(a[1])} ({100 * a[1] / step:.0f} % of the step); the 35 products as the "
                   f"library sums them {fmt_count(5 * a[4])} ({100 * 5 * a[4] / step:.0f} %; with b copied transposed, "
                   f"as before, {fmt_count(5 * a[3])}); rotary {fmt_count(a[6])} per call from the angles shared per "
                   f"position ({fmt_count(a[5])} recomputed per call, as before); logits as one fold per token "
                   f"{fmt_count(a[2])}; each filled row adds {fmt_count((s31 - step) / 30)} "
                   f"({100 * (s31 - step) / 30 / step:.2f} % of the step).")
        est = step - (a[1] - a[2])
        est31 = est + (s31 - step)
        default = LIMITS[fam][1]
        out.append(f"  With the head as one fold per token in the library (same bits): about {fmt_count(est)} {unit} "
                   f"a step ({est / step:.2f} of today's), so about {int(default // est31)} tokens per constant "
                   f"expression at 31 filled rows instead of {int(default // s31)}.")
    return "\n".join(out) + "\n"


def write_doc(doc, t):
    text = open(doc).read()
    for name, body in t.items():
        b, e = f"<!-- begin: {name} -->\n", f"<!-- end: {name} -->"
        i, j = text.find(b), text.find(e)
        if i < 0 or j < 0:
            sys.exit(f"{doc}: no {b.strip()} ... {e} section")
        text = text[:i + len(b)] + body + text[j:]
    open(doc, "w").write(text)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build-dir", default=None)
    p.add_argument("--output", default=os.path.join(HERE, "results.json"))
    p.add_argument("--parts", default="counts,alts,compile,runtime,parts,profile,import,m4f")
    p.add_argument("--rounds", type=int, default=3, help="rounds of the run-time programs, in turn")
    p.add_argument("--repeats", type=int, default=10, help="timed passes per run")
    p.add_argument("--compile-repeat", type=int, default=2)
    p.add_argument("--per-link", type=int, default=2, help="tokens per constant expression after the first")
    p.add_argument("--precision", type=float, default=0.02)
    p.add_argument("--alts", type=lambda v: [int(a) for a in v.split(",")], default=None,
                   help="only these alternatives (e.g. 2,4), the others kept from --output")
    p.add_argument("--doc", help="write the tables into this Markdown file")
    p.add_argument("--doc-only", action="store_true", help="only rewrite the doc's tables from --output")
    args = p.parse_args()
    if args.doc_only:
        write_doc(args.doc, tables(json.load(open(args.output))))
        return
    build = args.build_dir or tempfile.mkdtemp(prefix="cxmat_generation_")
    os.makedirs(build, exist_ok=True)
    raw = generate_weights(build)
    parts = args.parts.split(",")
    old = json.load(open(args.output)) if os.path.exists(args.output) else {}
    commit = sh(["git", "-C", REPO, "rev-parse", "--short", "HEAD"]).stdout.strip()
    dirty = sh(["git", "-C", REPO, "status", "--porcelain", "include"]).stdout.strip()
    r = dict(old)
    stamp = {"commit": commit + (" (with uncommitted header changes)" if dirty else "")}
    if any(p not in ("m4f", "import") for p in parts):  # the host's figures: this machine, these compilers
        r.update({"machine": machine(), **stamp,
                  "versions": {t: version(t) for t in ("g++", "clang++-19", "gcc", "clang-19")}})
    ran = False
    if "runtime" not in r:  # the tokens that the compiles check
        print("run time", flush=True)
        r["runtime"], ran = runtime(args, build, raw), True
    expected = r["runtime"]["tokens"]
    if "counts" in parts:
        print("counts", flush=True)
        guesses = {(c["key"], c["family"]): c["needs"] for c in old.get("counts", [])}
        r["counts"] = counts(args, build, expected, guesses)
        json.dump(r, open(args.output, "w"), indent=1)
    if "alts" in parts:
        print("alternatives", flush=True)
        new = counts(args, build, expected, {}, alternatives=True)
        keep = [c for c in old.get("alts", []) if args.alts and c["key"].startswith("alt ")
                and int(c["key"].split()[1]) not in args.alts]
        r["alts"] = keep + new
        json.dump(r, open(args.output, "w"), indent=1)
    if "compile" in parts:
        print("compile time", flush=True)
        r["compile"] = compile_time(args, build, expected)
        r["per_link"] = args.per_link
        json.dump(r, open(args.output, "w"), indent=1)
    if "runtime" in parts and not ran:  # after the compiles: the timing is what matters here
        print("run time", flush=True)
        r["runtime"] = runtime(args, build, raw)
        json.dump(r, open(args.output, "w"), indent=1)
    if "parts" in parts:
        print("parts of a step", flush=True)
        r["parts"] = parts_timing(args, build, raw)
        json.dump(r, open(args.output, "w"), indent=1)
    if "profile" in parts:
        print("profile", flush=True)
        r["profile"] = profile(args, build, raw)
        json.dump(r, open(args.output, "w"), indent=1)
    if "import" in parts:
        print("imported checkpoint", flush=True)
        r["imported"] = {**imported(args, build, expected), **stamp}
        json.dump(r, open(args.output, "w"), indent=1)
    if "m4f" in parts:
        print("Cortex-M4F", flush=True)
        r["m4f"] = {**m4f(args, build), **stamp}
        json.dump(r, open(args.output, "w"), indent=1)
    if args.doc:
        write_doc(args.doc, tables(r))


if __name__ == "__main__":
    main()
