#!/usr/bin/env python3
"""Where the instructions of one measured call go: a flat profile from a QEMU exec log.

Runs the image as trace_count.py does (one instruction per translation block, a log of every
block executed), counts the executed instructions of the measured call (the first run_step) by
address, and attributes them to functions:
  - by symbol (nm): the function whose code holds the instruction, as linked;
  - with debug information in the image (build it with -g; the code is the same), also by the
    innermost inlined function (addr2line -i), inclusively (every function of the inline chain,
    each counted once per instruction), and by source line.
The log goes through a pipe and QEMU is stopped once the call has returned, so large calls
(millions of instructions) need no disk space.

usage: profile.py QEMU NM ADDR2LINE MACHINE ELF [--top N]
"""
import argparse
import bisect
import collections
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from trace_count import functions, symbol  # noqa: E402


def executed(qemu, machine, elf, start, measure, measure_size):
    """Counter of executed addresses from the first instruction of run_step to its return."""
    counts = collections.Counter()
    with tempfile.TemporaryDirectory() as tmp:
        fifo = os.path.join(tmp, "exec.fifo")
        os.mkfifo(fifo)
        proc = subprocess.Popen([qemu, "-M", machine, "-nographic", "-monitor", "none",
                                 "-semihosting-config", "enable=on,target=native", "-icount", "shift=7",
                                 "-singlestep", "-d", "exec,nochain", "-D", fifo, "-kernel", elf],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        trace = re.compile(r"^Trace \d+: \S+ \[[0-9a-f]+/([0-9a-f]+)/")
        inside, previous, done = False, None, False
        try:
            with open(fifo) as f:
                for line in f:
                    m = trace.match(line)
                    if not m:
                        continue
                    pc = int(m.group(1), 16)
                    if pc == previous:  # a block logged again after QEMU refilled its budget
                        continue
                    previous = pc
                    if not inside:
                        inside = pc == start
                    elif measure <= pc < measure + measure_size:
                        done = True
                        break
                    if inside:
                        counts[pc] += 1
        finally:
            proc.kill()
            proc.wait()
    if not done:
        sys.exit("FAIL: the measured call did not run to its end in the trace")
    return counts


def inline_chains(addr2line, elf, addresses):
    """{address: [(function, file:line), ...] innermost first}, from the image's debug information."""
    text = "\n".join(f"{a:x}" for a in addresses)
    out = subprocess.run([addr2line, "-a", "-f", "-i", "-C", "-e", elf], input=text, check=True,
                         capture_output=True, text=True).stdout.splitlines()
    chains, current, i = {}, None, 0
    while i < len(out):
        if out[i].startswith("0x"):
            current = int(out[i], 16)
            chains[current] = []
            i += 1
            continue
        name = re.sub(r"\(.*", "", out[i])  # without the parameter list
        where = out[i + 1] if i + 1 < len(out) else "??"
        chains[current].append((name, where))
        i += 2
    return chains


def short(where):
    path, _, line = where.rpartition(":")
    parts = path.split("/")
    for anchor in ("cxmat", "embedded", "sort_digits"):
        if anchor in parts:
            return "/".join(parts[parts.index(anchor):]) + ":" + line.split(" ")[0]
    return os.path.basename(path) + ":" + line.split(" ")[0]


def table(title, counter, total, top):
    print(f"\n{title}")
    for name, n in counter.most_common(top):
        print(f"  {n:9d} {100.0 * n / total:5.1f} %  {name}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("qemu")
    parser.add_argument("nm")
    parser.add_argument("addr2line")
    parser.add_argument("machine")
    parser.add_argument("elf")
    parser.add_argument("--top", type=int, default=20)
    args = parser.parse_args()
    start, _ = symbol(args.nm, args.elf, r"run_step\(\)$")
    measure, measure_size = symbol(args.nm, args.elf, r"^harness::measure\(")
    counts = executed(args.qemu, args.machine, args.elf, start, measure, measure_size)
    total = sum(counts.values())
    print(f"{os.path.basename(args.elf)} on {args.machine}: {total} instructions in the measured call")

    table_ = functions(args.nm, args.elf)
    starts = [f[0] for f in table_]
    by_symbol = collections.Counter()
    for pc, n in counts.items():
        i = bisect.bisect_right(starts, pc) - 1
        inside = i >= 0 and pc < table_[i][0] + table_[i][1]
        by_symbol[re.sub(r"\(.*", "", table_[i][2]) if inside else f"?? {pc:#x}"] += n
    table("by function, as linked (nm):", by_symbol, total, args.top)

    chains = inline_chains(args.addr2line, args.elf, sorted(counts))
    if all(chain[0][0] == "??" for chain in chains.values() if chain):
        print("\n(no debug information in the image: build it with -g for the inlined functions)")
        return
    innermost, inclusive, lines = collections.Counter(), collections.Counter(), collections.Counter()
    for pc, n in counts.items():
        chain = chains.get(pc) or [("??", "??")]
        innermost[chain[0][0]] += n
        lines[f"{short(chain[0][1])} ({chain[0][0]})"] += n
        for name in {name for name, _ in chain}:
            inclusive[name] += n
    table("by innermost inlined function (self):", innermost, total, args.top)
    table("by function, inlined callees included:", inclusive, total, args.top)
    table("by source line:", lines, total, args.top)


if __name__ == "__main__":
    main()
