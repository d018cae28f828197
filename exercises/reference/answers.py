#!/usr/bin/env python3
"""Independent float64 answers for the exercises, written to exercises/answers.hpp.

Every number an exercise checks and cannot be checked by hand is computed here straight from the
formulas: softmax(Q·Kᵀ/√d_k)·V, masked keys left out of the softmax, heads side by side, grouped
heads sharing keys and values. Nothing here calls cxmat. The arithmetic is test_support/
reference_math.py's (mpmath at 200 bits, each answer rounded once to float64), so the header is
the same on every machine. The checks in the exercises compare with these numbers within 1e-9
relative.

    python3 exercises/reference/answers.py           # rewrite exercises/answers.hpp
    python3 exercises/reference/answers.py --check   # fail if exercises/answers.hpp differs
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "test_support"))
try:
    import numpy as np
    import reference_math as rm
    import mpmath
except ImportError as e:  # CTest reports exit status 77 as skipped
    print(f"{e.name} is not installed (Debian: python3-numpy, python3-mpmath): skipped")
    sys.exit(77)

OUT = os.path.join(os.path.dirname(HERE), "answers.hpp")


def attention(q, k, v, allowed=None):
    w = rm.softmax(q @ k.T / rm.sqrt(k.shape[1]), allowed)
    return w @ v, w


def a(rows):
    return rm.exact(rows)


blocks = []


def emit(exercise, name, m, why):
    m = np.atleast_2d(rm.to_float(m))
    rows = ",\n".join("    {" + ", ".join(repr(float(v)) for v in r) + "}" for r in m)
    blocks.append((exercise, "// %s\ninline constexpr cxmat::matrix<double, %d, %d> %s{{\n%s,\n}};"
                   % (why, m.shape[0], m.shape[1], name, rows)))


# The running example of exercises 01-05 and 11: n = 3 tokens, d_model = 4, d_k = 2, d_v = 3.
X = a([[1, 0, 1, 0], [0, 2, 0, 2], [1, 1, 1, 1]])
Wq = a([[.5, 0], [0, .5], [.5, 0], [0, .5]])
Wk = a([[0, .5], [.5, 0], [0, .5], [1, 0]])
Wv = a([[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1]])
Q, K, V = X @ Wq, X @ Wk, X @ Wv
emit(3, "scaled", Q @ K.T / rm.sqrt(2), "Q·Kᵀ/√d_k with d_k = 2")
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


# ---- Exercises 15-18: the rest of the transformer layer. ----


def layer_norm(x, gamma, beta, eps):
    """nn.LayerNorm over each row: the mean, the biased variance (/ d), eps inside the square root."""
    out = np.zeros(x.shape, dtype=object)
    d = x.shape[1]
    for i in range(x.shape[0]):
        mean = sum(x[i]) / d
        var = sum((x[i] - mean) ** 2) / d
        out[i] = (x[i] - mean) / rm.sqrt(var + eps) * gamma[0] + beta[0]
    return out


def relu(x):
    return np.frompyfunc(lambda v: v if v > 0 else 0 * v, 1, 1)(x)


# Exercise 15: layer norm of a 2 x 4 X by hand (row 0: mean 4, variance 5; row 1 constant).
X15 = a([[1, 3, 5, 7], [2, 2, 2, 2]])
g15, b15 = a([[1, 1, 2, .5]]), a([[0, .5, 0, -1]])
emit(15, "Y", layer_norm(X15, g15, b15, a(1e-5)), "(x - mean) / √(biased variance + 1e-5)·gamma + beta, row by row")

# Exercise 17: one post-norm encoder layer, n = 3, d_model = 4, H = 2 (d_k = 2), d_ff = 6, relu.
X17 = a([[1, 0, -1, .5], [0, 2, 1, -1], [.5, .5, 0, 1]])
# Head 0's weights differ from row to row (each token looks elsewhere: 0.13/0.55/0.31,
# 0.40/0.28/0.32, 0.25/0.42/0.34), so that a heatmap of them shows something.
Wq17 = a([[1, .5, .25, 0], [0, 1, 0, -.25], [-.5, 0, .5, 0], [0, -1, 0, .5]])
Wk17 = a([[0, 1, 0, .25], [1, 0, -.25, 0], [0, .5, .5, 0], [.5, 0, 0, .5]])
Wv17 = a([[1, 0, 0, .5], [0, 1, .5, 0], [0, .5, 1, 0], [.5, 0, 0, 1]])
bq17, bk17, bv17 = a([[.1, 0, 0, -.1]]), a([[0, .2, 0, 0]]), a([[0, 0, .5, 0]])
Wo17 = a([[.5, 0, 0, .5], [0, .5, .5, 0], [.5, -.5, 0, 0], [0, 0, .5, -.5]])
bo17 = a([[0, .25, 0, -.25]])
W117 = a([[1, 0, .5, 0, -1, .25], [0, 1, 0, .5, .5, -.5], [.5, 0, -1, 0, .25, 1], [0, .5, 0, -1, 1, 0]])
b117 = a([[0, -.5, .25, 0, 0, .5]])
W217 = a([[.5, 0, 0, .25], [0, .5, .25, 0], [.25, 0, .5, 0], [0, .25, 0, .5], [-.5, 0, .5, 0], [0, -.5, 0, .5]])
b217 = a([[.25, 0, -.25, 0]])
g117, be117 = a([[1, .5, 2, 1]]), a([[0, .25, 0, -.25]])
g217, be217 = a([[2, 1, 1, .5]]), a([[.5, 0, -.5, 0]])
eps17 = a(1e-5)
Q17, K17, V17 = X17 @ Wq17 + bq17[0], X17 @ Wk17 + bk17[0], X17 @ Wv17 + bv17[0]
heads17 = [attention(Q17[:, 2 * h:2 * h + 2], K17[:, 2 * h:2 * h + 2], V17[:, 2 * h:2 * h + 2])[0] for h in range(2)]
# No head gives two tokens the same row of weights, and head 0's rows differ by at least 0.1
# somewhere, so that a picture of the weights shows who looks at whom.
for h, apart in ((0, 0.1), (1, 0.01)):
    w17 = rm.to_float(attention(Q17[:, 2 * h:2 * h + 2], K17[:, 2 * h:2 * h + 2], V17[:, 2 * h:2 * h + 2])[1])
    assert all(np.abs(w17[i] - w17[j]).max() > apart for i in range(3) for j in range(i)), "exercise 17: head %d" % h
attended17 = np.concatenate(heads17, axis=1) @ Wo17 + bo17[0]
h17 = layer_norm(X17 + attended17, g117, be117, eps17)
ff17 = relu(h17 @ W117 + b117[0]) @ W217 + b217[0]
emit(17, "attended", attended17, "self_attn(X): Concat(head 0, head 1)·W_o + b_o, with Q = X·W_q + b_q, ...")
emit(17, "h", h17, "post-norm, first half: norm1(X + self_attn(X))")
emit(17, "Y", layer_norm(h17 + ff17, g217, be217, eps17), "post-norm, second half: norm2(h + linear2(relu(linear1(h))))")

# Exercise 18: rotary positions on one head, n = 3 positions, d_k = 4, base 10000.
Q18 = a([[1, 2, 3, 4], [1, 0, -1, 2], [.5, 1, 2, -1]])
K18 = a([[0, 1, 1, 0], [2, -1, 0, 1], [1, 1, -1, .5]])


def rotate(m, pairs):
    """Row p's pair i (columns pairs(i)) turned by θ = p·10000^(-2i/d_k)."""
    out = m.copy()
    d = m.shape[1]
    for p in range(m.shape[0]):
        for i in range(d // 2):
            theta = p * mpmath.power(10000, mpmath.mpf(-2 * i) / d)
            c, s = mpmath.cos(theta), mpmath.sin(theta)
            x, y = pairs(i, d)
            out[p, x] = m[p, x] * c - m[p, y] * s
            out[p, y] = m[p, y] * c + m[p, x] * s
    return out


def half(i, d):
    return i, i + d // 2


def neighbours(i, d):
    return 2 * i, 2 * i + 1


emit(18, "Q_interleaved", rotate(Q18, neighbours), "Q, pairs (2i, 2i + 1) turned (GPT-J)")
emit(18, "Q_half", rotate(Q18, half), "Q, pairs (i, i + d_k/2) turned (GPT-NeoX, LLaMA in Hugging Face)")
emit(18, "K_half", rotate(K18, half), "K, pairs (i, i + d_k/2) turned")
emit(18, "scores_half", rotate(Q18, half) @ rotate(K18, half).T / rm.sqrt(4),
     "scores with rotate-half rotary positions: rotated Q · rotated Kᵀ / √d_k")


# ---- Exercises 19-23: a decoder-only language model (the GPT path). ----


def rms_norm(x, gamma, eps):
    """LLaMA's RMSNorm over each row: x / √(mean(x²) + eps) · gamma."""
    out = np.zeros(x.shape, dtype=object)
    for i in range(x.shape[0]):
        out[i] = x[i] / rm.sqrt(sum(x[i] ** 2) / x.shape[1] + eps) * gamma[0]
    return out


def silu(x):
    return np.frompyfunc(lambda v: v / (1 + mpmath.exp(-v)), 1, 1)(x)


def swiglu(x, w_gate, w_up, w_down):
    return (silu(x @ w_gate) * (x @ w_up)) @ w_down


def causal(n):
    return np.tril(np.ones((n, n), dtype=bool))


def llama_attention(h, wq, wk, wv, wo, heads, kv_heads, pairs):
    """Grouped-query causal self-attention with rotary positions (rows are positions 0, 1, ...)."""
    d = wq.shape[1] // heads
    q, k, v = h @ wq, h @ wk, h @ wv
    outs = []
    for hd in range(heads):
        g = hd // (heads // kv_heads)
        qh = rotate(q[:, hd * d:(hd + 1) * d], pairs)
        kh = rotate(k[:, g * d:(g + 1) * d], pairs)
        outs.append(attention(qh, kh, v[:, g * d:(g + 1) * d], causal(h.shape[0]))[0])
    return np.concatenate(outs, axis=1) @ wo


# Exercise 19: the causal mask by hand on a 4 x 4 matrix of scores (already scaled).
S19 = a([[.5, 1, -.5, 2], [1.5, -1, .5, 0], [0, 2, 1, -1.5], [-.5, .5, 1.5, 1]])
emit(19, "weights", rm.softmax(S19, causal(4)), "softmax of each row over the keys 0..i (the causal triangle)")

# Exercise 20: one pre-norm LLaMA block, n = 3, d_model = 4, H = 2, H_kv = 1 (d_head = 2), SwiGLU
# width 3, rotate-half rotary positions (base 10000), eps 1e-6.
X20 = a([[-.2, .9, -.5, -.9], [-.4, .4, .6, .1], [-.4, .8, .9, -.1]])
g1_20, g2_20 = a([[1, .5, 1.5, 1]]), a([[.5, 1, 1, 2]])
Wq20 = a([[-.2, .2, .4, .2], [-.1, -.1, .3, .8], [-.9, -.8, .5, -.1], [.6, .1, -.1, .9]])
Wk20 = a([[-.3, .3], [.1, -.8], [-.7, .6], [0, .4]])
Wv20 = a([[-.1, .7], [.7, -.1], [-.7, .7], [0, .1]])
Wo20 = a([[0, -.9, 0, -.8], [-.9, .7, -.7, .4], [-.1, 0, 0, -.7], [-.9, .3, -.8, -.9]])
Wg20 = a([[-.9, .2, .9], [.1, -1, .2], [0, .4, -.8], [.3, .9, -.6]])
Wu20 = a([[.9, .2, .7], [-.6, -.2, .7], [.7, .2, .5], [.1, -.1, -.4]])
Wd20 = a([[0, 0, 0, -1], [1, 1, .4, -.6], [.7, -.5, -.9, -.6]])
eps20 = a(1e-6)
h20 = rms_norm(X20, g1_20, eps20)
att20 = llama_attention(h20, Wq20, Wk20, Wv20, Wo20, 2, 1, half)
x1_20 = X20 + att20
h2_20 = rms_norm(x1_20, g2_20, eps20)
emit(20, "h", h20, "rms_norm(X, attention_norm, 1e-6)")
emit(20, "attended_row0", att20[0:1], "row 0 of the attention: token 0 sees only itself")
emit(20, "attended", att20, "causal grouped-query attention of h with rotate-half rotary positions, then W_o")
emit(20, "x1", x1_20, "X + attended")
emit(20, "h2", h2_20, "rms_norm(x1, ffn_norm, 1e-6)")
emit(20, "Y", x1_20 + swiglu(h2_20, Wg20, Wu20, Wd20), "x1 + swiglu(h2, w_gate, w_up, w_down)")

# Exercise 21: one head with a cache; 3 prompt tokens and one new token, d = 4, rotate-half.
X21 = a([[.6, .7, .9, .6], [-.4, .1, .4, -.9], [-.8, .4, -.3, -.8], [0, -.8, .3, -.8]])
Wq21 = a([[1, .6, -.6, -.7], [.4, -.5, .7, .5], [.6, -.2, .6, .8], [.7, -.4, -.6, -.8]])
Wk21 = a([[-.6, .2, -.4, 0], [.8, .2, -.1, -.8], [.3, -.1, -.7, .2], [.2, .9, -1, -.7]])
Wv21 = a([[-.3, -.7, -.8, -.8], [.1, 0, -.8, -.6], [-.6, 0, 0, .4], [.4, .8, -.2, -.7]])
K21, V21 = rotate(X21 @ Wk21, half), X21 @ Wv21
Z21 = attention(rotate(X21 @ Wq21, half), K21, V21, causal(4))[0]
emit(21, "keys", K21, "the cache's keys: row p is token p's key turned at position p")
emit(21, "values", V21, "the cache's values: row p is token p's value (not turned)")
emit(21, "last_row", Z21[3:4], "row 3 of the full causal pass softmax(Q·Kᵀ/2)·V, Q and K turned")


# Exercise 22: greedy generation from a tiny LLaMA (vocabulary 6, d_model 4, one block of H = 2
# query heads and H_kv = 1 key/value head, SwiGLU width 4, norms' weights 1, eps 1e-6, the head
# tied to the embedding), recomputed over the whole sequence for every new token: no cache.
E22 = a([[.3, 1, -.5, .3], [-.4, -.3, -.2, -.7], [-.4, .2, .5, .4], [.8, 0, .4, -.5], [-.9, .2, -1, -.7],
         [-.8, -.2, -.7, .9]])
Wq22 = a([[.1, .2, .8, .5], [1, 0, .7, .9], [.2, .9, .6, -.7], [.6, .9, .5, -.4]])
Wk22 = a([[-.3, 0], [-.4, -.5], [.8, .4], [-1, -.3]])
Wv22 = a([[0, .4], [-.6, .6], [-.8, .3], [-.6, 0]])
Wo22 = a([[-.6, .4, -.7, -.6], [-.9, .8, .2, -.6], [.5, -.3, -.4, .7], [.4, -.9, -.7, .6]])
Wg22 = a([[.1, .8, -.6, -.4], [-1, -.5, -.7, .5], [.3, -.8, .9, -.1], [.9, -.5, 1, .3]])
Wu22 = a([[.9, .5, .6, -.8], [.3, -.6, -.5, .2], [.7, .9, -.3, -.3], [-.8, -.3, .2, 0]])
Wd22 = a([[.3, .6, .3, -.5], [-.1, .9, .1, -.1], [-.1, .6, -.6, .4], [-.3, .8, .2, -.4]])
ones22, eps22 = a([[1, 1, 1, 1]]), a(1e-6)


def logits22(ids):
    x = E22[ids]
    x = x + llama_attention(rms_norm(x, ones22, eps22), Wq22, Wk22, Wv22, Wo22, 2, 1, neighbours)
    x = x + swiglu(rms_norm(x, ones22, eps22), Wg22, Wu22, Wd22)
    return rms_norm(x, ones22, eps22) @ E22.T


def greedy22(prompt, count):
    ids = list(prompt)
    for _ in range(count):
        row = rm.to_float(logits22(ids)[-1:])[0]
        best = int(np.argmax(row))
        assert sorted(row)[-1] - sorted(row)[-2] > 1e-3, "exercise 22: a near tie"
        ids.append(best)
    return ids[len(prompt):]


prompt22 = [1, 4, 2]
emit(22, "first_logits", logits22(prompt22)[-1:], "the logits after the prompt 1 4 2 (its last position)")
emit(22, "tokens", a([greedy22(prompt22, 4)]), "4 greedy tokens after the prompt 1 4 2")

# Exercise 23: sampling with temperature and top-k, the draw of docs/generation.md:
# u_i = (SplitMix64(seed + i · 0x9E3779B97F4A7C15) >> 11) / 2^53 for the token at position i,
# r = u · (the kept probabilities' sum), the first kept token (most probable first) whose
# running sum exceeds r.
MASK64 = (1 << 64) - 1


def splitmix64(x):
    z = (x + 0x9E3779B97F4A7C15) & MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def draw(seed, position):
    return mpmath.mpf(splitmix64((seed + position * 0x9E3779B97F4A7C15) & MASK64) >> 11) / 2 ** 53


L23, T23, K23, SEED23 = a([[2, 1, .5, 3, -1, 1.5]]), a(1.5), 3, 7
P23 = rm.softmax(L23 / T23)


def sample23(p, k, u):
    ids = sorted(range(p.shape[1]), key=lambda j: (-p[0, j], j))[:k]
    r = u * sum(p[0, j] for j in ids)
    cumulative = 0
    for j in ids:
        cumulative += p[0, j]
        assert abs(cumulative - r) > 1e-9, "exercise 23: a draw at a boundary"
        if r < cumulative:
            return j
    return ids[-1]


U23 = [draw(SEED23, i) for i in range(8)]
emit(23, "u", np.array([U23], dtype=object), "the draws u_0..u_7 of seed 7")
emit(23, "probabilities", P23, "softmax(logits / 1.5)")
emit(23, "tokens", a([[sample23(P23, K23, u) for u in U23]]), "the tokens drawn at positions 0..7: temperature 1.5, top-k 3, seed 7")

def render():
    out = ["// Generated by exercises/reference/answers.py (mpmath, rounded once to float64). Do not edit: regenerate.",
           "// The answers the exercises check, computed without cxmat.",
           "#pragma once", "", "#include <cxmat/cxmat.hpp>", "", "#include \"check.hpp\"", "",
           "namespace answers {", "",
           "/// The exercises' value check: check.hpp's close (1e-9 relative or 1e-12 absolute).",
           "using check::close;", ""]
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
