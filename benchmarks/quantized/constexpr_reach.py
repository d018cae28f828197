#!/usr/bin/env python3
"""How large an int8 layer calibrate + multi_head_attention can evaluate in one constant expression
under each compiler's default constexpr limits, and what that costs in compile time.

Compiles constexpr_layer.cpp (-fsyntax-only, default limits) for each size and compiler and prints
a Markdown table: n, d_model (= d_out), H, calibration inputs B, and per compiler "fits" with the
wall-clock seconds, or "limit" when the evaluation hits the step / operation limit.

  constexpr_reach.py [--cxx g++ --cxx clang++-19 ...] [--encoder | --decoder]

--encoder: calibrate and run an int8 encoder layer (post-norm, ReLU) instead, with a d_ff column.
--decoder: the same for a decoder layer (post-norm, ReLU, causal), with the memory's rows s too.
"""
import argparse
import pathlib
import subprocess
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
SIZES = [(8, 16, 2, 4), (8, 16, 2, 16), (16, 32, 4, 4), (16, 32, 4, 8), (32, 32, 4, 1), (32, 64, 8, 1)]
ENCODER_SIZES = [(8, 16, 2, 32, 4), (8, 16, 2, 32, 16), (8, 32, 4, 64, 4), (8, 32, 4, 64, 8), (8, 32, 4, 64, 16),
                 (16, 32, 4, 64, 4)]
# n, memory rows s, d_model, H, d_ff, B
DECODER_SIZES = [(8, 8, 16, 2, 32, 4), (8, 8, 16, 2, 32, 8), (8, 8, 16, 2, 32, 16), (8, 8, 32, 4, 64, 2),
                 (8, 8, 32, 4, 64, 4)]


def compile_once(cxx, n, d, h, b, ff=None, s=None):
    cmd = [cxx, "-std=c++20", "-fsyntax-only", f"-I{ROOT / 'include'}", f"-DCXMAT_Q8_N={n}", f"-DCXMAT_Q8_D={d}",
           f"-DCXMAT_Q8_H={h}", f"-DCXMAT_Q8_B={b}", str(HERE / "constexpr_layer.cpp")]
    if ff is not None:
        cmd.insert(-1, f"-DCXMAT_Q8_FF={ff}")
    if s is not None:
        cmd.insert(-1, f"-DCXMAT_Q8_S={s}")
    start = time.monotonic()
    result = subprocess.run(cmd, capture_output=True, text=True)
    seconds = time.monotonic() - start
    if result.returncode == 0:
        return f"fits, {seconds:.1f} s"
    if "limit" in result.stderr or "maximum step" in result.stderr:
        return "limit"
    return "error: " + result.stderr.splitlines()[0][:60]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cxx", action="append")
    parser.add_argument("--encoder", action="store_true")
    parser.add_argument("--decoder", action="store_true")
    args = parser.parse_args()
    compilers = args.cxx or ["g++", "clang++-19"]
    if args.decoder:
        print("| n | s | d_model | H | d_ff | B | " + " | ".join(compilers) + " |")
        print("|---:|---:|---:|---:|---:|---:|" + "---|" * len(compilers))
        for n, s, d, h, ff, b in DECODER_SIZES:
            cells = [compile_once(cxx, n, d, h, b, ff, s) for cxx in compilers]
            print(f"| {n} | {s} | {d} | {h} | {ff} | {b} | " + " | ".join(cells) + " |", flush=True)
        return
    if args.encoder:
        print("| n | d_model | H | d_ff | B | " + " | ".join(compilers) + " |")
        print("|---:|---:|---:|---:|---:|" + "---|" * len(compilers))
        for n, d, h, ff, b in ENCODER_SIZES:
            cells = [compile_once(cxx, n, d, h, b, ff) for cxx in compilers]
            print(f"| {n} | {d} | {h} | {ff} | {b} | " + " | ".join(cells) + " |", flush=True)
        return
    print("| n | d_model | H | B | " + " | ".join(compilers) + " |")
    print("|---:|---:|---:|---:|" + "---|" * len(compilers))
    for n, d, h, b in SIZES:
        cells = [compile_once(cxx, n, d, h, b) for cxx in compilers]
        print(f"| {n} | {d} | {h} | {b} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
