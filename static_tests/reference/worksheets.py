#!/usr/bin/env python3
"""Independent float64 references for the worksheet static tests.

Computes every numeric answer of the five worksheets the way the worksheets' own solutions do, in
the arithmetic of test_support/reference_math.py (mpmath at 200 bits, each printed value rounded
once to float64: the same digits on every machine), and prints them as C++ initialisers with 17
significant digits.
The numbers in static_tests/worksheets/worksheet_*.cpp were pasted from this output; rerun it to check them:

    python3 static_tests/reference/worksheets.py
"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "test_support"))
import numpy as np  # noqa: E402
import reference_math as rm  # noqa: E402


def cxx(name, m):
    m = np.atleast_2d(rm.to_float(m))
    rows = ",\n".join("    {" + ", ".join(repr(float(v)) for v in r) + "}" for r in m)
    print(f"// {name}: {m.shape[0]} x {m.shape[1]}\n{{{{\n{rows}\n}}}}\n")


def attention(q, k, v):
    w = rm.softmax(q @ k.T / rm.sqrt(k.shape[1]))
    return w @ v, w


print("// ===== worksheet 000 / 002 =====")
X = rm.exact([[1, 2, 3, 4], [5, 6, 7, 8]])
WQ = [rm.exact([[.1, .2, .3], [.4, .5, .6], [.7, .8, .9], [1.0, 1.1, 1.2]]),
      rm.exact([[.2, .3, .4], [.5, .6, .7], [.8, .9, 1.0], [1.1, 1.2, 1.3]])]
WK = [rm.exact([[.3, .2, .1], [.6, .5, .4], [.9, .8, .7], [1.2, 1.1, 1.0]]),
      rm.exact([[.4, .3, .2], [.7, .6, .5], [1.0, .9, .8], [1.3, 1.2, 1.1]])]
WV = [rm.exact([[.7, .8, .9], [.4, .5, .6], [.1, .2, .3], [1.3, 1.4, 1.5]]),
      rm.exact([[.9, 1.0, 1.1], [.6, .7, .8], [.3, .4, .5], [1.4, 1.5, 1.6]])]
Wo = rm.exact([[.1, .2, .3, .4], [.5, .6, .7, .8], [.9, 1.0, 1.1, 1.2],
               [1.3, 1.4, 1.5, 1.6], [1.7, 1.8, 1.9, 2.0], [2.1, 2.2, 2.3, 2.4]])
Zs = []
for h in range(2):
    Q, K, V = X @ WQ[h], X @ WK[h], X @ WV[h]
    cxx(f"Q{h}", Q); cxx(f"K{h}", K); cxx(f"V{h}", V)
    S = Q @ K.T / rm.sqrt(3)
    cxx(f"scores{h}", S)
    Z, W = attention(Q, K, V)
    cxx(f"weights{h}", W)
    cxx(f"Z{h}", Z)
    Zs.append(Z)
Z = np.concatenate(Zs, axis=1)
cxx("Z", Z)
cxx("output", Z @ Wo)

print("// ===== worksheet 001 =====")
X = rm.exact([[1, 2], [3, 4]])
W1 = [rm.exact([[1, 0], [0, 1]]), rm.exact([[0, 1], [1, 0]]), rm.exact([[1, 0], [0, -1]])]
W2 = [rm.exact([[0, 1], [1, 0]]), rm.exact([[1, 0], [0, 1]]), rm.exact([[0, 1], [-1, 0]])]
Wo = rm.exact([[1, 0], [0, 1], [-1, 0], [0, -1]])
heads = []
for i, (wq, wk, wv) in enumerate([W1, W2], start=1):
    Q, K, V = X @ wq, X @ wk, X @ wv
    cxx(f"Q{i}", Q); cxx(f"K{i}", K); cxx(f"V{i}", V)
    cxx(f"scores{i}", Q @ K.T / rm.sqrt(2))
    Z, W = attention(Q, K, V)
    cxx(f"weights{i}", W)
    cxx(f"head{i}", Z)
    heads.append(Z)
cxx("concat", np.concatenate(heads, axis=1))
cxx("M", np.concatenate(heads, axis=1) @ Wo)

print("// ===== worksheet 003 part 3 =====")
X = rm.exact([[1, 1], [0, 1]])
Wq = rm.exact([[3, -1], [1, 1]])
Wk = rm.exact([[2, -2], [1, 3]])
Wv = rm.exact([[2, -2], [0, 2]])
Wo = rm.exact([[2, 0], [0, 1]])
Q, K, V = X @ Wq, X @ Wk, X @ Wv
cxx("Q", Q); cxx("K", K); cxx("V", V)
cxx("scores", Q @ K.T / rm.sqrt(2))
H, W = attention(Q, K, V)
cxx("weights", W)
cxx("H (exact weights)", H)
cxx("Y (exact weights)", H @ Wo)
Wapprox = rm.exact([[1.0, 0.0], [0.5, 0.5]])
cxx("H (given weights)", Wapprox @ V)
cxx("Y (given weights)", Wapprox @ V @ Wo)

print("// ===== worksheet 003 part 5 =====")
Q = rm.exact([[1, 2, 3, 4], [5, 6, 7, 8]])
K = rm.exact([[2, 0, 1, 1], [1, 3, 0, 2]])
V = rm.exact([[1, 0, 2, 1], [3, 1, 0, 2]])
outs = []
for h in range(2):
    q, k, v = Q[:, 2*h:2*h+2], K[:, 2*h:2*h+2], V[:, 2*h:2*h+2]
    o, w = attention(q, k, v)
    cxx(f"head{h} weights", w)
    cxx(f"head{h} output", o)
    outs.append(o)
cxx("MHA(Q,K,V) concat", np.concatenate(outs, axis=1))
H0 = rm.exact([[1, 0], [0, 1]])
H1 = rm.exact([[2, 1], [1, 2]])
Wo = rm.exact([[1, 0, 1, 0], [0, 1, 0, 1], [1, 0, 0, 1], [0, 1, 1, 0]])
Hc = np.concatenate([H0, H1], axis=1)
cxx("H", Hc)
cxx("Y", Hc @ Wo)

print("// ===== worksheet 004 =====")
X = rm.exact([[0.7, -0.8, -1.2, -1., -0., -0.3],
              [2.7, 0.1, 1.6, 1.8, 1.5, 0.3],
              [0.1, 2.6, -0.1, -1.3, -0.5, -0.7],
              [1.1, 1.5, 1., -0.5, 0.4, 0.4],
              [-0.7, -0.7, 0.7, -1.5, -0.8, 1.]])
Wq = rm.exact([[-1.7, 1.6, 0.9, -0.5, 0.4, -1.], [-0.4, 1., -0.3, 1., 0.5, 1.1],
               [0.4, -0.9, -1., 0.5, -1.4, 0.], [0.3, 1.4, -1.2, 0.2, 0.1, 1.6],
               [-0.8, 0.8, -0.7, -1.3, 0.3, 0.8], [1.1, 0.3, -1.5, -2.3, 2.2, -0.7]])
Wk = rm.exact([[0.3, -0.4, -1.3, 0.3, -1.7, 1.1], [-2.3, -1.1, 0.6, -1.2, 2.2, 0.3],
               [1.1, -0.4, -0.5, 1.9, -1.1, -1.2], [-0.4, 1., -1.7, 0., -3.3, -1.4],
               [-0.9, -1.1, -1., 1.4, 1.3, 1.2], [-0.7, 0.4, 0.4, -1.4, -0.2, -0.5]])
Wv = rm.exact([[-0.1, 0.7, 1., -0.1, 1.6, 0.9], [0.4, -1., -0.7, -0.6, -0.9, -0.1],
               [-0.4, 0.5, -1.4, 0.1, 0.6, 0.4], [1.4, -1.3, -1.3, -0.6, 1.6, -0.2],
               [-0.4, -0.6, -1.4, -1., 0.4, -0.8], [0.2, 0.5, 0.4, -0.5, 1.4, 2.3]])


def self_attention_004(X, Wq, Wk, Wv):  # the worksheet's own (unstabilised) formula
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    s = Q @ K.T / rm.sqrt(K.shape[1])
    e = rm.exp(s)
    w = e / e.sum(axis=1, keepdims=True)
    return w @ V, w


for H in (1, 3):
    outs, ws = [], []
    for idx in np.split(np.arange(6), H):
        o, w = self_attention_004(X, Wq[:, idx], Wk[:, idx], Wv[:, idx])
        outs.append(o); ws.append(w)
    cxx(f"H={H} output", np.concatenate(outs, axis=1))
    for i, w in enumerate(ws):
        cxx(f"H={H} weights head {i}", w)
