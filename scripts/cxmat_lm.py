"""Decoder-only language models for cxmat_import.py (--module llama, --module gpt2).

Reads llama2.c checkpoints (legacy version 0, version 1 float32, version 2 int8 groups), GGUF
files (llama.cpp; F32, F16, BF16, F64 and Q8_0 tensors), Hugging Face LLaMA and GPT-2 weights
(.safetensors or a PyTorch state_dict .bin, read by cxmat_import's readers) with their
config.json, and writes the whole model as one constexpr cxmat::llama_model or cxmat::gpt2_model.

Every reader computes the sizes a header or a config implies and checks them against the file's
length before it reads a tensor; nothing in a file is run. A problem is one line (Refusal).
"""
import json
import math
import os
import re
import struct

import numpy as np

MAX_ELEMENTS = 1 << 28  # more numbers than a header could hold: refused before reading


class Refusal(Exception):
    """A problem with the input: printed as one line, no header written."""


# ------------------------------------------------------------------------------------------------
# The model as the writer takes it: cxmat's orientation (d_in x d_out), float64 values, and for
# each tensor the name it has in its file.
# ------------------------------------------------------------------------------------------------


class Tensor:
    __slots__ = ("values", "source", "groups")

    def __init__(self, values, source):
        self.values, self.source, self.groups = values, source, None


class Llama:
    """A LLaMA-family model: sizes, options and tensors (blocks: dicts of llama_block's fields)."""

    FIELDS = ("attention_norm", "w_q", "w_k", "w_v", "w_o", "ffn_norm", "w_gate", "w_up", "w_down")

    def __init__(self, what):
        self.what = what
        self.embedding = None
        self.blocks = []
        self.final_norm = None
        self.output = None  # None: tied to the embedding
        self.heads = self.kv_heads = None
        self.context = None
        self.eps = 1e-5
        self.theta = 10000.0
        self.layout = "interleaved"


class Gpt2:
    """A GPT-2: sizes and tensors (blocks: dicts of gpt2_block's fields)."""

    def __init__(self, what):
        self.what = what
        self.heads = None
        self.eps = 1e-5


def finite(name, values, ctype):
    """The values, if finite and (for ctype float) within float's range; the index is the file's."""
    bad = ~np.isfinite(values)
    if bad.any():
        where = [int(i) for i in np.argwhere(bad)[0]]
        raise Refusal(f"tensor '{name}': {int(bad.sum())} non-finite value(s), the first "
                      f"{values[tuple(where)]} at index {where}")
    if ctype in ("float", "q8"):  # q8: the values are quantized from floats
        with np.errstate(over="ignore"):
            bad = ~np.isfinite(values.astype(np.float32))
        if bad.any():
            where = [int(i) for i in np.argwhere(bad)[0]]
            raise Refusal(f"tensor '{name}': {values[tuple(where)]!r} at index {where} does not fit in a float "
                          "(give --type double)")
    return values


def f16_to_f64(raw):
    return np.frombuffer(raw, dtype="<f2").astype(np.float64)


def bf16_to_f64(raw):
    return (np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16).view(np.float32).astype(np.float64)


# ------------------------------------------------------------------------------------------------
# llama2.c checkpoints (karpathy/llama2.c, export.py): version 0 (legacy), 1 (float32), 2 (Q8_0).
# ------------------------------------------------------------------------------------------------

LLAMA2C_MAGIC = 0x616B3432  # "ak42"
LLAMA2C_FIELDS = ("dim", "hidden_dim", "n_layers", "n_heads", "n_kv_heads", "vocab_size", "seq_len")


def llama2c_sizes(p, path):
    """Checks the header's sizes; returns the shapes (PyTorch's out x in) of the tensors."""
    for k in LLAMA2C_FIELDS:
        if p[k] <= 0:
            raise Refusal(f"{path}: llama2.c header field {k} is {p[k]}, not a positive size")
    dim, hidden, heads, kv_heads = p["dim"], p["hidden_dim"], p["n_heads"], p["n_kv_heads"]
    if dim % heads or (dim // heads) % 2:
        raise Refusal(f"{path}: llama2.c header: n_heads {heads} does not divide dim {dim} into heads of even width")
    if heads % kv_heads:
        raise Refusal(f"{path}: llama2.c header: n_kv_heads {kv_heads} does not divide n_heads {heads}")
    kv = kv_heads * dim // heads
    return {"token_embedding_table": (p["vocab_size"], dim), "rms_att_weight": (dim,), "wq": (dim, dim),
            "wk": (kv, dim), "wv": (kv, dim), "wo": (dim, dim), "rms_ffn_weight": (dim,), "w1": (hidden, dim),
            "w2": (dim, hidden), "w3": (hidden, dim), "rms_final_weight": (dim,), "wcls": (p["vocab_size"], dim)}


PER_LAYER = ("rms_att_weight", "wq", "wk", "wv", "wo", "rms_ffn_weight", "w1", "w2", "w3")


def read_llama2c(path, data):
    """The tensors of a llama2.c checkpoint as {name: [array per layer] or array}, and its header."""
    RAW_GROUPS.clear()
    if data[:4] == b"\x80\x02\x8a\x0a":  # a pickle of torch.save's legacy magic number, not llama2.c's header
        raise Refusal(f"{path}: a legacy (pre-1.6, not zip) torch.save file; re-save it with a recent PyTorch or as "
                      ".safetensors")
    if len(data) < 28:
        raise Refusal(f"{path}: truncated llama2.c checkpoint ({len(data)} bytes, the header needs 28)")
    (magic,) = struct.unpack_from("<I", data, 0)
    if magic == LLAMA2C_MAGIC:
        if len(data) < 256:
            raise Refusal(f"{path}: truncated llama2.c checkpoint ({len(data)} bytes, the header needs 256)")
        (version,) = struct.unpack_from("<i", data, 4)
        if version not in (1, 2):
            raise Refusal(f"{path}: llama2.c checkpoint version {version} is not supported (versions 0, 1 and 2 are)")
        p = dict(zip(LLAMA2C_FIELDS, struct.unpack_from("<7i", data, 8)))
        shared = data[36]
        if shared not in (0, 1):
            raise Refusal(f"{path}: llama2.c header: shared_classifier flag is {shared}, not 0 or 1")
        group = struct.unpack_from("<i", data, 37)[0] if version == 2 else None
        offset = 256
    else:
        version = 0
        p = dict(zip(LLAMA2C_FIELDS, struct.unpack_from("<7i", data, 0)))
        shared = p["vocab_size"] > 0
        p["vocab_size"] = abs(p["vocab_size"])
        group, offset = None, 28
    shapes = llama2c_sizes(p, path)
    layers = p["n_layers"]
    norms = ["rms_att_weight"] * layers + ["rms_ffn_weight"] * layers + ["rms_final_weight"]
    matrices = ["token_embedding_table"]
    matrices += [n for n in ("wq", "wk", "wv", "wo", "w1", "w2", "w3") for _ in range(layers)]
    if not shared:
        matrices.append("wcls")
    count = sum(math.prod(shapes[n]) for n in norms + matrices)
    if count > MAX_ELEMENTS:
        raise Refusal(f"{path}: the llama2.c header claims {count} weights, more than a header can hold "
                      f"({MAX_ELEMENTS})")
    head = p["dim"] // p["n_heads"]
    if version == 0:
        order = ["token_embedding_table"] + [n for n in PER_LAYER for _ in range(layers)] + ["rms_final_weight"]
        order += ["freq_cis_real", "freq_cis_imag"] + (["wcls"] if not shared else [])
        shapes = dict(shapes, freq_cis_real=(p["seq_len"], head // 2), freq_cis_imag=(p["seq_len"], head // 2))
        expected = offset + 4 * sum(math.prod(shapes[n]) for n in order)
    elif version == 1:
        order = norms + matrices
        expected = offset + 4 * count
    else:
        if group <= 0:
            raise Refusal(f"{path}: llama2.c version 2 header: group size {group} is not positive")
        for n in set(matrices):
            if math.prod(shapes[n]) % group:
                raise Refusal(f"{path}: llama2.c version 2: group size {group} does not divide tensor {n} "
                              f"of {math.prod(shapes[n])} weights")
        quantized = sum(math.prod(shapes[n]) for n in matrices)
        expected = offset + 4 * sum(math.prod(shapes[n]) for n in norms) + quantized + 4 * (quantized // group)
    if len(data) != expected:
        raise Refusal(f"{path}: llama2.c version {version} checkpoint of {len(data)} bytes, but its header "
                      f"({', '.join(f'{k} {p[k]}' for k in LLAMA2C_FIELDS)}) implies {expected}: "
                      + ("truncated" if len(data) < expected else "trailing bytes"))
    out = {n: [] for n in shapes}

    def take(name, dtype, size):
        nonlocal offset
        a = np.frombuffer(data, dtype=dtype, count=size, offset=offset)
        offset += size * a.itemsize
        return a

    if version in (0, 1):
        for n in order:
            out[n].append(take(n, "<f4", math.prod(shapes[n])).astype(np.float64).reshape(shapes[n]))
    else:
        for n in norms:
            out[n].append(take(n, "<f4", math.prod(shapes[n])).astype(np.float64).reshape(shapes[n]))
        ints = [take(n, "i1", math.prod(shapes[n])) for n in matrices]
        for n, q in zip(matrices, ints):
            raw_scales = take(n, "<f4", q.size // group)
            RAW_GROUPS.setdefault(n, []).append((q.reshape(shapes[n]), raw_scales, group))
            scales = raw_scales.astype(np.float64)
            # q·s is exact in float64 (8 + 24 significant bits): the value runq.c multiplies with.
            with np.errstate(invalid="ignore"):  # 0 times an infinite scale: NaN, refused by name later
                out[n].append((q.astype(np.float64).reshape(-1, group) * scales[:, None]).reshape(shapes[n]))
    kinds = {0: "legacy version 0, float32", 1: "version 1, float32", 2: f"version 2, int8 in groups of {group}"}
    return p, shared, version, out, kinds[version]


# The int8 values and scales of the version-2 checkpoint read last, per tensor name and layer.
RAW_GROUPS = {}


def llama_from_llama2c(path, data, args):
    p, shared, version, t, kind = read_llama2c(path, data)
    m = Llama(f"llama2.c checkpoint ({kind})")
    layers = p["n_layers"]

    def one(name, index=None, transpose=False):
        values = t[name][0 if index is None else index]
        label = name if index is None else f"{name}[{index}]"
        finite(label, values, args.type)
        if values.ndim == 1:
            values = values.reshape(1, -1)
        tensor = Tensor(values.T if transpose else values, label + ("ᵀ" if transpose else ""))
        raw = RAW_GROUPS.get(name)
        if raw is not None:  # version 2: the file's int8 groups, out x in as stored
            tensor.groups = raw[0 if index is None else index]
        return tensor

    m.embedding = one("token_embedding_table")
    for i in range(layers):
        m.blocks.append({"attention_norm": one("rms_att_weight", i), "w_q": one("wq", i, True),
                         "w_k": one("wk", i, True), "w_v": one("wv", i, True), "w_o": one("wo", i, True),
                         "ffn_norm": one("rms_ffn_weight", i), "w_gate": one("w1", i, True),
                         "w_up": one("w3", i, True), "w_down": one("w2", i, True)})
    m.final_norm = one("rms_final_weight")
    m.output = None if shared else one("wcls")
    m.heads, m.kv_heads, m.context = p["n_heads"], p["n_kv_heads"], p["seq_len"]
    m.eps, m.theta, m.layout = 1e-5, 10000.0, "interleaved"
    return m


# ------------------------------------------------------------------------------------------------
# GGUF (llama.cpp): header, typed metadata, tensor infos, aligned data.
# ------------------------------------------------------------------------------------------------

GGUF_SCALARS = {0: ("<B", 1), 1: ("<b", 1), 2: ("<H", 2), 3: ("<h", 2), 4: ("<I", 4), 5: ("<i", 4), 6: ("<f", 4),
                7: ("<?", 1), 10: ("<Q", 8), 11: ("<q", 8), 12: ("<d", 8)}
GGUF_STRING, GGUF_ARRAY = 8, 9
# ggml types read here: name, elements per block, bytes per block.
GGML_TYPES = {0: ("F32", 1, 4), 1: ("F16", 1, 2), 8: ("Q8_0", 32, 34), 28: ("F64", 1, 8), 30: ("BF16", 1, 2)}
GGML_OTHER = {2: "Q4_0", 3: "Q4_1", 6: "Q5_0", 7: "Q5_1", 9: "Q8_1", 10: "Q2_K", 11: "Q3_K", 12: "Q4_K", 13: "Q5_K",
              14: "Q6_K", 15: "Q8_K", 16: "IQ2_XXS", 17: "IQ2_XS", 18: "IQ3_XXS", 19: "IQ1_S", 20: "IQ4_NL",
              21: "IQ3_S", 22: "IQ2_S", 23: "IQ4_XS", 24: "I8", 25: "I16", 26: "I32", 27: "I64", 29: "IQ1_M"}


class Reader:
    """Little-endian fields of a byte string, each read checked against its length."""

    def __init__(self, data, path):
        self.data, self.path, self.pos = data, path, 0

    def need(self, size, what):
        if size < 0 or self.pos + size > len(self.data):
            raise Refusal(f"{self.path}: truncated or corrupt GGUF file: {what} needs {size} bytes at offset "
                          f"{self.pos}, the file has {len(self.data)}")

    def scalar(self, fmt, size, what):
        self.need(size, what)
        (v,) = struct.unpack_from(fmt, self.data, self.pos)
        self.pos += size
        return v

    def string(self, what):
        n = self.scalar("<Q", 8, what)
        self.need(n, what)
        raw = self.data[self.pos:self.pos + n]
        self.pos += n
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise Refusal(f"{self.path}: corrupt GGUF file: {what} is not UTF-8") from None

    def value(self, kind, what, depth=0):
        if kind in GGUF_SCALARS:
            return self.scalar(*GGUF_SCALARS[kind], what)
        if kind == GGUF_STRING:
            return self.string(what)
        if kind == GGUF_ARRAY and depth < 4:
            item = self.scalar("<I", 4, what)
            n = self.scalar("<Q", 8, what)
            if item in GGUF_SCALARS:
                fmt, size = GGUF_SCALARS[item]
                self.need(n * size, f"{what} ({n} items)")
                values = np.frombuffer(self.data, dtype=np.dtype(fmt), count=n, offset=self.pos)
                self.pos += n * size
                return values
            if item not in (GGUF_STRING, GGUF_ARRAY):
                raise Refusal(f"{self.path}: corrupt GGUF file: {what} has items of unknown type {item}")
            self.need(n * 8, f"{what} ({n} items)")  # every item has a length of 8 bytes at least
            return [self.value(item, what, depth + 1) for _ in range(n)]
        raise Refusal(f"{self.path}: corrupt GGUF file: {what} has unknown value type {kind}")


def read_gguf(path, data):
    """(metadata, {name: float64 array in row-major order, i.e. dims reversed}, {name: type name})."""
    r = Reader(data, path)
    r.need(24, "the header")
    if data[:4] != b"GGUF":
        raise Refusal(f"{path}: not a GGUF file (magic {data[:4]!r})")
    r.pos = 4
    version = r.scalar("<I", 4, "version")
    if version not in (2, 3):
        raise Refusal(f"{path}: GGUF version {version} is not supported (versions 2 and 3 are)")
    n_tensors = r.scalar("<Q", 8, "tensor count")
    n_kv = r.scalar("<Q", 8, "metadata count")
    # A key-value pair takes 12 bytes at least, a tensor info 24: counts past the file are refused.
    r.need(12 * n_kv + 24 * n_tensors, f"{n_kv} metadata pairs and {n_tensors} tensor infos")
    meta = {}
    for i in range(n_kv):
        key = r.string(f"metadata key {i}")
        kind = r.scalar("<I", 4, f"metadata '{key}'")
        meta[key] = r.value(kind, f"metadata '{key}'")
    alignment = meta.get("general.alignment", 32)
    if not isinstance(alignment, int) or alignment <= 0 or alignment & (alignment - 1):
        raise Refusal(f"{path}: GGUF general.alignment {alignment!r} is not a power of two")
    infos = []
    for i in range(n_tensors):
        name = r.string(f"tensor info {i}")
        n_dims = r.scalar("<I", 4, f"tensor '{name}'")
        if not 1 <= n_dims <= 4:
            raise Refusal(f"tensor '{name}': {n_dims} dimensions (GGUF tensors have 1 to 4)")
        dims = [r.scalar("<Q", 8, f"tensor '{name}'") for _ in range(n_dims)]
        kind = r.scalar("<I", 4, f"tensor '{name}'")
        offset = r.scalar("<Q", 8, f"tensor '{name}'")
        infos.append((name, dims, kind, offset))
    start = -(-r.pos // alignment) * alignment
    total = 0
    for name, dims, kind, offset in infos:
        if kind not in GGML_TYPES:
            what = GGML_OTHER.get(kind, "unknown")
            raise Refusal(f"tensor '{name}': GGML type {kind} ({what}) is not supported (F32, F16, BF16, F64 and "
                          "Q8_0 are)")
        tname, block, block_bytes = GGML_TYPES[kind]
        count = math.prod(dims)
        total += count
        if total > MAX_ELEMENTS:
            raise Refusal(f"tensor '{name}': the file claims more than {MAX_ELEMENTS} weights, more than a header "
                          "can hold")
        if dims[0] % block:
            raise Refusal(f"tensor '{name}': {tname} rows of {dims[0]} are not whole blocks of {block}")
        size = count // block * block_bytes
        if offset % alignment or start + offset + size > len(data):
            raise Refusal(f"tensor '{name}': data at offset {offset} of {size} bytes ({tname} {dims}) lies "
                          f"outside the file's {len(data) - start} data bytes or is not aligned to {alignment}")
    tensors, types = {}, {}
    for name, dims, kind, offset in infos:
        if name in tensors:
            raise Refusal(f"tensor '{name}': twice in the file")
        tname, block, block_bytes = GGML_TYPES[kind]
        count = math.prod(dims)
        raw = data[start + offset:start + offset + count // block * block_bytes]
        if tname == "F32":
            values = np.frombuffer(raw, dtype="<f4").astype(np.float64)
        elif tname == "F64":
            values = np.frombuffer(raw, dtype="<f8").astype(np.float64)
        elif tname == "F16":
            values = f16_to_f64(raw)
        elif tname == "BF16":
            values = bf16_to_f64(raw)
        else:  # Q8_0: blocks of a float16 scale d and 32 int8 q; d·q is exact in float32
            blocks = np.frombuffer(raw, dtype=[("d", "<f2"), ("q", "i1", 32)])
            with np.errstate(invalid="ignore"):  # 0 times an infinite scale: NaN, refused by name below
                values = (blocks["q"].astype(np.float64) * blocks["d"].astype(np.float64)[:, None]).reshape(-1)
        tensors[name] = values.reshape(list(reversed(dims)))
        types[name] = tname
    return meta, tensors, types


def llama_from_gguf(path, data, args):
    meta, tensors, types = read_gguf(path, data)
    arch = meta.get("general.architecture")
    if arch != "llama":
        raise Refusal(f"{path}: GGUF general.architecture is {arch!r}; --module llama reads 'llama'")

    def number(key, default=None):
        if key not in meta:
            if default is None:
                raise Refusal(f"{path}: GGUF metadata '{key}' is missing")
            return default
        v = meta[key]
        if isinstance(v, (bool, str, list, np.ndarray)):
            raise Refusal(f"{path}: GGUF metadata '{key}' is {v!r:.40}, not a number")
        return v

    layers = number("llama.block_count")
    dim = number("llama.embedding_length")
    heads = number("llama.attention.head_count")
    kv_heads = number("llama.attention.head_count_kv", heads)
    ffn = number("llama.feed_forward_length")
    m = Llama(f"GGUF file ({', '.join(sorted(set(types.values())))} tensors)")
    m.heads, m.kv_heads, m.context = int(heads), int(kv_heads), int(number("llama.context_length"))
    m.eps = float(number("llama.attention.layer_norm_rms_epsilon", 1e-5))
    m.theta = float(number("llama.rope.freq_base", 10000.0))
    m.layout = "interleaved"  # llama.cpp's rope for the llama architecture rotates neighbouring pairs
    for k, v in (("block_count", layers), ("embedding_length", dim), ("feed_forward_length", ffn),
                 ("attention.head_count", heads), ("attention.head_count_kv", kv_heads)):
        if not isinstance(v, (int, np.integer)) or v <= 0:
            raise Refusal(f"{path}: GGUF metadata 'llama.{k}' is {v!r}, not a positive integer")
    if dim % heads or heads % kv_heads or (dim // heads) % 2:
        raise Refusal(f"{path}: GGUF metadata: {heads} heads and {kv_heads} key/value heads do not fit "
                      f"embedding_length {dim}")
    rope_dims = meta.get("llama.rope.dimension_count", dim // heads)
    if rope_dims != dim // heads:
        raise Refusal(f"{path}: GGUF llama.rope.dimension_count {rope_dims}: partial rotary is not supported "
                      f"(heads of width {dim // heads})")
    kv = kv_heads * dim // heads
    vocab = tensors["token_embd.weight"].shape[0] if "token_embd.weight" in tensors else None
    if vocab is None:
        raise Refusal(f"tensor 'token_embd.weight': missing key ({hint(tensors, 'token_embd.weight')})")
    expected = {"token_embd.weight": (vocab, dim), "output_norm.weight": (dim,)}
    for i in range(layers):
        b = f"blk.{i}."
        expected.update({b + "attn_norm.weight": (dim,), b + "attn_q.weight": (dim, dim),
                         b + "attn_k.weight": (kv, dim),
                         b + "attn_v.weight": (kv, dim), b + "attn_output.weight": (dim, dim),
                         b + "ffn_norm.weight": (dim,), b + "ffn_gate.weight": (ffn, dim),
                         b + "ffn_up.weight": (ffn, dim), b + "ffn_down.weight": (dim, ffn)})
    optional = {"output.weight": (vocab, dim)}
    check_tensors(tensors, expected, optional, f"a GGUF llama of {layers} blocks")

    def one(name, transpose=False):
        values = finite(name, tensors[name], args.type)
        values = values.reshape(1, -1) if values.ndim == 1 else values
        return Tensor(values.T if transpose else values, f"{name} ({types[name]})" + ("ᵀ" if transpose else ""))

    m.embedding = one("token_embd.weight")
    for i in range(layers):
        b = f"blk.{i}."
        m.blocks.append({"attention_norm": one(b + "attn_norm.weight"), "w_q": one(b + "attn_q.weight", True),
                         "w_k": one(b + "attn_k.weight", True), "w_v": one(b + "attn_v.weight", True),
                         "w_o": one(b + "attn_output.weight", True), "ffn_norm": one(b + "ffn_norm.weight"),
                         "w_gate": one(b + "ffn_gate.weight", True), "w_up": one(b + "ffn_up.weight", True),
                         "w_down": one(b + "ffn_down.weight", True)})
    m.final_norm = one("output_norm.weight")
    m.output = one("output.weight") if "output.weight" in tensors else None
    return m


# ------------------------------------------------------------------------------------------------
# Hugging Face: LLaMA and GPT-2 state_dicts with config.json.
# ------------------------------------------------------------------------------------------------


def hint(tensors, key):
    """What a missing key's file has: a key with the same ending (a prefix to give), or its first keys."""
    tail = key.split(".", 1)[-1] if key.startswith(("model.", "transformer.")) else key
    for k in sorted(tensors):
        if k.endswith(tail) and k != key:
            return f"the file has '{k}': give --prefix {k[:len(k) - len(tail)]!r}" if k != tail else \
                f"the file has '{k}'"
    keys = sorted(tensors)
    return f"the file has {len(keys)} tensors: " + ", ".join(keys[:6]) + (", ..." if len(keys) > 6 else "")


def check_tensors(tensors, expected, optional, what):
    for key, shape in expected.items():
        if key not in tensors:
            raise Refusal(f"tensor '{key}': missing key for {what} ({hint(tensors, key)})")
    for key in sorted(tensors):
        if key not in expected and key not in optional:
            raise Refusal(f"tensor '{key}': unexpected key for {what}")
    for key, shape in list(expected.items()) + list(optional.items()):
        if key in tensors and tuple(tensors[key].shape) != tuple(shape):
            raise Refusal(f"tensor '{key}': shape {list(tensors[key].shape)} does not fit {what}: expected "
                          f"{list(shape)}")


# Meta's (and llama2.c's model.py) params.json names and state_dict keys, as Hugging Face's.
META_PARAMS = {"dim": "hidden_size", "n_layers": "num_hidden_layers", "n_heads": "num_attention_heads",
               "n_kv_heads": "num_key_value_heads", "norm_eps": "rms_norm_eps", "rope_theta": "rope_theta",
               "max_seq_len": "max_position_embeddings", "hidden_dim": "intermediate_size"}
META_KEYS = [(r"tok_embeddings\.weight", "model.embed_tokens.weight"), (r"norm\.weight", "model.norm.weight"),
             (r"output\.weight", "lm_head.weight")] + [
    (rf"layers\.(\d+)\.{meta}\.weight", rf"model.layers.\1.{hf}.weight") for meta, hf in (
        ("attention\\.wq", "self_attn.q_proj"), ("attention\\.wk", "self_attn.k_proj"),
        ("attention\\.wv", "self_attn.v_proj"), ("attention\\.wo", "self_attn.o_proj"),
        ("feed_forward\\.w1", "mlp.gate_proj"), ("feed_forward\\.w2", "mlp.down_proj"),
        ("feed_forward\\.w3", "mlp.up_proj"), ("attention_norm", "input_layernorm"),
        ("ffn_norm", "post_attention_layernorm"))]


def meta_to_hf(tensors, prefix):
    """Meta's keys (tok_embeddings, layers.N.attention.wq, ...) renamed to Hugging Face's, with
    each new key's source; the rotary table buffer (rope.freqs) dropped."""
    renamed, sources = {}, {}
    for key, value in tensors.items():
        short = key[len(prefix):] if key.startswith(prefix) else None
        if short is None or short == "rope.freqs":
            continue
        for pattern, replacement in META_KEYS:
            if re.fullmatch(pattern, short):
                new = re.sub(pattern, replacement, short)
                break
        else:
            raise Refusal(f"tensor '{key}': unexpected key for a Meta-style LLaMA (tok_embeddings, layers.N.attention."
                          "wq, ..., norm, output)")
        renamed[new], sources[new] = value, key
    return renamed, sources


def read_config(path, args):
    """--config, else config.json or params.json next to the weights file, else none (flags only);
    Meta's params.json names as Hugging Face's."""
    folder = os.path.dirname(os.path.abspath(path))
    name = args.config or next((os.path.join(folder, n) for n in ("config.json", "params.json")
                                if os.path.exists(os.path.join(folder, n))), None)
    if name is None or not os.path.exists(name):
        if args.config:
            raise Refusal(f"{args.config}: no such file")
        return {}, None
    try:
        with open(name, "rb") as f:
            raw = f.read(1 << 20)
        config = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise Refusal(f"{name}: corrupt config.json ({e})") from None
    if not isinstance(config, dict):
        raise Refusal(f"{name}: corrupt config.json (not a JSON object)")
    if "dim" in config and "hidden_size" not in config:
        config = {META_PARAMS.get(k, k): v for k, v in config.items() if not (k == "vocab_size" and v == -1)}
    return config, os.path.basename(name)


FLAGS = {"num_attention_heads": "--heads", "n_head": "--heads", "num_key_value_heads": "--kv-heads",
         "max_position_embeddings": "--context"}


def config_int(config, cname, key, flag, default=None):
    v = flag if flag is not None else config.get(key, default)
    if v is None:
        raise Refusal(f"{cname or 'no config.json'}: '{key}' is needed (or {FLAGS.get(key, 'its flag')})")
    if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
        raise Refusal(f"{cname}: '{key}' is {v!r}, not a positive integer")
    return v


def config_float(config, cname, key, flag, default):
    v = flag if flag is not None else config.get(key, default)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v <= 0:
        raise Refusal(f"{cname}: '{key}' is {v!r}, not a positive number")
    return float(v)


def llama_from_hf(path, tensors, as_float64, args):
    config, cname = read_config(path, args)
    meta = args.prefix + "tok_embeddings.weight" in tensors
    sources = {}
    if meta:  # Meta's names (consolidated.pth, llama2.c's model.py): Meta's interleaved q/k rows
        tensors, sources = meta_to_hf(tensors, args.prefix)
        prefix = "model."
    else:
        prefix = args.prefix
    if not prefix and "embed_tokens.weight" not in tensors:
        prefix = "model."  # LlamaForCausalLM's keys; a bare LlamaModel's have none
    raw = {k[len(prefix):] if k.startswith(prefix) else k: v for k, v in tensors.items()
           if k.startswith(prefix) or k == "lm_head.weight"}
    raw = {k: v for k, v in raw.items() if not k.endswith("rotary_emb.inv_freq")}  # a buffer, not a weight
    shown = {(k if k == "lm_head.weight" else prefix + k): v[0] for k, v in raw.items()}
    if "embed_tokens.weight" not in raw:
        everything = {k: v[0] for k, v in tensors.items()}
        raise Refusal(f"tensor '{prefix}embed_tokens.weight': missing key "
                      f"({hint(everything, prefix + 'embed_tokens.weight')})")
    vocab, dim = raw["embed_tokens.weight"][0].shape if raw["embed_tokens.weight"][0].ndim == 2 else (0, 0)
    layers = len({m.group(1) for k in raw for m in [re.match(r"layers\.(\d+)\.", k)] if m})
    what = "a Hugging Face LLaMA" + (f" ({cname})" if cname else "")
    for key, flag, found in (("hidden_size", None, dim), ("vocab_size", None, vocab),
                             ("num_hidden_layers", None, layers)):
        if key in config and config[key] != found:
            raise Refusal(f"{cname}: '{key}' is {config[key]!r}, but the weights have {found} "
                          f"({prefix}embed_tokens.weight, {prefix}layers.N.)")
    heads = config_int(config, cname, "num_attention_heads", args.heads)
    kv_heads = config_int(config, cname, "num_key_value_heads", args.kv_heads, heads)
    if dim % heads or heads % kv_heads or (dim // heads) % 2:
        source = ", ".join(f for f, v in (("--heads", args.heads), ("--kv-heads", args.kv_heads)) if v) or cname
        raise Refusal(f"{source}: {heads} heads and {kv_heads} key/value heads do not fit hidden_size {dim} "
                      f"(heads of even width dividing it, key/value heads dividing the heads)")
    if config.get("head_dim", dim // heads) != dim // heads:
        raise Refusal(f"{cname}: head_dim {config['head_dim']} is not hidden_size / num_attention_heads")
    if config.get("rope_scaling"):
        raise Refusal(f"{cname}: rope_scaling {config['rope_scaling']!r} is not supported")
    if config.get("hidden_act", "silu") != "silu":
        raise Refusal(f"{cname}: hidden_act {config['hidden_act']!r}: a LLaMA's SwiGLU uses silu")
    gate = raw.get("layers.0.mlp.gate_proj.weight")
    ffn = config.get("intermediate_size") or (gate[0].shape[0] if gate is not None and gate[0].ndim == 2 else 0)
    kv = kv_heads * dim // heads
    tied = args.tied
    if tied is None and "tie_word_embeddings" in config:
        tied = config["tie_word_embeddings"]
    elif tied is None:  # nothing says: tied when there is no head, or the head is the embedding
        head = raw.get("lm_head.weight")
        tied = head is None or np.array_equal(np.asarray(head[0]), np.asarray(raw["embed_tokens.weight"][0]))
    expected = {"embed_tokens.weight": (vocab, dim), "norm.weight": (dim,)}
    for i in range(layers):
        b = f"layers.{i}."
        expected.update({b + "input_layernorm.weight": (dim,), b + "self_attn.q_proj.weight": (dim, dim),
                         b + "self_attn.k_proj.weight": (kv, dim), b + "self_attn.v_proj.weight": (kv, dim),
                         b + "self_attn.o_proj.weight": (dim, dim), b + "post_attention_layernorm.weight": (dim,),
                         b + "mlp.gate_proj.weight": (ffn, dim), b + "mlp.up_proj.weight": (ffn, dim),
                         b + "mlp.down_proj.weight": (dim, ffn)})
    if not tied:
        expected["lm_head.weight"] = (vocab, dim)
    shapes = {(k if k == "lm_head.weight" else prefix + k): v for k, v in expected.items()}
    # A tied head saved anyway (some tools do) must equal the embedding.
    check_tensors(shown, shapes, {"lm_head.weight": (vocab, dim)} if tied else {},
                  f"{what} of {layers} layers, hidden_size {dim}, intermediate_size {ffn}, {heads} heads, "
                  f"{kv_heads} key/value heads")
    m = Llama(f"{'Meta-style' if meta else 'Hugging Face'} LLaMA ({', '.join(sorted({v[1] for v in raw.values()}))} "
              "tensors" + (f", {cname}" if cname else "") + ")")
    m.heads, m.kv_heads = heads, kv_heads
    m.context = config_int(config, cname, "max_position_embeddings", args.context, None)
    # The defaults of LlamaConfig (1e-6) and of Meta's and llama2.c's ModelArgs (1e-5).
    m.eps = config_float(config, cname, "rms_norm_eps", args.eps if args.eps_given else None, 1e-5 if meta else 1e-6)
    m.theta = config_float(config, cname, "rope_theta", args.rope_theta, 10000.0)
    m.layout = "interleaved" if meta else "rotate_half"

    def one(key, transpose=False):
        full = key if key == "lm_head.weight" else prefix + key
        full = sources.get(full, full)  # Meta's name, when renamed
        values = as_float64(full, *raw[key])
        values = values.reshape(1, -1) if values.ndim == 1 else values
        return Tensor(values.T if transpose else values, full + ("ᵀ" if transpose else ""))

    m.embedding = one("embed_tokens.weight")
    for i in range(layers):
        b = f"layers.{i}."
        m.blocks.append({"attention_norm": one(b + "input_layernorm.weight"),
                         "w_q": one(b + "self_attn.q_proj.weight", True),
                         "w_k": one(b + "self_attn.k_proj.weight", True),
                         "w_v": one(b + "self_attn.v_proj.weight", True),
                         "w_o": one(b + "self_attn.o_proj.weight", True),
                         "ffn_norm": one(b + "post_attention_layernorm.weight"),
                         "w_gate": one(b + "mlp.gate_proj.weight", True), "w_up": one(b + "mlp.up_proj.weight", True),
                         "w_down": one(b + "mlp.down_proj.weight", True)})
    m.final_norm = one("norm.weight")
    if tied:
        if "lm_head.weight" in raw and not np.array_equal(one("lm_head.weight").values, m.embedding.values):
            raise Refusal("tensor 'lm_head.weight': differs from the embedding, but the head is tied "
                          "(tie_word_embeddings); give --untied")
        m.output = None
    else:
        m.output = one("lm_head.weight")
    return m


def gpt2_from_hf(path, tensors, as_float64, args):
    config, cname = read_config(path, args)
    prefix = args.prefix
    if not prefix and "wte.weight" not in tensors:
        prefix = "transformer."  # GPT2LMHeadModel's keys; GPT2Model's (the hub's gpt2 files) have none
    raw = {k[len(prefix):]: v for k, v in tensors.items() if k.startswith(prefix)}
    extra = {k: v for k, v in tensors.items() if not k.startswith(prefix)}
    # The causal-mask buffers older checkpoints save: constants, not weights.
    raw = {k: v for k, v in raw.items() if not re.fullmatch(r"h\.\d+\.attn\.(masked_)?bias", k)}
    shown = {prefix + k: v[0] for k, v in raw.items()}
    shown.update({k: v[0] for k, v in extra.items()})
    if "wte.weight" not in raw or raw["wte.weight"][0].ndim != 2:
        everything = {k: v[0] for k, v in tensors.items()}
        raise Refusal(f"tensor '{prefix}wte.weight': missing key ({hint(everything, prefix + 'wte.weight')})")
    vocab, dim = raw["wte.weight"][0].shape
    layers = len({m.group(1) for k in raw for m in [re.match(r"h\.(\d+)\.", k)] if m})
    positions = raw["wpe.weight"][0].shape[0] if "wpe.weight" in raw and raw["wpe.weight"][0].ndim == 2 else 0
    fc = raw.get("h.0.mlp.c_fc.weight")
    ffn = config.get("n_inner") or (fc[0].shape[1] if fc is not None and fc[0].ndim == 2 else 4 * dim)
    for key, found in (("n_embd", dim), ("vocab_size", vocab), ("n_layer", layers), ("n_positions", positions)):
        if key in config and config[key] != found:
            raise Refusal(f"{cname}: '{key}' is {config[key]!r}, but the weights have {found}")
    heads = config_int(config, cname, "n_head", args.heads)
    if dim % heads:
        raise Refusal(f"{cname or '--heads'}: {heads} heads do not divide n_embd {dim}")
    act = config.get("activation_function", "gelu_new")
    if act not in ("gelu_new", "gelu_pytorch_tanh"):
        raise Refusal(f"{cname}: activation_function {act!r}: cxmat's GPT-2 uses GELU's tanh form (gelu_new)")
    expected = {"wte.weight": (vocab, dim), "wpe.weight": (positions, dim), "ln_f.weight": (dim,),
                "ln_f.bias": (dim,)}
    for i in range(layers):
        b = f"h.{i}."
        expected.update({b + "ln_1.weight": (dim,), b + "ln_1.bias": (dim,), b + "attn.c_attn.weight": (dim, 3 * dim),
                         b + "attn.c_attn.bias": (3 * dim,), b + "attn.c_proj.weight": (dim, dim),
                         b + "attn.c_proj.bias": (dim,), b + "ln_2.weight": (dim,), b + "ln_2.bias": (dim,),
                         b + "mlp.c_fc.weight": (dim, ffn), b + "mlp.c_fc.bias": (ffn,),
                         b + "mlp.c_proj.weight": (ffn, dim), b + "mlp.c_proj.bias": (dim,)})
    check_tensors(shown, {prefix + k: v for k, v in expected.items()}, {"lm_head.weight": (vocab, dim)},
                  f"a Hugging Face GPT-2 of {layers} layers, n_embd {dim}, {heads} heads")
    m = Gpt2(f"Hugging Face GPT-2 ({', '.join(sorted({v[1] for v in raw.values()}))} tensors"
             + (f", {cname}" if cname else "") + ")")
    m.heads = heads
    m.eps = config_float(config, cname, "layer_norm_epsilon", args.eps if args.eps_given else None, 1e-5)
    context = positions if args.context is None else args.context
    if context > positions:
        raise Refusal(f"--context {context}: the model has {positions} positions ({prefix}wpe.weight)")

    def one(key):
        values = as_float64(prefix + key, *raw[key])
        return values.reshape(1, -1) if values.ndim == 1 else values

    def norm(key):
        return ("layer_norm", Tensor(one(key + ".weight"), prefix + key + ".weight"),
                Tensor(one(key + ".bias"), prefix + key + ".bias"))

    m.embedding = Tensor(one("wte.weight"), prefix + "wte.weight")
    m.positions = Tensor(one("wpe.weight")[:context], prefix + "wpe.weight"
                         + (f"[0:{context}]" if context < positions else ""))
    m.blocks = []
    for i in range(layers):
        b = f"h.{i}."
        w, bias = one(b + "attn.c_attn.weight"), one(b + "attn.c_attn.bias")
        cw, cb = prefix + b + "attn.c_attn.weight", prefix + b + "attn.c_attn.bias"
        parts = [Tensor(w[:, j * dim:(j + 1) * dim], f"{cw}[:, {j * dim}:{(j + 1) * dim}] ({'qkv'[j]})")
                 for j in range(3)]
        parts += [Tensor(bias[:, j * dim:(j + 1) * dim], f"{cb}[{j * dim}:{(j + 1) * dim}] ({'qkv'[j]})")
                  for j in range(3)]
        parts += [Tensor(one(b + "attn.c_proj.weight"), prefix + b + "attn.c_proj.weight"),
                  Tensor(one(b + "attn.c_proj.bias"), prefix + b + "attn.c_proj.bias")]
        m.blocks.append({"ln_1": norm(b + "ln_1"), "attention": ("attention", *parts), "ln_2": norm(b + "ln_2"),
                         "w_fc": Tensor(one(b + "mlp.c_fc.weight"), prefix + b + "mlp.c_fc.weight"),
                         "b_fc": Tensor(one(b + "mlp.c_fc.bias"), prefix + b + "mlp.c_fc.bias"),
                         "w_proj": Tensor(one(b + "mlp.c_proj.weight"), prefix + b + "mlp.c_proj.weight"),
                         "b_proj": Tensor(one(b + "mlp.c_proj.bias"), prefix + b + "mlp.c_proj.bias")})
    m.final_norm = norm("ln_f")
    if "lm_head.weight" in extra:
        head = as_float64("lm_head.weight", *extra["lm_head.weight"])
        if not np.array_equal(head, m.embedding.values):
            raise Refusal("tensor 'lm_head.weight': differs from transformer.wte.weight; cxmat's GPT-2 ties the head")
    return m


# ------------------------------------------------------------------------------------------------
# Writing: the model as one aggregate initializer, one line per matrix row.
# ------------------------------------------------------------------------------------------------


def literals(name, values, ctype):
    """C++ literals of a float64 array (exact for double; for float rounded once, as the compiler would)."""
    if ctype == "double":
        texts = [repr(v) for v in values.reshape(-1).tolist()]
        return [t if ("e" in t or "." in t) else t + ".0" for t in texts]
    with np.errstate(over="ignore"):
        f = values.astype(np.float32)
    bad = ~np.isfinite(f)
    if bad.any():
        where = [int(i) for i in np.argwhere(bad.reshape(values.shape))[0]]
        raise Refusal(f"tensor '{name}': {values[tuple(where)]!r} at index {where} does not fit in a float "
                      "(give --type double)")
    texts = np.char.mod("%.9g", f.reshape(-1).astype(np.float64)).tolist()
    return [(t if ("e" in t or "." in t) else t + ".0") + "f" for t in texts]


def quantize_groups(values_out_in, group):
    """Q8_0 groups of each row (out x in, float64 values): the arithmetic of cxmat::q8::quantize_groups,
    in float32 as the library does it (scale = max |v| / 127, q = v / scale rounded half away from
    zero), so the header holds the bits the compiler would compute. Where group does not divide the
    row, its last group is the rest (the row is padded with zeros, which change no maximum and
    quantize to 0, and the padding dropped)."""
    rows, width = values_out_in.shape
    padded = -(-width // group) * group
    v = np.zeros((rows, padded), np.float32)
    v[:, :width] = values_out_in.astype(np.float32)
    v = v.reshape(rows, -1, group)
    largest = np.abs(v).max(axis=2)
    scale = (largest / np.float32(127)).astype(np.float32)
    with np.errstate(divide="ignore", invalid="ignore"):
        x = (v / scale[:, :, None]).astype(np.float32)
    t = np.trunc(x)
    fraction = (x - t).astype(np.float32)
    q = t + (fraction >= np.float32(0.5)) - (fraction <= np.float32(-0.5))
    q[np.broadcast_to((scale == 0)[:, :, None], q.shape)] = 0
    return q.reshape(rows, padded)[:, :width].astype(np.int8), scale


def group_size_for(widths, wanted):
    """The group size: the one asked for (any positive size: where it does not divide an input
    width, that row's last group is the rest, as cxmat::q8::group_weights allows), or llama2.c's
    export's choice, the largest power of two up to 64 that divides them all."""
    if wanted is not None:
        if wanted <= 0:
            raise Refusal(f"--group-size {wanted}: not a positive group size")
        return wanted
    group = 64
    while any(w % group for w in widths):
        group //= 2
    return group


HALF = {"f16": "binary16", "bf16": "bfloat16"}


def half_bits(name, values, kind, transposed=False):
    """The 16-bit encodings (uint16) of float64 values in float16 (kind f16) or bfloat16 (bf16),
    rounded to nearest even: exact for values the format holds (a file's own 16-bit tensors). bf16
    is rounded from the float32 value (every checkpoint value but a float64 file's is one). A
    value the format cannot hold (past its largest) is refused with the tensor's name."""
    with np.errstate(over="ignore"):
        if kind == "f16":
            bits = values.astype(np.float16).view(np.uint16)
            wide = bits.view(np.float16).astype(np.float64)
        else:
            u = values.astype(np.float32).view(np.uint32).astype(np.uint64)
            bits = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
            wide = (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    bad = np.argwhere(~np.isfinite(wide))
    if bad.size:
        i = tuple(int(x) for x in bad[0])
        where = list(reversed(i)) if transposed else list(i)  # the file's orientation
        raise Refusal(f"tensor '{name}': value {values[i]!r} at {where} does not fit in {kind} (--type {kind})")
    return bits


class Writer:
    def __init__(self, ctype):
        self.ctype, self.lines = ctype, []

    def rows(self, pad, rows):
        """One line per row of C++ braces: each row an iterable of literal texts."""
        self.lines += [f"{pad}    {{{', '.join(row)}}}," for row in rows]

    def matrix(self, t, indent, last=False):
        values = t.values
        lit = literals(t.source.split(" ")[0].rstrip("ᵀ"), values, self.ctype)
        r, cols = values.shape
        pad = " " * indent
        self.lines += [f"{pad}// {t.source}: {r} x {cols}", f"{pad}{{{{"]
        self.rows(pad, (lit[i * cols:(i + 1) * cols] for i in range(r)))
        self.lines.append(f"{pad}}}}}" + ("" if last else ","))

    def groups(self, t, group, indent, last=False, out_in=False):
        """t as cxmat::q8::group_weights: the file's int8 groups where it has them in this group size,
        else quantized as the library does. t is d_in x d_out (out_in: a table, already out x in)."""
        raw = t.groups
        rows_in = t.values if out_in else t.values.T
        # A file's groups run over the whole tensor: they are the rows' groups where group divides a row.
        if raw is not None and raw[2] == group and rows_in.shape[1] % group == 0:
            q, scales = raw[0].reshape(raw[0].shape[0], -1), raw[1].reshape(raw[0].shape[0], -1)
            how = "the file's int8 groups"
        else:
            q, scales = quantize_groups(rows_in, group)
            how = f"quantized in groups of {group}"
        pad = " " * indent
        self.lines += [f"{pad}// {t.source}: {q.shape[0]} x {q.shape[1]} int8 ({how}), {scales.shape[1]} scales per row",
                       f"{pad}{{{{{{"]
        self.rows(pad, ((str(int(v)) for v in row) for row in q))
        self.lines.append(f"{pad}}}}}, {{{{")
        texts = np.char.mod("%.9g", scales.astype(np.float64)).tolist()
        self.rows(pad, (((x if ("e" in x or "." in x) else x + ".0") + "f" for x in row) for row in texts))
        self.lines.append(f"{pad}}}}}}}" + ("" if last else ","))

    def half(self, t, kind, indent, last=False):
        """t as cxmat::half_matrix: each value's 16-bit encoding in hex, in t's orientation."""
        name = t.source.split(" ")[0]
        bits = half_bits(name.rstrip("ᵀ"), t.values, kind, name.endswith("ᵀ"))
        pad = " " * indent
        self.lines += [f"{pad}// {t.source}: {bits.shape[0]} x {bits.shape[1]} in {kind}", f"{pad}{{{{{{"]
        self.rows(pad, ((f"0x{int(v):04x}" for v in row) for row in bits))
        self.lines.append(f"{pad}}}}}}}" + ("" if last else ","))

    def open(self, text, indent):
        self.lines.append(" " * indent + text)

    def close(self, indent, last=False):
        self.lines.append(" " * indent + "}" + ("" if last else ","))

    def scalar(self, value):
        return literals("eps", np.array([value]), self.ctype)[0]


def dimension_aliases(h, args):
    """NAME_vocab, NAME_d_model, ...: the model's dimensions under its name (the same named extents as
    NAME_dims::vocab, ..., so they fit each other)."""
    h.after.append("")
    h.after.append(f"// The model's dimensions under its name: {args.name}_vocab is {h.ref('vocab')}, ...")
    for name, _ in h.dims:
        h.after.append(f"inline constexpr auto {args.name}_{name} = {args.dims}::{name};")


def write_llama(h, m, args):
    """The model's declaration into the Header h (dims, includes, the value after the weights)."""
    layers = len(m.blocks)
    vocab, dim = m.embedding.values.shape
    ffn = m.blocks[0]["w_gate"].values.shape[1]
    context = m.context if args.context is None else args.context
    V, D = h.dim("vocab", vocab), h.dim("d_model", dim)
    F, C = h.dim("d_ff", ffn), h.dim("context", context)
    h.includes = {"cxmat/generation.hpp"}
    layout = f"cxmat::rotary_layout::{m.layout}"
    q8 = args.type == "q8"
    half = HALF.get(args.type)
    group = group_size_for([dim, ffn], getattr(args, "group_size", None)) if q8 else None
    if q8:
        head = "cxmat::tied_head" if m.output is None else f"cxmat::q8::group_weights<{D}, {V}, {group}>"
    elif half:
        head = "cxmat::tied_head" if m.output is None else f"cxmat::half_matrix<cxmat::half_format::{half}, {V}, {D}>"
    else:
        head = "cxmat::tied_head" if m.output is None else f"cxmat::matrix<{h.ctype}, {V}, {D}>"
    w = Writer(h.ctype)
    eps = w.scalar(m.eps)
    w.lines += [
        f"/// {m.what} from {os.path.basename(h.source)}: vocabulary {vocab}, d_model {dim}, {layers} blocks of "
        f"{m.heads} heads ({m.kv_heads} key/value heads), SwiGLU of width {ffn}, context {context};",
        f"/// RMSNorm eps {m.eps!r}, rotary positions ({m.layout}, base {m.theta!r}), the head "
        + ("tied to the embedding." if m.output is None else "separate."),
        f"///   cxmat::generate<N>({args.name}, prompt) greedy tokens after a 1 x P prompt of token ids;",
        f"///   cxmat::forward({args.name}, tokens) the logits of every position.",
        f"inline constexpr cxmat::llama_model<{h.ctype}, {V}, {D}, {layers}, {m.heads}, {m.kv_heads}, {F}, {C},",
        f"                                    {layout}, {head}"
        + (f", cxmat::q8_group_weights<{group}>>" if q8 else
           f", cxmat::half_weights<cxmat::half_format::{half}>>" if half else ">"),
        f"    {args.name}{{",
    ]
    if q8:
        w.lines.insert(2, f"/// Linear maps, token table and head int8 in groups of {group} (cxmat::q8_group_weights), "
                       "norms float.")
    if half:
        w.lines.insert(2, f"/// Linear maps, token table and head stored in {args.type} (cxmat::half_weights), widened "
                       "to float where used; norms float.")
    w.lines.append("        // token_embedding")
    if q8:
        w.groups(m.embedding, group, 8, out_in=True)
    elif half:
        w.half(m.embedding, args.type, 8)
    else:
        w.matrix(m.embedding, 8)
    w.open("// blocks", 8)
    w.open("{", 8)
    for i, block in enumerate(m.blocks):
        w.open(f"// block {i}", 12)
        w.open("{", 12)
        for field in Llama.FIELDS:
            t = block[field]
            if field.endswith("norm"):
                w.open(f"// {field}: {t.source}, eps", 16)
                w.open("{", 16)
                w.matrix(t, 20)
                w.open(eps, 20)
                w.close(16)
            elif q8:
                w.open(f"// {field}", 16)
                w.groups(t, group, 16, last=field == "w_down")
            elif half:
                w.open(f"// {field}", 16)
                w.half(t, args.type, 16, last=field == "w_down")
            else:
                w.open(f"// {field}", 16)
                w.matrix(t, 16, last=field == "w_down")
        w.close(12, i == layers - 1)
    w.close(8)
    w.open("// final_norm, eps", 8)
    w.open("{", 8)
    w.matrix(m.final_norm, 12)
    w.open(eps, 12)
    w.close(8)
    if m.output is None:
        w.open("// output: tied to token_embedding", 8)
        w.open("{},", 8)
    elif q8:
        w.open("// output", 8)
        w.groups(m.output, group, 8, out_in=True)
    elif half:
        w.open("// output", 8)
        w.half(m.output, args.type, 8)
    else:
        w.open("// output", 8)
        w.matrix(m.output, 8)
    w.open("// rope: base (theta)", 8)
    w.open(f"{{{float(m.theta)!r}}}", 8)
    w.lines.append("};")
    h.after += w.lines
    dimension_aliases(h, args)


def write_gpt2(h, m, args):
    layers = len(m.blocks)
    vocab, dim = m.embedding.values.shape
    ffn = m.blocks[0]["w_fc"].values.shape[1]
    context = m.positions.values.shape[0]
    V, D = h.dim("vocab", vocab), h.dim("d_model", dim)
    F, C = h.dim("d_ff", ffn), h.dim("context", context)
    h.includes = {"cxmat/generation.hpp"}
    w = Writer(h.ctype)
    eps = w.scalar(m.eps)

    def norm(item, indent, last=False):
        _, weight, bias = item
        w.open(f"// {weight.source}, {bias.source.rsplit('.', 1)[-1]}, eps", indent)
        w.open("{", indent)
        w.matrix(weight, indent + 4)
        w.matrix(bias, indent + 4)
        w.open(eps, indent + 4)
        w.close(indent, last)

    w.lines += [
        f"/// {m.what} from {os.path.basename(h.source)}: vocabulary {vocab}, d_model {dim}, {layers} blocks of "
        f"{m.heads} heads, feed-forward width {ffn}, {context} positions; LayerNorm eps {m.eps!r}, GELU (tanh form),",
        "/// the head tied to the token embedding.",
        f"///   cxmat::generate<N>({args.name}, prompt) greedy tokens after a 1 x P prompt of token ids;",
        f"///   cxmat::forward({args.name}, tokens) the logits of every position.",
        f"inline constexpr cxmat::gpt2_model<{h.ctype}, {V}, {D}, {layers}, {m.heads}, {F}, {C}> {args.name}{{",
        "    // token_embedding",
    ]
    w.matrix(m.embedding, 4)
    w.open("// position_embedding", 4)
    w.matrix(m.positions, 4)
    w.open("// blocks", 4)
    w.open("{", 4)
    for i, block in enumerate(m.blocks):
        w.open(f"// block {i}", 8)
        w.open("{", 8)
        norm(block["ln_1"], 12)
        w.open("// attention: w_q, w_k, w_v, b_q, b_k, b_v, w_o, b_o", 12)
        w.open("{", 12)
        parts = block["attention"][1:]
        for j, t in enumerate(parts):
            w.matrix(t, 16, last=j == len(parts) - 1)
        w.close(12)
        norm(block["ln_2"], 12)
        for field in ("w_fc", "b_fc", "w_proj", "b_proj"):
            w.matrix(block[field], 12, last=field == "b_proj")
        w.close(8, i == layers - 1)
    w.close(4)
    norm(m.final_norm, 4, last=True)
    w.lines.append("};")
    h.after += w.lines
    dimension_aliases(h, args)


def check_flags(args):
    for flag, value in (("--context", args.context), ("--heads", args.heads), ("--kv-heads", args.kv_heads)):
        if value is not None and value <= 0:
            raise Refusal(f"{flag} {value}: not a positive integer")
    for flag, value in (("--rope-theta", args.rope_theta), ("--eps", args.eps if args.eps_given else None)):
        if value is not None and not (math.isfinite(value) and value > 0):
            raise Refusal(f"{flag} {value}: not a positive number")


def module_llama(h, args, path, read_tensors, as_float64):
    check_flags(args)
    if args.type in ("q8", "f16", "bf16"):
        h.ctype = "float"  # int8 or 16-bit weights, float activations and norms
    data_kind, data = sniff(path)
    if data_kind == "gguf":
        m = llama_from_gguf(path, data, args)
    elif data_kind == "llama2c":
        m = llama_from_llama2c(path, data, args)
    else:
        m = llama_from_hf(path, read_tensors(path), as_float64, args)
    if args.rope_theta is not None:
        m.theta = args.rope_theta
    if args.eps_given and data_kind != "hf":
        m.eps = args.eps
    write_llama(h, m, args)


def module_gpt2(h, args, path, read_tensors, as_float64):
    check_flags(args)
    data_kind, _ = sniff(path)
    if data_kind != "hf":
        raise Refusal(f"{path}: --module gpt2 reads Hugging Face GPT-2 weights (.safetensors or a PyTorch .bin "
                      "state_dict)")
    write_gpt2(h, gpt2_from_hf(path, read_tensors(path), as_float64, args), args)


def sniff(path):
    """'gguf', 'llama2c' (a .bin that is not a zip archive) or 'hf' (safetensors or a state_dict)."""
    if not os.path.exists(path):
        raise Refusal(f"{path}: no such file")
    with open(path, "rb") as f:
        head = f.read(4)
    lower = path.lower()
    if head == b"GGUF" or lower.endswith(".gguf"):
        with open(path, "rb") as f:
            return "gguf", f.read()
    if lower.endswith(".bin") and head[:2] != b"PK":
        with open(path, "rb") as f:
            return "llama2c", f.read()
    return "hf", None
