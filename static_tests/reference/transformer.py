#!/usr/bin/env python3
"""PyTorch references for the transformer layer (include/cxmat/transformer/).

Builds nn.LayerNorm, F.gelu (exact and tanh), F.silu, torch.sigmoid, torch.relu,
nn.TransformerEncoderLayer / nn.TransformerDecoderLayer (relu and gelu, post- and pre-norm, causal
masks and key padding, H = 1, 2, 4, 8), a batch, and nn.TransformerEncoder / Decoder stacks with a
final norm, all in float64 in evaluation mode, on inputs and weights that are multiples of 1/8
(exact in binary, in float as in double). RMSNorm and SwiGLU, which PyTorch 1.13 lacks, are
numpy float64 implementations of the formulas of LLaMA's reference code (RMSNorm:
x * rsqrt(mean(x^2) + eps) * weight; FeedForward: w2(silu(w1 x) * w3 x)).

Writes test_support/transformer_reference.hpp: the inputs and weights (as cxmat types, variable
templates over the element type) and the expected outputs (double).

PyTorch's and numpy's kernels depend on the CPU (SIMD width, summation order), so the header is not
compared as text: `--check` recomputes every value and compares with the committed header, the
inputs exactly and the outputs within 1e-12 of the largest magnitude of their matrix (exit 1 on a
difference, 77 when torch is missing).

Run: /usr/bin/python3 static_tests/reference/transformer.py [--check]
"""
import pathlib
import re
import sys

try:
    import numpy as np
except ImportError:  # reported (and the test skipped) by main()
    np = None

HEADER = pathlib.Path(__file__).resolve().parents[2] / "test_support" / "transformer_reference.hpp"
TOLERANCE = 1e-12


def lit(v):
    v = float(v)
    if v == int(v) and abs(v) < 2**53:
        return f"{int(v)}.0" if v >= 0 or v != 0 else "-0.0"
    return repr(v)


def rows_init(a):
    a = np.atleast_2d(a)
    return "{" + ", ".join("{" + ", ".join(lit(v) for v in r) + "}" for r in a) + "}"


def mat_init(a):
    return "{" + rows_init(a) + "}"


def bool_init(a):
    a = np.atleast_2d(a)
    return "{{" + ", ".join("{" + ", ".join("true" if v else "false" for v in r) + "}" for r in a) + "}}"


class Out:
    def __init__(self):
        self.lines = []
        self.values = {}  # name -> (array, is_output)

    def input(self, name, a):
        a = np.atleast_2d(np.asarray(a, dtype=np.float64))
        self.values[name] = (a, False)
        self.lines.append(
            f"template <class T>\ninline constexpr cxmat::matrix<T, {a.shape[0]}, {a.shape[1]}> {name}{mat_init(a)};")

    def batch_input(self, name, a):
        items = ", ".join(mat_init(m) for m in a)
        for b, m in enumerate(a):
            self.values[f"{name}[{b}]"] = (np.asarray(m, dtype=np.float64), False)
        self.lines.append(f"template <class T>\ninline constexpr cxmat::batch<T, {a.shape[0]}, {a.shape[1]}, "
                          f"{a.shape[2]}> {name}{{{{{items}}}}};")

    def mask(self, name, a):
        a = np.atleast_2d(a)
        self.lines.append(f"inline constexpr cxmat::matrix<bool, {a.shape[0]}, {a.shape[1]}> {name}{bool_init(a)};")

    def output(self, name, a):
        a = np.atleast_2d(np.asarray(a, dtype=np.float64))
        self.values[name] = (a, True)
        self.lines.append(f"inline constexpr cxmat::matrix<double, {a.shape[0]}, {a.shape[1]}> {name}{mat_init(a)};")

    def batch_output(self, name, a):
        items = ", ".join(mat_init(m) for m in a)
        for b, m in enumerate(a):
            self.values[f"{name}[{b}]"] = (np.asarray(m, dtype=np.float64), True)
        self.lines.append(f"inline constexpr cxmat::batch<double, {a.shape[0]}, {a.shape[1]}, {a.shape[2]}> "
                          f"{name}{{{{{items}}}}};")

    def module(self, name, type_text, init):
        """A layer or module (a variable template over T) whose weights are checked as inputs."""
        self.values[name] = (np.array([float(v) for v in NUMBER.findall(init)]), False)
        self.lines.append(f"template <class T>\ninline constexpr {type_text} {name}{init};")


def eighths(rng, shape, lo=-8, hi=8):
    """Multiples of 1/8 in [lo/8, hi/8]."""
    return rng.integers(lo, hi + 1, size=shape).astype(np.float64) / 8


def attention_init(mha, d):
    w = mha.in_proj_weight.detach().numpy()
    b = mha.in_proj_bias.detach().numpy()
    parts = [mat_init(w[i * d:(i + 1) * d].T) for i in range(3)]
    parts += [mat_init(b[i * d:(i + 1) * d]) for i in range(3)]
    parts += [mat_init(mha.out_proj.weight.detach().numpy().T), mat_init(mha.out_proj.bias.detach().numpy())]
    return "{" + ", ".join(parts) + "}"


def linear_init(lin):
    return "{" + mat_init(lin.weight.detach().numpy().T) + ", " + mat_init(lin.bias.detach().numpy()) + "}"


def norm_init(norm):
    return ("{" + mat_init(norm.weight.detach().numpy()) + ", " + mat_init(norm.bias.detach().numpy()) + ", " +
            f"T({lit(norm.eps)})" + "}")


def randomize(module, rng):
    import torch
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.from_numpy(eighths(rng, tuple(p.shape), -4, 4)))


def layer_type(kind, d, h, dff, act, norm_first):
    return f"cxmat::{kind}<T, {d}, {h}, {dff}, cxmat::activation::{act}, {'true' if norm_first else 'false'}>"


def encoder_init(layer, d):
    return ("{" + ", ".join([attention_init(layer.self_attn, d), linear_init(layer.linear1), linear_init(layer.linear2),
                             norm_init(layer.norm1), norm_init(layer.norm2)]) + "}")


def decoder_init(layer, d):
    return ("{" + ", ".join([
        attention_init(layer.self_attn, d), attention_init(layer.multihead_attn, d), linear_init(layer.linear1),
        linear_init(layer.linear2), norm_init(layer.norm1), norm_init(layer.norm2), norm_init(layer.norm3)
    ]) + "}")


def causal_bool(n):
    import torch
    return torch.triu(torch.ones(n, n, dtype=torch.bool), diagonal=1)  # True = masked (PyTorch)


def build():
    import torch
    import torch.nn.functional as F
    from torch import nn

    torch.set_grad_enabled(True)  # keeps the layers off their fused inference path
    rng = np.random.default_rng(2113)
    out = Out()

    # Element-wise activations on -4 .. 4 in steps of 1/8 (a 5 x 13 grid).
    grid = (np.arange(-32, 33, dtype=np.float64) / 8).reshape(5, 13)
    g = torch.from_numpy(grid)
    out.input("act_x", grid)
    out.output("act_relu", torch.relu(g).numpy())
    out.output("act_sigmoid", torch.sigmoid(g).numpy())
    out.output("act_silu", F.silu(g).numpy())
    out.output("act_gelu", F.gelu(g).numpy())
    out.output("act_gelu_tanh", F.gelu(g, approximate="tanh").numpy())

    # nn.LayerNorm(8) with eps 1e-5 and a second with eps 1e-3.
    x = eighths(rng, (3, 8), -16, 16)
    out.input("ln_x", x)
    for name, eps in (("ln", 1e-5), ("ln_eps", 1e-3)):
        ln = nn.LayerNorm(8, eps=eps).double()
        randomize(ln, rng)
        out.input(f"{name}_gamma", ln.weight.detach().numpy())
        out.input(f"{name}_beta", ln.bias.detach().numpy())
        out.output(f"{name}_y", ln(torch.from_numpy(x)).detach().numpy())

    # RMSNorm and SwiGLU (numpy, LLaMA's formulas).
    gamma = eighths(rng, (1, 8), -4, 12)
    out.input("rms_gamma", gamma)
    out.output("rms_y", x / np.sqrt(np.mean(x * x, axis=1, keepdims=True) + 1e-6) * gamma)
    wg, wu, wd = eighths(rng, (8, 12), -4, 4), eighths(rng, (8, 12), -4, 4), eighths(rng, (12, 8), -4, 4)
    out.input("swiglu_w_gate", wg)
    out.input("swiglu_w_up", wu)
    out.input("swiglu_w_down", wd)
    hg = x @ wg
    out.output("swiglu_y", ((hg / (1 + np.exp(-hg))) * (x @ wu)) @ wd)

    # Encoder layers: (name, H, activation, norm_first, causal, key padding of the n = 5 keys).
    n, d, dff = 5, 8, 16
    encoders = [
        ("enc_relu_post", 2, "relu", False, False, None),
        ("enc_relu_pre_causal", 4, "relu", True, True, None),
        ("enc_relu_pre_padding", 1, "relu", True, False, [False, False, True, False, True]),
        ("enc_relu_post_causal_padding", 8, "relu", False, True, [False, False, False, False, True]),
        ("enc_gelu_post_padding", 1, "gelu", False, False, [False, False, False, True, True]),
        ("enc_gelu_pre_causal_padding", 8, "gelu", True, True, [False, False, False, False, True]),
    ]
    for name, h, act, norm_first, causal, padding in encoders:
        layer = nn.TransformerEncoderLayer(d, h, dff, dropout=0.0, activation=act, batch_first=True,
                                           norm_first=norm_first).double()
        randomize(layer, rng)
        layer.eval()
        x = eighths(rng, (n, d), -8, 8)
        kwargs = {}
        if causal:
            kwargs["src_mask"] = causal_bool(n)
        if padding is not None:
            kwargs["src_key_padding_mask"] = torch.tensor([padding])
            out.mask(f"{name}_keep", [[not p for p in padding]])
        y = layer(torch.from_numpy(x)[None], **kwargs)[0].detach().numpy()
        out.module(name, layer_type('encoder_layer', d, h, dff, act, norm_first), encoder_init(layer, d))
        out.input(f"{name}_x", x)
        out.output(f"{name}_y", y)

    # A batch of 2 through a post-norm relu layer, each item with its own key padding.
    layer = nn.TransformerEncoderLayer(d, 2, dff, dropout=0.0, batch_first=True).double()
    randomize(layer, rng)
    layer.eval()
    xb = eighths(rng, (2, n, d), -8, 8)
    padding = [[False] * 5, [False, False, True, True, True]]
    y = layer(torch.from_numpy(xb), src_key_padding_mask=torch.tensor(padding)).detach().numpy()
    out.module("enc_batch", layer_type('encoder_layer', d, 2, dff, 'relu', False), encoder_init(layer, d))
    out.batch_input("enc_batch_x", xb)
    out.mask("enc_batch_keep", [[not p for p in row] for row in padding])
    out.batch_output("enc_batch_y", y)

    # Decoder layers over a memory of S = 3: (name, H, activation, norm_first, memory key padding).
    s = 3
    decoders = [
        ("dec_relu_post", 2, "relu", False, [False, False, True]),
        ("dec_gelu_pre", 4, "gelu", True, None),
    ]
    for name, h, act, norm_first, mem_padding in decoders:
        layer = nn.TransformerDecoderLayer(d, h, dff, dropout=0.0, activation=act, batch_first=True,
                                           norm_first=norm_first).double()
        randomize(layer, rng)
        layer.eval()
        x = eighths(rng, (n, d), -8, 8)
        memory = eighths(rng, (s, d), -8, 8)
        kwargs = {"tgt_mask": causal_bool(n)}
        if mem_padding is not None:
            kwargs["memory_key_padding_mask"] = torch.tensor([mem_padding])
            out.mask(f"{name}_memory_keep", [[not p for p in mem_padding]])
        y = layer(torch.from_numpy(x)[None], torch.from_numpy(memory)[None], **kwargs)[0].detach().numpy()
        out.module(name, layer_type('decoder_layer', d, h, dff, act, norm_first), decoder_init(layer, d))
        out.input(f"{name}_x", x)
        out.input(f"{name}_memory", memory)
        out.output(f"{name}_y", y)

    # nn.MultiheadAttention(8, 4) on its own: self-attention with key padding, and cross-attention
    # from 5 queries to a memory of 3 with a memory key padding.
    mha = nn.MultiheadAttention(d, 4, dropout=0.0, batch_first=True).double()
    randomize(mha, rng)
    mha.eval()
    x = eighths(rng, (n, d), -8, 8)
    memory = eighths(rng, (s, d), -8, 8)
    xt, mt = torch.from_numpy(x)[None], torch.from_numpy(memory)[None]
    padding = [False, True, False, False, True]
    y_self = mha(xt, xt, xt, key_padding_mask=torch.tensor([padding]), need_weights=False)[0][0].detach().numpy()
    y_cross = mha(xt, mt, mt, key_padding_mask=torch.tensor([[False, True, False]]),
                  need_weights=False)[0][0].detach().numpy()
    out.module("mha", f"cxmat::attention_module<T, {d}, 4>", attention_init(mha, d))
    out.input("mha_x", x)
    out.input("mha_memory", memory)
    out.mask("mha_keep", [[not p for p in padding]])
    out.mask("mha_memory_keep", [[True, False, True]])
    out.output("mha_self_y", y_self)
    out.output("mha_cross_y", y_cross)

    # A batch of 2 through a post-norm decoder layer, causal, each item with its memory key padding.
    layer = nn.TransformerDecoderLayer(d, 2, dff, dropout=0.0, batch_first=True).double()
    randomize(layer, rng)
    layer.eval()
    xb = eighths(rng, (2, n, d), -8, 8)
    mb = eighths(rng, (2, s, d), -8, 8)
    mem_padding = [[False, False, False], [False, True, True]]
    y = layer(torch.from_numpy(xb), torch.from_numpy(mb), tgt_mask=causal_bool(n),
              memory_key_padding_mask=torch.tensor(mem_padding)).detach().numpy()
    out.module("dec_batch", layer_type('decoder_layer', d, 2, dff, 'relu', False), decoder_init(layer, d))
    out.batch_input("dec_batch_x", xb)
    out.batch_input("dec_batch_memory", mb)
    out.mask("dec_batch_memory_keep", [[not p for p in row] for row in mem_padding])
    out.batch_output("dec_batch_y", y)

    # Stacks of 2 pre-norm layers with a final norm (nn.TransformerEncoder / Decoder).
    enc_layer = nn.TransformerEncoderLayer(d, 2, dff, dropout=0.0, batch_first=True, norm_first=True).double()
    encoder = nn.TransformerEncoder(enc_layer, 2, norm=nn.LayerNorm(d).double(), enable_nested_tensor=False)
    randomize(encoder, rng)
    encoder.eval()
    x = eighths(rng, (n, d), -8, 8)
    y = encoder(torch.from_numpy(x)[None], mask=causal_bool(n))[0].detach().numpy()
    layers = ", ".join(encoder_init(layer, d) for layer in encoder.layers)
    out.module("enc_stack", f"cxmat::transformer_encoder<{layer_type('encoder_layer', d, 2, dff, 'relu', True)}, 2>",
               f"{{{{{layers}}}, {norm_init(encoder.norm)}}}")
    out.input("enc_stack_x", x)
    out.output("enc_stack_y", y)

    dec_layer = nn.TransformerDecoderLayer(d, 2, dff, dropout=0.0, batch_first=True, norm_first=True).double()
    decoder = nn.TransformerDecoder(dec_layer, 2, norm=nn.LayerNorm(d).double())
    randomize(decoder, rng)
    decoder.eval()
    x = eighths(rng, (n, d), -8, 8)
    memory = eighths(rng, (s, d), -8, 8)
    y = decoder(torch.from_numpy(x)[None], torch.from_numpy(memory)[None],
                tgt_mask=causal_bool(n))[0].detach().numpy()
    layers = ", ".join(decoder_init(layer, d) for layer in decoder.layers)
    out.module("dec_stack", f"cxmat::transformer_decoder<{layer_type('decoder_layer', d, 2, dff, 'relu', True)}, 2>",
               f"{{{{{layers}}}, {norm_init(decoder.norm)}}}")
    out.input("dec_stack_x", x)
    out.input("dec_stack_memory", memory)
    out.output("dec_stack_y", y)
    return out, torch.__version__


def render(out, version):
    head = f"""// Generated by static_tests/reference/transformer.py with PyTorch {version.split('+')[0]} (float64) and numpy:
// inputs and weights (multiples of 1/8, exact in float and double) and the expected outputs of the
// transformer layer's functions and modules. Do not edit; rerun the script. CTest
// reference.transformer_matches_pytorch recomputes the values and compares (within 1e-12).
#pragma once

#include <cxmat/transformer.hpp>

// NOLINTBEGIN
namespace transformer_ref {{
"""
    return head + "\n".join(out.lines) + "\n}  // namespace transformer_ref\n// NOLINTEND\n"


NUMBER = re.compile(r"-?\d+\.\d*(?:e[-+]?\d+)?|-?\d+e[-+]?\d+|-?inf|nan")


def committed_values(text, names):
    """The numbers of each named matrix (or batch item) in the committed header."""
    found = {}
    for name in {n.split("[")[0] for n in names}:
        m = re.search(r"\s" + re.escape(name) + r"\{(.*?)\};", text, re.S)
        if m is None:
            continue
        found[name] = [float(v) for v in NUMBER.findall(m.group(1))]
    return found


def check(out):
    text = HEADER.read_text()
    committed = committed_values(text, out.values)
    # Flatten this run's values per declared name, in order.
    fresh = {}
    is_output = {}
    for key, (a, output) in out.values.items():
        base = key.split("[")[0]
        fresh.setdefault(base, []).append(a)
        is_output[base] = output
    bad = 0
    for base, arrays in fresh.items():
        mine = np.concatenate([a.ravel() for a in arrays])
        theirs = committed.get(base)
        if theirs is None or len(theirs) != mine.size:
            print(f"{base}: missing or of another size in {HEADER.name}")
            bad += 1
            continue
        theirs = np.array(theirs)
        if is_output[base]:
            scale = max(np.max(np.abs(mine)), np.finfo(float).tiny)
            err = np.max(np.abs(mine - theirs)) / scale
            if not err <= TOLERANCE:
                print(f"{base}: differs by {err:.3g} of its largest magnitude (tolerance {TOLERANCE:g})")
                bad += 1
        elif not np.array_equal(mine, theirs):
            print(f"{base}: the inputs differ")
            bad += 1
    print(f"transformer reference: {len(fresh)} matrices compared with {HEADER.name}, {bad} differ")
    return 1 if bad else 0


def main():
    try:
        import torch  # noqa: F401
    except ImportError:
        torch = None
    if np is None or torch is None:
        print(f"{sys.executable} has no numpy or no PyTorch (Debian: python3-numpy, python3-torch): "
              "the comparison with PyTorch is skipped")
        return 77
    out, version = build()
    if "--check" in sys.argv:
        return check(out)
    HEADER.write_text(render(out, version))
    print(f"wrote {HEADER}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
