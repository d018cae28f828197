"""A reference forward pass of decoder-only language models in numpy float64, written from the
models' public descriptions (llama2.c's run.c and Meta's LLaMA; Hugging Face's GPT-2), for the
importer's tests: the oracle the imported headers are compared with, never the library.

LLaMA weights are given as PyTorch stores them (out x in), in a dict:
  config  vocab, dim, layers, heads, kv_heads, ffn, context, eps, theta
  embed (V x D), layers [{attn_norm (D), wq (D x D), wk, wv (Hkv*hd x D), wo (D x D),
  ffn_norm (D), w1, w3 (F x D), w2 (D x F)}], norm (D), output (V x D, or None when tied)
and `layout` says which columns of a head form a rotated pair: "interleaved" (2i, 2i+1: llama2.c,
Meta, llama.cpp) or "rotate_half" (i, i + hd/2: Hugging Face).

GPT-2 weights are Hugging Face's (Conv1D stores in x out) without the "transformer." prefix, with
config heads, eps.

numpy's matmul chooses CPU kernels, so results may differ in the last bits between machines:
compare them with a tolerance, and compare tokens only where the top two logits are far apart
(`greedy` returns that margin).
"""
import numpy as np


def rms_norm(x, w, eps):
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * w


def layer_norm(x, w, b, eps):
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * w + b


def softmax(s):
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def rotary(x, heads, theta, layout):
    """Rotates the rows of x (n x heads*hd, row p at position p) pair by pair."""
    n, width = x.shape
    hd = width // heads
    x = x.reshape(n, heads, hd)
    freq = theta ** (-np.arange(0, hd, 2, dtype=np.float64) / hd)  # pair j turns by p·theta^(-2j/hd)
    angle = np.arange(n, dtype=np.float64)[:, None] * freq[None, :]
    cos, sin = np.cos(angle)[:, None, :], np.sin(angle)[:, None, :]
    if layout == "interleaved":
        a, b = x[..., 0::2], x[..., 1::2]
    else:
        a, b = x[..., : hd // 2], x[..., hd // 2:]
    ra, rb = a * cos - b * sin, a * sin + b * cos
    out = np.empty_like(x)
    if layout == "interleaved":
        out[..., 0::2], out[..., 1::2] = ra, rb
    else:
        out[..., : hd // 2], out[..., hd // 2:] = ra, rb
    return out.reshape(n, width)


def causal_attention(q, k, v, heads, kv_heads):
    """Query head h uses key/value head h // (heads / kv_heads), as llama2.c and repeat_kv do."""
    n = q.shape[0]
    hd = q.shape[1] // heads
    group = heads // kv_heads
    out = np.empty_like(q)
    mask = np.triu(np.ones((n, n), dtype=bool), 1)
    for h in range(heads):
        g = h // group
        qh, kh, vh = q[:, h * hd:(h + 1) * hd], k[:, g * hd:(g + 1) * hd], v[:, g * hd:(g + 1) * hd]
        s = qh @ kh.T / np.sqrt(hd)
        s[mask] = -np.inf
        out[:, h * hd:(h + 1) * hd] = softmax(s) @ vh
    return out


def silu(x):
    return x / (1 + np.exp(-x))


def gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))


def llama_logits(model, tokens, layout):
    c = model["config"]
    x = model["embed"][np.asarray(tokens)].astype(np.float64)
    for layer in model["layers"]:
        h = rms_norm(x, layer["attn_norm"], c["eps"])
        q = rotary(h @ layer["wq"].T, c["heads"], c["theta"], layout)
        k = rotary(h @ layer["wk"].T, c["kv_heads"], c["theta"], layout)
        v = h @ layer["wv"].T
        x = x + causal_attention(q, k, v, c["heads"], c["kv_heads"]) @ layer["wo"].T
        h = rms_norm(x, layer["ffn_norm"], c["eps"])
        x = x + (silu(h @ layer["w1"].T) * (h @ layer["w3"].T)) @ layer["w2"].T
    head = model["embed"] if model["output"] is None else model["output"]
    return rms_norm(x, model["norm"], c["eps"]) @ head.T


def gpt2_logits(model, tokens):
    c, w = model["config"], model["weights"]
    heads, eps = c["heads"], c["eps"]
    n = len(tokens)
    x = w["wte.weight"][np.asarray(tokens)] + w["wpe.weight"][:n]
    d = x.shape[1]
    for i in range(c["layers"]):
        p = f"h.{i}."
        h = layer_norm(x, w[p + "ln_1.weight"], w[p + "ln_1.bias"], eps)
        qkv = h @ w[p + "attn.c_attn.weight"] + w[p + "attn.c_attn.bias"]
        a = causal_attention(qkv[:, :d], qkv[:, d:2 * d], qkv[:, 2 * d:], heads, heads)
        x = x + a @ w[p + "attn.c_proj.weight"] + w[p + "attn.c_proj.bias"]
        h = layer_norm(x, w[p + "ln_2.weight"], w[p + "ln_2.bias"], eps)
        x = x + gelu_tanh(h @ w[p + "mlp.c_fc.weight"] + w[p + "mlp.c_fc.bias"]) @ w[p + "mlp.c_proj.weight"] \
            + w[p + "mlp.c_proj.bias"]
    return layer_norm(x, w["ln_f.weight"], w["ln_f.bias"], eps) @ w["wte.weight"].T


def greedy(logits_of, prompt, count):
    """count tokens after the prompt, each the argmax of the last row's logits (the lowest index on
    a tie, as cxmat's greedy choice); also the smallest gap between the first and second logit."""
    tokens = list(prompt)
    margin = np.inf
    for _ in range(count):
        row = logits_of(tokens)[-1]
        order = np.argsort(-row, kind="stable")
        margin = min(margin, row[order[0]] - row[order[1]])
        tokens.append(int(order[0]))
    return tokens[len(prompt):], margin
