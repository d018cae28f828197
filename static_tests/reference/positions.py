#!/usr/bin/env python3
"""References for positional encodings and rotary position embedding (RoPE):
test_support/positions_reference.hpp, read by static_tests/positions and runtime_tests/positions.

The committed values are computed with mpmath at 200 bits from the formulas and rounded once to
float64, so they do not depend on the CPU or on a libm, and --check compares text:
  sinusoidal (Vaswani et al. 3.5): PE[p][2i] = sin(p / base^(2i/d)), PE[p][2i+1] = cos(same);
  rotary (Su et al.): in each head of width d_k, pair i (columns (i, i + d_k/2) in the rotate-half
  layout, (2i, 2i + 1) in the interleaved one) of a row at position p turns by
  θ = p · base^(-2i/d_k): (x, y) -> (x cos θ - y sin θ, y cos θ + x sin θ) (partial rotary: the first
  r columns only, with r for d_k); queries at positions
  0..L-1 (S-L..S-1 with causal_lower_right), keys at 0..S-1; values are not rotated;
  attention: Q = X_q·W_q + b_q, K = X_kv·W_k + b_k, V = X_kv·W_v, each head rotated, scores
  Q_h·K_gᵀ / √d_k, masked scores dropped, softmax, weights·V_g, Concat(heads)·W_o.
The script also transcribes, in float64 numpy, the rotary code of the reference implementations
(Hugging Face transformers: LLaMA / GPT-NeoX `rotate_half` + `apply_rotary_pos_emb`, GPT-J
`rotate_every_two` + `apply_rotary_pos_emb`; the sinusoidal table of the PyTorch tutorial) and
checks that they agree with the mpmath formulas within 1e-13, and that the two layouts give
different outputs on the cases below (so a test cannot pass with the wrong layout).

Run: /usr/bin/python3 static_tests/reference/positions.py [--check]
"""
import argparse
import pathlib
import sys

try:
    import mpmath
    from mpmath import mp, mpf
except ImportError:  # CTest reports the check as skipped (SKIP_RETURN_CODE 77)
    print("mpmath is not available: positions reference not checked", file=sys.stderr)
    sys.exit(77)

ROOT = pathlib.Path(__file__).resolve().parents[2]
HEADER = ROOT / "test_support" / "positions_reference.hpp"
mp.prec = 200


def eighths(seed, rows, cols):
    """Fixed inputs in [-1, 1], multiples of 1/8 (exact in binary), from a small LCG."""
    state = seed
    out = []
    for _ in range(rows):
        row = []
        for _ in range(cols):
            state = (state * 1103515245 + 12345) % 2**31
            row.append(((state >> 16) % 17 - 8) / 8.0)
        out.append(row)
    return out


# ---- mpmath formulas ----------------------------------------------------------------------


def mat(m):
    return [[mpf(v) for v in row] for row in m]


def matmul(a, b):
    return [[mpmath.fsum(a[i][k] * b[k][j] for k in range(len(b))) for j in range(len(b[0]))]
            for i in range(len(a))]


def add_row(m, b):
    return [[v + b[0][j] for j, v in enumerate(row)] for row in m]


def columns(m, start, width):
    return [row[start:start + width] for row in m]


def hconcat(blocks):
    return [sum((b[i] for b in blocks), []) for i in range(len(blocks[0]))]


def rotate(m, first_position, base, layout, dims=0):
    """Each row of m (one head of width d_k) turned at its position: the formula above, on the
    first `dims` columns (all when 0) with d_k replaced by dims."""
    dk = dims or len(m[0])
    half = dk // 2
    out = []
    for r, row in enumerate(m):
        p = first_position + r
        new = list(row)
        for i in range(half):
            theta = p * mpmath.power(base, -mpf(2 * i) / dk)
            a, b = (i, i + half) if layout == "rotate_half" else (2 * i, 2 * i + 1)
            x, y = row[a], row[b]
            new[a] = x * mpmath.cos(theta) - y * mpmath.sin(theta)
            new[b] = y * mpmath.cos(theta) + x * mpmath.sin(theta)
        out.append(new)
    return out


def attend(q, k, v, allowed):
    dk = len(q[0])
    out = []
    for i, qi in enumerate(q):
        keep = [j for j in range(len(k)) if allowed(i, j)]
        s = {j: mpmath.fsum(a * b for a, b in zip(qi, k[j])) / mpmath.sqrt(dk) for j in keep}
        if not keep:
            out.append([mpf(0)] * len(v[0]))
            continue
        top = max(s.values())
        e = {j: mpmath.exp(s[j] - top) for j in keep}
        total = mpmath.fsum(e.values())
        out.append([mpmath.fsum(e[j] / total * v[j][c] for j in keep) for c in range(len(v[0]))])
    return out


def scores(q, k):
    dk = len(q[0])
    return [[mpmath.fsum(a * b for a, b in zip(qi, kj)) / mpmath.sqrt(dk) for kj in k] for qi in q]


def mask_of(kind, L, S):
    if kind == "causal":
        return lambda i, j: j <= i
    if kind == "lower_right":
        return lambda i, j: j + L <= i + S
    return lambda i, j: True


def heads_attention(q, k, v, H, Hkv, base, layout, mask, dims=0):
    """Grouped heads over projected Q (L x H·d_k), K (S x Hkv·d_k), V (S x Hkv·d_v)."""
    L, S = len(q), len(k)
    dk, dv = len(q[0]) // H, len(v[0]) // Hkv
    first_query = S - L if mask == "lower_right" else 0
    outs = []
    for h in range(H):
        g = h // (H // Hkv)
        qh, kh = columns(q, h * dk, dk), columns(k, g * dk, dk)
        qh, kh = rotate(qh, first_query, base, layout, dims), rotate(kh, 0, base, layout, dims)
        outs.append(attend(qh, kh, columns(v, g * dv, dv), mask_of(mask, L, S)))
    return hconcat(outs)


def sinusoidal(n, d, base):
    out = []
    for p in range(n):
        row = []
        for c in range(d):
            theta = p / mpmath.power(base, mpf(2 * (c // 2)) / d)
            row.append(mpmath.sin(theta) if c % 2 == 0 else mpmath.cos(theta))
        out.append(row)
    return out


# ---- the reference implementations' code, in float64 numpy (a cross-check only) -------------


def numpy_checks(cases):
    import numpy as np

    def llama_rotary(x, positions, base):
        # transformers LlamaRotaryEmbedding / GPTNeoXRotaryEmbedding and apply_rotary_pos_emb
        dim = x.shape[-1]
        inv_freq = 1.0 / (base ** (np.arange(0, dim, 2, dtype=np.float64) / dim))
        freqs = np.einsum("i,j->ij", positions.astype(np.float64), inv_freq)
        emb = np.concatenate((freqs, freqs), axis=-1)

        def rotate_half(t):
            t1, t2 = t[..., : t.shape[-1] // 2], t[..., t.shape[-1] // 2:]
            return np.concatenate((-t2, t1), axis=-1)

        return x * np.cos(emb) + rotate_half(x) * np.sin(emb)

    def gptj_rotary(x, positions, base):
        # transformers GPT-J create_sinusoidal_positions, rotate_every_two, apply_rotary_pos_emb
        dim = x.shape[-1]
        inv_freq = 1.0 / (base ** (np.arange(0, dim, 2, dtype=np.float64) / dim))
        sinusoid_inp = np.einsum("i,j->ij", positions.astype(np.float64), inv_freq)
        sin, cos = np.repeat(np.sin(sinusoid_inp), 2, axis=-1), np.repeat(np.cos(sinusoid_inp), 2, axis=-1)

        def rotate_every_two(t):
            t1, t2 = t[..., ::2], t[..., 1::2]
            return np.stack((-t2, t1), axis=-1).reshape(t.shape)

        return x * cos + rotate_every_two(x) * sin

    def partial(rotary_fn, dims):
        # GPT-NeoX (rotary_ndims = rotary_pct · head_size) and GPT-J (rotary_dim): the first
        # columns rotated with frequencies of width dims, the rest passed through
        def apply(x, positions, base):
            return np.concatenate((rotary_fn(x[..., :dims], positions, base), x[..., dims:]), axis=-1)

        return apply

    def tutorial_sinusoidal(n, d, base):
        # PyTorch's "Language modeling with nn.Transformer" PositionalEncoding (even d)
        position = np.arange(n, dtype=np.float64)[:, None]
        div_term = np.exp(np.arange(0, d, 2, dtype=np.float64) * (-np.log(base) / d))
        pe = np.zeros((n, d))
        pe[:, 0::2] = np.sin(position * div_term)
        pe[:, 1::2] = np.cos(position * div_term)
        return pe

    def softmax_attention(q, k, v, allowed):
        s = q @ k.T / np.sqrt(q.shape[1])
        s = np.where(allowed, s, -np.inf)
        w = np.exp(s - s.max(axis=1, keepdims=True))
        return (w / w.sum(axis=1, keepdims=True)) @ v

    rotary = {"rotate_half": llama_rotary, "interleaved": gptj_rotary}

    def np_heads(q, k, v, H, Hkv, base, layout, mask, dims=0):
        L, S = q.shape[0], k.shape[0]
        dk, dv = q.shape[1] // H, v.shape[1] // Hkv
        first = S - L if mask == "lower_right" else 0
        allowed = np.array([[mask_of(mask, L, S)(i, j) for j in range(S)] for i in range(L)])
        out = []
        for h in range(H):
            g = h // (H // Hkv)
            fn = partial(rotary[layout], dims) if dims else rotary[layout]
            qh = fn(q[:, h * dk:(h + 1) * dk], np.arange(first, first + L), base)
            kh = fn(k[:, g * dk:(g + 1) * dk], np.arange(S), base)
            out.append(softmax_attention(qh, kh, v[:, g * dv:(g + 1) * dv], allowed))
        return np.concatenate(out, axis=1)

    worst = 0.0

    def compare(name, got, exact):
        nonlocal worst
        exact = np.array([[float(v) for v in row] for row in exact])
        err = np.max(np.abs(got - exact) / np.maximum(np.abs(exact), 1e-300 + np.max(np.abs(exact))))
        worst = max(worst, err)
        if not err <= 1e-13:
            sys.exit(f"{name}: the reference code's formula and the mpmath formula differ by {err:.3g}")

    for name, (fn, args, exact) in cases.items():
        compare(name, fn(np, np_heads, tutorial_sinusoidal, *args), exact)
    return worst


# ---- the cases ----------------------------------------------------------------------------

BASE_A, BASE_C = 10000, 100

# A: one head on given Q (3 x 4), K (3 x 4), V (3 x 2).
A_q, A_k, A_v = eighths(1, 3, 4), eighths(2, 3, 4), eighths(3, 3, 2)
# B: block multi-head self-attention, n = 4, d_model = 4, H = 2, d_k = 4, d_v = 2, with query and
# key biases (rotated after them), causal, and W_o.
B_x, B_wq, B_wk, B_wv, B_wo = eighths(4, 4, 4), eighths(5, 4, 8), eighths(6, 4, 8), eighths(7, 4, 4), eighths(8, 4, 4)
B_bq, B_bk = eighths(9, 1, 8), eighths(10, 1, 8)
# C: grouped-query cross-attention with causal_lower_right: L = 2 queries (d_q = 3) at positions
# 2 and 3, S = 4 keys (d_kv = 4), H = 2, H_kv = 1, d_k = 4, d_v = 2, base 100.
C_xq, C_xkv, C_wq, C_wk, C_wv = eighths(11, 2, 3), eighths(12, 4, 4), eighths(13, 3, 8), eighths(14, 4, 4), eighths(15, 4, 2)

# D: partial rotary on one head: d_k = 6, the first 4 columns rotated (GPT-NeoX rotary_pct,
# GPT-J rotary_dim), L = 3 queries at positions 1..3 (causal_lower_right), S = 4 keys.
D_q, D_k, D_v = eighths(16, 3, 6), eighths(17, 4, 6), eighths(18, 4, 2)
D_DIMS = 4

LAYOUTS = ("rotate_half", "interleaved")


def case_a(layout):
    q, k = rotate(mat(A_q), 0, BASE_A, layout), rotate(mat(A_k), 0, BASE_A, layout)
    return scores(q, k), attend(q, k, mat(A_v), lambda i, j: True)


def case_b(layout):
    q = add_row(matmul(mat(B_x), mat(B_wq)), mat(B_bq))
    k = add_row(matmul(mat(B_x), mat(B_wk)), mat(B_bk))
    v = matmul(mat(B_x), mat(B_wv))
    return matmul(heads_attention(q, k, v, 2, 2, BASE_A, layout, "causal"), mat(B_wo))


def case_c(layout):
    q, k, v = matmul(mat(C_xq), mat(C_wq)), matmul(mat(C_xkv), mat(C_wk)), matmul(mat(C_xkv), mat(C_wv))
    return heads_attention(q, k, v, 2, 1, BASE_C, layout, "lower_right")


def case_d(layout):
    return heads_attention(mat(D_q), mat(D_k), mat(D_v), 1, 1, BASE_A, layout, "lower_right", D_DIMS)


def build():
    values = {}  # name -> (matrix of mpf)
    numpy_cases = {}
    for layout in LAYOUTS:
        sc, out = case_a(layout)
        values[f"a_scores_{layout}"] = sc
        values[f"a_output_{layout}"] = out
        values[f"b_output_{layout}"] = case_b(layout)
        values[f"c_output_{layout}"] = case_c(layout)
        values[f"d_output_{layout}"] = case_d(layout)

        def np_a(np, np_heads, _sin, layout=layout):
            return np_heads(np.array(A_q), np.array(A_k), np.array(A_v), 1, 1, BASE_A, layout, "none")

        def np_b(np, np_heads, _sin, layout=layout):
            x = np.array(B_x)
            q, k = x @ np.array(B_wq) + np.array(B_bq), x @ np.array(B_wk) + np.array(B_bk)
            return np_heads(q, k, x @ np.array(B_wv), 2, 2, BASE_A, layout, "causal") @ np.array(B_wo)

        def np_c(np, np_heads, _sin, layout=layout):
            q, k = np.array(C_xq) @ np.array(C_wq), np.array(C_xkv) @ np.array(C_wk)
            return np_heads(q, k, np.array(C_xkv) @ np.array(C_wv), 2, 1, BASE_C, layout, "lower_right")

        numpy_cases[f"a_output_{layout}"] = (np_a, (), values[f"a_output_{layout}"])
        numpy_cases[f"b_output_{layout}"] = (np_b, (), values[f"b_output_{layout}"])
        numpy_cases[f"c_output_{layout}"] = (np_c, (), values[f"c_output_{layout}"])

        def np_d(np, np_heads, _sin, layout=layout):
            return np_heads(np.array(D_q), np.array(D_k), np.array(D_v), 1, 1, BASE_A, layout, "lower_right", D_DIMS)

        numpy_cases[f"d_output_{layout}"] = (np_d, (), values[f"d_output_{layout}"])
    values["sinusoidal_6x8"] = sinusoidal(6, 8, 10000)
    values["sinusoidal_3x5"] = sinusoidal(3, 5, 10000)
    numpy_cases["sinusoidal_6x8"] = (lambda np, _h, tut: tut(6, 8, 10000.0), (), values["sinusoidal_6x8"])
    # The layouts must differ on every case (else a test could not tell them apart).
    for stem in ("a_scores", "a_output", "b_output", "c_output", "d_output"):
        one, other = values[f"{stem}_rotate_half"], values[f"{stem}_interleaved"]
        gap = max(abs(x - y) for r1, r2 in zip(one, other) for x, y in zip(r1, r2))
        if gap < 1e-3:
            sys.exit(f"{stem}: the two layouts agree to {float(gap):.3g}; choose inputs where they differ")
    return values, numpy_cases


def cpp_matrix(m):
    rows = ", ".join("{" + ", ".join(repr(float(v)) for v in row) + "}" for row in m)
    return f"{{{{{rows}}}}}"


def header(values):
    lines = [
        "// Generated by static_tests/reference/positions.py (mpmath at 200 bits, rounded once to",
        "// float64; no cxmat code): inputs and expected values of sinusoidal positions and of rotary",
        "// position embedding in both layouts. Do not edit; the CTest entry",
        "// reference.positions_header_is_current regenerates and compares it.",
        "#pragma once",
        "",
        "#include <cstddef>",
        "",
        "#include <cxmat/core/matrix.hpp>",
        "",
        "namespace cxmat_positions {",
        "",
        "template <std::size_t R, std::size_t C>",
        "using m = cxmat::matrix<double, R, C>;",
        "",
        f"inline constexpr double base_a = {BASE_A}, base_c = {BASE_C};",
        "",
        "// A: one head on given Q, K, V (no mask), base_a.",
    ]

    def put(name, value):
        lines.append(f"inline constexpr m<{len(value)}, {len(value[0])}> {name}{cpp_matrix(value)};")

    for n, v in (("a_q", A_q), ("a_k", A_k), ("a_v", A_v)):
        put(n, v)
    lines.append("// B: multi_head_attention<2>(x, wq, wk, wv, wo, query_bias(bq), key_bias(bk), causal), base_a.")
    for n, v in (("b_x", B_x), ("b_wq", B_wq), ("b_wk", B_wk), ("b_wv", B_wv), ("b_wo", B_wo), ("b_bq", B_bq),
                 ("b_bk", B_bk)):
        put(n, v)
    lines.append("// C: grouped_query_attention<2, 1>(xq, xkv, wq, wk, wv, causal_lower_right), base_c.")
    for n, v in (("c_xq", C_xq), ("c_xkv", C_xkv), ("c_wq", C_wq), ("c_wk", C_wk), ("c_wv", C_wv)):
        put(n, v)
    lines.append("// D: scaled_dot_product_attention(q, k, v, causal_lower_right, rotary<4>()): partial rotary, base_a.")
    for n, v in (("d_q", D_q), ("d_k", D_k), ("d_v", D_v)):
        put(n, v)
    lines.append("")
    lines.append("// Expected values.")
    for name, value in values.items():
        put(name, value)
    lines += ["", "}  // namespace cxmat_positions", ""]
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the committed header")
    args = parser.parse_args()
    values, numpy_cases = build()
    try:
        worst = numpy_checks(numpy_cases)
        print(f"reference code (numpy float64) vs mpmath formulas: worst relative difference {worst:.3g}")
    except ImportError:
        print("numpy is not available: the reference code's transcription is not compared", file=sys.stderr)
    text = header(values)
    if args.check:
        if HEADER.read_text() != text:
            print(f"{HEADER} is not current: run {pathlib.Path(__file__).name}", file=sys.stderr)
            return 1
        print(f"{HEADER.name} is current")
        return 0
    HEADER.write_text(text)
    print(f"wrote {HEADER}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
