#!/usr/bin/env python3
"""Independent float64 answers for the exercises, written to exercises/answers.hpp.

Every number an exercise checks and cannot be checked by hand is computed here with numpy
(float64), straight from the formulas: softmax(Q·Kᵀ/√d_k)·V with the stable softmax, masks as
-inf before the softmax, heads side by side, grouped heads sharing keys and values. Nothing here
calls cxmat. The checks in the exercises compare with these numbers within 1e-9 relative.

    python3 exercises/reference/answers.py           # rewrite exercises/answers.hpp
    python3 exercises/reference/answers.py --check   # fail if exercises/answers.hpp differs
"""
import os
import sys

try:
    import numpy as np
except ImportError:  # CTest reports exit status 77 as skipped
    print("numpy is not installed (Debian: python3-numpy): skipped")
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(os.path.dirname(HERE), "answers.hpp")


def softmax(s):
    """Row-wise softmax; a row that is all -inf (every key masked) gives zeros."""
    out = np.zeros_like(s)
    for i, row in enumerate(s):
        if np.all(np.isneginf(row)):
            continue
        e = np.exp(row - row.max())
        out[i] = e / e.sum()
    return out


def attention(q, k, v, allowed=None):
    s = q @ k.T / np.sqrt(k.shape[1])
    if allowed is not None:
        s = np.where(allowed, s, -np.inf)
    w = softmax(s)
    return w @ v, w


def a(rows):
    return np.array(rows, dtype=np.float64)


blocks = []


def emit(exercise, name, m, why):
    m = np.atleast_2d(m)
    rows = ",\n".join("    {" + ", ".join(repr(float(v)) for v in r) + "}" for r in m)
    blocks.append((exercise, "// %s\ninline constexpr cxmat::matrix<double, %d, %d> %s{{\n%s,\n}};"
                   % (why, m.shape[0], m.shape[1], name, rows)))


# The running example of exercises 01-05 and 11: n = 3 tokens, d_model = 4, d_k = 2, d_v = 3.
X = a([[1, 0, 1, 0], [0, 2, 0, 2], [1, 1, 1, 1]])
Wq = a([[.5, 0], [0, .5], [.5, 0], [0, .5]])
Wk = a([[0, .5], [.5, 0], [0, .5], [1, 0]])
Wv = a([[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1]])
Q, K, V = X @ Wq, X @ Wk, X @ Wv
emit(3, "scaled", Q @ K.T / np.sqrt(2), "Q·Kᵀ/√d_k with d_k = 2")
Z, W = attention(Q, K, V)
emit(4, "weights", W, "softmax of each row of Q·Kᵀ/√2")
emit(5, "Z", Z, "softmax(Q·Kᵀ/√2)·V")
Zc, Wc = attention(Q, K, V, np.tril(np.ones((3, 3), dtype=bool)))
emit(11, "weights", Wc, "causal weights: token i attends to tokens 0..i")
emit(11, "Z", Zc, "causal attention of the running example")

# Worksheet 001: X 2 x 2, two heads of 2 x 2 projections, W_o 4 x 2 (exercises 06-09).
X1 = a([[1, 2], [3, 4]])
heads = [(a([[1, 0], [0, 1]]), a([[0, 1], [.5, 0]]), a([[1, 0], [0, -1]])),
         (a([[0, 1], [1, 0]]), a([[.5, 0], [0, 2]]), a([[0, 1], [-1, 0]]))]
Wo1 = a([[1, 0], [0, 1], [-1, 0], [0, -1]])
Zs = [attention(X1 @ wq, X1 @ wk, X1 @ wv)[0] for wq, wk, wv in heads]
emit(6, "Z0", Zs[0], "worksheet 001, head 0: softmax(Q·Kᵀ/√2)·V")
emit(7, "Z0", Zs[0], "worksheet 001, head 0")
emit(7, "Z1", Zs[1], "worksheet 001, head 1")
emit(7, "Z", np.concatenate(Zs, axis=1), "the heads side by side: n x (2·d_v)")
emit(8, "Z", np.concatenate(Zs, axis=1), "worksheet 001, both heads side by side")
emit(9, "out", np.concatenate(Zs, axis=1) @ Wo1, "Concat(Z0, Z1)·W_o")

# Exercise 10: 2 queries, 3 keys; query 0 may not see key 2.
Qm = a([[1, 0], [0, 1]])
Km = a([[1, 0], [0, 1], [1, 1]])
Vm = a([[1, 0], [0, 1], [2, 2]])
allowed = np.array([[True, True, False], [True, True, True]])
Zm, Wm = attention(Qm, Km, Vm, allowed)
emit(10, "weights", Wm, "weights with key 2 hidden from query 0")
emit(10, "Z", Zm, "output with the mask")

# Exercise 12: cross-attention, 2 queries of width 2 over the running example's 3 tokens.
Xq = a([[1, 0], [0, 1]])
Wq12 = a([[1, 0], [0, 1]])
Wv12 = a([[1, 0], [0, 1], [1, 0], [0, 1]])
Z12, W12 = attention(Xq @ Wq12, X @ Wk, X @ Wv12)
emit(12, "weights", W12, "L x S = 2 x 3 weights")
emit(12, "Z", Z12, "L x d_v = 2 x 2 output")

# Exercise 13: grouped-query attention, H = 4 query heads, H_kv = 2 key/value heads, d_k = d_v = 1.
Xg = a([[1, 0, 1, 0], [0, 1, 0, 1]])
Wqg = a([[1, 0, 0, 1], [0, 1, 1, 0], [1, 1, 0, 0], [0, 0, 1, 1]])
Wkg = a([[1, 0], [0, 1], [1, 1], [0, 1]])
Wvg = a([[1, 2], [3, 4], [5, 6], [7, 8]]) / 2
Qg, Kg, Vg = Xg @ Wqg, Xg @ Wkg, Xg @ Wvg
outs = []
for h in range(4):
    g = h // 2  # query heads 0, 1 share key/value head 0; heads 2, 3 share head 1
    outs.append(attention(Qg[:, h:h + 1], Kg[:, g:g + 1], Vg[:, g:g + 1])[0])
emit(13, "Z", np.concatenate(outs, axis=1), "the 4 query heads side by side, n x (H·d_v) = 2 x 4")

# Worksheet 000: X 2 x 4, two heads of 4 x 3 projections, W_o 6 x 4 (exercise 14).
X0 = a([[.1, .2, .3, .4], [.5, .6, .7, .8]])
WQ = [a([[.1, .2, .3], [.4, .5, .6], [.7, .8, .9], [1.0, 1.1, 1.2]]),
      a([[.2, .3, .4], [.5, .6, .7], [.8, .9, 1.0], [1.1, 1.2, 1.3]])]
WK = [a([[.1, .2, .3], [.6, .5, .4], [.9, .8, .7], [1.2, 1.1, 1.0]]),
      a([[.2, .3, .4], [.7, .6, .5], [1.0, .9, .8], [1.3, 1.2, 1.1]])]
WV = [a([[.7, .8, .9], [.4, .5, .6], [.1, .2, .3], [1.3, 1.4, 1.5]]),
      a([[.9, 1.0, 1.1], [.6, .7, .8], [.3, .4, .5], [1.4, 1.5, 1.6]])]
Wo0 = a([[.1, .2, .3, .4], [.5, .6, .7, .8], [.9, 1.0, 1.1, 1.2],
         [1.3, 1.4, 1.5, 1.6], [1.7, 1.8, 1.9, 2.0], [2.1, 2.2, 2.3, 2.4]])
Z0s = []
for h in range(2):
    Qh, Kh, Vh = X0 @ WQ[h], X0 @ WK[h], X0 @ WV[h]
    emit(14, "Q%d" % h, Qh, "(a) Q%d = X·W%d^Q" % (h, h))
    emit(14, "K%d" % h, Kh, "(a) K%d = X·W%d^K" % (h, h))
    emit(14, "V%d" % h, Vh, "(a) V%d = X·W%d^V" % (h, h))
    Zh = attention(Qh, Kh, Vh)[0]
    emit(14, "Z%d" % h, Zh, "(b) Z%d = softmax(Q%d·K%dᵀ/√3)·V%d" % (h, h, h, h))
    Z0s.append(Zh)
emit(14, "Z", np.concatenate(Z0s, axis=1), "(c) Z = Concat(Z0, Z1)")
emit(14, "out", np.concatenate(Z0s, axis=1) @ Wo0, "(d) Z·W_o, passed on to the FFN")


def render():
    out = ["// Generated by exercises/reference/answers.py (numpy float64). Do not edit: regenerate.",
           "// The answers the exercises check, computed without cxmat.",
           "#pragma once", "", "#include <cxmat/cxmat.hpp>", "", "namespace answers {", "",
           "/// True when a and b have the same shape and every pair of elements agrees within 1e-9",
           "/// relative (or 1e-12 absolute, for values near zero).",
           "/// A shape mismatch (sizes or names) is false rather than a compile error, so that a check",
           "/// reports the mistake in its own words (and only once: the shapes are compared here, before",
           "/// approx_equal, whose shape error is a hard error where shape errors are sentences).",
           "template <class A, class B>",
           "constexpr bool close(const A& a, const B& b) {",
           "  if constexpr (cxmat::compatible_extents<A::row_extent, B::row_extent> &&",
           "                cxmat::compatible_extents<A::col_extent, B::col_extent>) {",
           "    return cxmat::approx_equal(a, b, 1e-9, 1e-12);",
           "  } else {",
           "    return false;",
           "  }",
           "}", ""]
    for ex in sorted({e for e, _ in blocks}):
        out.append("namespace ex%02d {\n" % ex)
        out.append("\n\n".join(text for e, text in blocks if e == ex))
        out.append("\n}  // namespace ex%02d\n" % ex)
    out.append("}  // namespace answers")
    return "\n".join(out) + "\n"


def main():
    text = render()
    if "--check" in sys.argv[1:]:
        with open(OUT, encoding="utf-8") as f:
            if f.read() != text:
                print("exercises/answers.hpp is stale: run python3 exercises/reference/answers.py")
                return 1
        print("exercises/answers.hpp is current")
        return 0
    with open(OUT, "w", encoding="utf-8") as f:
        f.write(text)
    print("wrote exercises/answers.hpp")
    return 0


if __name__ == "__main__":
    sys.exit(main())
