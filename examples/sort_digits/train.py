#!/usr/bin/env python3
"""Trains the digit-sorting transformer whose weights are sort_digits.safetensors.

The task: 8 digits in, the same 8 digits sorted out, one prediction per position. The model is a
PyTorch encoder of the usual shape, small enough for a microcontroller:

    token embedding (10 x 32) + learned positions (8 x 32)
    -> 2 x nn.TransformerEncoderLayer(d_model 32, 4 heads, d_ff 64, relu, post-norm, no dropout)
    -> linear head (32 -> 10) -> argmax per position

Deterministic: one thread, seeded, PyTorch's deterministic algorithms; the held-out set is drawn
from its own seed and never trained on. A few minutes on 2 cores with Debian's python3-torch.

    /usr/bin/python3 examples/sort_digits/train.py [--steps N] [-o sort_digits.safetensors]

Prints the loss while it trains, then the held-out accuracy (sequences fully sorted, digits
right), and writes the weights as float32 .safetensors with the state_dict's key names. The
header the examples compile is generated from that file by scripts/cxmat_import.py in the build.
"""
import argparse
import json
import pathlib
import struct
import sys
import time

import torch
from torch import nn

VOCAB, N, D_MODEL, HEADS, D_FF, LAYERS = 10, 8, 32, 4, 64, 2
SEED, HELD_OUT_SEED, HELD_OUT = 20261125, 7, 10000
HERE = pathlib.Path(__file__).resolve().parent


class SortDigits(nn.Module):
    """Embedding + learned positions, a 2-layer post-norm encoder, a linear head."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, D_MODEL)
        self.pos = nn.Parameter(0.1 * torch.randn(N, D_MODEL))
        layer = nn.TransformerEncoderLayer(D_MODEL, HEADS, D_FF, dropout=0.0, activation="relu",
                                           batch_first=True, norm_first=False)
        self.encoder = nn.TransformerEncoder(layer, LAYERS, enable_nested_tensor=False)
        self.head = nn.Linear(D_MODEL, VOCAB)

    def forward(self, tokens):  # (B, N) int64 -> (B, N, VOCAB) logits
        return self.head(self.encoder(self.embed(tokens) + self.pos))


def batch(generator, size):
    x = torch.randint(0, VOCAB, (size, N), generator=generator)
    return x, torch.sort(x, dim=1).values


def accuracy(model, x, y):
    with torch.no_grad():
        pred = model(x).argmax(-1)
    return (pred == y).all(dim=1).float().mean().item(), (pred == y).float().mean().item()


def save_safetensors(path, tensors):
    """The .safetensors layout: 8-byte little-endian header size, a JSON header, raw data."""
    header, blobs, offset = {}, [], 0
    for name, t in tensors.items():
        data = t.detach().to(torch.float32).contiguous().numpy().astype("<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(t.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    header["__metadata__"] = {"format": "pt", "model": "sort_digits", "seed": str(SEED)}
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    path.write_bytes(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=2000)
    p.add_argument("-o", "--output", default=str(HERE / "sort_digits.safetensors"))
    a = p.parse_args()
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    torch.manual_seed(SEED)
    model = SortDigits()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=a.steps, pct_start=0.1)
    train_gen = torch.Generator().manual_seed(SEED)
    held_x, held_y = batch(torch.Generator().manual_seed(HELD_OUT_SEED), HELD_OUT)
    loss_fn = nn.CrossEntropyLoss()
    start = time.time()
    for step in range(1, a.steps + 1):
        x, y = batch(train_gen, 256)
        loss = loss_fn(model(x).reshape(-1, VOCAB), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        if step % 500 == 0 or step == a.steps:
            model.eval()
            seq, digit = accuracy(model, held_x, held_y)
            model.train()
            print(f"step {step:5d}  loss {loss.item():.4f}  held-out: {100 * seq:.2f} % sequences, "
                  f"{100 * digit:.3f} % digits  ({time.time() - start:.0f} s)", flush=True)
    model.eval()
    seq, digit = accuracy(model, held_x, held_y)
    print(f"held-out accuracy (float32, PyTorch {torch.__version__}): {100 * seq:.2f} % of {HELD_OUT} sequences "
          f"fully sorted, {100 * digit:.3f} % of digits")
    save_safetensors(pathlib.Path(a.output), model.state_dict())
    print(f"wrote {a.output}")
    return 0 if seq >= 0.99 else 1


if __name__ == "__main__":
    sys.exit(main())
