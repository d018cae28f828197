"""Writers of language-model checkpoints for the importer's tests, with numpy only, from the
formats' public descriptions: llama2.c's export.py (versions 0, 1 and 2), Hugging Face's LLaMA
and GPT-2 (safetensors and config.json; q/k rows permuted as convert_llama_weights_to_hf.py
does), and GGUF as llama.cpp writes a LLaMA (metadata, aligned tensors, F32 / F16 / BF16 / Q8_0;
q/k in Meta's interleaved order, which llama.cpp's converter restores from Hugging Face's rows:
checked for every model written). Meta's names (write_meta_llama) keep Meta's order too.

`random_llama` and `random_gpt2` make models whose every weight is q·2^-k with an integer q,
|q| <= 127, one exponent k per group of 32 consecutive weights and one |q| = 127 in each group:
such weights are exact in float16, bfloat16 and float32, and int8 groups of 32 (llama2.c's and
GGML's Q8_0) hold them exactly, so every file of one model holds the same numbers and the same
tokens must come out of each.
"""
import json
import os
import struct

import numpy as np


def dyadic(rng, shape, exponents=(7, 8, 9)):
    """Weights q·2^-k, groups of 32 consecutive values sharing k, each group with one |q| = 127."""
    size = int(np.prod(shape))
    assert size % 32 == 0, shape
    q = rng.integers(-126, 127, size=(size // 32, 32))
    q[np.arange(size // 32), rng.integers(0, 32, size // 32)] = 127 * rng.choice([-1, 1], size // 32)
    k = rng.choice(exponents, size=(size // 32, 1))
    return (q * np.ldexp(1.0, -k)).reshape(shape)


def norm_weights(rng, d):
    return (128 + rng.integers(-32, 33, size=d)) / 128.0


def random_llama(seed, vocab=32, dim=32, layers=2, heads=4, kv_heads=2, ffn=64, context=16, tied=False,
                 eps=1e-5, theta=10000.0):
    """A LLaMA in Meta's orientation and rotary layout (interleaved), as lm_reference takes it."""
    rng = np.random.default_rng(seed)
    kv = kv_heads * dim // heads
    model = {"config": dict(vocab=vocab, dim=dim, layers=layers, heads=heads, kv_heads=kv_heads, ffn=ffn,
                            context=context, eps=eps, theta=theta),
             "embed": dyadic(rng, (vocab, dim), (6, 7)), "layers": []}
    for _ in range(layers):
        model["layers"].append({"attn_norm": norm_weights(rng, dim), "wq": dyadic(rng, (dim, dim)),
                                "wk": dyadic(rng, (kv, dim)), "wv": dyadic(rng, (kv, dim)),
                                "wo": dyadic(rng, (dim, dim)), "ffn_norm": norm_weights(rng, dim),
                                "w1": dyadic(rng, (ffn, dim)), "w2": dyadic(rng, (dim, ffn)),
                                "w3": dyadic(rng, (ffn, dim))})
    model["norm"] = norm_weights(rng, dim)
    model["output"] = None if tied else dyadic(rng, (vocab, dim), (6, 7))
    return model


def random_gpt2(seed, vocab=32, dim=32, layers=2, heads=4, ffn=128, context=16, eps=1e-5):
    """A GPT-2 as Hugging Face stores it (Conv1D weights in x out), keys without 'transformer.'."""
    rng = np.random.default_rng(seed)
    w = {"wte.weight": dyadic(rng, (vocab, dim), (5, 6)), "wpe.weight": dyadic(rng, (context, dim), (6, 7))}
    for i in range(layers):
        p = f"h.{i}."
        w.update({p + "ln_1.weight": norm_weights(rng, dim), p + "ln_1.bias": dyadic(rng, (dim,)),
                  p + "attn.c_attn.weight": dyadic(rng, (dim, 3 * dim)), p + "attn.c_attn.bias": dyadic(rng, (3 * dim,)),
                  p + "attn.c_proj.weight": dyadic(rng, (dim, dim)), p + "attn.c_proj.bias": dyadic(rng, (dim,)),
                  p + "ln_2.weight": norm_weights(rng, dim), p + "ln_2.bias": dyadic(rng, (dim,)),
                  p + "mlp.c_fc.weight": dyadic(rng, (dim, ffn)), p + "mlp.c_fc.bias": dyadic(rng, (ffn,)),
                  p + "mlp.c_proj.weight": dyadic(rng, (ffn, dim)), p + "mlp.c_proj.bias": dyadic(rng, (dim,))})
    w["ln_f.weight"], w["ln_f.bias"] = norm_weights(rng, dim), dyadic(rng, (dim,))
    return {"config": dict(vocab=vocab, dim=dim, layers=layers, heads=heads, ffn=ffn, context=context, eps=eps),
            "weights": w}


# ------------------------------------------------------------------------------------------------
# llama2.c
# ------------------------------------------------------------------------------------------------


def f32(a):
    return np.ascontiguousarray(a, dtype="<f4").tobytes()


def llama2c_quantize(w, group):
    """export.py's quantize_q80: symmetric int8 groups, scale = max|w| / 127 in float32."""
    w = np.asarray(w, dtype=np.float32).reshape(-1, group)
    scale = (np.abs(w).max(axis=1) / np.float32(127.0)).astype(np.float32)
    q = np.round(w / scale[:, None]).astype(np.int8)
    return q, scale


def write_llama2c(model, path, version, group_size=64):
    c, layers = model["config"], model["layers"]
    shared = model["output"] is None
    head = struct.pack("<7i", c["dim"], c["ffn"], c["layers"], c["heads"], c["kv_heads"],
                       c["vocab"] if (shared or version) else -c["vocab"], c["context"])
    out = bytearray()
    if version == 0:
        out += head + f32(model["embed"])
        for name in ("attn_norm", "wq", "wk", "wv", "wo", "ffn_norm", "w1", "w2", "w3"):
            for layer in layers:
                out += f32(layer[name])
        out += f32(model["norm"])
        hd = c["dim"] // c["heads"]
        freqs = 1.0 / (10000.0 ** (np.arange(0, hd, 2)[: hd // 2] / hd))
        angles = np.outer(np.arange(c["context"]), freqs)
        out += f32(np.cos(angles)) + f32(np.sin(angles))  # unused by readers, but in the file
        if not shared:
            out += f32(model["output"])
    else:
        out += struct.pack("<Ii", 0x616B3432, version) + head + struct.pack("<B", int(shared))
        while version == 2 and c["dim"] % group_size:
            group_size //= 2  # export.py's back-off
        if version == 2:
            out += struct.pack("<i", group_size)
        out += b"\0" * (256 - len(out))
        norms = [l["attn_norm"] for l in layers] + [l["ffn_norm"] for l in layers] + [model["norm"]]
        matrices = [model["embed"]] + [l[n] for n in ("wq", "wk", "wv", "wo", "w1", "w2", "w3") for l in layers]
        if not shared:
            matrices.append(model["output"])
        for w in norms:
            out += f32(w)
        if version == 1:
            for w in matrices:
                out += f32(w)
        else:
            quantized = [llama2c_quantize(w, group_size) for w in matrices]
            for q, _ in quantized:
                out += q.tobytes()
            for _, s in quantized:
                out += f32(s)
    with open(path, "wb") as f:
        f.write(out)


# ------------------------------------------------------------------------------------------------
# Hugging Face: safetensors and config.json
# ------------------------------------------------------------------------------------------------

SAFETENSORS = {"F32": "<f4", "F16": "<f2", "F64": "<f8"}


def encode(values, dtype):
    values = np.asarray(values, dtype=np.float64)
    if dtype == "BF16":
        f = values.astype(np.float32)
        raw = (f.view(np.uint32) >> 16).astype("<u2")
        assert np.array_equal((raw.astype(np.uint32) << 16).view(np.float32), f), "not exact in bfloat16"
        return raw.tobytes()
    a = values.astype(SAFETENSORS[dtype])
    assert np.array_equal(a.astype(np.float64), values), f"not exact in {dtype}"
    return a.tobytes()


def write_safetensors(tensors, path, dtype="F32"):
    header, blobs, offset = {}, [], 0
    for key, values in tensors.items():
        raw = encode(values, dtype)
        header[key] = {"dtype": dtype, "shape": list(np.shape(values)), "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def hf_permute(w, n_heads):
    """convert_llama_weights_to_hf.py's permute: Meta's interleaved pairs of each head to rotate-half."""
    rows, cols = w.shape
    return w.reshape(n_heads, rows // n_heads // 2, 2, cols).transpose(0, 2, 1, 3).reshape(rows, cols)


def hf_llama_tensors(model):
    c = model["config"]
    t = {"model.embed_tokens.weight": model["embed"]}
    for i, l in enumerate(model["layers"]):
        p = f"model.layers.{i}."
        t.update({p + "input_layernorm.weight": l["attn_norm"],
                  p + "self_attn.q_proj.weight": hf_permute(l["wq"], c["heads"]),
                  p + "self_attn.k_proj.weight": hf_permute(l["wk"], c["kv_heads"]),
                  p + "self_attn.v_proj.weight": l["wv"], p + "self_attn.o_proj.weight": l["wo"],
                  p + "post_attention_layernorm.weight": l["ffn_norm"], p + "mlp.gate_proj.weight": l["w1"],
                  p + "mlp.up_proj.weight": l["w3"], p + "mlp.down_proj.weight": l["w2"]})
    t["model.norm.weight"] = model["norm"]
    if model["output"] is not None:
        t["lm_head.weight"] = model["output"]
    return t


def hf_llama_config(model):
    c = model["config"]
    return {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": c["dim"],
            "intermediate_size": c["ffn"], "num_hidden_layers": c["layers"], "num_attention_heads": c["heads"],
            "num_key_value_heads": c["kv_heads"], "vocab_size": c["vocab"], "max_position_embeddings": c["context"],
            "rms_norm_eps": c["eps"], "rope_theta": c["theta"], "tie_word_embeddings": model["output"] is None,
            "hidden_act": "silu"}


def write_hf_llama(model, folder, dtype="F32", name="model.safetensors"):
    os.makedirs(folder, exist_ok=True)
    write_safetensors(hf_llama_tensors(model), os.path.join(folder, name), dtype)
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(hf_llama_config(model), f, indent=2)


def write_meta_llama(model, folder, name="model.safetensors"):
    """Meta's names and order (consolidated.pth, llama2.c's model.py: interleaved q/k rows, no
    permutation) as safetensors, and a params.json."""
    c = model["config"]
    t = {"tok_embeddings.weight": model["embed"]}
    for i, l in enumerate(model["layers"]):
        p = f"layers.{i}."
        t.update({p + "attention_norm.weight": l["attn_norm"], p + "attention.wq.weight": l["wq"],
                  p + "attention.wk.weight": l["wk"], p + "attention.wv.weight": l["wv"],
                  p + "attention.wo.weight": l["wo"], p + "ffn_norm.weight": l["ffn_norm"],
                  p + "feed_forward.w1.weight": l["w1"], p + "feed_forward.w2.weight": l["w2"],
                  p + "feed_forward.w3.weight": l["w3"]})
    t["norm.weight"] = model["norm"]
    t["output.weight"] = model["embed"] if model["output"] is None else model["output"]
    os.makedirs(folder, exist_ok=True)
    write_safetensors(t, os.path.join(folder, name))
    with open(os.path.join(folder, "params.json"), "w") as f:
        json.dump({"dim": c["dim"], "n_layers": c["layers"], "n_heads": c["heads"], "n_kv_heads": c["kv_heads"],
                   "vocab_size": -1, "multiple_of": 32, "norm_eps": c["eps"], "rope_theta": c["theta"],
                   "max_seq_len": c["context"]}, f, indent=2)


def write_hf_gpt2(model, folder, dtype="F32", prefix="transformer.", name="model.safetensors"):
    c = model["config"]
    os.makedirs(folder, exist_ok=True)
    write_safetensors({prefix + k: v for k, v in model["weights"].items()}, os.path.join(folder, name), dtype)
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump({"model_type": "gpt2", "vocab_size": c["vocab"], "n_embd": c["dim"], "n_layer": c["layers"],
                   "n_head": c["heads"], "n_positions": c["context"], "n_inner": c["ffn"],
                   "layer_norm_epsilon": c["eps"], "activation_function": "gelu_new"}, f, indent=2)


# ------------------------------------------------------------------------------------------------
# GGUF
# ------------------------------------------------------------------------------------------------

GGML = {"F32": 0, "F16": 1, "Q8_0": 8, "BF16": 30}


def gguf_string(s):
    raw = s.encode()
    return struct.pack("<Q", len(raw)) + raw


def gguf_value(v):
    if isinstance(v, str):
        return struct.pack("<I", 8) + gguf_string(v)
    if isinstance(v, float):
        return struct.pack("<If", 6, v)
    if isinstance(v, list):  # an array of strings (the tokenizer's vocabulary)
        return struct.pack("<IIQ", 9, 8, len(v)) + b"".join(gguf_string(s) for s in v)
    return struct.pack("<II", 4, v)


def q8_0(values):
    """ggml's quantize_row_q8_0: blocks of 32, d = max|x| / 127 as float16, q = round(x / d)."""
    x = np.asarray(values, dtype=np.float32).reshape(-1, 32)
    d = np.abs(x).max(axis=1) / np.float32(127)
    inv = np.where(d > 0, 1 / np.where(d > 0, d, 1), 0).astype(np.float32)
    q = np.round(x * inv[:, None]).astype(np.int8)
    blocks = np.zeros(len(x), dtype=[("d", "<f2"), ("q", "i1", 32)])
    blocks["d"], blocks["q"] = d.astype(np.float16), q
    back = blocks["q"].astype(np.float64) * blocks["d"].astype(np.float64)[:, None]
    assert np.array_equal(back.reshape(-1), np.asarray(values, dtype=np.float64).reshape(-1)), "not exact in Q8_0"
    return blocks.tobytes()


def llama_cpp_unpermute(w, n_heads):
    """convert_hf_to_gguf.py's permutation of a Hugging Face q/k weight (back to Meta's row order)."""
    return w.reshape(n_heads, 2, w.shape[0] // n_heads // 2, w.shape[1]).swapaxes(1, 2).reshape(w.shape)


def gguf_tensors(model):
    c = model["config"]
    for l in model["layers"]:  # what llama.cpp stores from a Hugging Face file is Meta's order
        assert np.array_equal(llama_cpp_unpermute(hf_permute(l["wq"], c["heads"]), c["heads"]), l["wq"])
        assert np.array_equal(llama_cpp_unpermute(hf_permute(l["wk"], c["kv_heads"]), c["kv_heads"]), l["wk"])
    t = {"token_embd.weight": model["embed"]}
    for i, l in enumerate(model["layers"]):
        p = f"blk.{i}."
        t.update({p + "attn_norm.weight": l["attn_norm"], p + "attn_q.weight": l["wq"], p + "attn_k.weight": l["wk"],
                  p + "attn_v.weight": l["wv"], p + "attn_output.weight": l["wo"], p + "ffn_norm.weight": l["ffn_norm"],
                  p + "ffn_gate.weight": l["w1"], p + "ffn_up.weight": l["w3"], p + "ffn_down.weight": l["w2"]})
    t["output_norm.weight"] = model["norm"]
    if model["output"] is not None:
        t["output.weight"] = model["output"]
    return t


def write_gguf(model, path, kind="F32", alignment=32, extra_metadata=None):
    """A LLaMA as llama.cpp writes it: norms in F32, the matrices in `kind`."""
    c = model["config"]
    meta = {"general.architecture": "llama", "general.name": "cxmat test", "llama.context_length": c["context"],
            "llama.embedding_length": c["dim"], "llama.block_count": c["layers"],
            "llama.feed_forward_length": c["ffn"], "llama.attention.head_count": c["heads"],
            "llama.attention.head_count_kv": c["kv_heads"], "llama.attention.layer_norm_rms_epsilon": c["eps"],
            "llama.rope.freq_base": c["theta"], "llama.rope.dimension_count": c["dim"] // c["heads"],
            "tokenizer.ggml.tokens": [f"<{i}>" for i in range(c["vocab"])]}
    if alignment != 32:
        meta["general.alignment"] = alignment
    meta.update(extra_metadata or {})
    infos, blobs, offset = b"", [], 0
    for name, values in gguf_tensors(model).items():
        values = np.asarray(values)
        t = "F32" if values.ndim == 1 else kind
        if t == "Q8_0":
            raw = q8_0(values)
        else:
            raw = encode(values, "F16" if t == "F16" else "BF16" if t == "BF16" else "F32")
        dims = list(reversed(values.shape))
        infos += gguf_string(name) + struct.pack("<I", len(dims)) + struct.pack(f"<{len(dims)}Q", *dims)
        infos += struct.pack("<IQ", GGML[t], offset)
        blobs.append(raw + b"\0" * (-len(raw) % alignment))
        offset += len(blobs[-1])
    out = b"GGUF" + struct.pack("<IQQ", 3, len(blobs), len(meta))
    out += b"".join(gguf_string(k) + gguf_value(v) for k, v in meta.items()) + infos
    out += b"\0" * (-len(out) % alignment)
    with open(path, "wb") as f:
        f.write(out + b"".join(blobs))
