#!/usr/bin/env python3
"""Small tokenizer files in llama2.c's and GPT-2's formats, and plain reference encoders.

    python3 test_support/text_tokenizers.py --write   # rewrites test_support/text/
    python3 test_support/text_tokenizers.py --check   # exits 1 if a committed file differs
    python3 test_support/text_tokenizers.py --converters  # the converters refuse broken files

Writes test_support/text/:
  tiny_tokenizer.bin         llama2.c's format, 330 pieces: <unk>, BOS, EOS, the 256 byte pieces,
                             then pieces learned from a small corpus (scores: -merge order), two
                             pieces of equal score (ties) and one below llama2.c's -1e10 floor
  tiny_vocab.json, tiny_merges.txt   GPT-2's format: 256 byte tokens, merges learned from the
                             corpus, one merge listed twice, <|endoftext|>
  tiny_llama.hpp, tiny_gpt2.hpp      the headers of scripts/tokenizer_bin_to_header.py and
                             scripts/gpt2_bpe_to_header.py for those files
  text_reference.hpp         texts and the ids of the encoders below (and decoded texts), and
                             refused tokenizer.bin files (a piece longer than max_token_length,
                             a NaN score, truncated, a negative length)

The encoders are written from the formats' public descriptions as plainly as possible, and share
no code with the C++: llama2.c's encode rescans every pair after each merge and builds the
concatenated strings; GPT-2's splits with Python's re (GPT-2's pattern with ASCII classes) and
merges strings, as encoder.py's bpe does.
"""
import json
import pathlib
import random
import re
import struct
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
OUT = HERE / "text"
sys.path.insert(0, str(ROOT / "scripts"))
import gpt2_bpe_to_header  # noqa: E402  (the bytes-to-unicode table only)
import tokenizer_bin_to_header  # noqa: E402

CORPUS = (
    "the cat sat on the mat. the dog ate the hat! hello world, hello there. "
    "it's a small world and they're here; we've seen what we'd do. I'm 42 and 7 + 35 = 42. "
    "caf\u00e9 na\u00efve r\u00e9sum\u00e9 the end"
)


# ---------------------------------------------------------------- llama2.c (run.c's encode)
def llama_encode(pieces, scores, text, bos=True, eos=False):
    """pieces: list of bytes by id, scores: floats, text: bytes. Returns the ids."""
    lookup = {}
    for i, p in enumerate(pieces):
        lookup.setdefault(p, i)
    tokens = [1] if bos else []
    if text:
        tokens += [lookup[b" "]] if b" " in lookup else [ord(" ") + 3]
    i = 0
    while i < len(text):
        j = i + 1
        while j < len(text) and (text[j] & 0xC0) == 0x80 and j - i < 4:
            j += 1
        char = text[i:j]
        if char in lookup:
            tokens.append(lookup[char])
        else:
            tokens += [b + 3 for b in char]
        i = j
    while True:
        best_score, best_id, best_idx = -1e10, -1, -1
        for k in range(len(tokens) - 1):
            merged = pieces[tokens[k]] + pieces[tokens[k + 1]]
            if merged in lookup and scores[lookup[merged]] > best_score:
                best_score, best_id, best_idx = scores[lookup[merged]], lookup[merged], k
        if best_idx == -1:
            break
        tokens[best_idx : best_idx + 2] = [best_id]
    if eos:
        tokens.append(2)
    return tokens


def llama_decode(pieces, ids):
    out = b""
    previous = -1
    for token in ids:
        if token == -1:
            continue
        if token != 1:
            piece = pieces[token]
            if previous == 1 and piece.startswith(b" "):
                piece = piece[1:]
            m = re.fullmatch(rb"<0x([0-9A-Fa-f]{2})>", piece)
            out += bytes([int(m.group(1), 16)]) if m else piece
        previous = token
    return out


def float32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def train_merges(words, count):
    """Greedy BPE on lists of byte strings: the most frequent adjacent pair (first seen on ties)."""
    words = [list(w) for w in words]
    merges = []
    for _ in range(count):
        counts = {}
        for w in words:
            for a, b in zip(w, w[1:]):
                counts[(a, b)] = counts.get((a, b), 0) + 1
        if not counts:
            break
        pair = max(counts, key=lambda p: counts[p])
        if counts[pair] < 2:
            break
        merges.append(pair)
        for w in words:
            k = 0
            while k < len(w) - 1:
                if (w[k], w[k + 1]) == pair:
                    w[k : k + 2] = [w[k] + w[k + 1]]
                k += 1
    return merges


def tiny_llama():
    pieces = [b"<unk>", b"\n<s>\n", b"\n</s>\n"] + [b"<0x%02X>" % b for b in range(256)]
    scores = [0.0] * len(pieces)
    text = CORPUS.encode()
    chars = []
    for ch in CORPUS:
        c = ch.encode()
        if c not in chars:
            chars.append(c)
    for k, c in enumerate(sorted(chars)):
        pieces.append(c)
        scores.append(float32(-1000.0 - k))
    # sentencepiece's view: every word led by its space.
    words = [(b" " + w) for w in text.split(b" ")]
    words = [[w[i : i + 1] for i in range(len(w))] for w in words]
    words = [[bytes(p) for p in w] for w in words]
    for rank, (a, b) in enumerate(train_merges(words, 40)):
        if a + b not in pieces:
            pieces.append(a + b)
            scores.append(float32(-float(rank)))
    # Ties: "xy" and "yz" score the same, so "xyz" merges the first pair. Below the floor: "qq".
    for extra, score in ((b"x", -2000.0), (b"y", -2001.0), (b"z", -2002.0), (b"q", -2003.0)):
        if extra not in pieces:
            pieces.append(extra)
            scores.append(score)
    for extra, score in ((b"xy", -7.5), (b"yz", -7.5), (b"qq", -2e10)):
        pieces.append(extra)
        scores.append(score)
    max_len = max(len(p) for p in pieces)
    return pieces, scores, max_len


def tokenizer_bin(pieces, scores, max_len, lengths=None):
    data = struct.pack("<i", max_len)
    for i, (p, s) in enumerate(zip(pieces, scores)):
        length = len(p) if lengths is None else lengths.get(i, len(p))
        data += struct.pack("<fi", s, length) + p
    return data


# ---------------------------------------------------------------- GPT-2 (encoder.py's bpe)
GPT2_PATTERN = re.compile(
    rb"""'s|'t|'re|'ve|'m|'ll|'d| ?[A-Za-z\x80-\xff]+| ?[0-9]+| ?[^\sA-Za-z0-9\x80-\xff]+|\s+(?!\S)|\s+"""
)


def gpt2_split(text):
    return GPT2_PATTERN.findall(text)


def gpt2_bpe(word, ranks):
    """word: bytes; ranks: {(left bytes, right bytes): rank}. Returns the list of byte strings."""
    parts = [word[i : i + 1] for i in range(len(word))]
    while len(parts) > 1:
        pairs = set(zip(parts, parts[1:]))
        best = min(pairs, key=lambda p: ranks.get(p, float("inf")))
        if best not in ranks:
            break
        first, second = best
        merged = []
        i = 0
        while i < len(parts):
            if i < len(parts) - 1 and parts[i] == first and parts[i + 1] == second:
                merged.append(first + second)
                i += 2
            else:
                merged.append(parts[i])
                i += 1
        parts = merged
    return parts


def gpt2_encode(vocab_ids, ranks, text):
    return [vocab_ids[p] for word in gpt2_split(text) for p in gpt2_bpe(word, ranks)]


def tiny_gpt2():
    to_unicode = gpt2_bpe_to_header.bytes_to_unicode()
    order = list(to_unicode)  # GPT-2's first 256 ids: the bytes in bytes-to-unicode order
    pieces = [bytes([b]) for b in order]
    words = [[w[i : i + 1] for i in range(len(w))] for w in gpt2_split(CORPUS.encode())]
    merges = train_merges(words, 60)
    for a, b in merges:
        if a + b not in pieces:
            pieces.append(a + b)
    merges.append(merges[3])  # listed twice: the later rank counts
    pieces.append(b"<|endoftext|>")

    def uni(p):
        return "".join(to_unicode[b] for b in p)

    vocab_json = json.dumps({uni(p): i for i, p in enumerate(pieces)}, ensure_ascii=False)
    merges_txt = "#version: 0.2\n" + "".join(f"{uni(a)} {uni(b)}\n" for a, b in merges)
    return pieces, merges, vocab_json, merges_txt


# ---------------------------------------------------------------- test texts and the header
def c_string(data):
    out = []
    for b in data:
        ch = chr(b)
        out.append(ch if b < 128 and (ch.isalnum() or ch in " .,;:!+=-_()[]{}<>/*&^%$#@|~`") else "\\%03o" % b)
    return '"' + "".join(out) + '"'


def test_texts(seed, count):
    rng = random.Random(seed)
    parts = ["the", " cat", " hello", "world", " ", "  ", "\n", "\t", "it's", "they're", "'ll", "'d", "I'm",
             "42", " 7", "+", "=", ".", "!", "?", ",", "caf\u00e9", "\u00e9", "\u20ac", "~", "xyz", "qq", "zz",
             "hat", "mat", "dog", "'", "''s", "a"]
    texts = [b"", b"hello", b"hello world", b"the cat sat", b"xyz", b"qqq", b"caf\u00e9".decode("unicode_escape").encode(),
             "caf\u00e9 \u20ac~".encode(), b"it's 42!", b"  two  spaces \n\n", b"\x80\x80stray", b"\xc3"]
    for _ in range(count):
        texts.append("".join(rng.choice(parts) for _ in range(rng.randint(1, 8))).encode())
    return texts


def reference_header(llama, gpt2):
    pieces, scores, max_len = llama
    gpieces, gmerges, _, _ = gpt2
    gids = {}
    for i, p in enumerate(gpieces):
        gids.setdefault(p, i)
    ranks = {}
    for r, (a, b) in enumerate(gmerges):
        ranks[(a, b)] = r  # as encoder.py's dict(zip(merges, range(...))): a repeated pair keeps its later rank
    lines = [
        "// Copyright the cxmat authors.",
        "// SPDX-License-Identifier: BSL-1.0",
        "// Generated by test_support/text_tokenizers.py: texts and their ids from plain reference",
        "// encoders (llama2.c's encode, GPT-2's encoder.py) for the tiny tokenizers of test_support/text/.",
        "#pragma once",
        "",
        "#include <cstddef>",
        "",
        "namespace text_reference {",
        "struct llama_case {",
        "  const char* text;",
        "  std::size_t text_size;",
        "  bool bos, eos;",
        "  int ids[64];",
        "  std::size_t size;",
        "  const char* decoded;  // llama2.c's decode of ids",
        "  std::size_t decoded_size;",
        "};",
        "struct gpt2_case {",
        "  const char* text;",
        "  std::size_t text_size;",
        "  int ids[64];",
        "  std::size_t size;",
        "};",
        "",
    ]

    def ids_init(ids):
        return "{" + ", ".join(str(i) for i in ids) + "}"

    llama_cases = []
    for k, text in enumerate(test_texts(1, 120)):
        bos, eos = (k % 3 != 2), (k % 4 == 3)
        ids = llama_encode(pieces, scores, text, bos, eos)
        assert len(ids) <= 64
        decoded = llama_decode(pieces, ids)
        llama_cases.append(
            f"    {{{c_string(text)}, {len(text)}, {str(bos).lower()}, {str(eos).lower()}, {ids_init(ids)}, {len(ids)}, "
            f"{c_string(decoded)}, {len(decoded)}}},"
        )
    lines.append(f"inline constexpr llama_case llama_cases[{len(llama_cases)}] = {{")
    lines += llama_cases
    lines.append("};")
    gpt2_cases = []
    for text in test_texts(2, 120):
        ids = gpt2_encode(gids, ranks, text)
        assert len(ids) <= 64
        gpt2_cases.append(f"    {{{c_string(text)}, {len(text)}, {ids_init(ids)}, {len(ids)}}},")
    lines.append(f"inline constexpr gpt2_case gpt2_cases[{len(gpt2_cases)}] = {{")
    lines += gpt2_cases
    lines.append("};")
    # The refused files (the tiny tokenizer with one field broken) are made from its bytes at
    # compile time: test_support/text/broken_tokenizers.hpp.
    lines.append("}  // namespace text_reference")
    return "\n".join(lines) + "\n"


def files():
    llama = tiny_llama()
    gpt2 = tiny_gpt2()
    bin_data = tokenizer_bin(*llama)
    out = {
        "tiny_tokenizer.bin": bin_data,
        "tiny_vocab.json": gpt2[2].encode(),
        "tiny_merges.txt": gpt2[3].encode(),
        "text_reference.hpp": reference_header(llama, gpt2).encode(),
        "tiny_llama.hpp": tokenizer_bin_to_header.header_text(
            bin_data, "tiny_llama_bin", "text_reference", None, "tiny_tokenizer.bin"
        ).encode(),
    }
    gp, gm = gpt2_bpe_to_header.read_bpe(gpt2[2], gpt2[3])
    out["tiny_gpt2.hpp"] = gpt2_bpe_to_header.header_text(
        gp, gm, "tiny_gpt2", "text_reference", "tiny_vocab.json and tiny_merges.txt"
    ).encode()
    return out


def formatted(name, data):
    """Headers as check_format.py leaves them (clang-format), so --check compares like with like."""
    if not name.endswith(".hpp"):
        return data
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / name
        path.write_bytes(data)
        subprocess.run(["clang-format", f"--style=file:{ROOT / '.clang-format'}", "-i", str(path)], check=True)
        return path.read_bytes()


def check_converters():
    """The converters' command lines refuse broken files with one line naming the field."""
    pieces, scores, max_len = tiny_llama()
    nan = struct.unpack("<f", struct.pack("<I", 0x7FC00001))[0]
    bins = {
        "piece 0: its length 5 is above max_token_length 0": tokenizer_bin(pieces, scores, 0),
        "piece 300: its score is NaN": tokenizer_bin(pieces, scores[:300] + [nan] + scores[301:], max_len),
        f"piece {len(pieces) - 1}: the file ends inside its 2 bytes (truncated)": tokenizer_bin(pieces, scores, max_len)[:-2],
        "piece 5: its length -1 is negative": tokenizer_bin(pieces, scores, max_len, lengths={5: -1}),
    }
    _, _, vocab_json, merges_txt = tiny_gpt2()
    bpe = {
        "is not a token of vocab.json": (vocab_json, merges_txt + "zq zq\n"),
        "byte 0 has no one-byte token": (json.dumps({"a": 0}), merges_txt),
        "merges.txt: no merges": (vocab_json, "#version: 0.2\n"),
    }
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = pathlib.Path(tmp)
        for expected, data in bins.items():
            (folder / "t.bin").write_bytes(data)
            result = subprocess.run([sys.executable, str(ROOT / "scripts" / "tokenizer_bin_to_header.py"),
                                     str(folder / "t.bin"), str(folder / "t.hpp"), "--name", "t"],
                                    capture_output=True, text=True)
            if result.returncode != 1 or expected not in result.stderr or result.stderr.count("\n") != 1:
                failures.append(f"tokenizer_bin_to_header.py: expected one line with {expected!r}, got {result.stderr!r}")
        for expected, (vocab, merges) in bpe.items():
            (folder / "v.json").write_text(vocab, encoding="utf-8")
            (folder / "m.txt").write_text(merges, encoding="utf-8")
            result = subprocess.run([sys.executable, str(ROOT / "scripts" / "gpt2_bpe_to_header.py"),
                                     str(folder / "v.json"), str(folder / "m.txt"), str(folder / "g.hpp"), "--name", "g"],
                                    capture_output=True, text=True)
            if result.returncode != 1 or expected not in result.stderr or result.stderr.count("\n") != 1:
                failures.append(f"gpt2_bpe_to_header.py: expected one line with {expected!r}, got {result.stderr!r}")
    for f in failures:
        print(f)
    return 1 if failures else 0


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "--check"
    if mode == "--converters":
        return check_converters()
    stale = []
    for name, data in files().items():
        data = formatted(name, data)
        path = OUT / name
        if mode == "--write":
            OUT.mkdir(exist_ok=True)
            path.write_bytes(data)
        elif not path.exists() or path.read_bytes() != data:
            stale.append(name)
    for name in stale:
        print(f"test_support/text/{name} differs from what text_tokenizers.py writes (run it with --write)")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
