#!/usr/bin/env python3
"""Independent float64 references for static_tests/attention/attention_features.cpp (masks, causal,
grouped-query cross-attention), in the arithmetic of test_support/reference_math.py (mpmath,
each printed value rounded once to float64). Run: python3 static_tests/reference/attention_features.py"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "test_support"))
import numpy as np  # noqa: E402
import reference_math as rm  # noqa: E402


def show(name, m):
    m = np.atleast_2d(rm.to_float(m))
    rows = ", ".join("{" + ", ".join(repr(float(v)) for v in r) + "}" for r in m)
    print(f"// {name}: {m.shape[0]} x {m.shape[1]}\n{{{{{rows}}}}}\n")


softmax_masked = rm.softmax


# Causal self-attention, 3 tokens, d_k = d_v = 2, upper-left triangle.
Q = rm.exact([[1., 0.], [0., 1.], [1., 1.]])
K = rm.exact([[1., 0.], [0., 1.], [1., -1.]])
V = rm.exact([[1., 2.], [3., 4.], [5., 6.]])
causal = np.tril(np.ones((3, 3), dtype=bool))
W = softmax_masked(Q @ K.T / rm.sqrt(2), causal)
show("causal weights", W)
show("causal output", W @ V)

# Grouped-query cross-attention: L = 2 queries of width 3, S = 3 keys of width 2,
# H = 4 query heads, H_kv = 2 key/value heads, d_k = d_v = 1, W_o 4 x 3.
Xq = rm.exact([[1., 0., 2.], [0., 1., -1.]])
Xkv = rm.exact([[1., 1.], [2., -1.], [0., 3.]])
Wq = rm.exact([[1., 0., 2., -1.], [0., 1., 1., 0.], [1., 1., 0., 1.]])
Wk = rm.exact([[1., 0.], [0., 1.]])
Wv = rm.exact([[1., 2.], [-1., 1.]])
Wo = rm.exact([[1., 0., 0.], [0., 1., 0.], [0., 0., 1.], [1., 1., 1.]])
q, k, v = Xq @ Wq, Xkv @ Wk, Xkv @ Wv
heads = []
for h in range(4):
    g = h // 2
    w = softmax_masked(q[:, [h]] @ k[:, [g]].T / rm.sqrt(1), np.ones((2, 3), dtype=bool))
    show(f"gqa weights head {h}", w)
    heads.append(w @ v[:, [g]])
Z = np.concatenate(heads, axis=1)
show("gqa heads", Z)
show("gqa output", Z @ Wo)
