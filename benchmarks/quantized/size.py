#!/usr/bin/env python3
"""Code size and stack use of the int8 layer on Cortex-M.

Cross-compiles embedded_layer.cpp (n = 8, d_model = 16, H = 2, W_o; parameters in flash) with
arm-none-eabi-g++ -Os for each core, once with the plain entry point alone and once with a second,
causal one, and prints per core: code bytes (.text), flash data (.rodata), the deepest stack of
each entry point (the largest sum of frames along a call chain of GCC's -fcallgraph-info=su
graph), and the undefined symbols (what the layer needs from libgcc / libc).

  size.py [--cxx arm-none-eabi-g++] [--check]

--check also fails (exit 1) unless, on every core, the plain layer's code is <= 2048 bytes, its
deepest stack <= 1024 bytes, and it needs nothing beyond memcpy, memset and libgcc's integer
routines (no heap, exceptions, RTTI, floating point or libm).

Then the int8 encoder layer of the same size (CXMAT_Q8_SIZE_ENCODER: d_ff = 32, post-norm, ReLU),
whose --check is the last condition only (its layer norm also takes libgcc's 64-bit division).
"""
import argparse
import pathlib
import re
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
CORES = ["cortex-m4", "cortex-m0plus"]
ALLOWED_UNDEFINED = {"memcpy", "memset", "__aeabi_lmul", "__aeabi_llsl", "__aeabi_lasr", "__clzsi2"}
ENCODER_ALLOWED_UNDEFINED = ALLOWED_UNDEFINED | {"__aeabi_ldivmod", "__aeabi_uldivmod"}


def compile_layer(cxx, cpu, plain_only, out, encoder=False):
    obj = out / f"layer-{cpu}-{'encoder' if encoder else 'plain' if plain_only else 'both'}.o"
    cmd = [cxx, "-std=c++20", "-Os", f"-mcpu={cpu}", "-mthumb", "-fno-exceptions", "-fno-rtti",
           "-ffunction-sections", "-fcallgraph-info=su", f"-I{ROOT / 'include'}", "-c",
           str(HERE / "embedded_layer.cpp"), "-o", str(obj)]
    if plain_only:
        cmd.insert(1, "-DCXMAT_Q8_SIZE_PLAIN_ONLY")
    if encoder:
        cmd.insert(1, "-DCXMAT_Q8_SIZE_ENCODER")
    subprocess.run(cmd, check=True, cwd=out)
    return obj


def sections(size_tool, obj):
    text = rodata = 0
    for line in subprocess.run([size_tool, "-A", str(obj)], check=True, capture_output=True, text=True).stdout.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[1].isdigit():
            if parts[0].startswith(".text"):
                text += int(parts[1])
            elif parts[0].startswith(".rodata"):
                rodata += int(parts[1])
    return text, rodata


def deepest_stacks(ci_file):
    """Largest frame sum along any call chain from each entry point (the graph has no cycles)."""
    frames, callees = {}, {}
    text = ci_file.read_text()
    for title, label in re.findall(r'node: \{ title: "([^"]+)" label: "([^"]*)"', text):
        m = re.search(r"\\n(\d+) bytes", label)
        frames[title] = int(m.group(1)) if m else 0
    for src, dst in re.findall(r'edge: \{ sourcename: "([^"]+)" targetname: "([^"]+)"', text):
        callees.setdefault(src, set()).add(dst)
    memo = {}

    def depth(node):
        if node not in memo:
            memo[node] = frames.get(node, 0) + max((depth(c) for c in callees.get(node, ())), default=0)
        return memo[node]

    return {t.split(":")[-1]: depth(t) for t in frames if "cxmat_q8_attention" in t or "cxmat_q8_encoder" in t}


def undefined(nm_tool, obj):
    out = subprocess.run([nm_tool, "-u", str(obj)], check=True, capture_output=True, text=True).stdout
    return sorted(line.split()[-1] for line in out.splitlines() if line.strip())


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cxx", default="arm-none-eabi-g++")
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    prefix = args.cxx[: -len("g++")] if args.cxx.endswith("g++") else "arm-none-eabi-"
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(tmp)
        for cpu in CORES:
            for plain_only in (True, False):
                obj = compile_layer(args.cxx, cpu, plain_only, out)
                text, rodata = sections(prefix + "size", obj)
                stacks = deepest_stacks(obj.with_suffix(".ci"))
                needs = undefined(prefix + "nm", obj)
                what = "layer, no masks" if plain_only else "layer, plain + causal entry points"
                print(f"{cpu:14} {what:36} code {text:5} B  flash data {rodata:5} B")
                for entry, stack in sorted(stacks.items()):
                    print(f"{'':14}   deepest stack of {entry}: {stack} B")
                print(f"{'':14}   undefined: {' '.join(needs)}")
                if plain_only:
                    if text > 2048:
                        failures.append(f"{cpu}: code {text} B > 2048 B")
                    if max(stacks.values()) > 1024:
                        failures.append(f"{cpu}: stack {max(stacks.values())} B > 1024 B")
                extra = set(needs) - ALLOWED_UNDEFINED
                if extra:
                    failures.append(f"{cpu}: needs {sorted(extra)}")
            obj = compile_layer(args.cxx, cpu, False, out, encoder=True)
            text, rodata = sections(prefix + "size", obj)
            stacks = deepest_stacks(obj.with_suffix(".ci"))
            needs = undefined(prefix + "nm", obj)
            print(f"{cpu:14} {'encoder layer (d_ff = 32)':36} code {text:5} B  flash data {rodata:5} B")
            for entry, stack in sorted(stacks.items()):
                print(f"{'':14}   deepest stack of {entry}: {stack} B")
            print(f"{'':14}   undefined: {' '.join(needs)}")
            extra = set(needs) - ENCODER_ALLOWED_UNDEFINED
            if extra:
                failures.append(f"{cpu}: the encoder layer needs {sorted(extra)}")
    for f in failures:
        print("FAIL:", f)
    return 1 if (args.check and failures) else 0


if __name__ == "__main__":
    sys.exit(main())
