#!/usr/bin/env python3
"""The importer's refusals and its reading of .safetensors, .npz and .pt files (made on the fly in
a temporary folder): every bad file gets one line naming the tensor and what is wrong, exit
status 1 and no header. The .pt files PyTorch makes are read by the importer with PyTorch hidden
from the interpreter and compared with what PyTorch loads. Without PyTorch, the checks that do
not need it run and the test is reported skipped (exit status 77).
"""
import contextlib
import io
import json
import math
import os
import pickle
import runpy
import shutil
import struct
import subprocess
import sys
import tempfile
import zipfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
IMPORTER = os.path.join(HERE, "..", "..", "scripts", "cxmat_import.py")
TMP = tempfile.mkdtemp(prefix="cxmat_import_")
failures = []
checks = 0
IMPORTER_MAIN = runpy.run_path(IMPORTER)["main"]


def run(path, *args, hide_torch=False):
    """The importer's exit status, stderr and header: in this interpreter (its main function; an
    interpreter per call would cost a numpy import each), or in one where PyTorch is hidden."""
    out = os.path.join(TMP, "out.hpp")
    if os.path.exists(out):
        os.remove(out)
    argv = [path, *args, "--name", "m", "-o", out]
    if hide_torch:
        code = ("import runpy, sys; sys.modules['torch'] = None; sys.argv = sys.argv[1:]; "
                "runpy.run_path(sys.argv[0], run_name='__main__')")
        r = subprocess.run([sys.executable, "-c", code, IMPORTER, *argv], capture_output=True, text=True, check=False)
        status, err = r.returncode, r.stderr
    else:
        stderr = io.StringIO()
        with contextlib.redirect_stderr(stderr):
            try:
                status = IMPORTER_MAIN(argv)
            except SystemExit as e:  # argparse
                status = e.code
        err = stderr.getvalue()
    header = open(out).read() if os.path.exists(out) else None
    return status, err.strip(), header


def expect_error(what, path, args, *fragments):
    global checks
    checks += 1
    status, err, header = run(path, *args)
    lines = err.splitlines()
    ok = (status == 1 and header is None and len(lines) == 1 and lines[0].startswith("cxmat_import: ")
          and all(f in lines[0] for f in fragments))
    if not ok:
        failures.append(f"{what}: status {status}, header {'written' if header else 'absent'}, stderr {err!r}; "
                        f"expected one line with {fragments}")
    else:
        print(f"ok: {what}: {lines[0]}")


def expect_header(what, path, args, *fragments, hide_torch=False):
    global checks
    checks += 1
    status, err, header = run(path, *args, hide_torch=hide_torch)
    if status != 0 or header is None or not all(f in header for f in fragments):
        failures.append(f"{what}: status {status}, stderr {err!r}, expected a header with {fragments}")
    else:
        print(f"ok: {what}")
    return header


def safetensors(name, tensors, raw_header=None, cut=0):
    """tensors: {key: (numpy array, dtype tag)}; the file's bytes written by hand."""
    header, blobs, offset = {}, [], 0
    for key, (array, tag) in tensors.items():
        raw = np.ascontiguousarray(array).tobytes()
        header[key] = {"dtype": tag, "shape": list(array.shape), "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    text = raw_header if raw_header is not None else json.dumps(header).encode()
    data = struct.pack("<Q", len(text)) + text + b"".join(blobs)
    path = os.path.join(TMP, name)
    with open(path, "wb") as f:
        f.write(data[: len(data) - cut])
    return path


def mha_tensors(e=8, dtype=np.float32, tag="F32"):
    rng = np.random.default_rng(1)
    return {
        "in_proj_weight": (rng.standard_normal((3 * e, e)).astype(dtype), tag),
        "in_proj_bias": (rng.standard_normal(3 * e).astype(dtype), tag),
        "out_proj.weight": (rng.standard_normal((e, e)).astype(dtype), tag),
        "out_proj.bias": (rng.standard_normal(e).astype(dtype), tag),
    }


MHA = ["--module", "multihead_attention", "--heads", "2"]


def without_torch():
    good = safetensors("mha.safetensors", mha_tensors())
    expect_header("safetensors, multihead_attention", good, MHA, "in_proj_weight", "w_q", "CXMAT_DIM(d_model, 8)",
                  "struct m_module")
    t = mha_tensors()
    del t["out_proj.bias"]
    expect_error("missing key", safetensors("missing.safetensors", t), MHA, "'out_proj.bias'", "missing key")
    t = mha_tensors()
    t["bias_k"] = (np.zeros((1, 1, 8), np.float32), "F32")
    expect_error("unexpected key", safetensors("extra.safetensors", t), MHA, "'bias_k'", "unexpected key")
    t = mha_tensors()
    t["out_proj.weight"] = (np.zeros((8, 4), np.float32), "F32")
    expect_error("shape", safetensors("shape.safetensors", t), MHA, "'out_proj.weight'", "[8, 4]", "expected [8, 8]")
    expect_error("heads not dividing d_model", good, ["--module", "multihead_attention", "--heads", "3"],
                 "'in_proj_weight'", "3 heads do not divide embed_dim 8")
    t = mha_tensors()
    t["in_proj_weight"] = (np.ones((24, 8), np.int64), "I64")
    expect_error("integers for a float module", safetensors("int.safetensors", t), MHA, "'in_proj_weight'",
                 "int64 values")
    t = mha_tensors()
    t["in_proj_weight"] = (np.zeros((24, 8), np.float32), "U16")
    expect_error("unknown dtype", safetensors("u16.safetensors", t), MHA, "'in_proj_weight'", "unsupported dtype U16")
    t = mha_tensors()
    t["out_proj.bias"][0][3] = np.nan
    expect_error("NaN weight", safetensors("nan.safetensors", t), MHA, "'out_proj.bias'", "non-finite", "[3]")
    # A float64 beyond float's range, imported as float: refused with its tensor and index, without
    # numpy's overflow warning (which would be a second line); as double it is kept.
    t = mha_tensors(dtype=np.float64, tag="F64")
    t["out_proj.weight"][0][1, 2] = 1e300
    big = safetensors("big.safetensors", t)
    for module in (MHA, ["--module", "tensors"]):
        expect_error(f"1e300 as float ({module[1]})", big, module, "tensor 'out_proj.weight'", "1e+300",
                     "does not fit in a float", "[1, 2]")
    expect_header("1e300 as double", big, ["--module", "tensors", "--type", "double"], "1e+300")
    t = mha_tensors()
    t["in_proj_weight"][0][2, 5] = -np.inf
    expect_error("infinite weight", safetensors("inf.safetensors", t), MHA, "'in_proj_weight'", "-inf", "[2, 5]")
    expect_error("truncated safetensors data", safetensors("cut.safetensors", mha_tensors(), cut=4), MHA,
                 "truncated or corrupt")
    with open(good, "rb") as f:
        data = f.read()
    cut = os.path.join(TMP, "cut_header.safetensors")
    with open(cut, "wb") as f:
        f.write(data[:20])
    expect_error("truncated safetensors header", cut, MHA, "truncated or corrupt safetensors file")
    expect_error("corrupt safetensors header", safetensors("json.safetensors", {}, raw_header=b"{\"a\": [1,"), MHA,
                 "corrupt safetensors header")

    # float16 and bfloat16 are widened exactly; bfloat16 1.5 is 0x3FC0.
    t = mha_tensors(dtype=np.float16, tag="F16")
    expect_header("float16 converted", safetensors("f16.safetensors", t), MHA + ["--type", "double"], "w_q")
    bf = {"w": (np.array([[0x3FC0, 0xC000]], np.uint16), "BF16")}
    expect_header("bfloat16 converted", safetensors("bf16.safetensors", bf), ["--module", "tensors", "--type", "double"],
                  "{{{1.5, -2.0}}}")
    ints = {"steps": (np.array(7, np.int64), "I64"), "cube": (np.arange(8, dtype=np.float32).reshape(2, 2, 2), "F32")}
    expect_header("tensors: integers keep their type, 3-D is a batch", safetensors("ints.safetensors", ints),
                  ["--module", "tensors"], "cxmat::matrix<std::int64_t, 1, 1> steps{{{7}}}",
                  "cxmat::batch<float, 2, 2, 2> cube")
    four = {"w": (np.zeros((1, 1, 1, 2), np.float32), "F32")}
    expect_error("4-D tensor", safetensors("four.safetensors", four), ["--module", "tensors"], "'w'", "4 dimensions")

    # kdim = vdim = 6 (separate projections), and a vdim other than kdim, which cxmat cannot take.
    rng = np.random.default_rng(4)
    kv = {"q_proj_weight": (rng.standard_normal((8, 8)).astype(np.float32), "F32"),
          "k_proj_weight": (rng.standard_normal((8, 6)).astype(np.float32), "F32"),
          "v_proj_weight": (rng.standard_normal((8, 6)).astype(np.float32), "F32"),
          "in_proj_bias": (np.zeros(24, np.float32), "F32"),
          "out_proj.weight": (np.zeros((8, 8), np.float32), "F32"), "out_proj.bias": (np.zeros(8, np.float32), "F32")}
    expect_header("kdim = vdim = 6", safetensors("kv.safetensors", kv), MHA,
                  "cxmat::matrix<float, m_dims::d_kv, m_dims::d_model> w_k", "state_dict['k_proj_weight']ᵀ")
    kv["v_proj_weight"] = (np.zeros((8, 5), np.float32), "F32")
    expect_error("vdim other than kdim", safetensors("kv5.safetensors", kv), MHA, "'v_proj_weight'",
                 "vdim must equal kdim")

    # --type q8: calibration inputs needed; biases become calibrate's bias options; encoder stacks only.
    expect_error("q8 without calibration inputs", good, MHA + ["--type", "q8"], "--calibration")
    calib = os.path.join(TMP, "calib.npz")
    np.savez(calib, x=np.random.default_rng(3).standard_normal((4, 5, 8)))
    expect_header("q8 of a layer with biases", good, MHA + ["--type", "q8", "--calibration", calib, "--calibrate",
                                                           "compiler"],
                  "cxmat::query_bias(m_weights::b_q)", "cxmat::key_bias(m_weights::b_k)",
                  "cxmat::value_bias(m_weights::b_v)", "cxmat::output_bias(m_weights::b_o)")
    t = mha_tensors()
    del t["in_proj_bias"], t["out_proj.bias"]
    no_bias = safetensors("nobias.safetensors", t)
    expect_header("q8 of a layer without biases", no_bias, MHA + ["--type", "q8", "--calibration", calib,
                                                                 "--calibrate", "compiler"],
                  "cxmat::q8::calibrate<2>(m_weights::calibration_inputs", "cxmat::batch<double, 4, 5, m_dims::d_model>")
    np.savez(os.path.join(TMP, "calib6.npz"), x=np.zeros((4, 5, 6)))
    expect_error("q8 calibration inputs of another width", no_bias,
                 MHA + ["--type", "q8", "--calibration", os.path.join(TMP, "calib6.npz")], "'x'", "[4, 5, 6]",
                 "expected [B, n, 8]")
    expect_error("q8 of a decoder stack without calibration pairs", no_bias,
                 ["--module", "decoder", "--heads", "2", "--post-norm", "--type", "q8"], "--calibration",
                 "'x' (B x n x d_model), 'memory' (B x s x d_model)")
    expect_error("q8 of an embedding", no_bias, ["--module", "embedding", "--type", "q8"],
                 "multihead_attention, linear, encoder_layer, decoder_layer, encoder and decoder only", "not embedding")
    # --type q8 of nn.Linear: the float module kept as m_float, calibrated on inputs of in_features.
    lin = {"weight": (np.random.default_rng(5).standard_normal((3, 8)).astype(np.float32), "F32"),
           "bias": (np.zeros(3, np.float32), "F32")}
    expect_header("q8 of a linear layer", safetensors("lin.safetensors", lin),
                  ["--module", "linear", "--type", "q8", "--calibration", calib, "--calibrate", "compiler"],
                  "cxmat::linear_module<double, m_dims::in_features, m_dims::out_features> m_float",
                  "cxmat::batch<double, 4, 5, m_dims::in_features> calibration_inputs",
                  "cxmat::q8::calibrate(m_weights::calibration_inputs, m_float)", "calibration.module(x8)")
    expect_error("q8 of a linear layer without calibration inputs", safetensors("lin.safetensors", lin),
                 ["--module", "linear", "--type", "q8"], "--calibration", "in_features")
    lin["weight"] = (np.zeros((3, 6), np.float32), "F32")
    expect_error("q8 linear calibration inputs of another width", safetensors("lin6.safetensors", lin),
                 ["--module", "linear", "--type", "q8", "--calibration", calib], "'x'", "[4, 5, 8]",
                 "expected [B, n, 6]")

    # numpy .npz
    npz = os.path.join(TMP, "mha.npz")
    np.savez(npz, **{k: v for k, (v, _) in mha_tensors(dtype=np.float64).items()})
    expect_header("npz, multihead_attention", npz, MHA + ["--type", "double"], "w_o")
    # --module bytes converts a .npz into .safetensors bytes holding the same arrays.
    header = expect_header("npz as .safetensors bytes", npz, ["--module", "bytes"], "inline constexpr unsigned char bytes[")
    if header is not None:
        import re
        numbers = re.search(r"bytes\[\d+\] = \{([^}]*)\}", header).group(1)
        converted = os.path.join(TMP, "converted.safetensors")
        with open(converted, "wb") as f:
            f.write(bytes(int(b) for b in numbers.replace("\n", " ").split(",")))
        read_back = runpy.run_path(IMPORTER)["read_safetensors"](converted)
        original = np.load(npz)
        if sorted(read_back) != sorted(original.files) or not all(
                np.array_equal(read_back[k][0], original[k]) and read_back[k][0].dtype == original[k].dtype
                for k in original.files):
            failures.append("npz as .safetensors bytes: the arrays read back differ")
    obj = os.path.join(TMP, "object.npz")
    np.savez(obj, w=np.array([{"a": 1}], dtype=object))
    expect_error("npz with an object array", obj, ["--module", "tensors"], "'w'", "refused")
    with open(npz, "rb") as f:
        data = f.read()
    cut = os.path.join(TMP, "cut.npz")
    with open(cut, "wb") as f:
        f.write(data[: len(data) // 2])
    expect_error("truncated npz", cut, ["--module", "tensors"], "truncated or corrupt")

    # A .pt whose pickle holds code: refused by name, and never run.
    marker = os.path.join(TMP, "ran")

    class Payload:
        def __reduce__(self):
            return (os.system, (f"touch {marker}",))

    evil = os.path.join(TMP, "evil.pt")
    with zipfile.ZipFile(evil, "w") as z:
        z.writestr("evil/data.pkl", pickle.dumps({"w": Payload()}, protocol=2))
        z.writestr("evil/version", "3\n")
    expect_error("a .pt that holds code", evil, ["--module", "tensors"], "refused", "posix.system")
    if os.path.exists(marker):
        failures.append("the pickle's code ran")
    legacy = os.path.join(TMP, "legacy.pt")
    with open(legacy, "wb") as f:
        f.write(pickle.dumps({"w": 1}, protocol=2))
    expect_error("a legacy (not zip) .pt", legacy, ["--module", "tensors"], "legacy")

    # nn.TransformerEncoderLayer(8, 2, dim_feedforward=16)'s keys, made by hand.
    def encoder(d=8, ff=16):
        t = {"self_attn." + k: v for k, v in mha_tensors(d).items()}
        rng = np.random.default_rng(2)
        for name, shape in [("linear1.weight", (ff, d)), ("linear1.bias", (ff,)), ("linear2.weight", (d, ff)),
                            ("linear2.bias", (d,)), ("norm1.weight", (d,)), ("norm1.bias", (d,)),
                            ("norm2.weight", (d,)), ("norm2.bias", (d,))]:
            t[name] = (rng.standard_normal(shape).astype(np.float32), "F32")
        return t

    enc = ["--module", "encoder_layer", "--heads", "2", "--post-norm"]
    expect_header("encoder_layer", safetensors("encoder.safetensors", encoder()), enc,
                  "cxmat::encoder_layer<float, m_dims::d_model, 2, m_dims::d_ff, cxmat::activation::relu, false>",
                  "state_dict['linear2.weight']ᵀ")
    # norm_first is not in a state_dict: the importer asks for it rather than guess post-norm.
    for module in ("encoder_layer", "decoder_layer", "encoder", "decoder"):
        expect_error(f"{module} without --norm-first or --post-norm", safetensors("encoder.safetensors", encoder()),
                     ["--module", module, "--heads", "2"], f"--module {module}: say --norm-first or --post-norm")
    expect_error("--post-norm for a module without norms", safetensors("encoder.safetensors", encoder()),
                 ["--module", "tensors", "--post-norm"], "--norm-first and --post-norm are for", "not tensors")
    expect_header("encoder_layer --norm-first", safetensors("encoder.safetensors", encoder()),
                  ["--module", "encoder_layer", "--heads", "2", "--norm-first"],
                  "cxmat::encoder_layer<float, m_dims::d_model, 2, m_dims::d_ff, cxmat::activation::relu, true>")
    t = encoder()
    del t["norm2.bias"]
    expect_error("encoder_layer: missing key", safetensors("enc_missing.safetensors", t), enc, "'norm2.bias'",
                 "missing key")
    t = encoder()
    t["linear2.weight"] = (np.zeros((8, 12), np.float32), "F32")
    expect_error("encoder_layer: linear2 not fitting linear1", safetensors("enc_ff.safetensors", t), enc,
                 "'linear2.weight'", "[8, 12]", "expected [8, 16]")
    t = encoder()
    t["norm1.weight"] = (np.zeros(6, np.float32), "F32")
    expect_error("encoder_layer: norm of another width", safetensors("enc_norm.safetensors", t), enc,
                 "'norm1.weight'", "[6]", "expected [8]")
    expect_error("encoder_layer: heads not dividing d_model", safetensors("encoder.safetensors", encoder()),
                 ["--module", "encoder_layer", "--heads", "3", "--post-norm"], "'self_attn.in_proj_weight'",
                 "3 heads do not divide embed_dim 8")
    stack = {f"layers.{i}.{k}": v for i in range(2) for k, v in encoder().items()}
    stack["norm.weight"] = (np.ones(8, np.float32), "F32")
    stack["norm.bias"] = (np.zeros(8, np.float32), "F32")
    expect_header("encoder (a stack of 2 layers and a norm)", safetensors("stack.safetensors", stack),
                  ["--module", "encoder", "--heads", "2", "--post-norm"], "cxmat::transformer_encoder<", ", 2, true>",
                  "state_dict['layers.1.linear2.weight']ᵀ")
    stack_calib = os.path.join(TMP, "stack_calib.npz")
    np.savez(stack_calib, x=np.random.default_rng(4).standard_normal((4, 5, 8)))
    expect_header("q8 of an encoder stack: each layer calibrated on the float layers' outputs before it",
                  os.path.join(TMP, "stack.safetensors"),
                  ["--module", "encoder", "--heads", "2", "--post-norm", "--type", "q8", "--calibration", stack_calib,
                   "--calibrate", "compiler"], "m_float.layers[1]", "inputs_1 = outputs(m_float.layers[0], inputs_0)",
                  "static_assert(layer_1.input == layer_0.output", "m_float.norm(")
    del stack["layers.1.norm2.bias"]
    expect_error("encoder: a layer's key missing", safetensors("stack_missing.safetensors", stack),
                 ["--module", "encoder", "--heads", "2", "--post-norm"], "'layers.1.norm2.bias'", "missing key")
    # --type q8 of an encoder layer (biases and all): the float layer as m_float, then its int8 module.
    q8_enc = enc + ["--type", "q8", "--calibration", os.path.join(TMP, "calib.npz")]
    expect_header("q8 of an encoder layer", safetensors("encoder.safetensors", encoder()),
                  q8_enc + ["--calibrate", "compiler"],
                  "cxmat::encoder_layer<double, m_dims::d_model, 2, m_dims::d_ff, cxmat::activation::relu, false> "
                  "m_float", "cxmat::q8::calibrate(m_weights::calibration_inputs, m_float)",
                  "calibration.module(x8, masks...)", "#include <cxmat/quantized/encoder_layer.hpp>")
    expect_error("q8 of an encoder layer without calibration inputs", safetensors("encoder.safetensors", encoder()),
                 enc + ["--type", "q8"], "--calibration")
    np.savez(os.path.join(TMP, "calib_enc6.npz"), x=np.zeros((2, 3, 6)))
    expect_error("q8 encoder calibration inputs of another width", safetensors("encoder.safetensors", encoder()),
                 enc + ["--type", "q8", "--calibration", os.path.join(TMP, "calib_enc6.npz")], "'x'", "[2, 3, 6]",
                 "expected [B, n, 8]")
    nested = safetensors("nested.safetensors", {"block.attn." + k: v for k, v in mha_tensors().items()})
    expect_error("keys under a prefix not given", nested, MHA, "'in_proj_weight': missing key",
                 "the file has 'block.attn.in_proj_weight': --prefix 'block.attn.'")
    expect_error("a prefix no key has", safetensors("encoder.safetensors", encoder()),
                 enc + ["--prefix", "layers.0."], "prefix 'layers.0.'")
    expect_error("decoder_layer from an encoder's keys", safetensors("encoder.safetensors", encoder()),
                 ["--module", "decoder_layer", "--heads", "2", "--post-norm"], "'multihead_attn.in_proj_weight'",
                 "missing key")
    # --type q8 of a decoder layer: the .npz holds the arrays 'x' (B x n x d_model) and 'memory'
    # (B x s x d_model); each missing, unexpected or misfitting array is one line.
    dec_t = encoder()
    dec_t.update({"multihead_attn." + k: v for k, v in mha_tensors().items()})
    dec_t["norm3.weight"] = (np.ones(8, np.float32), "F32")
    dec_t["norm3.bias"] = (np.zeros(8, np.float32), "F32")
    dec_file = safetensors("decoder.safetensors", dec_t)
    dec = ["--module", "decoder_layer", "--heads", "2", "--post-norm", "--type", "q8", "--calibration"]
    pairs = os.path.join(TMP, "pairs.npz")
    rng = np.random.default_rng(6)
    np.savez(pairs, x=rng.standard_normal((3, 4, 8)), memory=rng.standard_normal((3, 5, 8)))
    expect_header("q8 of a decoder layer", dec_file, dec + [pairs, "--calibrate", "compiler"],
                  "cxmat::decoder_layer<double, m_dims::d_model, 2, m_dims::d_ff, cxmat::activation::relu, false> "
                  "m_float", "cxmat::batch<double, 3, 4, m_dims::d_model> calibration_inputs",
                  "cxmat::batch<double, 3, 5, m_dims::d_model> calibration_memories",
                  "cxmat::q8::calibrate(m_weights::calibration_inputs, m_weights::calibration_memories, m_float)",
                  "calibration.module(x8, memory8, masks...)",
                  "cxmat::q8::quantize(memory, calibration.memory)", "#include <cxmat/quantized/decoder_layer.hpp>")
    expect_error("q8 of a decoder layer without calibration inputs", dec_file, dec[:-1], "--calibration", "'x'",
                 "'memory'")
    np.savez(os.path.join(TMP, "pairs_x.npz"), x=np.zeros((3, 4, 8)))
    expect_error("q8 decoder calibration without memories", dec_file, dec + [os.path.join(TMP, "pairs_x.npz")],
                 "no array 'memory'", "'memory' (B x s x d_model)")
    np.savez(os.path.join(TMP, "pairs_m.npz"), memory=np.zeros((3, 5, 8)))
    expect_error("q8 decoder calibration without inputs", dec_file, dec + [os.path.join(TMP, "pairs_m.npz")],
                 "no array 'x'", "'x' (B x n x d_model)")
    np.savez(os.path.join(TMP, "pairs_extra.npz"), x=np.zeros((3, 4, 8)), memory=np.zeros((3, 5, 8)),
             y=np.zeros((3, 4, 8)))
    expect_error("q8 decoder calibration with another array", dec_file, dec + [os.path.join(TMP, "pairs_extra.npz")],
                 "tensor 'y'", "unexpected array")
    np.savez(os.path.join(TMP, "pairs_w.npz"), x=np.zeros((3, 4, 8)), memory=np.zeros((3, 5, 6)))
    expect_error("q8 decoder memories of another width", dec_file, dec + [os.path.join(TMP, "pairs_w.npz")],
                 "tensor 'memory'", "[3, 5, 6]", "expected [B, s, 8]")
    np.savez(os.path.join(TMP, "pairs_b.npz"), x=np.zeros((3, 4, 8)), memory=np.zeros((2, 5, 8)))
    expect_error("q8 decoder: fewer memories than inputs", dec_file, dec + [os.path.join(TMP, "pairs_b.npz")],
                 "tensor 'memory'", "2 memories for 3 inputs")
    q8_offline_checks(good, dec_file, dec, pairs, enc, encoder, stack_calib)


def q8_offline_checks(mha_file, dec_file, dec, pairs, enc, encoder, stack_calib):
    """--calibrate offline (the default of --type q8): the calibration as constants of cxmat's types,
    and the library's refusals, each naming the tensor (a weight by its state_dict key)."""
    calib = os.path.join(TMP, "calib.npz")
    lin = {"weight": (np.random.default_rng(5).standard_normal((3, 8)).astype(np.float32), "F32"),
           "bias": (np.zeros(3, np.float32), "F32")}
    expect_header("q8 offline: the attention's calibration as a constant", mha_file,
                  MHA + ["--type", "q8", "--calibration", calib],
                  "static constexpr cxmat::q8::calibration<cxmat::q8::attention_layer<8, 2, 4, 4, 8, false>> "
                  "calibration{", "calibrated offline by the importer", "cxmat::q8::calibration_status::ok",
                  "cxmat::q8::calibration_tensor::scores")
    expect_header("q8 offline: a linear layer", safetensors("lin_offline.safetensors", lin),
                  ["--module", "linear", "--type", "q8", "--calibration", calib, "--calibrate", "offline"],
                  "static constexpr cxmat::q8::module_calibration<cxmat::q8::linear_module<8, 3, true>> calibration{",
                  "cxmat::q8::calibration_tensor::linear_weight", "calibration.module(x8)")
    expect_header("q8 offline: a decoder layer", dec_file, dec + [pairs],
                  "cxmat::q8::decoder_calibration<", "cxmat::q8::decoder_layer<8, 2, 16, cxmat::activation::relu, "
                  "false, true>>", "cxmat::q8::calibration_tensor::cross_attention_output",
                  "cxmat::q8::quantize(memory, calibration.memory)")
    expect_header("q8 offline: an encoder stack, each layer a constant", os.path.join(TMP, "stack.safetensors"),
                  ["--module", "encoder", "--heads", "2", "--post-norm", "--type", "q8", "--calibration", stack_calib],
                  "inline constexpr cxmat::q8::module_calibration<", "layer_1{",
                  "cxmat::q8::encoder_layer<8, 2, 16, cxmat::activation::relu, false, true>>",
                  "static_assert(layer_1.input == layer_0.output")
    expect_error("--calibrate without --type q8", mha_file, MHA + ["--type", "double", "--calibrate", "offline"],
                 "--calibrate is for --type q8 of multihead_attention", "not --type double of multihead_attention")
    # The refusals of q8::calibrate (calibration_status), before anything is written.
    zero = {"weight": (np.zeros((3, 8), np.float32), "F32"), "bias": (np.zeros(3, np.float32), "F32")}
    expect_error("q8 offline: a computed tensor of zero width", safetensors("lin_zero.safetensors", zero),
                 ["--module", "linear", "--type", "q8", "--calibration", calib], "calibration_tensor::output",
                 "zero_width_range", "every calibration value is 0.0")
    outlier = {"weight": (np.random.default_rng(7).uniform(0.5, 1.0, (3, 8)).astype(np.float32), "F32"),
               "bias": (np.zeros(3, np.float32), "F32")}
    outlier["weight"][0][1, 4] = 100.0  # 100 times the next largest magnitude (1.0 at most): dominated
    expect_error("q8 offline: a weight dominated by one value", safetensors("lin_outlier.safetensors", outlier),
                 ["--module", "linear", "--type", "q8", "--calibration", calib], "tensor 'weight'",
                 "calibration_tensor::linear_weight", "dominated_range", "more than 64 times")
    outlier["weight"][0][1, 4] = 60.0  # within the rule (60 <= 64 times the next): calibrated
    expect_header("q8 offline: a weight just within the dominance rule", safetensors("lin_60.safetensors", outlier),
                  ["--module", "linear", "--type", "q8", "--calibration", calib], "calibration{")
    spike = np.random.default_rng(8).uniform(-1.0, 1.0, (4, 5, 8))
    spike[2, 3, 1] = 1000.0
    np.savez(os.path.join(TMP, "calib_spike.npz"), x=spike)
    expect_error("q8 offline: inputs dominated by one value", mha_file,
                 MHA + ["--type", "q8", "--calibration", os.path.join(TMP, "calib_spike.npz")],
                 "calibration_tensor::input (dominated_range)", "calib_spike.npz")
    np.savez(os.path.join(TMP, "calib_huge.npz"), x=np.random.default_rng(9).uniform(1e200, 2e200, (4, 5, 8)))
    expect_error("q8 offline: a computed tensor leaving double's range", mha_file,
                 MHA + ["--type", "q8", "--calibration", os.path.join(TMP, "calib_huge.npz")],
                 "calibration_tensor::scores (non_finite_range)")
    clipping_checks(mha_file, calib)
    encoder_outlier = safetensors("enc_outlier.safetensors", {**encoder(), "linear1.weight": (
        np.where(np.arange(128).reshape(16, 8) == 5, 500.0, 1.0).astype(np.float32), "F32")})
    expect_error("q8 offline: a layer's weight named by its key", encoder_outlier,
                 enc + ["--type", "q8", "--calibration", calib], "tensor 'linear1.weight'",
                 "calibration_tensor::linear1_weight", "dominated_range")


def clipping_checks(mha_file, calib):
    """--clip: the percentile and MSE ranges against plain implementations of their documented
    formulas, and the option's wiring and refusals."""
    global checks
    sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts"))
    import cxmat_q8
    # Percentiles as order statistics, by hand: the values 0..1000 in a shuffled order.
    v = np.random.default_rng(3).permutation(np.arange(1001.0))
    for p, want in (("99", (10.0, 990.0)), ("99.9", (1.0, 999.0)), ("90", (100.0, 900.0)), ("99.95", (0.0, 1000.0))):
        checks += 1
        got = cxmat_q8.percentile_range(v, cxmat_q8.parse_clipping(f"percentile:{p}")[1])
        if got != want:
            failures.append(f"percentile_range(0..1000, {p}) = {got}, expected {want}")

    # MSE: the factor a of 1 - k/128 (k = 0..126) whose quantization of the values has the least mean
    # squared error, the widest of equal ones; here by plain Python arithmetic (TFLite's
    # ChooseQuantizationParams and round half away from zero, one value at a time).
    def plain_quantization(lo, hi):
        lo, hi = min(lo, 0.0), max(hi, 0.0)
        scale = (hi - lo) / 255.0
        zp = -128.0 - lo / scale if 128.0 + abs(lo) / scale < 127.0 + abs(hi) / scale else 127.0 - hi / scale
        zp = max(-128.0, min(127.0, zp))
        return scale, int(math.copysign(math.floor(abs(zp) + 0.5), zp))

    def plain_mse(values, q):
        squares = []
        for x in values:
            r = x / q[0]
            k = int(math.copysign(math.floor(abs(r) + 0.5), r)) + q[1]
            squares.append((x - q[0] * (max(-128, min(127, k)) - q[1])) ** 2)
        return math.fsum(squares) / len(values)  # correctly rounded: no summation order to agree on

    rng = np.random.default_rng(4)
    for name, values in (("normal, one outlier", np.append(rng.standard_normal(400), 40.0)),
                         ("uniform", rng.uniform(-1.0, 3.0, 300)),
                         ("heavy tails", rng.standard_t(2, 400))):
        lo, hi = float(values.min()), float(values.max())
        errors = [(plain_mse(values.tolist(), plain_quantization((1 - k / 128) * lo, (1 - k / 128) * hi)), k)
                  for k in range(127)]
        best = min(errors)[1]
        want = ((1 - best / 128) * lo, (1 - best / 128) * hi)
        checks += 1
        got = cxmat_q8.mse_range(values, lo, hi)
        if got != want:
            failures.append(f"mse_range({name}) = {got}, expected {want} (factor {1 - best / 128})")
    # Heavy tails: 20000 values of Student's t with 2 degrees of freedom, whose largest is far out:
    # the MSE range clips.
    t = rng.standard_t(2, 20000)
    checks += 1
    if not cxmat_q8.mse_range(t, float(t.min()), float(t.max()))[1] < float(t.max()):
        failures.append("mse_range did not clip the far tail of 20000 values of Student's t (2 degrees of freedom)")

    # The wiring: inputs that one value dominates are refused with min/max (above) and calibrated
    # with the range clipped; the input's scale is the clipped range's ((P99 - P1) / 255, both ends
    # order statistics of the inputs, the range containing 0).
    spike = np.load(os.path.join(TMP, "calib_spike.npz"))["x"]
    s = np.sort(spike.ravel())
    lo, hi = s[int(math.floor(0.01 * (s.size - 1)))], s[int(math.ceil(0.99 * (s.size - 1)))]
    scale = (max(hi, 0.0) - min(lo, 0.0)) / 255.0
    expect_header("q8 offline --clip percentile:99: an input outlier clipped, not refused", mha_file,
                  MHA + ["--type", "q8", "--calibration", os.path.join(TMP, "calib_spike.npz"), "--clip",
                         "percentile:99"],
                  "activation ranges clipped (--clip percentile:99)", f"calibration{{{{{{{{{{{{",
                  f"{{{repr(float(scale))}, ")
    expect_header("q8 offline --clip mse", mha_file,
                  MHA + ["--type", "q8", "--calibration", os.path.join(TMP, "calib_spike.npz"), "--clip", "mse"],
                  "activation ranges clipped (--clip mse)")
    header = expect_header("q8 offline --clip minmax: q8::calibrate's rule", mha_file,
                           MHA + ["--type", "q8", "--calibration", calib, "--clip", "minmax"],
                           "calibrated offline by the importer")
    checks += 1
    if header is not None and "clipped" in header:
        failures.append("--clip minmax: the header says its ranges were clipped")
    expect_error("--clip with the compiler's calibration", mha_file,
                 MHA + ["--type", "q8", "--calibration", calib, "--calibrate", "compiler", "--clip", "mse"],
                 "--clip is for --type q8 calibrated offline", "calibrated by the compiler")
    expect_error("--clip without --type q8", mha_file, MHA + ["--type", "double", "--clip", "mse"],
                 "--clip is for --type q8 calibrated offline")
    for bad in ("percentile:100", "percentile:40", "percentile:x", "max"):
        expect_error(f"--clip {bad}", mha_file, MHA + ["--type", "q8", "--calibration", calib, "--clip", bad],
                     f"--clip {bad!r}: expected minmax, percentile:P")


def with_torch(torch):
    # A state_dict of several dtypes, a non-contiguous tensor and a Parameter, saved by PyTorch
    # and read by the importer in an interpreter where PyTorch cannot be imported.
    torch.manual_seed(3)
    state = {
        "a.weight": torch.randn(4, 3),
        "a.half": torch.randn(2, 5).half(),
        "a.bf16": torch.randn(3).bfloat16(),
        "a.double": torch.randn(2, 2, dtype=torch.float64),
        "a.transposed": torch.randn(3, 4).t(),
        "a.slice": torch.randn(6, 4)[2:4, 1:3],
        "a.param": torch.nn.Parameter(torch.randn(2, 3)),
        "a.steps": torch.tensor(12),
    }
    pt = os.path.join(TMP, "state.pt")
    torch.save(state, pt)
    dump = os.path.join(TMP, "state_read.npz")
    code = ("import sys, runpy, numpy as np; sys.modules['torch'] = None; "
            "m = runpy.run_path(sys.argv[1]); t = m['read_file'](sys.argv[2]); "
            "np.savez(sys.argv[3], **{k.replace('.', '_'): m['bfloat16_to_float32'](v) if d == 'bfloat16' else v "
            "for k, (v, d) in t.items()})")
    global checks
    checks += 1
    r = subprocess.run([sys.executable, "-c", code, IMPORTER, pt, dump], capture_output=True, text=True, check=False)
    if r.returncode != 0:
        failures.append(f"reading a .pt with PyTorch hidden: {r.stderr.strip()}")
    else:
        read = np.load(dump)
        for key, t in state.items():
            expected = t.detach().float().numpy() if t.dtype == torch.bfloat16 else t.detach().numpy()
            got = read[key.replace(".", "_")]
            if got.shape != expected.shape or got.dtype != expected.dtype or not np.array_equal(got, expected):
                failures.append(f"'{key}' read with PyTorch hidden: {got!r} instead of {expected!r}")
        print("ok: a .pt of every dtype, views and a Parameter, read with PyTorch hidden")
    expect_header("tensors module from a .pt, PyTorch hidden", pt, ["--module", "tensors", "--type", "double"],
                  "state_dict['a.transposed'], float32 [4, 3]", hide_torch=True)

    mha = torch.nn.MultiheadAttention(8, 2)
    mha_pt = os.path.join(TMP, "mha.pt")
    torch.save(mha.state_dict(), mha_pt)
    expect_header("multihead_attention from a .pt, PyTorch hidden", mha_pt, MHA, "w_v", hide_torch=True)
    whole = os.path.join(TMP, "whole.pt")
    torch.save(mha, whole)
    expect_error("a .pt of a whole module (pickled classes)", whole, MHA, "refused",
                 "torch.nn.modules.activation.MultiheadAttention")
    with open(mha_pt, "rb") as f:
        data = f.read()
    cut = os.path.join(TMP, "cut.pt")
    with open(cut, "wb") as f:
        f.write(data[: len(data) - 300])
    expect_error("truncated .pt", cut, MHA, "truncated or corrupt")
    corrupt = os.path.join(TMP, "corrupt.pt")
    with zipfile.ZipFile(mha_pt) as src, zipfile.ZipFile(corrupt, "w") as dst:
        for item in src.namelist():
            blob = src.read(item)
            dst.writestr(item, blob[:10] if item.endswith("data/0") else blob)
    expect_error("a .pt with a short storage", corrupt, MHA, "'in_proj_weight'", "truncated or corrupt")


def main():
    try:
        return checks_and_status()
    finally:
        shutil.rmtree(TMP, ignore_errors=True)


def checks_and_status():
    without_torch()
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None:
        with_torch(torch)
    for f in failures:
        print("FAIL:", f)
    print(f"{checks} checks, {len(failures)} failed")
    if failures:
        return 1
    if torch is None:
        print(f"skipped: PyTorch is not installed for {sys.executable}, so the .pt files PyTorch makes are not "
              "tested (the checks above passed)")
        return 77
    return 0


if __name__ == "__main__":
    sys.exit(main())
