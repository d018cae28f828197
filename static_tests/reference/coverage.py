#!/usr/bin/env python3
"""Float64 references for the coverage matrix of attention forms x options
(test_support/coverage_cells.hpp lists the cells; docs/coverage.md shows them).

Written from the documented formulas, with no cxmat code, in the arithmetic of
test_support/reference_math.py (mpmath at 200 bits on numpy arrays, each result rounded once to
float64), so the header is the same on every machine whatever numpy's kernels are:
  Q = X_q·W_q + b_q, K = X_kv·W_k + b_k, V = X_kv·W_v + b_v;
  head h (key/value head h // (H / H_kv)): s = Q_h·K_gᵀ / √d_k, or Q_h·K_gᵀ · scale;
  s += bias; masked scores are -inf; weights = softmax(s) row by row (a fully masked row is 0);
  head output = weights·V_g; Y = Concat(heads)·W_o + b_o.
Masks keep a key where every mask allows it (true = may attend): mask(m), key_padding(keep),
causal (j <= i), causal_lower_right (j <= i + S - L); batch_key_padding gives row b to item b.

Writes test_support/coverage_reference.hpp (inputs and expected outputs of every cell that has
a meaning). Run: python3 static_tests/reference/coverage.py [--check] [--output FILE]
--check compares with the committed header instead of writing it (exit 1 when it differs).
"""
import argparse
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "test_support"))
try:
    import numpy as np
    import reference_math as rm
except ImportError as e:  # CTest reports the check as skipped (SKIP_RETURN_CODE 77)
    print(f"{e.name} is not available (Debian: python3-numpy, python3-mpmath): coverage reference not checked",
          file=sys.stderr)
    sys.exit(77)

HEADER = ROOT / "test_support" / "coverage_reference.hpp"

L, S, D, H, HKV, B = 3, 4, 4, 2, 1, 2  # queries, keys, d_model, heads, key/value heads (GQA), batch


def eighths(seed, shape):
    """Fixed inputs in [-1, 1], multiples of 1/8: exact in binary, so C++ reads the same values."""
    rng = np.random.default_rng(seed)
    return rm.exact(rng.integers(-8, 9, size=shape).astype(np.float64) / 8.0)


inputs = {}  # name -> array (order kept for the generated struct)


def add(name, value):
    inputs[name] = value
    return value


q = add("q", eighths(1, (L, D)))  # single-head / qkv forms: Q (L x 4), K, V (S x 4)
k = add("k", eighths(2, (S, D)))
v = add("v", eighths(3, (S, D)))
x = add("x", eighths(4, (S, D)))  # self-attention forms: X (n x d_model), n = S
xq = add("xq", eighths(5, (L, D)))  # cross / GQA forms: X_q (L x d_model), X_kv (S x d_model)
xkv = add("xkv", eighths(6, (S, D)))
wq = add("wq", eighths(7, (D, D)))
wk = add("wk", eighths(8, (D, D)))
wv = add("wv", eighths(9, (D, D)))
wo = add("wo", eighths(10, (D, D)))
wk_g = add("wk_g", eighths(11, (D, D // H * HKV)))  # GQA: H_kv·d_k = 2 columns
wv_g = add("wv_g", eighths(12, (D, D // H * HKV)))
qb = add("qb", eighths(13, (B, L, D)))
kb = add("kb", eighths(14, (B, S, D)))
vb = add("vb", eighths(15, (B, S, D)))
xb = add("xb", eighths(16, (B, S, D)))
xqb = add("xqb", eighths(17, (B, L, D)))
xkvb = add("xkvb", eighths(18, (B, S, D)))
mask_ls = add("mask_ls", np.array([[1, 1, 0, 1], [0, 1, 1, 0], [1, 0, 1, 1]], dtype=bool))
mask_ss = add("mask_ss", np.array([[1, 0, 1, 1], [1, 1, 0, 0], [0, 1, 1, 1], [1, 1, 1, 0]], dtype=bool))
keep = add("keep", np.array([[1, 1, 0, 1]], dtype=bool))
batch_keep = add("batch_keep", np.array([[1, 1, 1, 0], [1, 0, 1, 1]], dtype=bool))
bias_ls = add("bias_ls", eighths(19, (L, S)))
bias_ss = add("bias_ss", eighths(20, (S, S)))
bq = add("bq", eighths(21, (1, D)))
bk = add("bk", eighths(22, (1, D)))
bv = add("bv", eighths(23, (1, D)))
bo = add("bo", eighths(24, (1, D)))
bk_g = add("bk_g", eighths(25, (1, D // H * HKV)))
bv_g = add("bv_g", eighths(26, (1, D // H * HKV)))
SCALE = 0.3
inputs["scale"] = SCALE


def attention(q_, k_, v_, heads, kv_heads, opts, keep_row=None):
    """Heads over projected q_ (l x heads·d_k), k_ (s x kv_heads·d_k), v_ (s x kv_heads·d_v)."""
    l, s = q_.shape[0], k_.shape[0]
    allowed = np.ones((l, s), dtype=bool)
    ii, jj = np.meshgrid(np.arange(l), np.arange(s), indexing="ij")
    if "mask" in opts:
        allowed &= opts["mask"]
    if "key_padding" in opts:
        allowed &= opts["key_padding"][0][None, :]
    if keep_row is not None:
        allowed &= keep_row[None, :]
    if "causal" in opts:
        allowed &= jj <= ii
    if "causal_lower_right" in opts:
        allowed &= jj <= ii + (s - l)
    dk, dv, group = q_.shape[1] // heads, v_.shape[1] // kv_heads, heads // kv_heads
    outs, weights = [], []
    for h in range(heads):
        g = h // group
        sc = q_[:, h * dk:(h + 1) * dk] @ k_[:, g * dk:(g + 1) * dk].T
        sc = sc * opts["scale"] if "scale" in opts else sc / rm.sqrt(dk)
        if "bias" in opts:
            sc = sc + opts["bias"]
        w = rm.softmax(sc, allowed)
        weights.append(w)
        outs.append(w @ v_[:, g * dv:(g + 1) * dv])
    return np.concatenate(outs, axis=1), np.stack(weights)


def projected(xq_, xkv_, wq_, wk_, wv_, opts):
    return (xq_ @ wq_ + opts.get("query_bias", 0.0), xkv_ @ wk_ + opts.get("key_bias", 0.0),
            xkv_ @ wv_ + opts.get("value_bias", 0.0))


def output(y, opts, with_wo):
    return y @ wo + opts.get("output_bias", 0.0) if with_wo else y


# Forms: name -> (kind, heads, kv_heads, with W_o, self-attention (L = S = n)).
# kind: "qkv" attends over given Q, K, V; "proj" projects X first; "per_head" projects head by head.
FORMS = {
    "sdpa": ("qkv", 1, 1, False, False),
    "mha_qkv": ("qkv", H, H, False, False),
    "self": ("proj", 1, 1, False, True),
    "mha": ("proj", H, H, False, True),
    "mha_wo": ("proj", H, H, True, True),
    "per_head": ("per_head", H, H, False, True),
    "per_head_wo": ("per_head", H, H, True, True),
    "cross": ("proj", H, H, True, False),
    "gqa": ("proj", H, HKV, False, False),
    "gqa_wo": ("proj", H, HKV, True, False),
}
BATCHED = {"b_sdpa": "sdpa", "b_self": "self", "b_mha": "mha", "b_mha_wo": "mha_wo", "b_gqa": "gqa",
           "b_gqa_wo": "gqa_wo", "b_cross": "cross"}
OPTIONS = ["none", "mask", "key_padding", "batch_key_padding", "causal", "causal_lower_right", "bias", "scale",
           "query_bias", "key_bias", "value_bias", "output_bias"]


def option_values(name, is_self, grouped):
    if name == "none" or name == "batch_key_padding":
        return {}
    if name in ("causal", "causal_lower_right"):
        return {name: True}
    if name == "mask":
        return {"mask": mask_ss if is_self else mask_ls}
    if name == "bias":
        return {"bias": bias_ss if is_self else bias_ls}
    if name == "key_padding":
        return {"key_padding": keep}
    if name == "scale":
        return {"scale": SCALE}
    table = {"query_bias": bq, "key_bias": bk_g if grouped else bk, "value_bias": bv_g if grouped else bv,
             "output_bias": bo}
    return {name: table[name]}


def run_form(form, option, item=None):
    """(output, weights) of one form with one option, or None where the cell has no meaning."""
    kind, heads, kv_heads, with_wo, is_self = FORMS[form]
    grouped = kv_heads != heads
    if option.endswith("_bias") and option != "bias" and kind == "qkv":
        return None  # no projection to add it to
    if option == "output_bias" and not with_wo:
        return None  # no W_o
    if option == "batch_key_padding" and item is None:
        return None
    opts = option_values(option, is_self, grouped)
    keep_row = batch_keep[item] if option == "batch_key_padding" else None
    if kind == "qkv":
        qq, kk, vv = (q, k, v) if item is None else (qb[item], kb[item], vb[item])
        return attention(qq, kk, vv, heads, kv_heads, opts, keep_row)
    if is_self:
        xa = x if item is None else xb[item]
        xc = xa
    else:
        xa, xc = (xq, xkv) if item is None else (xqb[item], xkvb[item])
    wk_, wv_ = (wk_g, wv_g) if grouped else (wk, wv)
    if kind == "per_head":
        outs, weights = [], []
        dk = D // heads
        for h in range(heads):
            cols = slice(h * dk, (h + 1) * dk)
            y, w = attention(xa @ wq[:, cols], xc @ wk_[:, cols], xc @ wv_[:, cols], 1, 1, opts)
            outs.append(y)
            weights.append(w[0])
        return output(np.concatenate(outs, axis=1), opts, with_wo), np.stack(weights)
    y, w = attention(*projected(xa, xc, wq, wk_, wv_, opts), heads, kv_heads, opts, keep_row)
    return output(y, opts, with_wo), w


def cells():
    """name -> expected array, for every (form, option) with a meaning, and <form>_weights."""
    out = {}
    for form in FORMS:
        for option in OPTIONS:
            r = run_form(form, option)
            if r is not None:
                out[f"{form}_{option}"] = r[0]
        w = run_form(form, "none")[1]
        out[f"{form}_weights"] = w[0] if FORMS[form][1] == 1 else w
    for form, base in BATCHED.items():
        for option in OPTIONS:
            items = [run_form(base, option, b) for b in range(B)]
            if items[0] is not None:
                out[f"{form}_{option}"] = np.stack([r[0] for r in items])
        if FORMS[base][1] == 1:  # batched weights out exist for the single-head form only
            out[f"{form}_weights"] = np.stack([run_form(base, "none", b)[1][0] for b in range(B)])
    return out


def literal(value):
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    return repr(float(value))


def matrix_text(m):
    t = "bool" if m.dtype == bool else "double"
    rows = ", ".join("{" + ", ".join(literal(e) for e in r) + "}" for r in m)
    return f"cxmat::matrix<{t}, {m.shape[0]}, {m.shape[1]}>{{{{{rows}}}}}"


def type_text(a):
    t = "bool" if a.dtype == bool else "double"
    if a.ndim == 2:
        return f"cxmat::matrix<{t}, {a.shape[0]}, {a.shape[1]}>"
    return f"cxmat::batch<{t}, {a.shape[0]}, {a.shape[1]}, {a.shape[2]}>"


def value_text(a):
    if a.ndim == 2:
        return matrix_text(a)
    return f"{type_text(a)}{{{{" + ", ".join(matrix_text(m) for m in a) + "}}"


def header():
    lines = [
        "// Generated by static_tests/reference/coverage.py (mpmath, rounded once to float64; no cxmat code): the inputs",
        "// and expected outputs of the coverage matrix (test_support/coverage_cells.hpp). Do not edit;",
        "// the CTest entry reference.coverage_header_is_current regenerates and compares it.",
        "#pragma once",
        "",
        "#include <cstddef>",
        "",
        "#include <cxmat/core/batch.hpp>",
        "#include <cxmat/core/matrix.hpp>",
        "",
        "namespace cxmat_coverage {",
        "",
        f"inline constexpr std::size_t queries = {L}, keys = {S}, d_model = {D}, heads = {H}, kv_heads = {HKV},",
        f"                             batch_size = {B};",
        "",
        "/// Every input of the coverage cells (matrices, masks, biases, the explicit scale).",
        "struct inputs {",
    ]
    for name, a in inputs.items():
        lines.append(f"  double {name};" if name == "scale" else f"  {type_text(a)} {name};")
    lines += ["};", "", "/// Applies f to every member of in (the run-time tests hide each one from the optimiser).",
              "template <class F>", "void for_each_input(inputs& in, F&& f) {"]
    lines += [f"  f(in.{name});" for name in inputs]
    lines += ["}", "", "inline constexpr inputs reference_inputs{"]
    for name, a in inputs.items():
        lines.append(f"    .{name} = {literal(a) if name == 'scale' else value_text(a)},")
    lines += ["};", "", "/// Expected output of cell (form, option) as <form>_<option>; <form>_weights: the weights.",
              "namespace expected {"]
    for name, a in cells().items():
        lines.append(f"inline constexpr {type_text(a)} {name}{{{value_text(a)[len(type_text(a)):][1:-1]}}};")
    lines += ["}  // namespace expected", "", "}  // namespace cxmat_coverage", ""]
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--check", action="store_true")
    p.add_argument("--output", default=str(HEADER))
    a = p.parse_args()
    text = header()
    target = pathlib.Path(a.output)
    if a.check:
        if not target.exists() or target.read_text() != text:
            print(f"{target} is out of date: run python3 static_tests/reference/coverage.py", file=sys.stderr)
            return 1
        print(f"{target} is current")
        return 0
    target.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
