#!/usr/bin/env python3
"""How large an int8 layer calibrate + multi_head_attention can evaluate in one constant expression
under each compiler's default constexpr limits, and what that costs in compile time.

Compiles constexpr_layer.cpp (-fsyntax-only, default limits) for each size and compiler and prints
a Markdown table: n, d_model (= d_out), H, calibration inputs B, and per compiler "fits" with the
wall-clock seconds, or "limit" when the evaluation hits the step / operation limit.

  constexpr_reach.py [--cxx g++ --cxx clang++-19 ...] [--encoder | --decoder | --imported]

--encoder: calibrate and run an int8 encoder layer (post-norm, ReLU) instead, with a d_ff column.
--decoder: the same for a decoder layer (post-norm, ReLU, causal), with the memory's rows s too.
--imported: PyTorch nn.TransformerEncoderLayer(d_model, H, d_ff) (seeded, post-norm, ReLU) saved with
torch.save, imported by scripts/cxmat_import.py --type q8 on B random calibration inputs of n tokens,
calibrated by the compiler (--calibrate compiler) or offline by the importer (--calibrate offline),
and a translation unit that includes the header and runs the module (-fsyntax-only, default
limits): per compiler the wall-clock seconds and the compiler's peak memory (the importer's own
seconds for the offline header in a column of its own), or "limit".
"""
import argparse
import os
import pathlib
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
SIZES = [(8, 16, 2, 4), (8, 16, 2, 16), (16, 32, 4, 4), (16, 32, 4, 8), (32, 32, 4, 1), (32, 64, 8, 1)]
ENCODER_SIZES = [(8, 16, 2, 32, 4), (8, 16, 2, 32, 16), (8, 32, 4, 64, 4), (8, 32, 4, 64, 8), (8, 32, 4, 64, 16),
                 (16, 32, 4, 64, 4)]
# n, memory rows s, d_model, H, d_ff, B
DECODER_SIZES = [(8, 8, 16, 2, 32, 4), (8, 8, 16, 2, 32, 8), (8, 8, 16, 2, 32, 16), (8, 8, 32, 4, 64, 2),
                 (8, 8, 32, 4, 64, 4)]


# d_model, H, d_ff, n, B, calibration (PyTorch's nn.TransformerEncoderLayer sizes)
IMPORTED_SIZES = [(32, 4, 64, 16, 16, "compiler"), (32, 4, 64, 16, 16, "offline"), (64, 8, 256, 16, 16, "offline"),
                  (128, 8, 512, 16, 16, "offline")]


def measured(cmd):
    """Runs cmd: (exit status, stderr, wall-clock seconds, peak resident memory in MiB)."""
    start = time.monotonic()
    with tempfile.TemporaryFile() as err:
        process = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.monotonic() - start
        err.seek(0)
        text = err.read().decode(errors="replace")
    return os.waitstatus_to_exitcode(status), text, seconds, usage.ru_maxrss / 1024.0


def imported_header(directory, d, h, ff, n, b, calibrate):
    """The int8 header of a seeded nn.TransformerEncoderLayer(d, h, ff) and the importer's seconds.
    PyTorch runs in a process of its own: this one stays small, so that the peak memory measured
    for a compiler (its process forked from this one) is the compiler's."""
    weights, inputs = os.path.join(directory, "layer.pt"), os.path.join(directory, "inputs.npz")
    subprocess.run([sys.executable, "-c", f"""import numpy as np, torch
torch.manual_seed({d})
layer = torch.nn.TransformerEncoderLayer({d}, {h}, {ff}, dropout=0.0).eval()
torch.save(layer.state_dict(), {weights!r})
np.savez({inputs!r}, x=np.random.default_rng({d}).standard_normal(({b}, {n}, {d})))
"""], check=True)
    header = os.path.join(directory, "layer.hpp")
    status, err, seconds, _ = measured([sys.executable, str(ROOT / "scripts" / "cxmat_import.py"), weights, "--module",
                                        "encoder_layer", "--heads", str(h), "--post-norm", "--name", "layer", "--type",
                                        "q8", "--calibration", inputs, "--calibrate", calibrate, "-o", header])
    if status != 0:
        raise SystemExit(f"cxmat_import.py failed: {err}")
    with open(os.path.join(directory, "use.cpp"), "w") as f:
        # The input depends on argc: a run-time call, which no compiler tries to fold.
        f.write('#include "layer.hpp"\n'
                "int main(int argc, char**) {\n"
                "  auto x = layer_weights::calibration_inputs[0];\n"
                "  x(0, 0) = argc;\n"
                "  return layer(x)(0, 0) > 0 ? 0 : 1;\n"
                "}\n")
    return os.path.join(directory, "use.cpp"), seconds


def imported_table(compilers):
    print("| d_model | H | d_ff | n | B | calibration | importer | " + " | ".join(compilers) + " |")
    print("|---:|---:|---:|---:|---:|---|---:|" + "---|" * len(compilers))
    for d, h, ff, n, b, calibrate in IMPORTED_SIZES:
        with tempfile.TemporaryDirectory() as directory:
            source, importer = imported_header(directory, d, h, ff, n, b, calibrate)
            cells = []
            for cxx in compilers:
                status, err, seconds, memory = measured([cxx, "-std=c++20", "-fsyntax-only", f"-I{ROOT / 'include'}",
                                                         source])
                if status == 0:
                    cells.append(f"fits, {seconds:.1f} s, {memory:.0f} MiB")
                elif "limit" in err or "maximum step" in err:
                    cells.append("limit")
                else:
                    cells.append("error: " + err.splitlines()[0][:60])
        print(f"| {d} | {h} | {ff} | {n} | {b} | {calibrate} | {importer:.1f} s | " + " | ".join(cells) + " |",
              flush=True)


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
    parser.add_argument("--imported", action="store_true")
    args = parser.parse_args()
    compilers = args.cxx or ["g++", "clang++-14", "clang++-19"]
    if args.imported:
        imported_table(compilers)
        return
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
