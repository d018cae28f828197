#!/usr/bin/env python3
"""Trains the adding language model whose weights are adder.safetensors.

The task: a sum written as text, "12+345=", continued by the model with its digits and a stop
token, "357$". Operands have 1 to 3 digits (0 to 999, no leading zeros), the answer is written
as usual, most significant digit first. Characters are tokens:

    '0'..'9' -> 0..9, '+' -> 10, '=' -> 11, '$' (stop) -> 12

The model is a LLaMA in miniature, written here in the form of Hugging Face's LlamaForCausalLM:

    token embedding (13 x 48)
    -> 2 x [RMSNorm -> attention (4 query heads, 2 key/value heads: grouped-query, head width 12,
            rotary positions in the rotate-half layout, base 10000, no biases) -> residual
            -> RMSNorm -> SwiGLU (w_down(silu(x w_gate) * (x w_up)), hidden 96) -> residual]
    -> RMSNorm -> lm_head (48 -> 13, separate from the embedding)

RMSNorm: x / sqrt(mean(x^2) + 1e-6) * weight. The loss is on the answer only (the tokens after
'='), so the model never learns to write prompts.

Deterministic: one thread, seeded, PyTorch's deterministic algorithms. The held-out prompts are
drawn from their own seed and never trained on (training batches skip them). A few minutes of
one core with Debian's python3-torch per run; the committed weights took three runs, each from
the last one's weights (README.md has the commands).

    /usr/bin/python3 examples/lm_adder/train.py [--steps N] [--lr LR] [--seed S] [--init FILE]
                                                [--train-single-digit-sums] [--out-dir DIR]

Prints the loss while it trains, then the held-out accuracy (greedy answers exactly right), and
writes the weights as Hugging Face LLaMA float32 .safetensors with its config.json, and
held_out.txt: every held-out prompt with PyTorch's greedy answer in float32 and in float64.
"""
import argparse
import json
import math
import pathlib
import struct
import sys
import time

import torch
from torch import nn
from torch.nn import functional as F

VOCAB_TEXT = "0123456789+=$"
PLUS, EQUALS, STOP = 10, 11, 12
VOCAB, D_MODEL, LAYERS, HEADS, KV_HEADS, HIDDEN = len(VOCAB_TEXT), 48, 2, 4, 2, 96
MAX_DIGITS = 3
CONTEXT = 16  # positions of the model (config.json); the longest text is 13 tokens
LONGEST = 2 * MAX_DIGITS + 2 + MAX_DIGITS + 2  # "999+999=1998$"
EPS, ROPE_BASE = 1e-6, 10000.0
SEED, HELD_OUT_SEED, HELD_OUT = 20261128, 11, 2000
BATCH = 256
HERE = pathlib.Path(__file__).resolve().parent


def encode(text):
    return [VOCAB_TEXT.index(c) for c in text]


def decode(tokens):
    return "".join(VOCAB_TEXT[t] for t in tokens)


class Linear(nn.Linear):
    """nn.Linear without bias. While training it multiplies through a 1 x 1 convolution, which
    PyTorch runs with oneDNN: Debian's PyTorch multiplies matrices with the reference BLAS, six
    times slower here. In eval mode it is F.linear, the textbook form."""

    def __init__(self, d_in, d_out):
        super().__init__(d_in, d_out, bias=False)

    def forward(self, x):
        if not self.training:
            return F.linear(x, self.weight)
        return F.conv1d(x.transpose(1, 2), self.weight.unsqueeze(-1)).transpose(1, 2)


class RMSNorm(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d))

    def forward(self, x):
        return self.weight * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + EPS))


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def rotary_tables(length, width, dtype):
    """cos and sin of position p times base^(-2i/width), i < width/2, each repeated for both
    halves (Hugging Face's LlamaRotaryEmbedding)."""
    inv_freq = 1.0 / (ROPE_BASE ** (torch.arange(0, width, 2, dtype=torch.float32) / width))
    angles = torch.outer(torch.arange(length, dtype=torch.float32), inv_freq)
    angles = torch.cat((angles, angles), dim=-1)
    return angles.cos().to(dtype), angles.sin().to(dtype)


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.head_dim = D_MODEL // HEADS
        self.q_proj = Linear(D_MODEL, HEADS * self.head_dim)
        self.k_proj = Linear(D_MODEL, KV_HEADS * self.head_dim)
        self.v_proj = Linear(D_MODEL, KV_HEADS * self.head_dim)
        self.o_proj = Linear(HEADS * self.head_dim, D_MODEL)

    def forward(self, x):  # (B, T, D)
        b, t, _ = x.shape
        q = self.q_proj(x).view(b, t, HEADS, self.head_dim).transpose(1, 2)
        k = self.k_proj(x).view(b, t, KV_HEADS, self.head_dim).transpose(1, 2)
        v = self.v_proj(x).view(b, t, KV_HEADS, self.head_dim).transpose(1, 2)
        cos, sin = rotary_tables(t, self.head_dim, x.dtype)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        group = HEADS // KV_HEADS  # query head h uses key/value head h // group (repeat_kv)
        k = k.repeat_interleave(group, dim=1)
        v = v.repeat_interleave(group, dim=1)
        scores = q @ k.transpose(-1, -2) / math.sqrt(self.head_dim)
        causal = torch.ones(t, t, dtype=torch.bool).tril()
        scores = scores.masked_fill(~causal, float("-inf"))
        out = F.softmax(scores, dim=-1) @ v
        return self.o_proj(out.transpose(1, 2).reshape(b, t, HEADS * self.head_dim))


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.gate_proj = Linear(D_MODEL, HIDDEN)
        self.up_proj = Linear(D_MODEL, HIDDEN)
        self.down_proj = Linear(HIDDEN, D_MODEL)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.input_layernorm = RMSNorm(D_MODEL)
        self.self_attn = Attention()
        self.post_attention_layernorm = RMSNorm(D_MODEL)
        self.mlp = MLP()

    def forward(self, x):
        x = x + self.self_attn(self.input_layernorm(x))
        return x + self.mlp(self.post_attention_layernorm(x))


class Inner(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed_tokens = nn.Embedding(VOCAB, D_MODEL)
        self.layers = nn.ModuleList(Block() for _ in range(LAYERS))
        self.norm = RMSNorm(D_MODEL)


class Adder(nn.Module):
    """LlamaForCausalLM's module tree, so the state_dict keys are Hugging Face's."""

    def __init__(self):
        super().__init__()
        self.model = Inner()
        self.lm_head = Linear(D_MODEL, VOCAB)
        for name, p in self.named_parameters():
            if p.dim() == 2:
                nn.init.normal_(p, std=0.02 if "embed" not in name else 1.0 / math.sqrt(D_MODEL))

    def forward(self, tokens):  # (B, T) int64 -> (B, T, VOCAB) logits
        x = self.model.embed_tokens(tokens)
        for block in self.model.layers:
            x = block(x)
        return self.lm_head(self.model.norm(x))


def problem_text(a, b):
    return f"{a}+{b}="


def random_operands(generator, size):
    """Operands with 1 to MAX_DIGITS digits, the number of digits uniform, then the value."""
    digits = torch.randint(1, MAX_DIGITS + 1, (size, 2), generator=generator)
    low = torch.where(digits == 1, torch.zeros_like(digits), 10 ** (digits - 1))
    high = 10**digits
    u = torch.rand((size, 2), generator=generator, dtype=torch.float64)
    return (low + (u * (high - low)).long()).clamp(max=10**MAX_DIGITS - 1)


def held_out_pairs():
    ops = random_operands(torch.Generator().manual_seed(HELD_OUT_SEED), 4 * HELD_OUT)
    seen, pairs = set(), []
    for a, b in ops.tolist():
        if (a, b) not in seen:
            seen.add((a, b))
            pairs.append((a, b))
        if len(pairs) == HELD_OUT:
            break
    return pairs


def training_batch(generator, held_out):
    """Token rows (BATCH x LONGEST - 1) and a mask of the positions whose next token is trained."""
    ops = random_operands(generator, BATCH * 2)
    rows, masks = [], []
    for a, b in ops.tolist():
        if (a, b) in held_out:
            continue
        prompt = encode(problem_text(a, b))
        full = prompt + encode(str(a + b)) + [STOP]
        row = full + [STOP] * (LONGEST - len(full))
        mask = [0] * (len(prompt) - 1) + [1] * (len(full) - len(prompt)) + [0] * (LONGEST - len(full))
        rows.append(row)
        masks.append(mask)
        if len(rows) == BATCH:
            break
    t = torch.tensor(rows)
    return t[:, :-1], t[:, 1:], torch.tensor(masks, dtype=torch.bool)


def greedy(model, prompts, steps=MAX_DIGITS + 2):
    """Greedy answers (lists of tokens up to and including the stop token) of token prompts, by
    recomputing the whole sequence for each new token, in the model's dtype."""
    answers = []
    with torch.no_grad():
        for prompt in prompts:
            tokens = list(prompt)
            answer = []
            for _ in range(steps):
                logits = model(torch.tensor([tokens]))[0, -1]
                nxt = int(torch.argmax(logits))
                answer.append(nxt)
                tokens.append(nxt)
                if nxt == STOP or len(tokens) == CONTEXT:
                    break
            answers.append(answer)
    return answers


def batched_greedy(model, pairs):
    """Greedy answers of many prompts at once, for the accuracy while training: prompts of one
    length share a batch."""
    by_length = {}
    for i, (a, b) in enumerate(pairs):
        by_length.setdefault(len(problem_text(a, b)), []).append(i)
    answers = [None] * len(pairs)
    with torch.no_grad():
        for length, idx in by_length.items():
            x = torch.tensor([encode(problem_text(*pairs[i])) for i in idx])
            out = []
            for _ in range(MAX_DIGITS + 2):
                nxt = model(x)[:, -1].argmax(-1, keepdim=True)
                out.append(nxt)
                x = torch.cat((x, nxt), dim=1)
            out = torch.cat(out, dim=1).tolist()
            for i, row in zip(idx, out):
                answers[i] = row[: row.index(STOP) + 1] if STOP in row else row
    return answers


def exact(pairs, answers):
    return sum(decode(ans) == f"{a + b}$" for (a, b), ans in zip(pairs, answers))


def save_safetensors(path, tensors, seed):
    """The .safetensors layout: 8-byte little-endian header size, a JSON header, raw data."""
    header, blobs, offset = {}, [], 0
    for name, t in tensors.items():
        data = t.detach().to(torch.float32).contiguous().numpy().astype("<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(t.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    header["__metadata__"] = {"format": "pt", "model": "lm_adder", "seed": str(seed)}
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    path.write_bytes(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def load_safetensors(path):
    raw = path.read_bytes()
    size = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + size])
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        begin, end = entry["data_offsets"]
        data = bytearray(raw[8 + size + begin:8 + size + end])
        tensors[name] = torch.frombuffer(data, dtype=torch.float32).reshape(entry["shape"]).clone()
    return tensors


def config():
    """Hugging Face's LlamaConfig for these sizes."""
    return {
        "architectures": ["LlamaForCausalLM"],
        "model_type": "llama",
        "vocab_size": VOCAB,
        "hidden_size": D_MODEL,
        "intermediate_size": HIDDEN,
        "num_hidden_layers": LAYERS,
        "num_attention_heads": HEADS,
        "num_key_value_heads": KV_HEADS,
        "hidden_act": "silu",
        "max_position_embeddings": CONTEXT,
        "rms_norm_eps": EPS,
        "rope_theta": ROPE_BASE,
        "tie_word_embeddings": False,
        "attention_bias": False,
        "bos_token_id": None,
        "eos_token_id": STOP,
        "torch_dtype": "float32",
    }


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=3000)
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--seed", type=int, default=SEED, help="of the initial weights and the training batches")
    p.add_argument("--init", help="start from these weights (a .safetensors this script wrote) instead of random ones")
    p.add_argument("--train-single-digit-sums", action="store_true",
                   help="hold out no sum of two 1-digit numbers: there are only 100, and the held-out draw "
                   "takes most of them, so without this the model never sees them")
    p.add_argument("--out-dir", default=str(HERE))
    a = p.parse_args()
    out = pathlib.Path(a.out_dir)
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    torch.manual_seed(a.seed)
    model = Adder()
    if a.init:
        model.load_state_dict(load_safetensors(pathlib.Path(a.init)))
    decay = [p for n, p in model.named_parameters() if p.dim() == 2]
    no_decay = [p for n, p in model.named_parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.01}, {"params": no_decay, "weight_decay": 0.0}],
                            lr=a.lr, betas=(0.9, 0.98))
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=a.lr, total_steps=a.steps, pct_start=0.05)
    train_gen = torch.Generator().manual_seed(a.seed)
    held = held_out_pairs()
    if a.train_single_digit_sums:
        held = [(x, y) for x, y in held if x >= 10 or y >= 10]
    held_set = set(held)
    start = time.process_time()
    for step in range(1, a.steps + 1):
        x, y, mask = training_batch(train_gen, held_set)
        logits = model(x)
        loss = F.cross_entropy(logits[mask], y[mask])
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        if step % 500 == 0 or step == a.steps:
            model.eval()
            right = exact(held, batched_greedy(model, held))
            model.train()
            print(f"step {step:5d}  loss {loss.item():.4f}  held-out: {100 * right / len(held):.2f} % exact  "
                  f"({time.process_time() - start:.0f} s)", flush=True)
    seconds = time.process_time() - start
    model.eval()

    # The held-out prompts with PyTorch's greedy answers: float32 (the weights as saved) and
    # float64 (the same weights, widened), one token at a time over the whole sequence.
    prompts = [encode(problem_text(a_, b_)) for a_, b_ in held]
    answers32 = greedy(model, prompts)
    answers64 = greedy(model.double(), prompts)
    model.float()
    right = exact(held, answers32)
    agree = sum(x == y for x, y in zip(answers32, answers64))
    print(f"held-out accuracy (float32 greedy, PyTorch {torch.__version__}): {100 * right / len(held):.2f} % "
          f"({right} of {len(held)} exact); float64 greedy answers equal float32's on {agree}")
    print(f"training: {a.steps} steps of {BATCH}, {seconds:.0f} s of processor time")

    save_safetensors(out / "adder.safetensors", model.state_dict(), a.seed)
    (out / "config.json").write_text(json.dumps(config(), indent=2) + "\n")
    with open(out / "held_out.txt", "w") as f:
        f.write(f"# {len(held)} held-out prompts of train.py (seed {HELD_OUT_SEED}, never trained on): prompt, "
                "PyTorch's greedy answer in float32, in float64 ('$' is the stop token)\n")
        for prompt, a32, a64 in zip(prompts, answers32, answers64):
            f.write(f"{decode(prompt)} {decode(a32)} {decode(a64)}\n")
    print(f"wrote adder.safetensors, config.json, held_out.txt to {out}")
    return 0 if right >= 0.99 * len(held) else 1


if __name__ == "__main__":
    sys.exit(main())
