#!/usr/bin/env python3
"""Code size and stack use of the int8 layer on Cortex-M.

Cross-compiles embedded_layer.cpp (n = 8, d_model = 16, H = 2, W_o; parameters in flash) with
arm-none-eabi-g++ -Os for each core, once with the plain entry point alone and once with a second,
causal one, and prints per core: code bytes (.text), flash data (.rodata), the deepest stack of
each entry point (the largest sum of frames along a call chain of GCC's -fcallgraph-info=su
graph), and the undefined symbols (what the layer needs from libgcc / libc).

  size.py [--cxx arm-none-eabi-g++] [--check] [--doc FILE | --write FILE]

--check also fails (exit 1) unless, on every core, the plain layer's code is <= 2112 bytes, its
deepest stack <= 1024 bytes, and it needs nothing beyond memcpy, memset and libgcc's integer
routines (no heap, exceptions, RTTI, floating point or libm).

Then the int8 encoder layer of the same size (CXMAT_Q8_SIZE_ENCODER: d_ff = 32, post-norm, ReLU)
and the int8 decoder layer (CXMAT_Q8_SIZE_DECODER: the same, 8 memory rows, causal
self-attention), whose --check is the last condition only (their layer norms also take libgcc's
64-bit division).

The two Markdown tables of docs/quantized.md come from these measurements: --write FILE puts them
into FILE between the lines "<!-- begin: NAME -->" and "<!-- end: NAME -->" (NAME cortex_m_size
for the attention layer, cortex_m_layers_size for the encoder and decoder layers); --doc FILE
fails (exit 1) when FILE's tables differ from them (the CTest entry quantized.cortex_m_size).
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
LAYERS_ALLOWED_UNDEFINED = ALLOWED_UNDEFINED | {"__aeabi_ldivmod", "__aeabi_uldivmod"}


def compile_layer(cxx, cpu, plain_only, out, module=None):
    """module: None (the attention layer), "encoder" or "decoder"."""
    obj = out / f"layer-{cpu}-{module or ('plain' if plain_only else 'both')}.o"
    cmd = [cxx, "-std=c++20", "-Os", f"-mcpu={cpu}", "-mthumb", "-fno-exceptions", "-fno-rtti",
           "-ffunction-sections", "-fcallgraph-info=su", f"-I{ROOT / 'include'}", "-c",
           str(HERE / "embedded_layer.cpp"), "-o", str(obj)]
    if plain_only:
        cmd.insert(1, "-DCXMAT_Q8_SIZE_PLAIN_ONLY")
    if module:
        cmd.insert(1, f"-DCXMAT_Q8_SIZE_{module.upper()}")
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

    return {t.split(":")[-1]: depth(t) for t in frames if "cxmat_q8_" in t}


def undefined(nm_tool, obj):
    out = subprocess.run([nm_tool, "-u", str(obj)], check=True, capture_output=True, text=True).stdout
    return sorted(line.split()[-1] for line in out.splitlines() if line.strip())


def needs_cell(names, same_as=None):
    """The undefined symbols for a table cell (libgcc's in backticks); "the same and ..." when
    they are those of same_as (the cell to the left, more than one symbol) and more."""
    def cell(ns):
        ns = sorted(ns, key=lambda n: (n.startswith("__"), n))  # memcpy, memset, then libgcc's
        return ", ".join(n if n in ("memcpy", "memset") else f"`{n}`" for n in ns)

    if same_as and len(same_as) > 1 and set(same_as) < set(names):
        return "the same and " + cell(n for n in names if n not in same_as)
    return cell(names)


def tables(m, compiler):
    """The doc's tables (name -> Markdown) from the measurements m[(cpu, build)] and the
    compiler's name and version (in the tables' corners)."""
    m4, m0 = CORES

    def row(title, f):
        return f"| {title} | {f(m4)} | {f(m0)} |\n"

    layer = f"| {compiler}, `-Os` | Cortex-M4 | Cortex-M0+ |\n|---|---:|---:|\n"
    layer += row("code, layer without masks (entry point and every kernel)", lambda c: f"{m[c, 'plain']['text']} B")
    layer += row("code, plus a second entry point with `causal`", lambda c: f"{m[c, 'both']['text']} B")
    layer += row("flash data (int8 weights, int32 biases, parameters)", lambda c: f"{m[c, 'plain']['rodata']} B")
    layer += row("deepest stack, layer without masks", lambda c: f"{max(m[c, 'plain']['stacks'].values())} B")
    layer += row("needs, layer without masks", lambda c: needs_cell(m[c, "plain"]["needs"]))
    layer += row("needs, plus `causal`", lambda c: needs_cell(m[c, "both"]["needs"]))
    layers = f"| n = 8, d_model = 16, H = 2, d_ff = 32 ({compiler}, `-Os`) | Cortex-M4 | Cortex-M0+ |\n"
    layers += "|---|---:|---:|\n"
    for module, title in (("encoder", "encoder layer"), ("decoder", "decoder layer (8 memory rows, causal)")):
        layers += row(f"{title}: code", lambda c: f"{m[c, module]['text']} B")
        layers += row(f"{title}: flash data", lambda c: f"{m[c, module]['rodata']} B")
        layers += row(f"{title}: deepest stack", lambda c: f"{max(m[c, module]['stacks'].values())} B")
        m4_needs = m[m4, module]["needs"]
        layers += f"| {title}: needs | {needs_cell(m4_needs)} | {needs_cell(m[m0, module]['needs'], m4_needs)} |\n"
    return {"cortex_m_size": layer, "cortex_m_layers_size": layers}


def doc_sections(text, name):
    """(start, end) of the text between the markers of table name, or None."""
    begin, end = f"<!-- begin: {name} -->\n", f"<!-- end: {name} -->"
    b, e = text.find(begin), text.find(end)
    return None if b < 0 or e < b else (b + len(begin), e)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cxx", default="arm-none-eabi-g++")
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--doc", type=pathlib.Path, help="fail unless this file's tables are the measured ones")
    parser.add_argument("--write", type=pathlib.Path, help="write the measured tables into this file")
    args = parser.parse_args()
    prefix = args.cxx[: -len("g++")] if args.cxx.endswith("g++") else "arm-none-eabi-"
    failures, doc_failures = [], []
    measured = {}
    builds = (("plain", "layer, no masks"), ("both", "layer, plain + causal entry points"),
              ("encoder", "encoder layer (d_ff = 32)"), ("decoder", "decoder layer (causal)"))
    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(tmp)
        for cpu in CORES:
            for build, what in builds:
                module = build if build in ("encoder", "decoder") else None
                obj = compile_layer(args.cxx, cpu, build == "plain", out, module)
                text, rodata = sections(prefix + "size", obj)
                stacks = deepest_stacks(obj.with_suffix(".ci"))
                needs = undefined(prefix + "nm", obj)
                measured[cpu, build] = {"text": text, "rodata": rodata, "stacks": stacks, "needs": needs}
                print(f"{cpu:14} {what:36} code {text:5} B  flash data {rodata:5} B")
                for entry, stack in sorted(stacks.items()):
                    print(f"{'':14}   deepest stack of {entry}: {stack} B")
                print(f"{'':14}   undefined: {' '.join(needs)}")
                if build == "plain":
                    if text > 2112:
                        failures.append(f"{cpu}: code {text} B > 2112 B")
                    if max(stacks.values()) > 1024:
                        failures.append(f"{cpu}: stack {max(stacks.values())} B > 1024 B")
                extra = set(needs) - (LAYERS_ALLOWED_UNDEFINED if module else ALLOWED_UNDEFINED)
                if extra:
                    failures.append(f"{cpu}: the {module + ' ' if module else ''}layer needs {sorted(extra)}")
    version = subprocess.run([args.cxx, "-dumpversion"], check=True, capture_output=True, text=True).stdout.strip()
    generated = tables(measured, f"{pathlib.Path(args.cxx).name} {version}")
    for doc, write in ((args.doc, False), (args.write, True)):
        if doc is None:
            continue
        text = doc.read_text(encoding="utf-8")
        for name, table in generated.items():
            where = doc_sections(text, name)
            if where is None:
                doc_failures.append(f"{doc}: no '<!-- begin: {name} -->' ... '<!-- end: {name} -->' section")
                continue
            if write:
                text = text[: where[0]] + table + text[where[1]:]
            elif text[where[0]: where[1]] != table:
                doc_failures.append(f"{doc}: the {name} table is not what size.py measures now "
                                    f"(size.py --write {doc} writes it):\n{table}")
        if write:
            doc.write_text(text, encoding="utf-8")
    for f in failures + doc_failures:
        print("FAIL:", f)
    return 1 if doc_failures or (args.check and failures) else 0


if __name__ == "__main__":
    sys.exit(main())
