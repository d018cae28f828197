#!/usr/bin/env python3
"""Trained weights in: a PyTorch, safetensors or numpy weights file to a constexpr cxmat header.

    python3 scripts/cxmat_import.py FILE --module MODULE [--heads H] [--activation relu|gelu|gelu_tanh|silu]
        [--norm-first | --post-norm] [--eps E] [--prefix KEY_PREFIX] [--dims NAMESPACE] [--dim NAME=NEW] --name NAME
        [--type float|double|q8|f16|bf16 [--calibration INPUTS.npz [--calibrate offline|compiler]]] -o OUT.hpp

FILE is a state_dict saved with torch.save (.pt, .pth, .bin), a .safetensors file or a numpy
.npz archive. It is read with Python's standard library and numpy only: a .pt file is a zip
archive whose pickle is read by an unpickler that accepts only PyTorch's tensor-rebuilding
functions, its storage types and plain containers, so reading never runs anything the file asks
for; anything else is refused with its name.

MODULE says what the tensors are (PyTorch's state_dict keys, after KEY_PREFIX):
  tensors              every tensor as a named matrix (1-D as 1 x N, 3-D as a cxmat::batch)
  linear               nn.Linear: weight (out x in), bias (out)
  layer_norm           nn.LayerNorm over the last dimension: weight, bias (d)
  embedding            nn.Embedding: weight (num_embeddings x embedding_dim)
  multihead_attention  nn.MultiheadAttention: in_proj_weight (3E x E), in_proj_bias,
                       out_proj.weight, out_proj.bias; or q_proj_weight, k_proj_weight and
                       v_proj_weight when kdim = vdim is not E (then cross-attention only)
  encoder_layer        nn.TransformerEncoderLayer: self_attn.*, linear1.*, linear2.*, norm1.*, norm2.*
  decoder_layer        nn.TransformerDecoderLayer: also multihead_attn.* and norm3.*
  encoder, decoder     nn.TransformerEncoder / Decoder: layers.0.* ... layers.N-1.*, and norm.*
                       when it has a final norm
                       (--activation and --eps as the layer was made, and --norm-first or
                       --post-norm, which must be given: a state_dict does not record them)
  bytes                the file as .safetensors bytes in a constexpr array (a .pt or .npz
                       converted), for cxmat/io/safetensors.hpp
  llama                a LLaMA-family model as one constexpr cxmat::llama_model: a llama2.c
                       checkpoint (.bin, versions 0, 1, 2), a GGUF file (llama.cpp), or a Hugging
                       Face (model.*) or Meta (tok_embeddings, ...) state_dict with its config.json
                       or params.json (next to FILE, or --config); see cxmat_lm.py
  gpt2                 a Hugging Face GPT-2 state_dict as one constexpr cxmat::gpt2_model
                       (--config, --heads, --eps, --context, --kv-heads, --rope-theta, --tied /
                       --untied give or override what a file lacks)

--type f16 and --type bf16 (--module llama) keep the weights in 16 bits (cxmat::half_weights:
float16 or bfloat16, the file's own bits where it has them, else rounded to nearest even), half
the bytes of float, widened exactly to float where used.

--type q8 writes cxmat::q8's int8 module of multihead_attention (self-attention), linear,
encoder_layer, decoder_layer or a stack, encoder or decoder (each layer calibrated on the float
layers' outputs before it, so the int8 layers chain), calibrated (TFLite's post-training
quantization) on the representative inputs of --calibration (one array, B x n x the input width;
for decoder_layer the arrays 'x', B x n x d_model, and 'memory', B x s x d_model, item b of each a
pair); for linear and the layers the float module stays in the header as NAME_float. --calibrate
offline (the default) calibrates here, in numpy float64 with cxmat::q8::calibrate's arithmetic
(scripts/cxmat_q8.py), and writes the int8 module as constants, so a layer of any size compiles
under the compilers' default constexpr limits; --calibrate compiler writes the call of
cxmat::q8::calibrate instead, which the compiler evaluates (its cost grows with the layer and the
calibration set). Both give the header the same interface (NAME::calibration with the module, its
input and output quantizations and its calibration report).

PyTorch's conventions are converted here, once: an out x in weight becomes the in x out matrix
that multiplies rows from the right (x·W), in_proj_weight is split into W_q, W_k and W_v (rows
0..E-1, E..2E-1, 2E..3E-1), and the heads are PyTorch's (head h is column block h). The header
keeps each state_dict key in a comment next to the matrix made from it.

A file that does not fit gets a one-line error naming the tensor and what is wrong, exit status
1, and no header.
"""
import argparse
import importlib
import json
import math
import os
import pickle
import re
import shutil
import struct
import subprocess
import sys
import zipfile

import numpy as np


class ImportError_(Exception):
    """A problem with the input: printed as one line, no header written."""


# ------------------------------------------------------------------------------------------------
# Reading: every reader returns {key: (numpy array, dtype name)} with dtype names
# float16, bfloat16, float32, float64, int8, int16, int32, int64, uint8, bool.
# ------------------------------------------------------------------------------------------------

SAFETENSORS_DTYPES = {
    "F64": ("float64", "<f8"),
    "F32": ("float32", "<f4"),
    "F16": ("float16", "<f2"),
    "BF16": ("bfloat16", "<u2"),
    "I64": ("int64", "<i8"),
    "I32": ("int32", "<i4"),
    "I16": ("int16", "<i2"),
    "I8": ("int8", "i1"),
    "U8": ("uint8", "u1"),
    "BOOL": ("bool", "?"),
}


def bfloat16_to_float32(raw_u16):
    """bfloat16 is the upper half of a float32: widening is exact."""
    return (raw_u16.astype(np.uint32) << 16).view(np.float32)


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 8:
        raise ImportError_(f"{path}: truncated safetensors file ({len(data)} bytes, no header length)")
    (header_len,) = struct.unpack("<Q", data[:8])
    if 8 + header_len > len(data):
        raise ImportError_(
            f"{path}: truncated or corrupt safetensors file (header of {header_len} bytes, file of {len(data)})")
    try:
        header = json.loads(data[8:8 + header_len].decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ImportError_(f"{path}: corrupt safetensors header ({e})") from None
    if not isinstance(header, dict):
        raise ImportError_(f"{path}: corrupt safetensors header (not a JSON object)")
    body = data[8 + header_len:]
    tensors = {}
    for key, info in header.items():
        if key == "__metadata__":
            continue
        try:
            dtype_tag, shape, (begin, end) = info["dtype"], info["shape"], info["data_offsets"]
        except (TypeError, KeyError, ValueError):
            raise ImportError_(f"tensor '{key}': corrupt safetensors entry {info!r}") from None
        if dtype_tag not in SAFETENSORS_DTYPES:
            raise ImportError_(f"tensor '{key}': unsupported dtype {dtype_tag}")
        name, np_dtype = SAFETENSORS_DTYPES[dtype_tag]
        count = math.prod(shape)
        itemsize = np.dtype(np_dtype).itemsize
        if not (0 <= begin <= end <= len(body)) or end - begin != count * itemsize:
            raise ImportError_(f"tensor '{key}': truncated or corrupt data (bytes {begin}..{end} for shape "
                               f"{list(shape)} of {dtype_tag}, {len(body)} data bytes in the file)")
        array = np.frombuffer(body[begin:end], dtype=np_dtype).reshape(shape)
        tensors[key] = (array, name)
    return tensors


def read_npz(path):
    try:
        archive = np.load(path, allow_pickle=False)
    except (zipfile.BadZipFile, ValueError, OSError, EOFError) as e:
        raise ImportError_(f"{path}: truncated or corrupt .npz file ({e})") from None
    if not isinstance(archive, np.lib.npyio.NpzFile):
        raise ImportError_(f"{path}: not an .npz archive (a single array)")
    tensors = {}
    with archive:
        for key in archive.files:
            try:
                array = archive[key]
            except ValueError as e:  # object arrays need pickle, which is refused
                raise ImportError_(f"tensor '{key}': refused ({e})") from None
            except (zipfile.BadZipFile, OSError, EOFError, KeyError) as e:
                raise ImportError_(f"tensor '{key}': truncated or corrupt data ({e})") from None
            kind = array.dtype
            if kind == np.float16 or kind == np.float32 or kind == np.float64 or kind == np.bool_:
                name = str(kind)
            elif kind.kind in "iu" and kind.itemsize <= 8:
                name = str(kind)
            else:
                raise ImportError_(f"tensor '{key}': unsupported dtype {kind}")
            tensors[key] = (array, name)
    return tensors


# PyTorch's storage types as pickled by torch.save: the element type of each.
TORCH_STORAGES = {
    "DoubleStorage": ("float64", "<f8"),
    "FloatStorage": ("float32", "<f4"),
    "HalfStorage": ("float16", "<f2"),
    "BFloat16Storage": ("bfloat16", "<u2"),
    "LongStorage": ("int64", "<i8"),
    "IntStorage": ("int32", "<i4"),
    "ShortStorage": ("int16", "<i2"),
    "CharStorage": ("int8", "i1"),
    "ByteStorage": ("uint8", "u1"),
    "BoolStorage": ("bool", "?"),
}


class _StorageType:
    """A marker for torch.<X>Storage: data only, not callable."""

    def __init__(self, name):
        self.name = name


class _Tensor:
    """A tensor as the pickle describes it, rebuilt after the whole pickle is read."""

    __slots__ = ("storage", "offset", "size", "stride")

    def __init__(self, storage, offset, size, stride):
        self.storage, self.offset, self.size, self.stride = storage, offset, size, stride


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad=False, backward_hooks=None,
                       metadata=None):
    if not isinstance(storage, tuple) or len(storage) != 2:
        raise ImportError_("refused: _rebuild_tensor_v2 was given something other than a storage")
    return _Tensor(storage, storage_offset, tuple(size), tuple(stride))


def _rebuild_parameter(data, requires_grad=False, backward_hooks=None):
    if not isinstance(data, _Tensor):
        raise ImportError_("refused: _rebuild_parameter was given something other than a tensor")
    return data


class _StateDictUnpickler(pickle.Unpickler):
    """Accepts only what a state_dict of tensors needs; refuses every other global by name."""

    ALLOWED = {
        ("collections", "OrderedDict"): lambda: __import__("collections").OrderedDict,
        ("torch._utils", "_rebuild_tensor_v2"): lambda: _rebuild_tensor_v2,
        ("torch._utils", "_rebuild_parameter"): lambda: _rebuild_parameter,
    }

    def __init__(self, file, archive, prefix):
        super().__init__(file)
        self.archive, self.prefix = archive, prefix

    def find_class(self, module, name):
        if (module, name) in self.ALLOWED:
            return self.ALLOWED[(module, name)]()
        if module == "torch" and name in TORCH_STORAGES:
            return _StorageType(name)
        raise ImportError_(f"refused: the pickle asks for {module}.{name}, which is not a tensor or a plain "
                           "container (save model.state_dict(), not the model or code)")

    def persistent_load(self, pid):
        if (not isinstance(pid, tuple) or len(pid) < 5 or pid[0] != "storage" or
                not isinstance(pid[1], _StorageType)):
            raise ImportError_(f"refused: unknown persistent id {pid!r:.80} in the pickle")
        storage_type, key = pid[1], pid[2]
        name, np_dtype = TORCH_STORAGES[storage_type.name]
        try:
            raw = self.archive.read(f"{self.prefix}data/{key}")
        except KeyError:
            raise ImportError_(f"truncated or corrupt .pt file: storage {key} is missing") from None
        except (zipfile.BadZipFile, EOFError, OSError, zlib_error()) as e:
            raise ImportError_(f"truncated or corrupt .pt file: storage {key} ({e})") from None
        # A short storage is reported by the tensor that reads past its end (materialize).
        itemsize = np.dtype(np_dtype).itemsize
        return (np.frombuffer(raw[: len(raw) - len(raw) % itemsize], dtype=np_dtype), name)


def zlib_error():
    import zlib
    return zlib.error


def read_pt(path):
    if not zipfile.is_zipfile(path):
        with open(path, "rb") as f:
            head = f.read(2)
        if head[:1] == b"\x80":
            raise ImportError_(f"{path}: a legacy (pre-1.6, not zip) torch.save file; re-save it with a recent "
                               "PyTorch or as .safetensors")
        raise ImportError_(f"{path}: truncated or corrupt .pt file (not a zip archive)")
    try:
        archive = zipfile.ZipFile(path)
        names = archive.namelist()
    except (zipfile.BadZipFile, OSError, EOFError) as e:
        raise ImportError_(f"{path}: truncated or corrupt .pt file ({e})") from None
    pickles = [n for n in names if n.endswith("/data.pkl") or n == "data.pkl"]
    if len(pickles) != 1:
        raise ImportError_(f"{path}: truncated or corrupt .pt file (no data.pkl in the archive)")
    prefix = pickles[0][: -len("data.pkl")]
    byteorder = f"{prefix}byteorder"
    if byteorder in names and archive.read(byteorder).strip() not in (b"little", b""):
        raise ImportError_(f"{path}: big-endian tensors are not supported")
    try:
        import io
        obj = _StateDictUnpickler(io.BytesIO(archive.read(pickles[0])), archive, prefix).load()
    except ImportError_:
        raise
    except (pickle.UnpicklingError, EOFError, TypeError, ValueError, AttributeError, IndexError, KeyError,
            zipfile.BadZipFile, OSError, RecursionError, MemoryError, zlib_error()) as e:
        raise ImportError_(f"{path}: truncated or corrupt .pt file ({type(e).__name__}: {e})") from None
    if not isinstance(obj, dict):
        raise ImportError_(f"{path}: refused: the pickle holds a {type(obj).__name__}, not a state_dict")
    tensors = {}

    def add(prefix_key, mapping):
        for key, value in mapping.items():
            if not isinstance(key, str):
                raise ImportError_(f"{path}: refused: a state_dict key {key!r} is not a string")
            full = prefix_key + key
            if isinstance(value, dict):
                add(full + ".", value)
            elif isinstance(value, _Tensor):
                tensors[full] = materialize(full, value)
            else:
                raise ImportError_(f"tensor '{full}': refused: holds a {type(value).__name__}, not a tensor")

    add("", obj)
    return tensors


MAX_ELEMENTS = 1 << 26  # a header of more numbers than this would not compile anyway


def materialize(key, t):
    (flat, name) = t.storage
    if any(s < 0 for s in t.size) or any(s < 0 for s in t.stride) or t.offset < 0:
        raise ImportError_(f"tensor '{key}': corrupt size {t.size} or stride {t.stride}")
    if math.prod(t.size) > MAX_ELEMENTS:
        raise ImportError_(f"tensor '{key}': {math.prod(t.size)} elements, more than a header can hold "
                           f"({MAX_ELEMENTS})")
    if math.prod(t.size) == 0:
        return (np.zeros(t.size, dtype=flat.dtype), name)
    last = t.offset + sum((s - 1) * st for s, st in zip(t.size, t.stride))
    if last >= flat.size:
        raise ImportError_(f"tensor '{key}': truncated or corrupt data (needs element {last}, the storage has "
                           f"{flat.size})")
    view = np.lib.stride_tricks.as_strided(flat[t.offset:], shape=t.size,
                                           strides=[s * flat.itemsize for s in t.stride], writeable=False)
    return (np.array(view), name)


def read_file(path):
    if not os.path.exists(path):
        raise ImportError_(f"{path}: no such file")
    lower = path.lower()
    if lower.endswith(".safetensors"):
        return read_safetensors(path)
    if lower.endswith(".npz"):
        return read_npz(path)
    if lower.endswith((".pt", ".pth", ".bin", ".ckpt")):
        return read_pt(path)
    raise ImportError_(f"{path}: unknown file type (expected .pt, .pth, .bin, .safetensors or .npz)")


# ------------------------------------------------------------------------------------------------
# Checking and converting values.
# ------------------------------------------------------------------------------------------------

FLOAT_DTYPES = ("float16", "bfloat16", "float32", "float64")


def as_float64(key, array, dtype):
    """The tensor's values as float64 (exact for float16, bfloat16 and float32); integers refused."""
    if dtype not in FLOAT_DTYPES:
        raise ImportError_(f"tensor '{key}': {dtype} values, but a float module needs float16, bfloat16, "
                           "float32 or float64")
    if dtype == "bfloat16":
        values = bfloat16_to_float32(np.asarray(array)).astype(np.float64)
    else:
        values = np.asarray(array).astype(np.float64)
    bad = ~np.isfinite(values)
    if bad.any():
        where = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ImportError_(f"tensor '{key}': {int(bad.sum())} non-finite value(s), the first {values[where]} "
                           f"at index {list(where)}")
    check_fits(key, values, TARGET["ctype"])  # here, where the index is the file's
    return values


# The element type the values will be written in (--type; q8 modules keep double weights).
TARGET = {"ctype": "float"}


def check_fits(key, values, ctype):
    """A float64 value beyond float's range is refused with its tensor and index (not rounded to inf)."""
    if ctype != "float":
        return
    values = np.asarray(values, dtype=np.float64)
    with np.errstate(over="ignore"):
        bad = ~np.isfinite(values.astype(np.float32))
    if bad.any():
        where = [int(i) for i in np.argwhere(bad)[0]]
        raise ImportError_(f"tensor '{key}': {values[tuple(where)]!r} at index {where} does not fit in a float "
                           "(give --type double)")


def c_literal(value, ctype):
    """A C++ literal that reads back as exactly this value in ctype."""
    if ctype == "double":
        text = repr(float(value))
        return text if ("e" in text or "." in text) else text + ".0"
    if ctype == "float":
        f = np.float32(value)
        if not np.isfinite(f):
            raise ImportError_(f"value {value!r} does not fit in a float")
        text = np.format_float_scientific(f, unique=True, trim="0")
        mantissa, _, exponent = text.partition("e")
        exponent = int(exponent)
        return (f"{mantissa}e{exponent}f" if exponent else f"{mantissa}f").replace(".e", ".0e").replace(".f", ".0f")
    # integers
    return str(int(value))


def cpp_ident(key):
    ident = re.sub(r"[^0-9A-Za-z_]", "_", key)
    if not ident or ident[0].isdigit():
        ident = "t_" + ident
    return ident


def matrix_text(values, ctype):
    rows = [", ".join(c_literal(v, ctype) for v in row) for row in values]
    return "{{" + ", ".join("{" + r + "}" for r in rows) + "}}"


# ------------------------------------------------------------------------------------------------
# Modules: expected keys and shapes, and the generated code.
# ------------------------------------------------------------------------------------------------


class Header:
    def __init__(self, args, source):
        self.args, self.source = args, source
        self.ctype = args.type
        self.includes = {"cxmat/core/extent.hpp", "cxmat/core/matrix.hpp"}
        self.dims = []  # (name, size)
        self.values = []  # lines in the weights namespace
        self.after = []  # lines after the namespace (the module object)

    def ref(self, name):
        """The qualified name of the dimension `name` (after --dim renames)."""
        return f"{self.args.dims}::{self.args.rename.get(name, name)}"

    def dim(self, name, size):
        name = self.args.rename.get(name, name)
        if (name, size) not in self.dims:
            self.dims.append((name, size))
        return f"{self.args.dims}::{name}"

    def matrix(self, ident, rows, cols, values, comment, ctype=None):
        ctype = ctype or self.ctype
        key = re.search(r"\['([^']*)'\]", comment)
        check_fits(key.group(1) if key else ident, values, ctype)
        self.values.append(f"// {comment}")
        self.values.append(f"inline constexpr cxmat::matrix<{ctype}, {rows}, {cols}> {ident}{matrix_text(values, ctype)};")

    def text(self):
        a = self.args
        lines = [
            f"// Generated by scripts/cxmat_import.py from {os.path.basename(self.source)}:",
            f"//   {' '.join(a.command_line)}",
            "// Do not edit: regenerate from the weights file.",
            "#pragma once",
            "",
        ]
        lines += [f"#include <{inc}>" for inc in sorted(self.includes)]
        lines.append("")
        for name, size in self.dims:
            guard = f"CXMAT_IMPORT_DIM_{a.dims.replace('::', '_')}_{name}"
            lines += [
                f"#ifndef {guard}",
                f"#define {guard}",
                f"namespace {a.dims} {{",
                f"CXMAT_DIM({name}, {size});",
                f"}}  // namespace {a.dims}",
                "#endif",
                f"static_assert({a.dims}::{name}.size == {size}, \"{a.name}: dimension {a.dims}::{name} is {size} in "
                f"{os.path.basename(self.source)}, but another header declared it with another size\");",
                "",
            ]
        if self.values:
            lines.append(f"namespace {a.name}_weights {{")
            lines.append("")
            lines += self.values
            lines.append("")
            lines.append(f"}}  // namespace {a.name}_weights")
        if self.after:
            if self.values:
                lines.append("")
            lines += self.after
        return "\n".join(lines) + "\n"


def select(tensors, prefix):
    if not prefix:
        return dict(tensors)
    picked = {k[len(prefix):]: v for k, v in tensors.items() if k.startswith(prefix)}
    if not picked:
        raise ImportError_(f"no tensor's key starts with the prefix '{prefix}'")
    return picked


def check_keys(tensors, required, optional, module_text, prefix):
    for key in required:
        if key not in tensors:
            raise ImportError_(f"tensor '{prefix}{key}': missing key ({module_text} has "
                               f"{', '.join(prefix + k for k in required)})")
    for key in sorted(tensors):
        if key not in required and key not in optional:
            raise ImportError_(f"tensor '{prefix}{key}': unexpected key for {module_text} (expected "
                               f"{', '.join(prefix + k for k in required + optional)})")


def check_shape(key, array, expected, why, prefix):
    found = tuple(array.shape)
    if found != tuple(expected):
        raise ImportError_(f"tensor '{prefix}{key}': shape {list(found)} does not fit {why}: expected "
                           f"{list(expected)}")


def module_tensors(h, tensors, args):
    for key in sorted(tensors):
        array, dtype = tensors[key]
        ident = cpp_ident(args.prefix + key)  # the whole key: --prefix pos selects the tensor 'pos'
        comment = f"state_dict['{args.prefix}{key}'], {dtype} {list(array.shape)}"
        if dtype in FLOAT_DTYPES:
            values, ctype = as_float64(args.prefix + key, array, dtype), h.ctype
            check_fits(args.prefix + key, values, ctype)
        elif dtype == "bool":
            values, ctype = np.asarray(array), "bool"
        else:
            values, ctype = np.asarray(array), f"std::{dtype}_t"
            h.includes.add("cstdint")
        if ctype == "bool":
            literal = lambda v: "true" if v else "false"  # noqa: E731
        else:
            literal = None
        if values.ndim == 0:
            values = values.reshape(1, 1)
        if values.ndim == 1:
            values = values.reshape(1, -1)
        if values.ndim == 2:
            if literal:
                body = "{{" + ", ".join("{" + ", ".join(literal(v) for v in row) + "}" for row in values) + "}}"
                h.values += [f"// {comment}",
                             f"inline constexpr cxmat::matrix<bool, {values.shape[0]}, {values.shape[1]}> {ident}{body};"]
            else:
                h.matrix(ident, values.shape[0], values.shape[1], values, comment, ctype)
        elif values.ndim == 3:
            h.includes.add("cxmat/core/batch.hpp")
            items = ", ".join(matrix_text(m, ctype) for m in values)
            b, r, c = values.shape
            h.values += [f"// {comment}",
                         f"inline constexpr cxmat::batch<{ctype}, {b}, {r}, {c}> {ident}{{{{{items}}}}};"]
        else:
            raise ImportError_(f"tensor '{args.prefix}{key}': {values.ndim} dimensions; cxmat holds matrices (2) and "
                               "batches of matrices (3)")
    idents = [cpp_ident(args.prefix + k) for k in tensors]
    if len(set(idents)) != len(idents):
        dup = next(i for i in idents if idents.count(i) > 1)
        raise ImportError_(f"two keys become the same C++ name '{dup}'")


def attention_weights(h, tensors, args, key, ident, heads, bias_required):
    """The matrices of one nn.MultiheadAttention (keys `key`in_proj_weight, ...), written as
    `ident`w_q, ...; returns (E, has_bias, idents in attention_module's order)."""
    p = args.prefix + key
    text = f"nn.MultiheadAttention ('{p}in_proj_weight', ...)" if key else "nn.MultiheadAttention"
    if heads is None:
        raise ImportError_(f"--heads H is needed for --module {args.module} (a state_dict does not record it)")
    if key + "q_proj_weight" in tensors and key == "":
        # kdim or vdim other than embed_dim: separate projections (cross-attention only).
        for k in ("q_proj_weight", "k_proj_weight", "v_proj_weight"):
            if k not in tensors:
                raise ImportError_(f"tensor '{p}{k}': missing key ({text} with kdim, vdim)")
        w_q = as_float64(p + "q_proj_weight", *tensors["q_proj_weight"])
        if w_q.ndim != 2 or w_q.shape[0] != w_q.shape[1]:
            raise ImportError_(f"tensor '{p}q_proj_weight': shape {list(w_q.shape)} does not fit {text}: expected "
                               "[embed_dim, embed_dim]")
        e = w_q.shape[0]
        w_k = as_float64(p + "k_proj_weight", *tensors["k_proj_weight"])
        w_v = as_float64(p + "v_proj_weight", *tensors["v_proj_weight"])
        if w_k.ndim != 2 or w_k.shape[0] != e:
            raise ImportError_(f"tensor '{p}k_proj_weight': shape {list(w_k.shape)} does not fit {text} with embed_dim "
                               f"{e}: expected [{e}, kdim]")
        if w_v.shape != w_k.shape:
            raise ImportError_(f"tensor '{p}v_proj_weight': shape {list(w_v.shape)}: cxmat's cross-attention takes "
                               f"keys and values from one input, so vdim must equal kdim: expected {list(w_k.shape)}")
        projections = [("w_q", w_q.T, "q_proj_weight"), ("w_k", w_k.T, "k_proj_weight"),
                       ("w_v", w_v.T, "v_proj_weight")]
        packed = False
    elif key + "q_proj_weight" in tensors:
        raise ImportError_(f"tensor '{p}q_proj_weight': separate q/k/v projections (kdim, vdim) in a layer")
    else:
        if key + "in_proj_weight" not in tensors:
            raise ImportError_(f"tensor '{p}in_proj_weight': missing key ({text})")
        w_in = as_float64(p + "in_proj_weight", *tensors[key + "in_proj_weight"])
        if w_in.ndim != 2 or w_in.shape[0] != 3 * w_in.shape[1]:
            raise ImportError_(f"tensor '{p}in_proj_weight': shape {list(w_in.shape)} does not fit {text}: expected "
                               "[3*embed_dim, embed_dim]")
        e = w_in.shape[1]
        projections = [(name, w_in[i * e:(i + 1) * e].T,
                        f"in_proj_weight'][{i * e}:{(i + 1) * e}]ᵀ (rows {i * e} to {(i + 1) * e - 1}, transposed)")
                       for i, name in enumerate(["w_q", "w_k", "w_v"])]
        packed = True
    first = "in_proj_weight" if packed else "q_proj_weight"
    if heads < 1 or e % heads:
        raise ImportError_(f"tensor '{p}{first}': {heads} heads do not divide embed_dim {e}")
    has_bias = bias_required or (key + "in_proj_bias") in tensors or (key + "out_proj.bias") in tensors
    for k in ["out_proj.weight"] + (["in_proj_bias", "out_proj.bias"] if has_bias else []):
        if key + k not in tensors:
            raise ImportError_(f"tensor '{p}{k}': missing key ({text} with embed_dim {e})")
    check_shape(key + "out_proj.weight", tensors[key + "out_proj.weight"][0], (e, e), f"{text} with embed_dim {e}",
                args.prefix)
    w_out = as_float64(p + "out_proj.weight", *tensors[key + "out_proj.weight"])
    d = h.dim("d_model", e)
    names = {}
    for name, value, source in projections:
        names[name] = ident + name
        rows = d if value.shape[0] == e and (packed or name == "w_q") else h.dim("d_kv", value.shape[0])
        comment = f"state_dict['{p}{source}" if packed else f"state_dict['{p}{source}']ᵀ"
        h.matrix(ident + name, rows, d, value, comment)
    names["w_o"] = ident + "w_o"
    h.matrix(ident + "w_o", d, d, w_out.T, f"state_dict['{p}out_proj.weight']ᵀ")
    if has_bias:
        check_shape(key + "in_proj_bias", tensors[key + "in_proj_bias"][0], (3 * e,), f"{text} with embed_dim {e}",
                    args.prefix)
        check_shape(key + "out_proj.bias", tensors[key + "out_proj.bias"][0], (e,), f"{text} with embed_dim {e}",
                    args.prefix)
        b_in = as_float64(p + "in_proj_bias", *tensors[key + "in_proj_bias"])
        for i, name in enumerate(["b_q", "b_k", "b_v"]):
            names[name] = ident + name
            h.matrix(ident + name, 1, d, b_in[i * e:(i + 1) * e].reshape(1, e),
                     f"state_dict['{p}in_proj_bias'][{i * e}:{(i + 1) * e}]")
        names["b_o"] = ident + "b_o"
        h.matrix(ident + "b_o", 1, d, as_float64(p + "out_proj.bias", *tensors[key + "out_proj.bias"]).reshape(1, e),
                 f"state_dict['{p}out_proj.bias']")
    w = f"{args.name}_weights::"
    order = ["w_q", "w_k", "w_v", "b_q", "b_k", "b_v", "w_o", "b_o"] if has_bias else ["w_q", "w_k", "w_v", "w_o"]
    return e, has_bias, [w + names[n] for n in order], packed


def attention_keys(key, has_bias=True, packed=True):
    weights = ["in_proj_weight"] if packed else ["q_proj_weight", "k_proj_weight", "v_proj_weight"]
    return [key + k for k in weights + ["out_proj.weight"] + (["in_proj_bias", "out_proj.bias"] if has_bias else [])]


def module_multihead_attention(h, tensors, args):
    if args.type == "q8":
        return module_multihead_attention_q8(h, tensors, args)
    e, has_bias, idents, packed = attention_weights(h, tensors, args, "", "", args.heads, False)
    check_keys(tensors, attention_keys("", has_bias, packed), [],
               "nn.MultiheadAttention" + ("" if has_bias else "(bias=False)"), args.prefix)
    H = args.heads
    h.includes |= {"cxmat/attention/multi_head.hpp", "cxmat/attention/grouped.hpp", "cxmat/attention/options.hpp",
                   "cstddef"}
    if has_bias:
        wq, wk, wv, bq, bk, bv, wo, bo = idents
        ws = (f"{wq}, {wk}, {wv}, {wo}, cxmat::query_bias({bq}), cxmat::key_bias({bk}), cxmat::value_bias({bv}), "
              f"cxmat::output_bias({bo})")
    else:
        ws = ", ".join(idents)
    h.after += [
        f"/// nn.MultiheadAttention({e}, {H}{'' if has_bias else ', bias=False'}) from {os.path.basename(h.source)}, "
        "called as PyTorch's module:",
        f"///   {args.name}(x, options...)        module(x, x, x)[0], self-attention, x is L x d_model",
        f"///   {args.name}(x_q, x_kv, options...) module(x_q, x_kv, x_kv)[0], cross-attention",
        f"///   {args.name}.with_weights(x, ...)  also each head's weights (H x L x S), as average_attn_weights=False",
        "/// Options are cxmat's attention options: cxmat::causal, cxmat::key_padding(keep) (true = a real token:",
        "/// the inverse of PyTorch's key_padding_mask), cxmat::mask(allowed) (true = may attend), ...",
        f"struct {args.name}_module {{",
        f"  static constexpr std::size_t heads = {H};",
        "  template <cxmat::Matrix X, cxmat::AttentionOption... O>",
        "  constexpr auto operator()(const X& x, const O&... options) const noexcept {",
        f"    return cxmat::multi_head_attention<{H}>(x, {ws}, options...);",
        "  }",
        "  template <cxmat::Matrix Xq, cxmat::Matrix Xkv, cxmat::AttentionOption... O>",
        "  constexpr auto operator()(const Xq& x_q, const Xkv& x_kv, const O&... options) const noexcept {",
        f"    return cxmat::cross_attention<{H}>(x_q, x_kv, {ws}, options...);",
        "  }",
        "  template <cxmat::Matrix X, cxmat::AttentionOption... O>",
        "  constexpr auto with_weights(const X& x, const O&... options) const noexcept {",
        f"    return cxmat::multi_head_attention_with_weights<{H}>(x, {ws}, options...);",
        "  }",
        "};",
        f"inline constexpr {args.name}_module {args.name}{{}};",
    ]


def module_multihead_attention_q8(h, tensors, args):
    """The int8 layer of cxmat::q8, calibrated by the compiler (q8::calibrate) from the float weights,
    their biases and the representative inputs of --calibration."""
    start_q8(h, args, "d_model")
    e, has_bias, idents, packed = attention_weights(h, tensors, args, "", "", args.heads, False)
    if not packed:
        raise ImportError_(f"tensor '{args.prefix}q_proj_weight': --type q8 needs self-attention (kdim = vdim = "
                           "embed_dim, one in_proj_weight)")
    check_keys(tensors, attention_keys("", has_bias), [], "nn.MultiheadAttention", args.prefix)
    xs = calibration_inputs(h, args, e, "d_model")
    h.includes |= {"cxmat/quantized/attention.hpp"}
    wq, wk, wv, wo = (idents[0], idents[1], idents[2], idents[-2 if has_bias else -1])
    biases = ""
    if has_bias:  # in_proj_bias and out_proj.bias as the float API's bias options
        h.includes.add("cxmat/attention/options.hpp")
        biases = (f", cxmat::query_bias({idents[3]}), cxmat::key_bias({idents[4]}), cxmat::value_bias({idents[5]}), "
                  f"cxmat::output_bias({idents[7]})")
    w = f"{args.name}_weights::"
    constants = None
    if offline(args):
        q8 = q8_offline()
        c = calibrated(args, "", q8.calibrate_attention, xs, None, float_attention(tensors, args, "", has_bias),
                       args.heads, False, attention_module=True)
        d = e // args.heads
        constants = (f"cxmat::q8::calibration<cxmat::q8::attention_layer<{e}, {args.heads}, {d}, {d}, {e}, false>>",
                     q8.attention_calibration_text(c))
    q8_module(h, args, f"nn.MultiheadAttention({e}, {args.heads}) from {os.path.basename(h.source)}",
              f"cxmat::q8::calibrate<{args.heads}>({w}calibration_inputs, {wq}, {wk}, {wv}, {wo}{biases})",
              "cxmat::q8::multi_head_attention(x8, calibration.layer, masks...)", offline=constants)


def start_q8(h, args, dim_name):
    """--type q8 needs calibration inputs, and writes the float weights in double for calibration."""
    if not args.calibration:
        if args.module in ("decoder_layer", "decoder"):
            raise ImportError_("--type q8 needs --calibration INPUTS.npz: for a decoder layer the arrays "
                               + ", ".join(f"'{k}' ({v})" for k, v in DECODER_CALIBRATION.items()))
        raise ImportError_(f"--type q8 needs --calibration INPUTS.npz: representative inputs, an array B x n x "
                           f"{dim_name}")
    h.ctype = "double"


DECODER_CALIBRATION = {"x": "B x n x d_model", "memory": "B x s x d_model"}


def calibration_pairs(h, args, width):
    """The representative inputs and memories of --calibration for a decoder layer: the arrays 'x'
    (B x n x width) and 'memory' (B x s x width, the same B), as NAME_weights::calibration_inputs
    and NAME_weights::calibration_memories, in double."""
    arrays = read_npz(args.calibration)
    name = os.path.basename(args.calibration)
    wanted = ", ".join(f"'{k}' ({v})" for k, v in DECODER_CALIBRATION.items())
    for key in DECODER_CALIBRATION:
        if key not in arrays:
            raise ImportError_(f"{args.calibration}: no array '{key}'; --type q8 of a decoder layer calibrates on "
                               f"{wanted}")
    for key in sorted(arrays):
        if key not in DECODER_CALIBRATION:
            raise ImportError_(f"tensor '{key}' of {name}: unexpected array; --type q8 of a decoder layer takes "
                               f"{wanted}")
    xs = as_float64("x", *arrays["x"])
    ms = as_float64("memory", *arrays["memory"])
    for key, a in (("x", xs), ("memory", ms)):
        if a.ndim != 3 or a.shape[2] != width:
            raise ImportError_(f"tensor '{key}' of {name}: shape {list(a.shape)} does not fit the calibration of a "
                               f"decoder layer of width {width}: expected [B, {'n' if key == 'x' else 's'}, {width}]")
    if ms.shape[0] != xs.shape[0]:
        raise ImportError_(f"tensor 'memory' of {name}: {ms.shape[0]} memories for {xs.shape[0]} inputs 'x' (one "
                           "memory per input)")
    h.includes |= {"cxmat/core/batch.hpp", "cxmat/quantized/calibrate.hpp", "cxmat/quantized/quantize.hpp"}
    for key, ident, what, rows, a in (("x", "calibration_inputs", "inputs", "tokens", xs),
                                      ("memory", "calibration_memories", "memories", "rows", ms)):
        b, n, _ = a.shape
        items = ", ".join(matrix_text(m, "double") for m in a)
        h.values += [f"// {b} representative {what} of {n} {rows} from {name} ('{key}'), for calibration",
                     f"inline constexpr cxmat::batch<double, {b}, {n}, {h.ref('d_model')}> {ident}{{{{{items}}}}};"]
    return xs, ms


def calibration_inputs(h, args, width, dim_name):
    """The representative inputs of --calibration (one array, B x n x width) as the batch
    NAME_weights::calibration_inputs, in double."""
    inputs = read_npz(args.calibration)
    if len(inputs) != 1:
        raise ImportError_(f"{args.calibration}: {len(inputs)} arrays; --calibration takes one, B x n x {dim_name}")
    (key, (array, dtype)), = inputs.items()
    xs = as_float64(key, array, dtype)
    if xs.ndim != 3 or xs.shape[2] != width:
        raise ImportError_(f"tensor '{key}' of {os.path.basename(args.calibration)}: shape {list(xs.shape)} does not "
                           f"fit the calibration of a layer of width {width}: expected [B, n, {width}]")
    b, n, _ = xs.shape
    h.includes |= {"cxmat/core/batch.hpp", "cxmat/quantized/calibrate.hpp", "cxmat/quantized/quantize.hpp"}
    items = ", ".join(matrix_text(m, "double") for m in xs)
    h.values += [f"// {b} representative inputs of {n} tokens from {os.path.basename(args.calibration)} ('{key}'), "
                 "for calibration",
                 f"inline constexpr cxmat::batch<double, {b}, {n}, {h.ref(dim_name)}> calibration_inputs{{{{{items}}}}};"]
    return xs


def q8_module(h, args, what, calibrate, run, masks=True, memory=False, offline=None):
    """The struct NAME_module of an int8 module: `calibration` (the expression calibrate, which the
    compiler evaluates, or with offline = (type, initializer) the constant the importer calibrated),
    int8(x8[, memory8][, masks...]) = run, and (x[, memory][, masks...]) in float around it (the
    memory quantized with calibration.memory)."""
    pack, params, args_ = ("class... O", ", const O&... masks", ", masks...") if masks else ("", "", "")
    m8_type, m8_param, m8_arg = (", class M8", ", const M8& memory8", ", memory8") if memory else ("", "", "")
    m_type, m_param = (", class M", ", const M& memory") if memory else ("", "")
    m_quantized = ", cxmat::q8::quantize(memory, calibration.memory)" if memory else ""
    holds = "the layer and the quantization of its input, memory and output" if memory else \
        "the layer and the quantization of its input and output"
    h.after += [
        f"/// {what} as cxmat::q8's int8 layer, calibrated {calibrated_by(offline is not None)} on",
        f"/// {os.path.basename(args.calibration)} (TFLite's post-training quantization). `calibration` holds "
        f"{holds};",
        f"/// int8(x8{m8_arg}{args_}) is the int8 layer, (x{', memory' if memory else ''}{args_}) quantizes, runs it "
        "and dequantizes.",
        f"struct {args.name}_module {{",
        *([f"  static constexpr auto calibration = {calibrate};"] if offline is None else
          as_laid_out(f"  static constexpr {offline[0]} calibration{offline[1]};")),
        f"  template <class X8{m8_type}{', ' + pack if masks else ''}>",
        f"  constexpr auto int8(const X8& x8{m8_param}{params}) const noexcept {{",
        f"    return {run};",
        "  }",
        f"  template <class X{m_type}{', ' + pack if masks else ''}>",
        f"  constexpr auto operator()(const X& x{m_param}{params}) const noexcept {{",
        f"    return cxmat::q8::dequantize(int8(cxmat::q8::quantize(x, calibration.input){m_quantized}{args_}), "
        "calibration.output);",
        "  }",
        "};",
        f"inline constexpr {args.name}_module {args.name}{{}};",
    ]


CALIBRATED_BY = {False: "by the compiler", True: "offline by the importer (scripts/cxmat_q8.py)"}


def calibrated_by(is_offline):
    """Who calibrated, for the header's comments (with --clip, how the ranges were chosen)."""
    clipping = q8_offline().CLIPPING if is_offline else None
    return CALIBRATED_BY[is_offline] + ("" if clipping is None else
                                        f", activation ranges clipped (--clip {q8_offline().clipping_text()})")
CALIBRATED_MODULES = ("multihead_attention", "linear", "encoder_layer", "decoder_layer", "encoder", "decoder")


def sibling_module(name):
    """A module of scripts/ beside this one, imported on first use."""
    here = os.path.dirname(os.path.abspath(__file__))
    if here not in sys.path:
        sys.path.insert(0, here)
    return importlib.import_module(name)


def q8_offline():
    """scripts/cxmat_q8.py, the offline calibration of --type q8 (--calibrate offline)."""
    return sibling_module("cxmat_q8")


def as_laid_out(text):
    """An offline calibration's initializer as cxmat_q8 lays it out (a matrix row per line), kept from
    clang-format, which would take seconds to reflow a large layer's."""
    return ["// clang-format off", text, "// clang-format on"]


def offline(args):
    return args.type == "q8" and args.calibrate == "offline"


# The state_dict keys (after a layer's prefix) of the weights the calibration reads, by
# calibration_tensor name: a refused weight is named by its key.
WEIGHT_KEYS = {"linear_weight": "weight", "linear1_weight": "linear1.weight", "linear2_weight": "linear2.weight",
               "wq": "self_attn.in_proj_weight", "wk": "self_attn.in_proj_weight", "wv": "self_attn.in_proj_weight",
               "wo": "self_attn.out_proj.weight", "cross_wq": "multihead_attn.in_proj_weight",
               "cross_wk": "multihead_attn.in_proj_weight", "cross_wv": "multihead_attn.in_proj_weight",
               "cross_wo": "multihead_attn.out_proj.weight"}


def calibrated(args, key, calibrate, *inputs, attention_module=False):
    """calibrate(*inputs) of cxmat_q8, its refusal an error naming the tensor: a weight by its
    state_dict key (under `key`, a stack's layer), a computed tensor by cxmat's name."""
    q8 = q8_offline()
    try:
        with np.errstate(all="ignore"):  # an overflow is refused below, as the library refuses it
            return calibrate(*inputs)
    except q8.Refused as r:
        if r.tensor in WEIGHT_KEYS:
            k = WEIGHT_KEYS[r.tensor].replace("self_attn.", "") if attention_module else WEIGHT_KEYS[r.tensor]
            raise ImportError_(f"tensor '{args.prefix}{key}{k}' (calibration_tensor::{r.tensor}): the calibration "
                               f"refuses it ({r.status}): {r.detail}") from None
        where = f" of layer {key[len('layers.'):-1]}" if key else ""
        raise ImportError_(f"the calibration on {os.path.basename(args.calibration)} refuses the tensor "
                           f"calibration_tensor::{r.tensor}{where} ({r.status}): {r.detail}") from None


def float_attention(tensors, args, key, has_bias):
    """An nn.MultiheadAttention's weights for cxmat_q8: w_q, w_k, w_v, w_o in x out (x·W), biases
    (None without)."""
    p = args.prefix + key
    w_in = as_float64(p + "in_proj_weight", *tensors[key + "in_proj_weight"])
    e = w_in.shape[1]
    att = {name: w_in[i * e:(i + 1) * e].T.copy() for i, name in enumerate(("w_q", "w_k", "w_v"))}
    att["w_o"] = as_float64(p + "out_proj.weight", *tensors[key + "out_proj.weight"]).T.copy()
    b_in = as_float64(p + "in_proj_bias", *tensors[key + "in_proj_bias"]) if has_bias else None
    for i, name in enumerate(("b_q", "b_k", "b_v")):
        att[name] = b_in[i * e:(i + 1) * e] if has_bias else None
    att["b_o"] = as_float64(p + "out_proj.bias", *tensors[key + "out_proj.bias"]) if has_bias else None
    return att


def float_linear(tensors, args, key):
    w = as_float64(args.prefix + key + "weight", *tensors[key + "weight"]).T.copy()
    b = as_float64(args.prefix + key + "bias", *tensors[key + "bias"]) if key + "bias" in tensors else \
        np.zeros(w.shape[1])
    return {"weight": w, "bias": b}


def float_layer(tensors, args, key, decoder):
    """An nn.TransformerEncoderLayer's or DecoderLayer's weights for cxmat_q8."""
    layer = {"self_attn": float_attention(tensors, args, key + "self_attn.", True),
             "linear1": float_linear(tensors, args, key + "linear1."),
             "linear2": float_linear(tensors, args, key + "linear2."),
             "activation": args.activation, "norm_first": args.norm_first}
    if decoder:
        layer["multihead_attn"] = float_attention(tensors, args, key + "multihead_attn.", True)
    for n in ("norm1", "norm2", "norm3") if decoder else ("norm1", "norm2"):
        layer[n] = {"weight": as_float64(f"{args.prefix}{key}{n}.weight", *tensors[f"{key}{n}.weight"]),
                    "bias": as_float64(f"{args.prefix}{key}{n}.bias", *tensors[f"{key}{n}.bias"]), "eps": args.eps}
    return layer


def q8_layer_type(args, e, dff, decoder):
    kind = "decoder" if decoder else "encoder"
    return (f"cxmat::q8::{kind}_layer<{e}, {args.heads}, {dff}, cxmat::activation::{args.activation}, "
            f"{'true' if args.norm_first else 'false'}, true>")


def q8_layer_calibration(args, key, tensors, xs, ms, e, dff, decoder):
    """One layer calibrated offline: (the calibration, its C++ type, its initializer)."""
    q8 = q8_offline()
    layer = float_layer(tensors, args, key, decoder)
    if decoder:
        c = calibrated(args, key, q8.calibrate_decoder, xs, ms, layer, args.heads)
        wrapper = "decoder_calibration"
    else:
        c = calibrated(args, key, q8.calibrate_encoder, xs, layer, args.heads)
        wrapper = "module_calibration"
    return c, f"cxmat::q8::{wrapper}<{q8_layer_type(args, e, dff, decoder)}>", \
        q8.module_calibration_text(c, q8.layer_text(c["module"]))


def linear_weights(h, tensors, args, key, ident, in_name, out_name, bias_required):
    """nn.Linear's weight (out x in) transposed and its bias; returns (in, out, weight ident, bias ident)."""
    p = args.prefix + key
    if key + "weight" not in tensors:
        raise ImportError_(f"tensor '{p}weight': missing key (nn.Linear)")
    has_bias = bias_required or (key + "bias") in tensors
    if has_bias and key + "bias" not in tensors:
        raise ImportError_(f"tensor '{p}bias': missing key (nn.Linear)")
    w = as_float64(p + "weight", *tensors[key + "weight"])
    if w.ndim != 2:
        raise ImportError_(f"tensor '{p}weight': shape {list(w.shape)} does not fit nn.Linear: expected "
                           "[out_features, in_features]")
    out_f, in_f = w.shape
    di, do = h.dim(in_name, in_f), h.dim(out_name, out_f)
    h.matrix(ident + "weight", di, do, w.T, f"state_dict['{p}weight']ᵀ: in x out")
    if has_bias:
        check_shape(key + "bias", tensors[key + "bias"][0], (out_f,), f"nn.Linear with out_features {out_f}",
                    args.prefix)
        h.matrix(ident + "bias", 1, do, as_float64(p + "bias", *tensors[key + "bias"]).reshape(1, -1),
                 f"state_dict['{p}bias']")
    else:
        h.matrix(ident + "bias", 1, do, np.zeros((1, out_f)), f"no state_dict['{p}bias'] (bias=False): zeros")
    return in_f, out_f, f"{args.name}_weights::{ident}weight", f"{args.name}_weights::{ident}bias", has_bias


def norm_weights(h, tensors, args, key, ident, d_expected=None):
    p = args.prefix + key
    for k in ("weight", "bias"):
        if key + k not in tensors:
            raise ImportError_(f"tensor '{p}{k}': missing key (nn.LayerNorm)")
    g = as_float64(p + "weight", *tensors[key + "weight"])
    if g.ndim != 1 or (d_expected is not None and g.shape[0] != d_expected):
        raise ImportError_(f"tensor '{p}weight': shape {list(g.shape)} does not fit nn.LayerNorm over the last "
                           f"dimension: expected [{d_expected if d_expected is not None else 'd'}]")
    check_shape(key + "bias", tensors[key + "bias"][0], g.shape, f"nn.LayerNorm({g.shape[0]})", args.prefix)
    d = h.dim("d_model", g.shape[0])
    h.matrix(ident + "weight", 1, d, g.reshape(1, -1), f"state_dict['{p}weight'] (gamma)")
    h.matrix(ident + "bias", 1, d, as_float64(p + "bias", *tensors[key + "bias"]).reshape(1, -1),
             f"state_dict['{p}bias'] (beta)")
    w = f"{args.name}_weights::{ident}"
    return g.shape[0], f"{{{w}weight, {w}bias, {c_literal(args.eps, h.ctype)}}}"


def module_linear(h, tensors, args):
    q8 = args.type == "q8"
    if q8:
        start_q8(h, args, "in_features")
    in_f, out_f, w, b, has_bias = linear_weights(h, tensors, args, "", "", "in_features", "out_features", False)
    check_keys(tensors, ["weight"] + (["bias"] if has_bias else []), [], "nn.Linear", args.prefix)
    h.includes.add("cxmat/transformer/linear.hpp")
    what = f"nn.Linear({in_f}, {out_f}{'' if has_bias else ', bias=False'}) from {os.path.basename(h.source)}"
    name = f"{args.name}_float" if q8 else args.name
    h.after += [
        f"/// {what}: {name}(x) is x·W + b, x is n x {in_f}.",
        f"inline constexpr cxmat::linear_module<{h.ctype}, {h.ref('in_features')}, {h.ref('out_features')}> "
        f"{name}{{{w}, {b}}};",
    ]
    if q8:
        xs = calibration_inputs(h, args, in_f, "in_features")
        h.includes.add("cxmat/quantized/linear.hpp")
        h.after.append("")
        constants = None
        if offline(args):
            q8m = q8_offline()
            c = calibrated(args, "", q8m.calibrate_linear, xs, float_linear(tensors, args, ""))
            constants = (f"cxmat::q8::module_calibration<cxmat::q8::linear_module<{in_f}, {out_f}, true>>",
                         q8m.module_calibration_text(c, q8m.linear_text(c["module"])))
        q8_module(h, args, what + " (weights per channel)",
                  f"cxmat::q8::calibrate({args.name}_weights::calibration_inputs, {name})", "calibration.module(x8)",
                  masks=False, offline=constants)


def module_layer_norm(h, tensors, args):
    check_keys(tensors, ["weight", "bias"], [], "nn.LayerNorm", args.prefix)
    d, init = norm_weights(h, tensors, args, "", "")
    h.includes.add("cxmat/transformer/norms.hpp")
    h.after += [
        f"/// nn.LayerNorm({d}, eps={args.eps!r}) from {os.path.basename(h.source)}: {args.name}(x) normalises each "
        "row of x (n x d_model).",
        f"inline constexpr cxmat::layer_norm_module<{h.ctype}, {h.ref('d_model')}> {args.name}{init};",
    ]


def module_embedding(h, tensors, args):
    p = args.prefix
    check_keys(tensors, ["weight"], [], "nn.Embedding", p)
    w = as_float64(p + "weight", *tensors["weight"])
    if w.ndim != 2:
        raise ImportError_(f"tensor '{p}weight': shape {list(w.shape)} does not fit nn.Embedding: expected "
                           "[num_embeddings, embedding_dim]")
    v, d = h.dim("vocab", w.shape[0]), h.dim("d_model", w.shape[1])
    h.matrix("weight", v, d, w, f"state_dict['{p}weight']: num_embeddings x embedding_dim")
    h.includes |= {"cxmat/transformer/embedding.hpp"}
    h.after += [
        f"/// nn.Embedding({w.shape[0]}, {w.shape[1]}) from {os.path.basename(h.source)}: {args.name}(tokens) is "
        "the rows of the table for a row of token ids (1 x n, integers): n x d_model.",
        f"struct {args.name}_module {{",
        "  template <class Tokens>",
        "  constexpr auto operator()(const Tokens& tokens) const noexcept {",
        f"    return cxmat::embedding({args.name}_weights::weight, tokens);",
        "  }",
        "};",
        f"inline constexpr {args.name}_module {args.name}{{}};",
    ]


def layer_keys(key, decoder):
    attentions = ["self_attn.", "multihead_attn."] if decoder else ["self_attn."]
    norms = ["norm1.", "norm2.", "norm3."] if decoder else ["norm1.", "norm2."]
    required = [k for a in attentions for k in attention_keys(key + a)]
    required += [key + k for k in ("linear1.weight", "linear1.bias", "linear2.weight", "linear2.bias")]
    required += [key + n + k for n in norms for k in ("weight", "bias")]
    return attentions, norms, required


def layer_values(h, tensors, args, key, decoder):
    """One nn.TransformerEncoderLayer / DecoderLayer under the key prefix `key`: its matrices, and
    (d_model, dim_feedforward, the aggregate initializer of cxmat's layer)."""
    what = "nn.TransformerDecoderLayer" if decoder else "nn.TransformerEncoderLayer"
    attentions, norms, _ = layer_keys(key, decoder)
    ident = key.replace(".", "_")
    groups = []
    e = None
    for a in attentions:
        e_a, _, idents, _ = attention_weights(h, tensors, args, key + a, ident + a.replace(".", "_"), args.heads, True)
        groups.append("{" + ", ".join(idents) + "}")
        e = e_a if e is None else e
        if e_a != e:
            raise ImportError_(f"tensor '{args.prefix}{key}{a}in_proj_weight': embed_dim {e_a} is not the layer's {e}")
    in1, dff, w1, b1, _ = linear_weights(h, tensors, args, key + "linear1.", ident + "linear1_", "d_model", "d_ff",
                                         True)
    if in1 != e:
        raise ImportError_(f"tensor '{args.prefix}{key}linear1.weight': shape [{dff}, {in1}] does not fit {what} "
                           f"with d_model {e}: expected [dim_feedforward, {e}]")
    in2, out2, w2, b2, _ = linear_weights(h, tensors, args, key + "linear2.", ident + "linear2_", "d_ff", "d_model",
                                          True)
    if (in2, out2) != (dff, e):
        raise ImportError_(f"tensor '{args.prefix}{key}linear2.weight': shape [{out2}, {in2}] does not fit {what} "
                           f"with d_model {e} and dim_feedforward {dff}: expected [{e}, {dff}]")
    groups += [f"{{{w1}, {b1}}}", f"{{{w2}, {b2}}}"]
    for n in norms:
        groups.append(norm_weights(h, tensors, args, key + n, ident + n.replace(".", "_"), e)[1])
    return e, dff, "{" + ", ".join(groups) + "}"


def layer_type(h, args, decoder):
    kind = "decoder_layer" if decoder else "encoder_layer"
    return (f"cxmat::{kind}<{h.ctype}, {h.ref('d_model')}, {args.heads}, {h.ref('d_ff')}, "
            f"cxmat::activation::{args.activation}, "
            f"{'true' if args.norm_first else 'false'}>")


# --activation as PyTorch's layers take it (a name or a function).
TORCH_ACTIVATIONS = {"relu": "'relu'", "gelu": "'gelu'", "gelu_tanh": "lambda x: F.gelu(x, approximate='tanh')",
                     "silu": "F.silu"}


def layer_comment(h, args, what, e, dff, call):
    return [
        f"/// {what}(d_model={e}, nhead={args.heads}, dim_feedforward={dff}, dropout=0, "
        f"activation={TORCH_ACTIVATIONS[args.activation]}, "
        f"layer_norm_eps={args.eps!r}, norm_first={args.norm_first}) from {os.path.basename(h.source)}, in evaluation "
        f"mode: {call}.",
        "/// The activation, eps and norm_first are not in a state_dict: they are this command's options.",
    ]


def module_layer(h, tensors, args):
    decoder = args.module == "decoder_layer"
    what = "nn.TransformerDecoderLayer" if decoder else "nn.TransformerEncoderLayer"
    q8 = args.type == "q8"
    if q8:
        start_q8(h, args, "d_model")
    check_keys(tensors, layer_keys("", decoder)[2], [], what, args.prefix)
    e, dff, init = layer_values(h, tensors, args, "", decoder)
    h.includes.add("cxmat/transformer/layers.hpp")
    name = f"{args.name}_float" if q8 else args.name
    call = (f"{name}(x, memory, options...): x is n x d_model, memory S x d_model (cxmat::causal for a causal "
            "tgt_mask; cxmat::on_memory(option) for the memory's options)") if decoder else \
        f"{name}(x, options...): x is n x d_model (cxmat::causal, cxmat::key_padding(keep), ...)"
    h.after += layer_comment(h, args, what, e, dff, call)
    h.after.append(f"inline constexpr {layer_type(h, args, decoder)} {name}{init};")
    if q8 and decoder:
        xs, ms = calibration_pairs(h, args, e)
        h.includes.add("cxmat/quantized/decoder_layer.hpp")
        h.after.append("")
        w = f"{args.name}_weights::"
        q8_module(h, args, f"{what}(d_model={e}, nhead={args.heads}, dim_feedforward={dff}) from "
                  f"{os.path.basename(h.source)} (weights per channel; options as the float layer takes them: "
                  "cxmat::causal, cxmat::on_memory(mask))",
                  f"cxmat::q8::calibrate({w}calibration_inputs, {w}calibration_memories, {name})",
                  "calibration.module(x8, memory8, masks...)", memory=True,
                  offline=q8_layer_calibration(args, "", tensors, xs, ms, e, dff, True)[1:] if offline(args) else None)
    elif q8:
        xs = calibration_inputs(h, args, e, "d_model")
        h.includes.add("cxmat/quantized/encoder_layer.hpp")
        h.after.append("")
        q8_module(h, args, f"{what}(d_model={e}, nhead={args.heads}, dim_feedforward={dff}) from "
                  f"{os.path.basename(h.source)} (weights per channel; masks as the int8 attention takes them)",
                  f"cxmat::q8::calibrate({args.name}_weights::calibration_inputs, {name})",
                  "calibration.module(x8, masks...)",
                  offline=q8_layer_calibration(args, "", tensors, xs, None, e, dff, False)[1:] if offline(args)
                  else None)


def module_stack(h, tensors, args):
    """nn.TransformerEncoder / nn.TransformerDecoder: layers.0. ... layers.N-1., and norm. if it has one."""
    decoder = args.module == "decoder"
    what = "nn.TransformerDecoder" if decoder else "nn.TransformerEncoder"
    q8 = args.type == "q8"
    if q8:
        start_q8(h, args, "d_model")
    indices = sorted({int(m.group(1)) for k in tensors for m in [re.match(r"layers\.(\d+)\.", k)] if m})
    if not indices:
        raise ImportError_(f"tensor '{args.prefix}layers.0.self_attn.in_proj_weight': missing key ({what} has "
                           "layers.0. ... layers.N-1.)")
    count = indices[-1] + 1
    required = [k for i in range(count) for k in layer_keys(f"layers.{i}.", decoder)[2]]
    has_norm = "norm.weight" in tensors or "norm.bias" in tensors
    check_keys(tensors, required + (["norm.weight", "norm.bias"] if has_norm else []), [], what, args.prefix)
    inits, shape = [], None
    for i in range(count):
        e, dff, init = layer_values(h, tensors, args, f"layers.{i}.", decoder)
        if shape is not None and (e, dff) != shape:
            raise ImportError_(f"tensor '{args.prefix}layers.{i}.linear1.weight': d_model {e} and dim_feedforward "
                               f"{dff}, but layer 0 has {shape[0]} and {shape[1]}")
        shape = (e, dff)
        inits.append(init)
    norm = norm_weights(h, tensors, args, "norm.", "norm_", shape[0])[1] if has_norm else "{}"
    h.includes.add("cxmat/transformer/layers.hpp")
    kind = "transformer_decoder" if decoder else "transformer_encoder"
    call = (f"{args.name}(x, memory, options...)" if decoder else f"{args.name}(x, options...)") + \
        ", the options passed to every layer"
    name = f"{args.name}_float" if q8 else args.name
    call = call.replace(args.name, name, 1)
    h.after += layer_comment(h, args, f"{what} of {count} layers"
                             + (" and a final norm" if has_norm else "") + ": each layer", shape[0], shape[1], call)
    h.after.append(f"inline constexpr cxmat::{kind}<{layer_type(h, args, decoder)}, {count}, "
                   f"{'true' if has_norm else 'false'}> {name}{{{{{', '.join(inits)}}}, {norm}}};")
    if q8:
        q8_stack(h, args, what, count, has_norm, shape, decoder, tensors)


def q8_stack(h, args, what, count, has_norm, shape, decoder, tensors):
    """An nn.TransformerEncoder or nn.TransformerDecoder as int8 layers: layer k calibrated by the
    compiler (its own constant expression) on the float stack's layer k - 1 outputs (a decoder's with
    the same memories), so that its input quantization is layer k - 1's output quantization and the
    int8 layers chain without requantizing (a decoder's layers share the memory's quantization); a
    final norm runs in float on the dequantized output. Offline (--calibrate offline), layer k's
    calibration is a constant, calibrated here on the float layers' outputs before it."""
    e, dff = shape
    if decoder:
        xs, ms = calibration_pairs(h, args, e)
    else:
        xs, ms = calibration_inputs(h, args, e, "d_model"), None
    h.includes |= {"cstddef", "cxmat/quantized/decoder_layer.hpp" if decoder else "cxmat/quantized/encoder_layer.hpp"}
    c = f"{args.name}_calibration"
    h.after += [
        "",
        f"/// The calibration of {args.name}'s int8 layers, one constant expression each: layer_k on inputs_k, the",
        f"/// float stack's layer k - 1 outputs on {os.path.basename(args.calibration)} (TFLite's post-training "
        "quantization, per layer)" + (", calibrated offline by the importer (scripts/cxmat_q8.py)." if offline(args)
                                      else "."),
        f"namespace {c} {{",
    ]
    if offline(args):
        for k in range(count):
            cal, ctype, init = q8_layer_calibration(args, f"layers.{k}.", tensors, xs, ms, e, dff, decoder)
            h.after += as_laid_out(f"inline constexpr {ctype} layer_{k}{init};")
            xs = cal["outputs"]
    else:
        q8_stack_compiler(h, args, count, decoder)
    q8_stack_module(h, args, what, count, has_norm, decoder)


def q8_stack_compiler(h, args, count, decoder):
    """The stack's calibrations by the compiler: layer k on the float layer k - 1's outputs."""
    c, f = f"{args.name}_calibration", f"{args.name}_float"
    ms = ", memories" if decoder else ""
    h.after += [
        f"template <class Layer, class Batch{', class Memories' if decoder else ''}>",
        f"constexpr Batch outputs(const Layer& layer, const Batch& xs{', const Memories& ms' if decoder else ''}) "
        "noexcept {",
        "  Batch ys{};",
        f"  for (std::size_t b = 0; b < Batch::count; ++b) ys[b] = layer(xs[b]{', ms[b]' if decoder else ''});",
        "  return ys;",
        "}",
        f"inline constexpr auto inputs_0 = {args.name}_weights::calibration_inputs;",
    ]
    if decoder:
        h.after.append(f"inline constexpr auto memories = {args.name}_weights::calibration_memories;")
    for k in range(count):
        if k > 0:
            h.after.append(f"inline constexpr auto inputs_{k} = outputs({f}.layers[{k - 1}], inputs_{k - 1}{ms});")
        h.after.append(f"inline constexpr auto layer_{k} = cxmat::q8::calibrate(inputs_{k}{ms}, {f}.layers[{k}]);")


def q8_stack_module(h, args, what, count, has_norm, decoder):
    """The stack's int8 module around the calibrations layer_0 ... (their chaining checked)."""
    c, f = f"{args.name}_calibration", f"{args.name}_float"
    last = f"{c}::layer_{count - 1}"
    m_arg, m_param, m_type = (", memory", ", const M& memory", ", class M") if decoder else ("", "", "")
    for k in range(count):
        h.after.append(f"static_assert(layer_{k}.ok(), \"{args.name}: layer {k}'s calibration refused a tensor "
                       f"(its status, tensor and report say which)\");")
        if k > 0:
            h.after.append(f"static_assert(layer_{k}.input == layer_{k - 1}.output, \"{args.name}: layer {k}'s input "
                           f"quantization is not layer {k - 1}'s output quantization\");")
            if decoder:
                h.after.append(f"static_assert(layer_{k}.memory == layer_0.memory, \"{args.name}: layer {k}'s memory "
                               f"quantization is not layer 0's\");")
    chain = "x8"
    for k in range(count):
        chain = f"{c}::layer_{k}.module({chain}{', memory8' if decoder else ''}, masks...)"
    m_quantized = ", cxmat::q8::quantize(memory, memory_quantization)" if decoder else ""
    result = (f"cxmat::q8::dequantize(int8(cxmat::q8::quantize(x, calibration.input){m_quantized}, masks...), "
              "calibration.output)")
    options = "options as the float decoder layers take them: cxmat::causal, cxmat::on_memory(mask)" if decoder \
        else "masks as the int8 attention takes them"
    h.after += [
        f"}}  // namespace {c}",
        f"/// {what} of {count} int8 layers (weights per channel; {options}), calibrated",
        f"/// {calibrated_by(offline(args))}; `calibration` holds the quantization of the stack's input and output "
        f"({c}::layer_k",
        f"/// each layer's calibration and report). int8(x8{', memory8' if decoder else ''}, masks...) runs the int8 "
        f"layers; (x{m_arg}, masks...) quantizes,"
        + (" runs them, dequantizes, and applies the final norm in float." if has_norm else " runs them and "
           "dequantizes."),
        f"struct {args.name}_module {{",
        "  struct quantizations {",
        "    cxmat::q8::quantization input, output;",
        "  };",
        f"  static constexpr quantizations calibration{{{c}::layer_0.input, {last}.output}};",
    ]
    if decoder:
        h.after.append(f"  static constexpr cxmat::q8::quantization memory_quantization = {c}::layer_0.memory;")
    h.after += [
        f"  template <class X8{', class M8' if decoder else ''}, class... O>",
        f"  constexpr auto int8(const X8& x8{', const M8& memory8' if decoder else ''}, const O&... masks) const "
        "noexcept {",
        f"    return {chain};",
        "  }",
        f"  template <class X{m_type}, class... O>",
        f"  constexpr auto operator()(const X& x{m_param}, const O&... masks) const noexcept {{",
        f"    return {f'{f}.norm(' + result + ')' if has_norm else result};",
        "  }",
        "};",
        f"inline constexpr {args.name}_module {args.name}{{}};",
    ]


SAFETENSORS_TAGS = {name: tag for tag, (name, _) in SAFETENSORS_DTYPES.items()}


def to_safetensors(tensors):
    """The safetensors bytes of {key: (array, dtype)}: keys in sorted order, data little-endian."""
    header, blobs, offset = {}, [], 0
    for key in sorted(tensors):
        array, dtype = tensors[key]
        raw = np.ascontiguousarray(array).astype(np.asarray(array).dtype.newbyteorder("<")).tobytes()
        header[key] = {"dtype": SAFETENSORS_TAGS[dtype], "shape": list(np.shape(array)),
                       "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)  # the data starts 8-byte aligned, as safetensors writes it
    return struct.pack("<Q", len(text)) + text + b"".join(blobs)


def module_bytes(h, path, args):
    """The file as .safetensors bytes: a .safetensors file as it is, a .pt or .npz converted (every
    tensor with its dtype), non-finite values refused as for the other modules."""
    if path.lower().endswith(".safetensors"):
        tensors = read_safetensors(path)  # refuse a corrupt file here rather than at compile time
        with open(path, "rb") as f:
            data = f.read()
    else:
        tensors = read_file(path)
        data = None
    tensors = select(tensors, args.prefix)
    if args.prefix:
        data = None
    for key, (array, dtype) in tensors.items():
        if dtype in FLOAT_DTYPES:
            as_float64(args.prefix + key, array, dtype)
    if data is None:
        data = to_safetensors(tensors)
    h.includes = {"cstddef"}
    what = os.path.basename(path) + ("" if path.lower().endswith(".safetensors") and not args.prefix
                                     else " as .safetensors")
    h.values.append(f"// The bytes of {what} ({len(data)} bytes), for cxmat::safetensors::load.")
    h.values.append(f"inline constexpr unsigned char bytes[{len(data)}] = {{{', '.join(str(b) for b in data)}}};")


MODULES = {
    "tensors": module_tensors,
    "linear": module_linear,
    "layer_norm": module_layer_norm,
    "embedding": module_embedding,
    "multihead_attention": module_multihead_attention,
    "encoder_layer": module_layer,
    "decoder_layer": module_layer,
    "encoder": module_stack,
    "decoder": module_stack,
}


def with_key_hint(message, tensors, prefix):
    """A missing key's message, or a prefix no key has, with what the file has: a key with the same
    ending (and the --prefix that selects it), or the file's first keys."""
    missing = re.match(r"tensor '([^']*)': missing key", message)
    if missing:
        tail = missing.group(1)[len(prefix):] if missing.group(1).startswith(prefix) else missing.group(1)
        for key in sorted(tensors):
            if key.endswith(tail) and key != missing.group(1):
                return f"{message}; the file has '{key}': --prefix '{key[:len(key) - len(tail)]}'"
    elif not message.startswith("no tensor's key starts with"):
        return message
    keys = sorted(tensors)
    return f"{message}; the file has {len(keys)} tensors: {', '.join(keys[:5])}{', ...' if len(keys) > 5 else ''}"


LANGUAGE_MODELS = ["llama", "gpt2"]


def language_models():
    """scripts/cxmat_lm.py, the readers and writer of --module llama and gpt2."""
    return sibling_module("cxmat_lm")


def clang_format(text):
    """Formats with cxmat's .clang-format when clang-format is installed (the header is valid either way)."""
    exe = shutil.which("clang-format") or shutil.which("clang-format-19") or shutil.which("clang-format-14")
    style = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".clang-format")
    if not exe or not os.path.exists(style):
        return text
    result = subprocess.run([exe, f"--style=file:{style}", "--assume-filename=out.hpp"], input=text,
                            capture_output=True, text=True, check=False)
    return result.stdout if result.returncode == 0 and result.stdout else text


# The modules whose norms may come before or after the residual sums (PyTorch's norm_first).
NORM_PLACED = ("encoder_layer", "decoder_layer", "encoder", "decoder")


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("file")
    parser.add_argument("--module", required=True, choices=list(MODULES) + ["bytes"] + LANGUAGE_MODELS)
    parser.add_argument("--heads", type=int)
    parser.add_argument("--activation", choices=["relu", "gelu", "gelu_tanh", "silu"], default="relu",
                        help="the layers' feed-forward activation: relu, gelu (erf), gelu_tanh "
                        "(approximate='tanh'), silu")
    norm = parser.add_mutually_exclusive_group()
    norm.add_argument("--norm-first", dest="norm_first", action="store_true", default=None,
                      help="the layers normalise before attention and the feed-forward (norm_first=True)")
    norm.add_argument("--post-norm", dest="norm_first", action="store_false",
                      help="the layers normalise after each residual sum (norm_first=False, PyTorch's default)")
    parser.add_argument("--eps", type=float, help="layer norm eps (default 1e-5; for llama and gpt2 the "
                        "config's or the format's)")
    lm = parser.add_argument_group("language models (--module llama, gpt2)")
    lm.add_argument("--config", help="a Hugging Face config.json (default: config.json next to FILE, if any)")
    lm.add_argument("--kv-heads", type=int, help="key/value heads (num_key_value_heads)")
    lm.add_argument("--context", type=int, help="positions the model is declared for (default: the file's; "
                    "for gpt2 the first rows of wpe)")
    lm.add_argument("--rope-theta", type=float, help="the rotary base (rope_theta)")
    lm.add_argument("--tied", dest="tied", action="store_true", default=None,
                    help="the head is the embedding (tie_word_embeddings)")
    lm.add_argument("--untied", dest="tied", action="store_false", help="the head is lm_head.weight")
    parser.add_argument("--prefix", default="")
    parser.add_argument("--name", required=True)
    parser.add_argument("--dims", help="namespace of the dimension names (default: NAME_dims); headers that "
                        "share it share d_model etc., so one's output fits another's input")
    parser.add_argument("--dim", action="append", default=[], metavar="NAME=NEW",
                        help="call a dimension NEW instead of NAME (e.g. in_features=d_model), so that one "
                        "header's output fits another's input")
    parser.add_argument("--type", choices=["float", "double", "q8", "f16", "bf16"], default="float",
                        help="element type; q8: cxmat::q8's int8 layer (multihead_attention, linear, encoder_layer, "
                        "decoder_layer, encoder, decoder), with --calibration, or a llama's weights in int8 groups; f16, bf16: a "
                        "llama's weights stored in 16 bits (float16, bfloat16; cxmat::half_weights), widened "
                        "to float where used")
    parser.add_argument("--calibration", help="for --type q8: an .npz with one array of representative inputs, "
                        "B x n x d_model (B x n x in_features for linear); for decoder_layer two arrays, 'x' "
                        "(B x n x d_model) and 'memory' (B x s x d_model)")
    parser.add_argument("--calibrate", choices=["offline", "compiler"],
                        help="for --type q8 with --calibration: offline (default) calibrates in this script (numpy, "
                        "cxmat::q8::calibrate's arithmetic) and writes the int8 module as constants, which compile "
                        "under default constexpr limits at any size; compiler writes cxmat::q8::calibrate(...) for "
                        "the compiler to evaluate")
    parser.add_argument("--clip", help="for --type q8 calibrated offline: how each activation tensor's range is "
                        "chosen from its calibration values: minmax (default, q8::calibrate's rule), percentile:P "
                        "(the (100-P)-th and P-th percentiles, e.g. percentile:99.99) or mse (the range whose int8 "
                        "quantization of the values has the least mean squared error); weights are never clipped")
    parser.add_argument("--group-size", type=int, help="for --module llama --type q8: the group of inputs that "
                        "share a scale (default: a llama2.c int8 checkpoint's own, else the largest power of two up "
                        "to 64 that divides d_model and d_ff, as llama2.c's export chooses)")
    parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args(argv)
    args.command_line = ["cxmat_import.py"] + [os.path.basename(a) if os.sep in a else a for a in argv]
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", args.name):
        parser.error(f"--name {args.name!r} is not a C++ identifier")
    calibrate_given, args.calibrate = args.calibrate is not None, args.calibrate or "offline"
    q8_offline().CLIPPING = None  # min/max unless --clip says otherwise (main may run more than once)
    args.eps_given = args.eps is not None
    if args.eps is None:
        args.eps = 1e-5
    args.dims = args.dims or f"{args.name}_dims"
    args.rename = {}
    for item in args.dim:
        old_name, _, new_name = item.partition("=")
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", old_name) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*",
                                                                                      new_name):
            parser.error(f"--dim {item!r}: expected NAME=NEW, two C++ identifiers")
        args.rename[old_name] = new_name
    TARGET["ctype"] = "float" if args.type == "float" else "double"
    try:
        # --calibrate says who calibrates an int8 module: anything else has nothing to calibrate.
        if calibrate_given and not (args.type == "q8" and args.module in CALIBRATED_MODULES):
            raise ImportError_(f"--calibrate is for --type q8 of {', '.join(CALIBRATED_MODULES)} (it says who "
                               f"calibrates the int8 module), not --type {args.type} of {args.module}")
        # --clip chooses the activations' ranges of the offline calibration (numpy has every value);
        # the compiler's calibration is min/max only.
        if args.clip is not None:
            if not offline(args) or args.module not in CALIBRATED_MODULES:
                raise ImportError_(f"--clip is for --type q8 calibrated offline (--calibrate offline) of "
                                   f"{', '.join(CALIBRATED_MODULES)}, not --type {args.type} of {args.module}"
                                   + (" calibrated by the compiler" if args.type == "q8" and
                                      args.calibrate == "compiler" else ""))
            q8m = q8_offline()
            try:
                q8m.CLIPPING = q8m.parse_clipping(args.clip)
            except ValueError as e:
                raise ImportError_(str(e)) from None
        # The same weights make a different model with the norms elsewhere, and a state_dict does
        # not say where they were: the user says it, never a silent default.
        if args.module in NORM_PLACED:
            if args.norm_first is None:
                raise ImportError_(f"--module {args.module}: say --norm-first or --post-norm (a state_dict does not "
                                   f"record norm_first; PyTorch's default, norm_first=False, is --post-norm)")
        elif args.norm_first is not None:
            raise ImportError_(f"--norm-first and --post-norm are for --module {', '.join(NORM_PLACED)}, "
                               f"not {args.module}")
        else:
            args.norm_first = False
        h = Header(args, args.file)
        if args.module == "bytes":
            module_bytes(h, args.file, args)
        elif args.module in LANGUAGE_MODELS:
            if args.type in ("q8", "f16", "bf16") and args.module != "llama":
                raise ImportError_(f"--type {args.type} is not written for --module {args.module} (float or double)")
            lm = language_models()
            try:
                getattr(lm, "module_" + args.module)(h, args, args.file, read_file, as_float64)
            except lm.Refusal as e:
                raise ImportError_(str(e)) from None
        else:
            if args.type in ("f16", "bf16"):
                raise ImportError_(f"--type {args.type} is written for --module llama only (a 16-bit storage of "
                                   f"its weights), not {args.module}")
            if args.type == "q8" and args.module not in CALIBRATED_MODULES:
                raise ImportError_(f"--type q8 is written for --module multihead_attention, linear, encoder_layer, "
                                   f"decoder_layer, encoder and decoder only, not {args.module}")
            everything = read_file(args.file)
            try:
                tensors = select(everything, args.prefix)
                MODULES[args.module](h, tensors, args)
            except ImportError_ as e:
                raise ImportError_(with_key_hint(str(e), everything, args.prefix)) from None
        # A language model is written laid out (one line per row); clang-format would take long on it.
        text = h.text() if args.module in LANGUAGE_MODELS else clang_format(h.text())
    except ImportError_ as e:
        print(f"cxmat_import: {e}", file=sys.stderr)
        return 1
    # Written whole or not at all: a build never sees half a header.
    partial = args.output + ".partial"
    with open(partial, "w") as f:
        f.write(text)
    os.replace(partial, args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
