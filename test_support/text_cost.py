#!/usr/bin/env python3
"""Measures what the text layer costs the constant evaluator, and writes the table of docs/text.md.

    python3 test_support/text_cost.py [--compiler g++ --compiler clang++-19] [--write docs/text.md]

For each compiler and tokenizer (char_tokenizer, the tiny llama2.c and GPT-2 tokenizers of
test_support/text/, and a synthetic tokenizer.bin of 32000 pieces, the size of llama2.c's), it
measures the compiler's processor time for -fsyntax-only (best of three runs):
  read     a unit that constructs the tokenizer in a constant expression, minus one without it;
           where the compiler's default limit is too small, the smallest power of two that suffices
           (and the rest is measured under it)
  encode   a unit with 8 encodes of L bytes (each its own constant expression), minus the read
           unit, per encode, with the runs' spread (where the spread is larger, "< spread (noise)") for L = 64 and 256 (llama's merge loop is quadratic in the length)
  steps    the compiler's own count (clang: steps, g++: operations) for one constant expression
           that reads the tokenizer, and one that reads it and encodes L bytes, minus the first:
           the least -fconstexpr-steps / -fconstexpr-ops-limit that compiles it, bisected to 0.2 %
           (deterministic, unlike the times; not measured for the tokenizer over the default limit)
  longest  the longest text (doubling from 64 bytes up to 4096) that encodes within the limits
           (clang: -fconstexpr-steps, 1048576 by default; g++: -fconstexpr-ops-limit, 2^25)
The text is English-like (the tiny tokenizers' corpus repeated), so merges happen as in a prompt.
"""
import argparse
import pathlib
import random
import resource
import struct
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
BEGIN = "<!-- text-cost begin (test_support/text_cost.py --write docs/text.md) -->"
END = "<!-- text-cost end -->"
TEXT = "the cat sat on the mat. hello world, it's a small world and they're here. "

TOKENIZERS = {
    "char_tokenizer (27 chars)": (
        "",
        'constexpr cxmat::char_tokenizer tok{"abcdefghijklmnopqrstuvwxyz .,\'"};',
        "{text}",
    ),
    "llama2.c, tiny (330 pieces)": (
        '#include "test_support/text/tiny_llama.hpp"',
        "constexpr auto tok = cxmat::read_llama_tokenizer<text_reference::tiny_llama_bin_vocab, "
        "text_reference::tiny_llama_bin_piece_bytes>(text_reference::tiny_llama_bin);",
        "{text}",
    ),
    "GPT-2, tiny (284 tokens, 28 merges)": (
        '#include "test_support/text/tiny_gpt2.hpp"',
        "constexpr auto tok = cxmat::make_gpt2_tokenizer(text_reference::tiny_gpt2_starts, "
        "text_reference::tiny_gpt2_chars, text_reference::tiny_gpt2_merge_ids);",
        "{text}",
    ),
    "llama2.c, 32000 pieces (synthetic)": (
        '#include "big_llama.hpp"',
        "constexpr auto tok = cxmat::read_llama_tokenizer<big_vocab, big_piece_bytes>(big_bin);",
        "{text}",
    ),
}


def synthetic_llama(path):
    """A tokenizer.bin of 32000 pieces: the tiny one's first pieces, then random lowercase pieces."""
    rng = random.Random(7)
    pieces = [b"<unk>", b"\n<s>\n", b"\n</s>\n"] + [b"<0x%02X>" % b for b in range(256)]
    seen = set(pieces)
    for c in sorted(set(TEXT)):
        pieces.append(c.encode())
        seen.add(c.encode())
    while len(pieces) < 32000:
        p = (" " if rng.random() < 0.5 else "") + "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(2, 9)))
        if p.encode() not in seen:
            seen.add(p.encode())
            pieces.append(p.encode())
    data = struct.pack("<i", max(len(p) for p in pieces))
    for i, p in enumerate(pieces):
        data += struct.pack("<fi", -float(i), len(p)) + p
    total = sum(len(p) for p in pieces)
    lines = ["#pragma once", "#include <cstddef>", f"inline constexpr std::size_t big_vocab = {len(pieces)};",
             f"inline constexpr std::size_t big_piece_bytes = {total};", "inline constexpr unsigned char big_bin[] = {"]
    for start in range(0, len(data), 32):
        lines.append(",".join(str(b) for b in data[start : start + 32]) + ",")
    lines.append("};")
    path.write_text("\n".join(lines) + "\n")


def unit(tokenizer, length, with_tok=True, copies=1):
    include, declare, _ = TOKENIZERS[tokenizer]
    body = ["#include <cxmat/text.hpp>", include, "namespace {"]
    if with_tok:
        body.append(declare)
        body.append("static_assert(tok.vocab_size() > 0);")
    for k in range(copies if length else 0):
        # Each copy its own text (the corpus from another offset) and its own constant expression.
        text = (TEXT * (length // len(TEXT) + 2))[k * 7 : k * 7 + length]
        body.append(f'constexpr auto e{k} = cxmat::encode<{length + 3}>(tok, "{text}");')
        body.append(f"static_assert(e{k}.ok());")
    body.append("}")
    return "\n".join(body) + "\n"


def limit_option(compiler, limit):
    if limit is None:
        return []
    return [f"-fconstexpr-steps={limit}"] if "clang" in compiler else [f"-fconstexpr-ops-limit={limit}"]


def compile_time(compiler, source, folder, runs=3, limit=None):
    """The compiler's processor time (user + system) for -fsyntax-only, best of runs, and the spread
    of the runs (max - min); None if it fails."""
    path = folder / "unit.cpp"
    path.write_text(source)
    times = []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        result = subprocess.run([compiler, "-std=c++20", "-fsyntax-only", f"-I{ROOT / 'include'}", f"-I{ROOT}",
                                 f"-I{folder}", *limit_option(compiler, limit), str(path)], capture_output=True, text=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if result.returncode != 0:
            return None
        times.append((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))
    return min(times), max(times) - min(times)


def lambda_unit(tokenizer, length):
    """One constant expression that reads the tokenizer and (length > 0) encodes a text."""
    include, declare, _ = TOKENIZERS[tokenizer]
    text = (TEXT * (length // len(TEXT) + 1))[:length]
    local = declare.replace("constexpr auto tok", "const auto tok").replace("constexpr cxmat::", "const cxmat::")
    body = ["#include <cxmat/text.hpp>", include, "namespace {", "constexpr bool ok = [] {", "  " + local]
    if length:
        body.append(f'  return cxmat::encode<{length + 3}>(tok, "{text}").ok();')
    else:
        body.append("  return tok.vocab_size() > 0;")
    body += ["}();", "static_assert(ok);", "}"]
    return "\n".join(body) + "\n"


def fits(compiler, source, folder, limit):
    path = folder / "steps.cpp"
    path.write_text(source)
    result = subprocess.run([compiler, "-std=c++20", "-fsyntax-only", f"-I{ROOT / 'include'}", f"-I{ROOT}",
                             f"-I{folder}", *limit_option(compiler, limit), str(path)], capture_output=True, text=True)
    return result.returncode == 0


def steps(compiler, source, folder):
    """The least limit (clang: steps, g++: operations) under which the unit compiles, within 0.2 %."""
    low, high = 1, 1024
    while not fits(compiler, source, folder, high):
        low, high = high, high * 4
        if high > 2**31:
            return None
    while high - low > max(1, low // 500):
        middle = (low + high) // 2
        if fits(compiler, source, folder, middle):
            high = middle
        else:
            low = middle
    return high


COPIES = 8


def measure(compiler, tokenizer, folder):
    base, _ = compile_time(compiler, unit(tokenizer, 0, with_tok=False), folder)
    limit = None
    read = compile_time(compiler, unit(tokenizer, 0), folder)
    if read is None:
        # The smallest power of two that the read fits in, and the rest measured under it.
        for power in range(26, 32):
            if compile_time(compiler, unit(tokenizer, 0), folder, runs=1, limit=2**power) is not None:
                limit = 2**power
                read = compile_time(compiler, unit(tokenizer, 0), folder, limit=limit)
                break
        if read is None:
            return {"read": None, "limit": None, "encode": {}, "longest": 0, "steps": {}}
    encode = {}
    for length in (64, 256):
        t = compile_time(compiler, unit(tokenizer, length, copies=COPIES), folder, limit=limit)
        # The time per encode, and what the runs' spread leaves uncertain in it.
        encode[length] = None if t is None else ((t[0] - read[0]) / COPIES, (t[1] + read[1]) / COPIES)
    counted = {}
    if limit is None:
        # Deterministic counts: the compiler's own step or operation count of one constant expression
        # that reads (and encodes), found by bisecting the limit; the encode's is the difference.
        read_steps = steps(compiler, lambda_unit(tokenizer, 0), folder)
        counted["read"] = read_steps
        for length in (64, 256):
            total = steps(compiler, lambda_unit(tokenizer, length), folder)
            counted[length] = None if total is None or read_steps is None else total - read_steps
    longest = 0
    length = 64
    while length <= 4096:
        if compile_time(compiler, unit(tokenizer, length), folder, runs=1, limit=limit) is None:
            break
        longest = length
        length *= 2
    return {"read": read[0] - base, "limit": limit, "encode": encode, "longest": longest, "steps": counted}


def table(results):
    lines = ["| compiler | tokenizer | read (s) | read (steps) | encode 64 bytes (steps) | encode 256 bytes "
             "(steps, per byte) | encode 64 / 256 bytes (ms) | longest text (bytes) |",
             "|---|---|---:|---:|---:|---:|---:|---:|"]
    for (compiler, tokenizer), r in results.items():
        if r["read"] is None:
            lines.append(f"| {compiler} | {tokenizer} | over 2^31 | - | - | - | - | - |")
            continue
        option = ("-fconstexpr-steps" if "clang" in compiler else "-fconstexpr-ops-limit")
        read = f"{max(r['read'], 0):.2f}"
        if r["limit"]:
            read += f" (with {option}=2^{r['limit'].bit_length() - 1})"
        times = []
        for length in (64, 256):
            t = r["encode"].get(length)
            if t is None:
                times.append("over the limit")
            elif t[0] <= t[1]:
                times.append(f"< {t[1] * 1000:.0f}")
            else:
                times.append(f"{t[0] * 1000:.0f} ± {t[1] * 1000:.0f}")
        counted = r["steps"]

        def count(key):
            value = counted.get(key)
            return "-" if value is None else f"{value:,}"

        per_byte = "" if counted.get(256) is None else f", {counted[256] / 256:,.0f}"
        longest = "-" if r["longest"] == 0 else (f"{r['longest']}" if r["longest"] < 4096 else ">= 4096")
        lines.append(f"| {compiler} | {tokenizer} | {read} | {count('read')} | {count(64)} | {count(256)}{per_byte} | "
                     f"{' / '.join(times)} | {longest} |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--compiler", action="append")
    parser.add_argument("--write", type=pathlib.Path)
    args = parser.parse_args()
    compilers = args.compiler or ["g++", "clang++-19"]
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = pathlib.Path(tmp)
        synthetic_llama(folder / "big_llama.hpp")
        for compiler in compilers:
            version = subprocess.run([compiler, "--version"], capture_output=True, text=True).stdout.split("\n")[0]
            for tokenizer in TOKENIZERS:
                results[(version, tokenizer)] = measure(compiler, tokenizer, folder)
                print(table({(version, tokenizer): results[(version, tokenizer)]}).split("\n")[-1], flush=True)
    text = table(results)
    if args.write:
        doc = args.write.read_text()
        head, rest = doc.split(BEGIN)
        _, tail = rest.split(END)
        args.write.write_text(head + BEGIN + "\n" + text + "\n" + END + tail)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
