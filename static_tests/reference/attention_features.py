#!/usr/bin/env python3
"""Independent float64 references for static_tests/attention/attention_features.cpp (masks, causal,
grouped-query cross-attention). Run: python3 static_tests/reference/attention_features.py"""
import numpy as np


def show(name, m):
    m = np.atleast_2d(m)
    rows = ", ".join("{" + ", ".join(repr(float(v)) for v in r) + "}" for r in m)
    print(f"// {name}: {m.shape[0]} x {m.shape[1]}\n{{{{{rows}}}}}\n")


def softmax_masked(s, allowed):
    s = np.where(allowed, s, -np.inf)
    out = np.zeros_like(s)
    for i in range(s.shape[0]):
        if allowed[i].any():
            e = np.exp(s[i] - s[i][allowed[i]].max())
            out[i] = e / e.sum()
    return out


# Causal self-attention, 3 tokens, d_k = d_v = 2, upper-left triangle.
Q = np.array([[1., 0.], [0., 1.], [1., 1.]])
K = np.array([[1., 0.], [0., 1.], [1., -1.]])
V = np.array([[1., 2.], [3., 4.], [5., 6.]])
causal = np.tril(np.ones((3, 3), dtype=bool))
W = softmax_masked(Q @ K.T / np.sqrt(2), causal)
show("causal weights", W)
show("causal output", W @ V)

# Grouped-query cross-attention: L = 2 queries of width 3, S = 3 keys of width 2,
# H = 4 query heads, H_kv = 2 key/value heads, d_k = d_v = 1, W_o 4 x 3.
Xq = np.array([[1., 0., 2.], [0., 1., -1.]])
Xkv = np.array([[1., 1.], [2., -1.], [0., 3.]])
Wq = np.array([[1., 0., 2., -1.], [0., 1., 1., 0.], [1., 1., 0., 1.]])
Wk = np.array([[1., 0.], [0., 1.]])
Wv = np.array([[1., 2.], [-1., 1.]])
Wo = np.array([[1., 0., 0.], [0., 1., 0.], [0., 0., 1.], [1., 1., 1.]])
q, k, v = Xq @ Wq, Xkv @ Wk, Xkv @ Wv
heads = []
for h in range(4):
    g = h // 2
    w = softmax_masked(q[:, [h]] @ k[:, [g]].T / np.sqrt(1), np.ones((2, 3), dtype=bool))
    show(f"gqa weights head {h}", w)
    heads.append(w @ v[:, [g]])
Z = np.concatenate(heads, axis=1)
show("gqa heads", Z)
show("gqa output", Z @ Wo)
