#!/usr/bin/env python3
"""Weight files made by PyTorch, their headers made by scripts/cxmat_import.py, and PyTorch's
outputs for the test inputs, for pytorch_modules.cpp (run by the build; nothing here is committed).

    make_reference.py OUTDIR

Writes into OUTDIR: mha.pt (nn.MultiheadAttention(8, 2), float64, random biases), mha_nobias.safetensors
(nn.MultiheadAttention(8, 4, bias=False)), mixed.safetensors (float16, bfloat16, float32 tensors),
their headers (mha_pt.hpp, mha_nobias.hpp, mixed.hpp) and reference.hpp: the inputs and
PyTorch's outputs, as C hexadecimal literals (exact). PyTorch's kernels depend on the CPU, so
reference.hpp is made on the machine that runs the test and compared within a tolerance.
"""
import json
import os
import struct
import subprocess
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
IMPORTER = os.path.join(HERE, "..", "..", "scripts", "cxmat_import.py")


def write_safetensors(path, tensors):
    """The safetensors layout (8-byte little-endian header length, JSON header, raw data)."""
    tags = {torch.float64: "F64", torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16"}
    header, blobs, offset = {}, [], 0
    for key, t in tensors.items():
        t = t.contiguous()
        raw = t.view(torch.int16).numpy().tobytes() if t.dtype == torch.bfloat16 else t.numpy().tobytes()
        header[key] = {"dtype": tags[t.dtype], "shape": list(t.shape), "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    text = json.dumps(header).encode()
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def literal(x):
    return float(x).hex()


def matrix(name, t):
    t = t.detach().to(torch.float64)
    if t.dim() == 1:
        t = t.reshape(1, -1)
    rows = ", ".join("{" + ", ".join(literal(v) for v in row) + "}" for row in t.tolist())
    return f"inline constexpr cxmat::matrix<double, {t.shape[0]}, {t.shape[1]}> {name}{{{{{rows}}}}};"


def bool_row(name, values):
    return (f"inline constexpr cxmat::matrix<bool, 1, {len(values)}> {name}{{{{{{"
            + ", ".join("true" if v else "false" for v in values) + "}}};")


def run_importer(*args):
    subprocess.run([sys.executable, IMPORTER, *args], check=True)


def run_q8_importer(*args):
    """An int8 module (--type q8) imported twice: calibrated by the compiler (--calibrate compiler, as
    NAME in NAME.hpp) and offline by the importer (--calibrate offline, as NAME_offline in
    NAME_offline.hpp), which pytorch_modules.cpp compares member by member."""
    run_importer(*args, "--calibrate", "compiler")
    offline = list(args)
    name, output = offline.index("--name") + 1, offline.index("-o") + 1
    offline[name] += "_offline"
    offline[output] = offline[output].replace(".hpp", "_offline.hpp")
    run_importer(*offline, "--calibrate", "offline")


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(20261126)
    lines = ["// PyTorch's outputs for pytorch_modules.cpp, made by make_reference.py (not committed).",
             "#pragma once", "", "#include <cxmat/core/matrix.hpp>", "", "namespace ref {"]

    # nn.MultiheadAttention(8, 2) with random (non-zero) biases, saved with torch.save.
    mha = torch.nn.MultiheadAttention(8, 2).double().eval()
    with torch.no_grad():
        mha.in_proj_bias.uniform_(-0.5, 0.5)
        mha.out_proj.bias.uniform_(-0.5, 0.5)
    torch.save(mha.state_dict(), os.path.join(out, "mha.pt"))
    run_importer(os.path.join(out, "mha.pt"), "--module", "multihead_attention", "--heads", "2", "--name", "mha",
                 "--type", "double", "-o", os.path.join(out, "mha_pt.hpp"))
    x = torch.randn(5, 8, dtype=torch.float64)
    x_kv = torch.randn(3, 8, dtype=torch.float64)
    keep = [True, True, False, True, False]
    causal = torch.triu(torch.ones(5, 5, dtype=torch.bool), diagonal=1)  # True = masked out
    with torch.no_grad():
        plain, weights = mha(x, x, x, need_weights=True, average_attn_weights=False)
        lines.append(matrix("x", x))
        lines.append(matrix("x_kv", x_kv))
        lines.append(bool_row("keep", keep))
        lines.append(matrix("mha_plain", plain))
        for h in range(2):
            lines.append(matrix(f"mha_weights_{h}", weights[h]))
        lines.append(matrix("mha_causal", mha(x, x, x, attn_mask=causal, need_weights=False)[0]))
        padding = torch.tensor([not k for k in keep])  # PyTorch: True = ignore
        lines.append(matrix("mha_padded", mha(x, x, x, key_padding_mask=padding, need_weights=False)[0]))
        lines.append(matrix("mha_cross", mha(x, x_kv, x_kv, need_weights=False)[0]))

    # nn.MultiheadAttention(8, 2, kdim=6, vdim=6): separate projections, cross-attention on a memory of width 6.
    mha_kv = torch.nn.MultiheadAttention(8, 2, kdim=6, vdim=6).double().eval()
    with torch.no_grad():
        mha_kv.in_proj_bias.uniform_(-0.5, 0.5)
    torch.save(mha_kv.state_dict(), os.path.join(out, "mha_kv.pt"))
    run_importer(os.path.join(out, "mha_kv.pt"), "--module", "multihead_attention", "--heads", "2", "--name",
                 "mha_kv", "--type", "double", "-o", os.path.join(out, "mha_kv.hpp"))
    memory = torch.randn(3, 6, dtype=torch.float64)
    with torch.no_grad():
        lines.append(matrix("memory6", memory))
        lines.append(matrix("mha_kv_cross", mha_kv(x, memory, memory, need_weights=False)[0]))

    # nn.MultiheadAttention(8, 4, bias=False), float32 weights, as .safetensors; the importer
    # writes double, so the module runs in double on the float32 values.
    mha_nb = torch.nn.MultiheadAttention(8, 4, bias=False).eval()
    write_safetensors(os.path.join(out, "mha_nobias.safetensors"),
                      {k: v for k, v in mha_nb.state_dict().items()})
    run_importer(os.path.join(out, "mha_nobias.safetensors"), "--module", "multihead_attention", "--heads", "4",
                 "--name", "mha_nobias", "--dims", "shared", "--type", "double", "-o",
                 os.path.join(out, "mha_nobias.hpp"))
    with torch.no_grad():
        lines.append(matrix("mha_nobias_plain", mha_nb.double()(x, x, x, need_weights=False)[0]))
    # The same layer as cxmat::q8's int8 layer, calibrated on 16 other inputs like x (x is held out).
    np_inputs = torch.randn(16, 5, 8, dtype=torch.float64).numpy()
    import numpy as np
    np.savez(os.path.join(out, "calibration.npz"), x=np_inputs)
    run_q8_importer(os.path.join(out, "mha_nobias.safetensors"), "--module", "multihead_attention", "--heads", "4",
                 "--name", "mha_q8", "--dims", "shared", "--type", "q8", "--calibration",
                 os.path.join(out, "calibration.npz"), "-o", os.path.join(out, "mha_q8.hpp"))

    # nn.Linear(8, 3) as .npz (numpy arrays of the state_dict), nn.LayerNorm(8) and nn.Embedding(10, 8)
    # as .pt, with random (non-default) parameters.
    linear = torch.nn.Linear(8, 3).double()
    np.savez(os.path.join(out, "linear.npz"), **{k: v.numpy() for k, v in linear.state_dict().items()})
    run_importer(os.path.join(out, "linear.npz"), "--module", "linear", "--name", "lin", "--type", "double", "-o",
                 os.path.join(out, "linear.hpp"))
    norm = torch.nn.LayerNorm(8, eps=1e-6).double()
    embed = torch.nn.Embedding(10, 8).double()
    with torch.no_grad():
        norm.weight.uniform_(0.5, 1.5)
        norm.bias.uniform_(-0.5, 0.5)
    torch.save(norm.state_dict(), os.path.join(out, "norm.pt"))
    torch.save(embed.state_dict(), os.path.join(out, "embed.pt"))
    run_importer(os.path.join(out, "norm.pt"), "--module", "layer_norm", "--eps", "1e-6", "--name", "norm",
                 "--dims", "shared", "--type", "double", "-o", os.path.join(out, "norm.hpp"))
    run_importer(os.path.join(out, "embed.pt"), "--module", "embedding", "--name", "embed", "--dims", "shared",
                 "--type", "double", "-o", os.path.join(out, "embed.hpp"))
    tokens = [3, 1, 4, 1, 5]
    with torch.no_grad():
        lines.append(matrix("lin_out", linear(x)))
        lines.append(matrix("norm_out", norm(x)))
        lines.append(matrix("embed_out", embed(torch.tensor(tokens))))
    lines.append("inline constexpr cxmat::matrix<int, 1, 5> tokens{{{" + ", ".join(map(str, tokens)) + "}}};")

    # nn.TransformerEncoderLayer (gelu, pre-norm) from a .pt and nn.TransformerDecoderLayer (relu,
    # post-norm) from a .safetensors, with random biases and norms.
    enc = torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, activation="gelu", norm_first=True).double().eval()
    dec = torch.nn.TransformerDecoderLayer(8, 4, 16, dropout=0.0).double().eval()
    with torch.no_grad():
        for layer in (enc, dec):
            for name, param in layer.named_parameters():
                if name.endswith("bias"):
                    param.uniform_(-0.3, 0.3)
                elif name.startswith("norm") and name.endswith("weight"):
                    param.uniform_(0.5, 1.5)
    torch.save(enc.state_dict(), os.path.join(out, "encoder.pt"))
    write_safetensors(os.path.join(out, "decoder.safetensors"), dict(dec.state_dict()))
    run_importer(os.path.join(out, "encoder.pt"), "--module", "encoder_layer", "--heads", "2",
                 "--activation", "gelu", "--norm-first", "--name", "encoder", "--dims", "shared", "--type", "double", "-o",
                 os.path.join(out, "encoder.hpp"))
    # The same encoder layer and nn.Linear as cxmat::q8's int8 modules, calibrated on the 16 inputs of
    # calibration.npz (x is held out).
    run_q8_importer(os.path.join(out, "encoder.pt"), "--module", "encoder_layer", "--heads", "2",
                 "--activation", "gelu", "--norm-first", "--name", "encoder_q8", "--dims", "shared", "--type", "q8",
                 "--calibration", os.path.join(out, "calibration.npz"), "-o", os.path.join(out, "encoder_q8.hpp"))
    run_q8_importer(os.path.join(out, "linear.npz"), "--module", "linear", "--name", "lin_q8", "--type", "q8",
                 "--calibration", os.path.join(out, "calibration.npz"), "-o", os.path.join(out, "linear_q8.hpp"))
    run_importer(os.path.join(out, "decoder.safetensors"), "--module", "decoder_layer", "--heads", "4", "--post-norm",
                 "--name", "decoder", "--dims", "shared", "--type", "double", "-o", os.path.join(out, "decoder.hpp"))
    # The decoder layer as cxmat::q8's int8 layer, calibrated on 16 inputs like x (those of
    # calibration.npz) paired with 16 memories like x_kv ('x' and 'memory' of calibration_decoder.npz;
    # x and x_kv are held out).
    np.savez(os.path.join(out, "calibration_decoder.npz"), x=np_inputs,
             memory=torch.randn(16, 3, 8, dtype=torch.float64).numpy())
    run_q8_importer(os.path.join(out, "decoder.safetensors"), "--module", "decoder_layer", "--heads", "4", "--post-norm",
                 "--name", "decoder_q8", "--dims", "shared", "--type", "q8", "--calibration",
                 os.path.join(out, "calibration_decoder.npz"), "-o", os.path.join(out, "decoder_q8.hpp"))
    memory_keep = [True, False, True]
    memory_padding = torch.tensor([not k for k in memory_keep])  # PyTorch: True = ignore
    with torch.no_grad():
        lines.append(matrix("encoder_plain", enc(x)))
        lines.append(matrix("encoder_padded", enc(x, src_key_padding_mask=padding)))
        lines.append(matrix("decoder_causal", dec(x, x_kv, tgt_mask=causal)))
        lines.append(bool_row("memory_keep", memory_keep))
        lines.append(matrix("decoder_memory_padded",
                            dec(x, x_kv, tgt_mask=causal, memory_key_padding_mask=memory_padding)))

    # Encoder layers with the activations given as functions: F.silu (post-norm) and GELU's tanh
    # form (pre-norm), --activation silu and gelu_tanh.
    functional = torch.nn.functional
    activations = {"silu": functional.silu, "gelu_tanh": lambda v: functional.gelu(v, approximate="tanh")}
    for name, function in activations.items():
        layer = torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, activation=function,
                                                 norm_first=name == "gelu_tanh").double().eval()
        torch.save(layer.state_dict(), os.path.join(out, f"encoder_{name}.pt"))
        run_importer(os.path.join(out, f"encoder_{name}.pt"), "--module", "encoder_layer", "--heads", "2",
                     "--activation", name, "--norm-first" if name == "gelu_tanh" else "--post-norm", "--name",
                     f"encoder_{name}", "--dims", "shared", "--type", "double", "-o",
                     os.path.join(out, f"encoder_{name}.hpp"))
        with torch.no_grad():
            lines.append(matrix(f"encoder_{name}_plain", layer(x)))

    # nn.TransformerDecoder of 2 layers without a final norm, and nn.TransformerEncoder of 2 layers with one.
    stack = torch.nn.TransformerDecoder(torch.nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0), 2).double().eval()
    enc_stack = torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(8, 2, 12, dropout=0.0), 2,
                                            norm=torch.nn.LayerNorm(8)).double().eval()
    torch.save(stack.state_dict(), os.path.join(out, "decoder_stack.pt"))
    torch.save(enc_stack.state_dict(), os.path.join(out, "encoder_stack.pt"))
    run_importer(os.path.join(out, "decoder_stack.pt"), "--module", "decoder", "--heads", "2", "--post-norm", "--name",
                 "decoder_stack", "--dims", "shared", "--type", "double", "-o", os.path.join(out, "decoder_stack.hpp"))
    run_importer(os.path.join(out, "encoder_stack.pt"), "--module", "encoder", "--heads", "2", "--post-norm", "--name",
                 "encoder_stack", "--dims", "stack12", "--type", "double", "-o", os.path.join(out, "encoder_stack.hpp"))
    # The stacks as int8 layers (--type q8), each layer calibrated on the 16 inputs (input / memory pairs for the
    # decoder) through the layers before it.
    run_q8_importer(os.path.join(out, "decoder_stack.pt"), "--module", "decoder", "--heads", "2", "--post-norm", "--name",
                 "decoder_stack_q8", "--dims", "shared", "--type", "q8", "--calibration",
                 os.path.join(out, "calibration_decoder.npz"), "-o", os.path.join(out, "decoder_stack_q8.hpp"))
    run_q8_importer(os.path.join(out, "encoder_stack.pt"), "--module", "encoder", "--heads", "2", "--post-norm", "--name",
                 "encoder_stack_q8", "--dims", "stack12", "--type", "q8", "--calibration",
                 os.path.join(out, "calibration.npz"), "-o", os.path.join(out, "encoder_stack_q8.hpp"))
    with torch.no_grad():
        lines.append(matrix("decoder_stack_causal", stack(x, x_kv, tgt_mask=causal)))
        lines.append(matrix("encoder_stack_plain", enc_stack(x)))

    # Every float dtype through the tensors module: values must arrive exactly.
    mixed = {"emb.weight": torch.randn(3, 4).to(torch.float16), "norm.bias": torch.randn(6).to(torch.bfloat16),
             "proj.weight": torch.randn(2, 3)}
    write_safetensors(os.path.join(out, "mixed.safetensors"), mixed)
    run_importer(os.path.join(out, "mixed.safetensors"), "--module", "tensors", "--name", "mixed", "--type",
                 "double", "-o", os.path.join(out, "mixed.hpp"))
    run_importer(os.path.join(out, "mixed.safetensors"), "--module", "tensors", "--name", "mixed_float", "-o",
                 os.path.join(out, "mixed_float.hpp"))
    for key, t in mixed.items():
        lines.append(matrix("mixed_" + key.replace(".", "_"), t))
    # float32 values of every magnitude (subnormal to near the largest), written as float literals.
    wide = torch.cat([torch.randn(64) * 10.0 ** torch.randint(-40, 38, (64,)), torch.tensor([1e-45, 3.4e38])])
    wide = wide.to(torch.float32).reshape(2, 33)
    write_safetensors(os.path.join(out, "wide.safetensors"), {"wide": wide})
    run_importer(os.path.join(out, "wide.safetensors"), "--module", "tensors", "--name", "wide", "-o",
                 os.path.join(out, "wide.hpp"))
    lines.append(matrix("wide_values", wide))

    lines += ["", "}  // namespace ref", ""]
    with open(os.path.join(out, "reference.hpp"), "w") as f:
        f.write("\n".join(lines))


if __name__ == "__main__":
    main()
