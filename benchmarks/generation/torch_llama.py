#!/usr/bin/env python3
"""The same LLaMA step in PyTorch (float32, one thread, a cache of keys and values), greedy from
BOS, timed as step.cpp times cxmat. The weights are gen_weights.py's raw file (llama2.c's
layout), read with numpy.

    torch_llama.py MODEL.bin [STEPS=128] [REPEATS=10]

Prints one line of JSON: the tokens of the first run and the seconds of each run.
"""
import json
import sys
import time

import numpy as np
import torch


def load(path):
    with open(path, "rb") as f:
        dim, hidden, layers, heads, kv_heads, vocab, context = np.frombuffer(f.read(28), dtype="<i4").tolist()
        shared = vocab > 0  # run.c's convention: a negative vocab_size means a separate head (wcls)
        vocab = abs(vocab)
        data = np.frombuffer(f.read(), dtype="<f4")
    kv = dim // heads * kv_heads
    shapes = [("tok", (vocab, dim)), ("rms_att", (layers, dim)), ("wq", (layers, dim, dim)),
              ("wk", (layers, kv, dim)), ("wv", (layers, kv, dim)), ("wo", (layers, dim, dim)),
              ("rms_ffn", (layers, dim)), ("w1", (layers, hidden, dim)), ("w2", (layers, dim, hidden)),
              ("w3", (layers, hidden, dim)), ("rms_final", (dim,))]
    w, at = {}, 0
    for name, shape in shapes:
        n = int(np.prod(shape))
        w[name] = torch.from_numpy(data[at:at + n].reshape(shape).copy())
        at += n
    at += context * (dim // heads)  # two unused tables of rotary angles, context x head/2 each
    if shared:
        w["wcls"] = w["tok"]
    else:
        w["wcls"] = torch.from_numpy(data[at:at + vocab * dim].reshape(vocab, dim).copy())
        at += vocab * dim
    if at != data.size:
        sys.exit(f"{path}: size does not match its config")
    cfg = dict(dim=dim, hidden=hidden, layers=layers, heads=heads, kv_heads=kv_heads, vocab=vocab, context=context)
    return cfg, w


class Model:
    def __init__(self, cfg, w):
        self.c, self.w = cfg, w
        d, h = cfg["dim"], cfg["heads"]
        self.hd = d // h
        self.kv = self.hd * cfg["kv_heads"]
        self.group = h // cfg["kv_heads"]
        # Rotary angles as run.c computes them, in float32: 1 / 10000^(i/head_size), i = 0, 2, ...
        i = torch.arange(0, self.hd, 2, dtype=torch.float32)
        self.freq = 1.0 / torch.pow(torch.tensor(10000.0), i / self.hd)
        L, ctx = cfg["layers"], cfg["context"]
        self.k_cache = torch.zeros(L, ctx, cfg["kv_heads"], self.hd)
        self.v_cache = torch.zeros(L, ctx, cfg["kv_heads"], self.hd)
        self.scale = float(np.sqrt(np.float32(self.hd)))

    @staticmethod
    def rmsnorm(x, weight):
        return weight * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-5))

    @staticmethod
    def rope(x, cos, sin):  # x: heads x hd, interleaved pairs
        x0, x1 = x[..., 0::2], x[..., 1::2]
        return torch.stack((x0 * cos - x1 * sin, x0 * sin + x1 * cos), dim=-1).flatten(-2)

    def step(self, token, pos):
        w, c = self.w, self.c
        x = w["tok"][token].clone()
        angle = pos * self.freq
        cos, sin = torch.cos(angle), torch.sin(angle)
        for l in range(c["layers"]):
            xb = self.rmsnorm(x, w["rms_att"][l])
            q = (w["wq"][l] @ xb).view(c["heads"], self.hd)
            k = (w["wk"][l] @ xb).view(c["kv_heads"], self.hd)
            v = (w["wv"][l] @ xb).view(c["kv_heads"], self.hd)
            q, k = self.rope(q, cos, sin), self.rope(k, cos, sin)
            self.k_cache[l, pos] = k
            self.v_cache[l, pos] = v
            keys = self.k_cache[l, :pos + 1].repeat_interleave(self.group, dim=1)  # T x H x hd
            values = self.v_cache[l, :pos + 1].repeat_interleave(self.group, dim=1)
            att = torch.einsum("hd,thd->ht", q, keys) / self.scale
            att = torch.softmax(att, dim=-1)
            out = torch.einsum("ht,thd->hd", att, values).reshape(c["dim"])
            x = x + w["wo"][l] @ out
            xb = self.rmsnorm(x, w["rms_ffn"][l])
            hb = torch.nn.functional.silu(w["w1"][l] @ xb) * (w["w3"][l] @ xb)
            x = x + w["w2"][l] @ hb
        x = self.rmsnorm(x, w["rms_final"])
        return w["wcls"] @ x


def run(model, steps):
    token, out = 1, []  # BOS
    for pos in range(steps):
        token = int(torch.argmax(model.step(token, pos)))
        out.append(token)
    return out


def main():
    torch.set_num_threads(1)
    path = sys.argv[1]
    steps = int(sys.argv[2]) if len(sys.argv) > 2 else 128
    repeats = int(sys.argv[3]) if len(sys.argv) > 3 else 10
    cfg, w = load(path)
    model = Model(cfg, w)
    with torch.inference_mode():
        first = run(model, steps)  # warm-up, and the tokens
        seconds = []
        for r in range(repeats):
            t0 = time.perf_counter()
            tokens = run(model, steps)
            seconds.append(time.perf_counter() - t0)
            if tokens != first:
                sys.exit(f"run {r} gave other tokens")
    print(json.dumps({"tokens": first, "seconds": seconds, "torch": torch.__version__,
                      "threads": torch.get_num_threads()}))


if __name__ == "__main__":
    main()
