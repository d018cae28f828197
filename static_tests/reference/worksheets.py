#!/usr/bin/env python3
"""Independent float64 references for the worksheet static tests.

Computes every numeric answer of the five worksheets with numpy (float64), the way the
worksheets' own solutions do, and prints them as C++ initialisers with 17 significant digits.
The numbers in static_tests/worksheets/worksheet_*.cpp were pasted from this output; rerun it to check them:

    python3 static_tests/reference/worksheets.py
"""
import numpy as np

np.set_printoptions(precision=17)


def cxx(name, m):
    m = np.atleast_2d(np.asarray(m, dtype=np.float64))
    rows = ",\n".join("    {" + ", ".join(repr(float(v)) for v in r) + "}" for r in m)
    print(f"// {name}: {m.shape[0]} x {m.shape[1]}\n{{{{\n{rows}\n}}}}\n")


def softmax(s):
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def attention(q, k, v):
    w = softmax(q @ k.T / np.sqrt(k.shape[1]))
    return w @ v, w


print("// ===== worksheet 000 / 002 =====")
X = np.array([[1, 2, 3, 4], [5, 6, 7, 8]], dtype=np.float64)
WQ = [np.array([[.1, .2, .3], [.4, .5, .6], [.7, .8, .9], [1.0, 1.1, 1.2]]),
      np.array([[.2, .3, .4], [.5, .6, .7], [.8, .9, 1.0], [1.1, 1.2, 1.3]])]
WK = [np.array([[.3, .2, .1], [.6, .5, .4], [.9, .8, .7], [1.2, 1.1, 1.0]]),
      np.array([[.4, .3, .2], [.7, .6, .5], [1.0, .9, .8], [1.3, 1.2, 1.1]])]
WV = [np.array([[.7, .8, .9], [.4, .5, .6], [.1, .2, .3], [1.3, 1.4, 1.5]]),
      np.array([[.9, 1.0, 1.1], [.6, .7, .8], [.3, .4, .5], [1.4, 1.5, 1.6]])]
Wo = np.array([[.1, .2, .3, .4], [.5, .6, .7, .8], [.9, 1.0, 1.1, 1.2],
               [1.3, 1.4, 1.5, 1.6], [1.7, 1.8, 1.9, 2.0], [2.1, 2.2, 2.3, 2.4]])
Zs = []
for h in range(2):
    Q, K, V = X @ WQ[h], X @ WK[h], X @ WV[h]
    cxx(f"Q{h}", Q); cxx(f"K{h}", K); cxx(f"V{h}", V)
    S = Q @ K.T / np.sqrt(3)
    cxx(f"scores{h}", S)
    Z, W = attention(Q, K, V)
    cxx(f"weights{h}", W)
    cxx(f"Z{h}", Z)
    Zs.append(Z)
Z = np.concatenate(Zs, axis=1)
cxx("Z", Z)
cxx("output", Z @ Wo)

print("// ===== worksheet 001 =====")
X = np.array([[1, 2], [3, 4]], dtype=np.float64)
W1 = [np.array([[1, 0], [0, 1]]), np.array([[0, 1], [1, 0]]), np.array([[1, 0], [0, -1]])]
W2 = [np.array([[0, 1], [1, 0]]), np.array([[1, 0], [0, 1]]), np.array([[0, 1], [-1, 0]])]
Wo = np.array([[1, 0], [0, 1], [-1, 0], [0, -1]], dtype=np.float64)
heads = []
for i, (wq, wk, wv) in enumerate([W1, W2], start=1):
    Q, K, V = X @ wq, X @ wk, X @ wv
    cxx(f"Q{i}", Q); cxx(f"K{i}", K); cxx(f"V{i}", V)
    cxx(f"scores{i}", Q @ K.T / np.sqrt(2))
    Z, W = attention(Q, K, V)
    cxx(f"weights{i}", W)
    cxx(f"head{i}", Z)
    heads.append(Z)
cxx("concat", np.concatenate(heads, axis=1))
cxx("M", np.concatenate(heads, axis=1) @ Wo)

print("// ===== worksheet 003 part 3 =====")
X = np.array([[1, 1], [0, 1]], dtype=np.float64)
Wq = np.array([[3, -1], [1, 1]], dtype=np.float64)
Wk = np.array([[2, -2], [1, 3]], dtype=np.float64)
Wv = np.array([[2, -2], [0, 2]], dtype=np.float64)
Wo = np.array([[2, 0], [0, 1]], dtype=np.float64)
Q, K, V = X @ Wq, X @ Wk, X @ Wv
cxx("Q", Q); cxx("K", K); cxx("V", V)
cxx("scores", Q @ K.T / np.sqrt(2))
H, W = attention(Q, K, V)
cxx("weights", W)
cxx("H (exact weights)", H)
cxx("Y (exact weights)", H @ Wo)
Wapprox = np.array([[1.0, 0.0], [0.5, 0.5]])
cxx("H (given weights)", Wapprox @ V)
cxx("Y (given weights)", Wapprox @ V @ Wo)

print("// ===== worksheet 003 part 5 =====")
Q = np.array([[1, 2, 3, 4], [5, 6, 7, 8]], dtype=np.float64)
K = np.array([[2, 0, 1, 1], [1, 3, 0, 2]], dtype=np.float64)
V = np.array([[1, 0, 2, 1], [3, 1, 0, 2]], dtype=np.float64)
outs = []
for h in range(2):
    q, k, v = Q[:, 2*h:2*h+2], K[:, 2*h:2*h+2], V[:, 2*h:2*h+2]
    o, w = attention(q, k, v)
    cxx(f"head{h} weights", w)
    cxx(f"head{h} output", o)
    outs.append(o)
cxx("MHA(Q,K,V) concat", np.concatenate(outs, axis=1))
H0 = np.array([[1, 0], [0, 1]], dtype=np.float64)
H1 = np.array([[2, 1], [1, 2]], dtype=np.float64)
Wo = np.array([[1, 0, 1, 0], [0, 1, 0, 1], [1, 0, 0, 1], [0, 1, 1, 0]], dtype=np.float64)
Hc = np.concatenate([H0, H1], axis=1)
cxx("H", Hc)
cxx("Y", Hc @ Wo)

print("// ===== worksheet 004 =====")
X = np.array([[0.7, -0.8, -1.2, -1., -0., -0.3],
              [2.7, 0.1, 1.6, 1.8, 1.5, 0.3],
              [0.1, 2.6, -0.1, -1.3, -0.5, -0.7],
              [1.1, 1.5, 1., -0.5, 0.4, 0.4],
              [-0.7, -0.7, 0.7, -1.5, -0.8, 1.]])
Wq = np.array([[-1.7, 1.6, 0.9, -0.5, 0.4, -1.], [-0.4, 1., -0.3, 1., 0.5, 1.1],
               [0.4, -0.9, -1., 0.5, -1.4, 0.], [0.3, 1.4, -1.2, 0.2, 0.1, 1.6],
               [-0.8, 0.8, -0.7, -1.3, 0.3, 0.8], [1.1, 0.3, -1.5, -2.3, 2.2, -0.7]])
Wk = np.array([[0.3, -0.4, -1.3, 0.3, -1.7, 1.1], [-2.3, -1.1, 0.6, -1.2, 2.2, 0.3],
               [1.1, -0.4, -0.5, 1.9, -1.1, -1.2], [-0.4, 1., -1.7, 0., -3.3, -1.4],
               [-0.9, -1.1, -1., 1.4, 1.3, 1.2], [-0.7, 0.4, 0.4, -1.4, -0.2, -0.5]])
Wv = np.array([[-0.1, 0.7, 1., -0.1, 1.6, 0.9], [0.4, -1., -0.7, -0.6, -0.9, -0.1],
               [-0.4, 0.5, -1.4, 0.1, 0.6, 0.4], [1.4, -1.3, -1.3, -0.6, 1.6, -0.2],
               [-0.4, -0.6, -1.4, -1., 0.4, -0.8], [0.2, 0.5, 0.4, -0.5, 1.4, 2.3]])


def self_attention_004(X, Wq, Wk, Wv):  # the worksheet's own (unstabilised) formula
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    s = Q @ K.T / np.sqrt(K.shape[1])
    e = np.exp(s)
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
