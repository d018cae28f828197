#!/usr/bin/env python3
"""Checks that cxmat's headers include only downward, layer by layer.

Layers, bottom first (CONTRIBUTING.md draws them):
  core       extents, matrix, batch, shape rules             (standard library only)
  math       scalar exp, sqrt, log, tanh, erf, sin, cos      (standard library only)
  kernels    array kernels, constant-evaluation and run-time paths (math)
  ops        arithmetic, blocks, softmax, compare            (core, kernels)
  attention  every attention form and its options            (ops and below)
  transformer norms, feed-forward, embeddings, encoder/decoder layers (attention and below)
  quantized  int8 arithmetic and attention                   (ops and below)
  text       fixed_string, tokenizers, encode and decode      (core)
  generation decoder-only language models, KV cache, sampling, generate (transformer and below)
  io         shape text, printing, traces, heatmaps          (everything below)
A folder's umbrella header (cxmat/ops.hpp for ops/) is in that folder's layer; cxmat/cxmat.hpp
is above all. A header may include its own layer and lower layers, and a `detail/` folder is
private to its layer. Prints every violation and exits 1 if there is any.
"""
import pathlib
import re
import sys

LAYERS = ["core", "math", "kernels", "ops", "attention", "transformer", "quantized", "text", "generation", "io"]
RANK = {name: i for i, name in enumerate(LAYERS)}
TOP = len(LAYERS)
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"](cxmat/[^>"]+)[>"]', re.M)


def layer_of(rel):
    """rel is a path below include/, e.g. cxmat/ops/softmax.hpp -> ('ops', detail?)."""
    parts = rel.split("/")
    if len(parts) == 2:  # an umbrella: cxmat/ops.hpp
        stem = parts[1][: -len(".hpp")]
        return (stem if stem in RANK else None), False
    return parts[1], "detail" in parts[2:-1]


def main():
    root = pathlib.Path(__file__).resolve().parent.parent / "include"
    problems = []
    headers = sorted(root.rglob("*.hpp"))
    for path in headers:
        rel = path.relative_to(root).as_posix()
        here, _ = layer_of(rel)
        if here is not None and here not in RANK:
            problems.append(f"{rel}: folder '{here}' is not a known layer")
            continue
        here_rank = TOP if here is None else RANK[here]
        for target in INCLUDE.findall(path.read_text()):
            there, private = layer_of(target)
            there_rank = TOP if there is None else RANK.get(there, TOP)
            if there_rank > here_rank:
                problems.append(f"{rel}: includes {target}, a higher layer ({there} above {here})")
            elif private and there != here:
                problems.append(f"{rel}: includes {target}, private to the {there} layer")
    for p in problems:
        print(p)
    print(f"check_layers: {len(headers)} headers, {len(problems)} upward or private includes")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
