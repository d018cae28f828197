#!/usr/bin/env python3
"""PyTorch's predictions for the held-out sequences of train.py, for sort_digits.cpp to reproduce,
and its attention weights for one sequence, for attention.cpp.

    predictions.py OUT.hpp

Loads sort_digits.safetensors into train.py's model (the weights read with the importer's reader),
draws train.py's 10,000 held-out sequences (their own seed) and writes them with PyTorch's
predictions (float32, argmax per position) as two byte arrays. Made by the build where PyTorch is
installed: PyTorch's kernels depend on the CPU, so its predictions are not committed.
"""
import os
import runpy
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    train = runpy.run_path(os.path.join(HERE, "train.py"))
    importer = runpy.run_path(os.path.join(HERE, "..", "..", "scripts", "cxmat_import.py"))
    tensors = importer["read_safetensors"](os.path.join(HERE, "sort_digits.safetensors"))
    model = train["SortDigits"]()
    model.load_state_dict({k: torch.from_numpy(a.copy()) for k, (a, _) in tensors.items()})
    model.eval()
    torch.set_num_threads(1)
    x, y = train["batch"](torch.Generator().manual_seed(train["HELD_OUT_SEED"]), train["HELD_OUT"])
    with torch.no_grad():
        predictions = model(x).argmax(-1)
    count = x.shape[0]
    sorted_ok = int((predictions == y).all(dim=1).sum())

    # Each layer's attention weights per head for 31415926 (float32), for attention.cpp.
    digits = torch.tensor([[3, 1, 4, 1, 5, 9, 2, 6]])
    with torch.no_grad():
        h = model.embed(digits) + model.pos
        weights = []
        for layer in model.encoder.layers:
            weights.append(layer.self_attn(h, h, h, need_weights=True, average_attn_weights=False)[1][0])
            h = layer(h)
    attention = torch.stack(weights)  # 2 x 4 x 8 x 8

    def nested(values):
        if isinstance(values, list):
            return "{" + ", ".join(nested(v) for v in values) + "}"
        return f"{values!r}F"

    def array(name, t):
        rows = ",\n".join("  {" + ", ".join(str(int(v)) for v in row) + "}" for row in t.tolist())
        return f"inline constexpr unsigned char {name}[{count}][8] = {{\n{rows}}};\n"

    with open(sys.argv[1], "w") as f:
        f.write("// train.py's held-out sequences and PyTorch's predictions (predictions.py; not committed).\n"
                "#pragma once\n\n#include <cstddef>\n\n"
                f"inline constexpr std::size_t held_out_count = {count};\n"
                f"inline constexpr std::size_t pytorch_fully_sorted = {sorted_ok};\n"
                + array("held_out_digits", x) + array("pytorch_predictions", predictions)
                + "// PyTorch's attention weights of each layer and head for 31415926.\n"
                + f"inline constexpr float pytorch_attention[2][4][8][8] = {nested(attention.tolist())};\n")


if __name__ == "__main__":
    main()
