# Copyright the cxmat authors.
# SPDX-License-Identifier: BSL-1.0
"""The importer's clipping of activation ranges (--clip) measured: int8 modules calibrated offline
with min/max, percentile and MSE ranges, run by cxmat (a host program compiled here) on held-out
inputs and compared with the float model.

  layer   an nn.TransformerEncoderLayer(32, 4, 64) (seeded, post-norm, ReLU), calibrated on 16
          inputs of 16 tokens whose entries are normal with rare outliers (1 % of them 8 times
          larger, as activations with outliers are), run on 64 held-out inputs of the same kind:
          the int8 layer's error against PyTorch's layer in double (RMS and largest, relative to
          the reference's RMS and largest magnitude).
  sorter  the trained digit sorter's two encoder layers (examples/sort_digits), calibrated on the
          embedded rows of 16 random sequences, run on 2000 held-out sequences: the float head
          (numpy, double) on the int8 stack's output, how many sequences come out sorted, and the
          logits' error against the float stack's (cxmat's double import of the same file).

  python3 benchmarks/quantized/clipping.py [--cxx g++] [--quick] [--clip percentile:99.9 ...]

--quick uses fewer inputs (a check that the benchmark runs, not a measurement). Prints a Markdown
table per part, as docs/quantized.md shows them. --check (the test quantized.clipping_benchmark,
with --quick --part sorter) fails unless every int8 sorter but the one clipped at the 99th
percentile sorts at least 98 % of the sequences the float one sorts, and its logits' RMS error
stays under 10 % of theirs.
"""
import argparse
import os
import runpy
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
IMPORTER = os.path.join(ROOT, "scripts", "cxmat_import.py")
SORTER = os.path.join(ROOT, "examples", "sort_digits", "sort_digits.safetensors")
DEFAULT_CLIPS = ["minmax", "percentile:99.99", "percentile:99.9", "percentile:99", "mse"]


def ident(clip):
    return clip.replace("percentile:", "p").replace(".", "_").replace(":", "_")


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        sys.exit(f"FAIL: {' '.join(cmd)}\n{r.stdout}{r.stderr}")
    return r.stdout


def heavy_tailed(rng, shape):
    """Normal entries, 1 % of them 8 times larger."""
    x = rng.standard_normal(shape)
    return np.where(rng.random(shape) < 0.01, 8.0 * x, x)


def safetensors(path):
    """The file's tensors in double, read by the importer's own reader."""
    read = runpy.run_path(IMPORTER)["read_safetensors"]
    return {key: array.astype(np.float64) for key, (array, _) in read(path).items()}


def program(headers, modules, n, d, out):
    """A host program that runs each module on the inputs of a binary file (count x n x d doubles)
    and writes every module's output in turn."""
    lines = ["#include <cstdio>", "#include <cstdlib>", "#include <vector>", "#include <cxmat/core/matrix.hpp>"]
    lines += [f'#include "{h}"' for h in headers]
    lines += ["int main(int argc, char** argv) {",
              "  if (argc != 4) return 2;",
              "  const long count = std::atol(argv[1]);",
              "  std::FILE* in = std::fopen(argv[2], \"rb\");",
              "  std::FILE* out = std::fopen(argv[3], \"wb\");",
              "  if (!in || !out) return 3;",
              f"  std::vector<cxmat::matrix<double, {n}, {d}>> xs(static_cast<std::size_t>(count));",
              "  for (auto& x : xs) {",
              f"    if (std::fread(x.elems, sizeof(double), {n * d}, in) != {n * d}) return 4;",
              "  }"]
    for m in modules:
        lines += ["  for (const auto& x : xs) {",
                  f"    const auto y = {m}(x);",
                  f"    double row[{n * d}];",
                  f"    for (std::size_t i = 0; i < {n}; ++i)",
                  f"      for (std::size_t j = 0; j < {d}; ++j) row[i * {d} + j] = static_cast<double>(y(i, j));",
                  f"    std::fwrite(row, sizeof(double), {n * d}, out);",
                  "  }"]
    lines += ["  return std::fclose(out) == 0 ? 0 : 5;", "}"]
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")


def compile_and_run(work, cxx, headers, modules, xs):
    count, n, d = xs.shape
    src, exe = os.path.join(work, f"run_{n}x{d}.cpp"), os.path.join(work, f"run_{n}x{d}")
    program(headers, modules, n, d, src)
    run([cxx, "-std=c++20", "-O2", "-I", os.path.join(ROOT, "include"), "-I", work, src, "-o", exe])
    inputs, outputs = os.path.join(work, "inputs.bin"), os.path.join(work, "outputs.bin")
    np.ascontiguousarray(xs, dtype=np.float64).tofile(inputs)
    run([exe, str(count), inputs, outputs])
    return np.fromfile(outputs, dtype=np.float64).reshape(len(modules), count, n, d)


def layer_part(work, cxx, clips, quick):
    import torch
    torch.manual_seed(7)
    layer = torch.nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0, batch_first=True).eval()
    pt = os.path.join(work, "layer.pt")
    torch.save(layer.state_dict(), pt)
    rng = np.random.default_rng(11)
    calibration = heavy_tailed(rng, (16, 16, 32))
    held_out = heavy_tailed(rng, (8 if quick else 64, 16, 32))
    npz = os.path.join(work, "layer_calibration.npz")
    np.savez(npz, x=calibration)
    headers, modules = [], []
    for clip in clips:
        name = f"layer_{ident(clip)}"
        out = os.path.join(work, f"{name}.hpp")
        run([sys.executable, IMPORTER, pt, "--module", "encoder_layer", "--heads", "4", "--post-norm", "--type", "q8",
             "--calibration", npz, "--clip", clip, "--name", name, "--dims", "clip_layer", "-o", out])
        headers.append(out)
        modules.append(name)
    ys = compile_and_run(work, cxx, headers, modules, held_out)
    with torch.no_grad():
        ref = layer.double()(torch.from_numpy(held_out)).numpy()
    rms, peak = float(np.sqrt(np.mean(ref ** 2))), float(np.abs(ref).max())
    print("| --clip | RMS error / RMS of the output | largest error / largest output |")
    print("|---|---:|---:|")
    for clip, y in zip(clips, ys):
        e = y - ref
        print(f"| {clip} | {np.sqrt(np.mean(e ** 2)) / rms:.4f} | {np.abs(e).max() / peak:.4f} |")


def sorter_part(work, cxx, clips, quick):
    w = safetensors(SORTER)
    rng = np.random.default_rng(20261129)
    digits = rng.integers(0, 10, size=(16 + (200 if quick else 2000), 8))
    rows = w["embed.weight"][digits] + w["pos"][None, :, :]
    calibration, held_out = rows[:16], rows[16:]
    npz = os.path.join(work, "sorter_calibration.npz")
    np.savez(npz, x=calibration)
    headers, modules = [], []
    common = [sys.executable, IMPORTER, SORTER, "--module", "encoder", "--prefix", "encoder.", "--heads", "4",
              "--post-norm", "--dims", "clip_sort"]
    out = os.path.join(work, "sorter_double.hpp")
    run(common + ["--type", "double", "--name", "sorter_double", "-o", out])
    headers.append(out)
    modules.append("sorter_double")
    for clip in clips:
        name = f"sorter_{ident(clip)}"
        out = os.path.join(work, f"{name}.hpp")
        run(common + ["--type", "q8", "--calibration", npz, "--clip", clip, "--name", name, "-o", out])
        headers.append(out)
        modules.append(name)
    ys = compile_and_run(work, cxx, headers, modules, held_out)
    head_w, head_b = w["head.weight"], w["head.bias"]
    logits = ys @ head_w.T + head_b
    ref = logits[0]
    wanted = np.sort(digits[16:], axis=1)
    count = held_out.shape[0]
    float_sorted = int((ref.argmax(axis=-1) == wanted).all(axis=1).sum())
    print(f"| model ({count} held-out sequences) | sorted | logits' RMS error / RMS of the float logits |")
    print("|---|---:|---:|")
    print(f"| float (double) | {float_sorted} | - |")
    rms = float(np.sqrt(np.mean(ref ** 2)))
    failed = []
    for clip, lg in zip(clips, logits[1:]):
        ok = int((lg.argmax(axis=-1) == wanted).all(axis=1).sum())
        error = float(np.sqrt(np.mean((lg - ref) ** 2))) / rms
        print(f"| int8, --clip {clip} | {ok} | {error:.4f} |")
        if clip != "percentile:99" and (ok < 0.98 * float_sorted or error >= 0.1):
            failed.append(clip)
    return failed


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--cxx", default="g++")
    p.add_argument("--quick", action="store_true")
    p.add_argument("--clip", action="append", help="a --clip value (repeatable; default: " +
                   ", ".join(DEFAULT_CLIPS) + ")")
    p.add_argument("--part", choices=["layer", "sorter", "all"], default="all")
    p.add_argument("--check", action="store_true")
    args = p.parse_args()
    clips = args.clip or DEFAULT_CLIPS
    failed = []
    with tempfile.TemporaryDirectory() as work:
        if args.part in ("layer", "all"):
            layer_part(work, args.cxx, clips, args.quick)
            print()
        if args.part in ("sorter", "all"):
            failed = sorter_part(work, args.cxx, clips, args.quick)
    if args.check and failed:
        sys.exit(f"FAIL: the int8 sorter with --clip {', '.join(failed)} sorts under 98 % of the float one's "
                 "sequences or its logits' RMS error is 10 % or more")


if __name__ == "__main__":
    main()
