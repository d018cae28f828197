#!/usr/bin/env python3
"""How many calibration sequences the compiler's int8 sorter needs: compiles sort_digits_q8.cpp
with its build command (from compile_commands.json) and -DCXMAT_SORT_Q8_SEQUENCES=N for each N,
runs it on all 10,000 held-out sequences, and prints a Markdown table: N, the compilation's
processor time and peak memory, and the share of held-out sequences the model the compiler
calibrated on N sequences sorts. g++'s constexpr operation limit is raised for every N (the
default fits up to 8, README.md says), so that each size compiles.

  calibration_sizes.py <build dir of a g++ configuration with PyTorch's held-out sequences> [N ...]
"""
import json
import os
import pathlib
import re
import shlex
import subprocess
import sys
import tempfile


def main():
    build = pathlib.Path(sys.argv[1]).resolve()
    sizes = [int(n) for n in sys.argv[2:]] or [1, 2, 4, 8, 16, 32, 64]
    entries = json.loads((build / "compile_commands.json").read_text())
    entry = next(e for e in entries if e["file"].endswith("sort_digits_q8.cpp"))
    command = shlex.split(entry["command"])
    # Only the compilation: no dependency file, the object where this script wants it.
    for flag in ("-MD",):
        if flag in command:
            command.remove(flag)
    for flag in ("-MT", "-MF", "-o"):
        while flag in command:
            i = command.index(flag)
            del command[i:i + 2]
    if "-c" in command:
        command.remove("-c")
    print("| sequences | compile (s, processor) | compiler's peak memory (MB) | held-out sorted |")
    print("|---:|---:|---:|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            program = os.path.join(tmp, f"sort_digits_q8_{n}")
            cmd = command[:1] + [f"-DCXMAT_SORT_Q8_SEQUENCES={n}", "-fconstexpr-ops-limit=4294967296"] + \
                command[1:] + ["-o", program]
            child = subprocess.Popen(cmd, cwd=entry["directory"])
            _, status, usage = os.wait4(child.pid, 0)
            if status != 0:
                print(f"| {n} | compilation failed | | |", flush=True)
                continue
            # The link is part of it too, but small next to the constant evaluation.
            seconds = usage.ru_utime + usage.ru_stime
            out = subprocess.run([program], capture_output=True, text=True).stdout
            m = re.search(r"calibrated by the compiler on \d+ sequences sorts (\d+) \(([0-9.]+) %\)", out)
            share = f"{int(m.group(1)):,} of 10,000 ({m.group(2)} %)" if m else "not measured"
            print(f"| {n} | {seconds:.1f} | {usage.ru_maxrss / 1024:.0f} | {share} |", flush=True)


if __name__ == "__main__":
    main()
