#!/usr/bin/env python3
"""The importer's language models (--module llama, gpt2) on broken and hostile files: llama2.c
checkpoints, GGUF files and Hugging Face safetensors with config.json, made on the fly by
test_support/lm_writers.py and then cut, patched or given a config that does not fit. Each gets
one line naming the problem, exit status 1, no header and no numpy warning; a good file of each
kind is imported (so a refusal is not the importer failing on everything).
"""
import contextlib
import io
import json
import os
import runpy
import shutil
import struct
import sys
import tempfile
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "test_support"))
import lm_writers as writers  # noqa: E402

IMPORTER_MAIN = runpy.run_path(os.path.join(ROOT, "scripts", "cxmat_import.py"))["main"]
TMP = tempfile.mkdtemp(prefix="cxmat_lm_files_")
failures = []
checks = 0


def run(path, *args):
    out = os.path.join(TMP, "out.hpp")
    if os.path.exists(out):
        os.remove(out)
    stderr = io.StringIO()
    with contextlib.redirect_stderr(stderr), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            status = IMPORTER_MAIN([path, *args, "--name", "m", "-o", out])
        except SystemExit as e:
            status = e.code
    header = open(out).read() if os.path.exists(out) else None
    return status, stderr.getvalue().strip(), header, [str(w.message) for w in caught]


def expect_error(what, path, args, *fragments):
    global checks
    checks += 1
    status, err, header, warned = run(path, *args)
    lines = err.splitlines()
    if (status == 1 and header is None and len(lines) == 1 and lines[0].startswith("cxmat_import: ") and not warned
            and all(f in lines[0] for f in fragments)):
        print(f"ok: {what}: {lines[0]}")
    else:
        failures.append(f"{what}: status {status}, header {'written' if header else 'absent'}, stderr {err!r}, "
                        f"warnings {warned}; expected one line with {fragments}")


def expect_header(what, path, args, *fragments):
    global checks
    checks += 1
    status, err, header, warned = run(path, *args)
    if status != 0 or header is None or warned or not all(f in header for f in fragments):
        failures.append(f"{what}: status {status}, stderr {err!r}, warnings {warned}; expected a header with "
                        f"{fragments}")
    else:
        print(f"ok: {what}")


def path(name):
    return os.path.join(TMP, name)


def write(name, data):
    with open(path(name), "wb") as f:
        f.write(data)
    return path(name)


def read(name):
    with open(path(name), "rb") as f:
        return f.read()


LLAMA = ["--module", "llama"]


def llama2c(model):
    writers.write_llama2c(model, path("v0.bin"), 0)
    writers.write_llama2c(model, path("v1.bin"), 1)
    writers.write_llama2c(model, path("v2.bin"), 2)
    v0, v1, v2 = read("v0.bin"), read("v1.bin"), read("v2.bin")
    expect_header("a llama2.c version 0 checkpoint", path("v0.bin"), LLAMA, "llama2.c checkpoint (legacy version 0",
                  "// wq[1]ᵀ: 32 x 32", "cxmat::rotary_layout::interleaved", "inline constexpr auto m_d_ff = m_dims::d_ff;")
    # int8 groups: a version-2 file's own, or quantized in any group size (a row's last group the rest).
    expect_header("a llama2.c version 2 checkpoint as int8 groups", path("v2.bin"), LLAMA + ["--type", "q8"],
                  "cxmat::q8_group_weights<32>", "the file's int8 groups")
    expect_header("a float checkpoint quantized in groups of 16", path("v0.bin"), LLAMA + ["--type", "q8", "--group-size",
                  "16"], "cxmat::q8_group_weights<16>", "quantized in groups of 16")
    expect_header("a group size that does not divide the widths", path("v0.bin"),
                  LLAMA + ["--type", "q8", "--group-size", "24"], "cxmat::q8_group_weights<24>",
                  "32 x 32 int8 (quantized in groups of 24), 2 scales per row")
    expect_error("a group size of 0", path("v0.bin"), LLAMA + ["--type", "q8", "--group-size", "0"],
                 "--group-size 0: not a positive group size")
    expect_error("--type q8 for a GPT-2", path("v0.bin"), ["--module", "gpt2", "--type", "q8"], "--type q8",
                 "gpt2")
    # Versions 1 and 2 (int8 groups holding these weights exactly): version 0's model, number for number.
    global checks
    reference = body(run(path("v0.bin"), *LLAMA)[2])
    for version in ("v1", "v2"):
        checks += 1
        got = run(path(f"{version}.bin"), *LLAMA)[2]
        if got is None or body(got) != reference:
            failures.append(f"a llama2.c {version} checkpoint: not the version 0 file's model")
        else:
            print(f"ok: a llama2.c {version} checkpoint gives the version 0 file's model")
    expect_error("a truncated version 0 checkpoint", write("cut.bin", v0[:-4]), LLAMA, "cut.bin", "truncated",
                 "implies 83100")
    expect_error("a version 0 checkpoint with trailing bytes", write("long.bin", v0 + b"\0" * 4), LLAMA,
                 "trailing bytes")
    expect_error("a version 0 header shorter than 28 bytes", write("tiny.bin", v0[:20]), LLAMA,
                 "truncated llama2.c checkpoint (20 bytes")
    huge = struct.pack("<7i", 1 << 20, 1 << 22, 1000, 8, 8, 32000, 2048) + v0[28:]
    expect_error("a header claiming a huge model", write("huge.bin", huge), LLAMA, "claims", "more than a header")
    zero = struct.pack("<i", 0) + v0[4:]
    expect_error("a header with dim 0", write("zero.bin", zero), LLAMA, "dim is 0")
    odd = v0[:12] + struct.pack("<i", 5) + v0[16:]
    expect_error("heads that do not divide dim", write("heads.bin", odd), LLAMA, "n_heads 5 does not divide dim 32")
    kv = v0[:16] + struct.pack("<i", 3) + v0[20:]
    expect_error("key/value heads that do not divide heads", write("kv.bin", kv), LLAMA, "n_kv_heads 3")
    version = v1[:4] + struct.pack("<i", 3) + v1[8:]
    expect_error("an unknown llama2.c version", write("v3.bin", version), LLAMA, "version 3 is not supported")
    expect_error("a truncated version 1 checkpoint", write("cut1.bin", v1[:300]), LLAMA, "version 1", "truncated")
    flag = v1[:36] + b"\x07" + v1[37:]
    expect_error("a shared-classifier flag that is not 0 or 1", write("flag.bin", flag), LLAMA,
                 "shared_classifier flag is 7")
    nan = bytearray(v1)
    at = 256 + 4 * (5 * 32) + 4 * (32 * 32 + 5)  # the header, 5 norms, the embedding: wq[0][0][5]
    nan[at:at + 4] = struct.pack("<f", float("nan"))
    expect_error("a NaN weight", write("nan.bin", bytes(nan)), LLAMA, "tensor 'wq[0]'", "non-finite", "[0, 5]")
    expect_header("a llama2.c version 2 checkpoint", path("v2.bin"), LLAMA, "version 2, int8 in groups of 32")
    # An infinite scale (the first of the embedding's groups): inf, and 0 times inf, are refused by name.
    scales = 256 + 4 * 5 * 32 + (32 * 32 + 2 * (32 * 32 * 2 + 16 * 32 * 2 + 64 * 32 * 3) + 32 * 32)
    inf = v2[:scales] + struct.pack("<f", float("inf")) + v2[scales + 4:]
    expect_error("an infinite int8 group scale", write("inf2.bin", inf), LLAMA, "tensor 'token_embedding_table'",
                 "non-finite")
    group = v2[:37] + struct.pack("<i", 0) + v2[41:]
    expect_error("a version 2 group size of 0", write("g0.bin", group), LLAMA, "group size 0")
    group = v2[:37] + struct.pack("<i", 48) + v2[41:]
    expect_error("a version 2 group size that does not divide a tensor", write("g48.bin", group), LLAMA,
                 "group size 48 does not divide")
    expect_error("a truncated version 2 checkpoint", write("cut2.bin", v2[:-1]), LLAMA, "version 2", "truncated")


def gguf_info_offset(data, name):
    """The byte offset of a tensor info's type field (the offset field follows it)."""
    encoded = struct.pack("<Q", len(name)) + name.encode()
    at = data.index(encoded) + len(encoded)
    (n_dims,) = struct.unpack_from("<I", data, at)
    return at + 4 + 8 * n_dims


def gguf(model):
    global checks
    writers.write_gguf(model, path("m.gguf"), "F32")
    good = read("m.gguf")
    expect_header("a GGUF file", path("m.gguf"), LLAMA, "// blk.1.attn_q.weight (F32)ᵀ: 32 x 32")
    # F16, BF16 and Q8_0 tensors of weights they hold exactly: the F32 file's model, number for number.
    reference = body(run(path("m.gguf"), *LLAMA)[2])
    for kind in ("F16", "BF16", "Q8_0"):
        checks += 1
        writers.write_gguf(model, path(f"{kind}.gguf"), kind)
        got = run(path(f"{kind}.gguf"), *LLAMA)[2]
        if got is None or body(got) != reference:
            failures.append(f"a GGUF file of {kind} tensors: not the F32 file's model")
        else:
            print(f"ok: a GGUF file of {kind} tensors gives the F32 file's model")
    expect_error("a truncated GGUF file", write("cut.gguf", good[:-100]), LLAMA, "tensor 'output.weight'",
                 "outside the file")
    expect_error("a GGUF file cut in its metadata", write("meta.gguf", good[:200]), LLAMA, "truncated or corrupt")
    expect_error("not a GGUF file", write("x.gguf", b"GGUX" + good[4:]), LLAMA, "not a GGUF file")
    expect_error("an unknown GGUF version", write("v1.gguf", good[:4] + struct.pack("<I", 1) + good[8:]), LLAMA,
                 "GGUF version 1 is not supported")
    key = good[:24] + struct.pack("<Q", 1 << 60) + good[32:]
    expect_error("a metadata key claiming a huge length", write("key.gguf", key), LLAMA, "metadata key 0 needs")
    counts = good[:8] + struct.pack("<Q", 1 << 40) + good[16:]
    expect_error("a huge tensor count", write("count.gguf", counts), LLAMA, "tensor infos needs", "bytes")
    at = gguf_info_offset(good, "blk.0.attn_q.weight")
    q4 = good[:at] + struct.pack("<I", 12) + good[at + 4:]
    expect_error("a tensor type that is not read (Q4_K)", write("q4.gguf", q4), LLAMA,
                 "tensor 'blk.0.attn_q.weight': GGML type 12 (Q4_K) is not supported")
    unknown = good[:at] + struct.pack("<I", 99) + good[at + 4:]
    expect_error("an unknown tensor type", write("t99.gguf", unknown), LLAMA, "GGML type 99 (unknown)")
    past = good[:at + 4] + struct.pack("<Q", 1 << 50) + good[at + 12:]
    expect_error("a tensor offset past the file", write("past.gguf", past), LLAMA,
                 "tensor 'blk.0.attn_q.weight': data at offset 1125899906842624")
    at = gguf_info_offset(good, "token_embd.weight") - 16
    dims = good[:at] + struct.pack("<QQ", 1 << 31, 1 << 31) + good[at + 16:]
    expect_error("a tensor claiming huge dimensions", write("dims.gguf", dims), LLAMA, "more than", "weights")
    writers.write_gguf(model, path("layers.gguf"), extra_metadata={"llama.block_count": 3})
    expect_error("a block count the tensors do not have", path("layers.gguf"), LLAMA,
                 "tensor 'blk.2.attn_norm.weight': missing key")
    writers.write_gguf(model, path("ffn.gguf"), extra_metadata={"llama.feed_forward_length": 48})
    expect_error("a feed-forward length the tensors do not have", path("ffn.gguf"), LLAMA,
                 "tensor 'blk.0.ffn_gate.weight': shape [64, 32] does not fit", "expected [48, 32]")
    writers.write_gguf(model, path("arch.gguf"), extra_metadata={"general.architecture": "gpt2"})
    expect_error("another architecture", path("arch.gguf"), LLAMA, "general.architecture is 'gpt2'")
    writers.write_gguf(model, path("align.gguf"), extra_metadata={"general.alignment": 24})
    expect_error("an alignment that is not a power of two", path("align.gguf"), LLAMA, "general.alignment 24")
    bad = dict(model, norm=np.where(np.arange(32) == 3, np.inf, model["norm"]))
    writers.write_gguf(bad, path("inf.gguf"))
    expect_error("an infinite weight", path("inf.gguf"), LLAMA, "tensor 'output_norm.weight'", "non-finite", "inf")


def hf(model):
    folder = path("hf")
    writers.write_hf_llama(model, folder)
    st = os.path.join(folder, "model.safetensors")
    expect_header("a Hugging Face LLaMA", st, LLAMA, "// model.layers.1.self_attn.q_proj.weightᵀ: 32 x 32",
                  "cxmat::rotary_layout::rotate_half")
    config = writers.hf_llama_config(model)

    def with_config(**changes):
        name = path("config.json")
        with open(name, "w") as f:
            json.dump(dict(config, **changes), f)
        return ["--config", name]

    expect_error("a config with another layer count", st, LLAMA + with_config(num_hidden_layers=3),
                 "'num_hidden_layers' is 3, but the weights have 2")
    expect_error("a config with heads that do not divide the width", st, LLAMA + with_config(num_attention_heads=5),
                 "5 heads")
    expect_error("a config with another intermediate size", st, LLAMA + with_config(intermediate_size=48),
                 "mlp.gate_proj.weight': shape [64, 32] does not fit")
    expect_error("a tied config for an untied file", st, LLAMA + with_config(tie_word_embeddings=True),
                 "'lm_head.weight'", "differs from the embedding")
    expect_error("rope scaling", st, LLAMA + with_config(rope_scaling={"type": "linear", "factor": 2.0}),
                 "rope_scaling")
    name = path("bad.json")
    with open(name, "w") as f:
        f.write("{not json")
    expect_error("a corrupt config.json", st, LLAMA + ["--config", name], "corrupt config.json")
    tensors = writers.hf_llama_tensors(model)
    writers.write_safetensors({"base." + k: v for k, v in tensors.items()}, path("prefixed.safetensors"))
    expect_error("keys under another prefix", path("prefixed.safetensors"), LLAMA + with_config(),
                 "tensor 'model.embed_tokens.weight': missing key", "give --prefix 'base.model.'")
    del tensors["lm_head.weight"]
    writers.write_safetensors(tensors, path("nohead.safetensors"))
    expect_error("an untied model without lm_head.weight", path("nohead.safetensors"), LLAMA + with_config(),
                 "tensor 'lm_head.weight': missing key")
    big = dict(writers.hf_llama_tensors(model))
    big["model.norm.weight"] = np.where(np.arange(32) == 2, 1e300, 1.0)
    writers.write_safetensors(big, path("big.safetensors"), "F64")
    expect_error("a float64 weight too large for float", path("big.safetensors"), LLAMA + with_config(),
                 "tensor 'model.norm.weight'", "does not fit in a float", "at index [2]")
    expect_header("... and imported as double", path("big.safetensors"), LLAMA + with_config() + ["--type", "double"],
                  "1e+300")
    expect_error("a context of 0", st, LLAMA + ["--context", "0"], "--context 0: not a positive integer")
    expect_error("a negative rotary base", st, LLAMA + ["--rope-theta", "-1"], "--rope-theta -1.0: not a positive")
    expect_header("a Hugging Face llama with --type q8", st, LLAMA + ["--type", "q8"], "cxmat::q8_group_weights<",
                  "cxmat::rotary_layout::rotate_half")
    expect_header("a Hugging Face llama stored in bfloat16", st, LLAMA + ["--type", "bf16"],
                  "cxmat::half_weights<cxmat::half_format::bfloat16>", "32 x 32 in bf16")
    wide = dict(writers.hf_llama_tensors(model))
    wide["model.layers.1.self_attn.q_proj.weight"] = np.where(np.arange(32 * 32).reshape(32, 32) == 5, 7e4, 0.5)
    writers.write_safetensors(wide, path("wide.safetensors"))
    expect_error("a weight past float16's largest, stored in float16", path("wide.safetensors"),
                 LLAMA + with_config() + ["--type", "f16"], "tensor 'model.layers.1.self_attn.q_proj.weight'",
                 "70000.0 at [0, 5]", "does not fit in f16")
    expect_header("... and in bfloat16", path("wide.safetensors"), LLAMA + with_config() + ["--type", "bf16"],
                  "0x4789")
    # Meta's names: interleaved as stored; output.weight equal to the embedding (llama2.c's model.py
    # shares them) is a tied head.
    writers.write_meta_llama(dict(model, output=None), path("meta"))
    meta = path("meta/model.safetensors")
    expect_header("Meta's names, the head the embedding", meta, LLAMA, "cxmat::rotary_layout::interleaved",
                  "cxmat::tied_head", "// layers.1.attention.wq.weightᵀ: 32 x 32", "params.json")
    expect_header("... with the head kept apart", meta, LLAMA + ["--untied"], "// output.weight: 32 x 32")


def gpt2():
    g = writers.random_gpt2(3)
    folder = path("gpt2")
    writers.write_hf_gpt2(g, folder)
    st = os.path.join(folder, "model.safetensors")
    expect_header("a Hugging Face GPT-2", st, ["--module", "gpt2"], "// transformer.h.1.attn.c_attn.weight[:, 32:64] (k)",
                  "cxmat::gpt2_model<float")
    expect_header("a GPT-2 with fewer positions", st, ["--module", "gpt2", "--context", "8"],
                  "transformer.wpe.weight[0:8]")
    expect_error("more positions than the model has", st, ["--module", "gpt2", "--context", "32"],
                 "the model has 16 positions")
    expect_error("a GPT-2 stored in float16", st, ["--module", "gpt2", "--type", "f16"],
                 "--type f16 is not written for --module gpt2")
    t = {"transformer." + k: v for k, v in g["weights"].items()}
    t["lm_head.weight"] = g["weights"]["wte.weight"] * 2
    os.makedirs(path("g2"))
    writers.write_safetensors(t, path("g2/head.safetensors"))
    expect_error("a GPT-2 head that is not the embedding", path("g2/head.safetensors"),
                 ["--module", "gpt2", "--config", os.path.join(folder, "config.json")], "'lm_head.weight'")
    expect_error("a GPT-2 without its heads", path("g2/head.safetensors"), ["--module", "gpt2"],
                 "'n_head' is needed (or --heads)")
    t = {"transformer." + k: v for k, v in g["weights"].items()}
    t["transformer.h.0.attn.c_attn.weight"] = t["transformer.h.0.attn.c_attn.weight"][:, :64]
    writers.write_safetensors(t, path("g2/cattn.safetensors"))
    expect_error("a c_attn of the wrong width", path("g2/cattn.safetensors"), ["--module", "gpt2", "--heads", "4"],
                 "'transformer.h.0.attn.c_attn.weight': shape [32, 64]", "expected [32, 96]")
    expect_error("a llama2.c file as GPT-2", path("v0.bin"), ["--module", "gpt2"], "reads Hugging Face GPT-2")


def body(header):
    """The header without its comments and its file names: the model's numbers and types."""
    return [line for line in header.splitlines() if not line.lstrip().startswith("//") and "static_assert" not in line]


def with_torch(torch):
    """State_dicts saved by torch.save (zip), read without PyTorch's unpickler: the same header as the
    safetensors file; a legacy (not zip) file is refused rather than read as llama2.c's."""
    global checks
    g = writers.random_gpt2(3)
    state = {"transformer." + k: torch.tensor(v, dtype=torch.float32) for k, v in g["weights"].items()}
    state["transformer.h.0.attn.bias"] = torch.ones(1, 1, 16, 16)  # the causal-mask buffer old files hold
    state["lm_head.weight"] = state["transformer.wte.weight"].clone()
    os.makedirs(path("gbin"))
    torch.save(state, path("gbin/pytorch_model.bin"))
    shutil.copy(path("gpt2/config.json"), path("gbin/config.json"))
    expected = run(path("gpt2/model.safetensors"), "--module", "gpt2")[2]
    got = run(path("gbin/pytorch_model.bin"), "--module", "gpt2")[2]
    checks += 1
    if got is None or expected is None or body(got) != body(expected):
        failures.append("a GPT-2 state_dict .bin: not the header of the same model's safetensors")
    else:
        print("ok: a GPT-2 state_dict .bin gives the safetensors file's model")
    torch.save({"w": torch.ones(2)}, path("legacy.bin"), _use_new_zipfile_serialization=False)
    expect_error("a legacy torch.save .bin", path("legacy.bin"), LLAMA, "a legacy (pre-1.6, not zip) torch.save file")


def main():
    try:
        model = writers.random_llama(5)
        llama2c(model)
        gguf(model)
        hf(model)
        gpt2()
        try:
            import torch
        except ImportError:
            torch = None
        if torch is not None:
            with_torch(torch)
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
    for f in failures:
        print("FAIL:", f)
    print(f"{checks} checks, {len(failures)} failed")
    if failures:
        return 1
    if torch is None:
        print(f"skipped: PyTorch is not installed for {sys.executable}, so state_dicts saved by torch.save are not "
              "tested (the checks above passed)")
        return 77
    return 0


if __name__ == "__main__":
    sys.exit(main())
