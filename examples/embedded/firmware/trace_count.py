#!/usr/bin/env python3
"""Counts the instructions of one measured call a second way, to check the harness's count.

Runs the image in QEMU with one instruction per translation block (-singlestep) and a log of
every block executed (-d exec,nochain): each log line is then one executed instruction. The
count runs from the first instruction of run_step to the first instruction back in
harness::measure. The harness's SysTick count covers the same call, give or take the call
instruction and where the two timer reads land against the empty measurement it subtracts: the
SysTick count may be larger by up to 2, never smaller. QEMU logs a block a second time when it
re-enters it after refilling its 16-bit instruction budget (every 65536 instructions), so a line
with the same address as the line before is not counted (no code here branches to itself).

usage: trace_count.py QEMU NM MACHINE ELF MEASURED_FILE LAYER
"""
import bisect
import os
import re
import subprocess
import sys
import tempfile


def functions(nm, elf):
    """(address, size, name) of every function in the image, sorted by address."""
    out = subprocess.run([nm, "-S", "-C", "--defined-only", elf], check=True, capture_output=True, text=True).stdout
    found = []
    for line in out.splitlines():
        parts = line.split(None, 3)
        if len(parts) == 4 and parts[2] in "tTW":
            found.append((int(parts[0], 16), int(parts[1], 16), parts[3]))
    return sorted(found)


def symbol(nm, elf, pattern):
    out = subprocess.run([nm, "-S", "-C", elf], check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        parts = line.split(None, 3)
        if len(parts) == 4 and re.search(pattern, parts[3]):
            return int(parts[0], 16), int(parts[1], 16)
    sys.exit(f"FAIL: no symbol matching {pattern} in {elf}")


def main():
    if len(sys.argv) != 7:
        sys.exit(__doc__)
    qemu, nm, machine, elf, measured_file, layer = sys.argv[1:]
    if not qemu:
        print("qemu-system-arm not found: the trace count is skipped (Debian: qemu-system-arm)")
        return
    start, _ = symbol(nm, elf, r"run_step\(\)$")
    measure, measure_size = symbol(nm, elf, r"^harness::measure\(")
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "exec.log")
        subprocess.run([qemu, "-M", machine, "-nographic", "-monitor", "none",
                        "-semihosting-config", "enable=on,target=native", "-icount", "shift=7",
                        "-singlestep", "-d", "exec,nochain", "-D", log, "-kernel", elf],
                       check=True, capture_output=True, timeout=120)
        trace = re.compile(r"^Trace \d+: \S+ \[[0-9a-f]+/([0-9a-f]+)/")
        table = functions(nm, elf)
        starts = [f[0] for f in table]
        count, inside, previous, in_libgcc = 0, False, None, 0
        with open(log) as f:
            for line in f:
                m = trace.match(line)
                if not m:
                    continue
                pc = int(m.group(1), 16)
                if pc == previous:
                    continue
                previous = pc
                if not inside:
                    inside = pc == start
                elif measure <= pc < measure + measure_size:
                    break
                if inside:
                    count += 1
                    # libgcc's routines (soft float, 64-bit arithmetic, division) are named __*.
                    i = bisect.bisect_right(starts, pc) - 1
                    if i >= 0 and pc < table[i][0] + table[i][1] and table[i][2].startswith("__"):
                        in_libgcc += 1
    if count == 0:
        sys.exit("FAIL: run_step never ran in the trace")
    with open(measured_file) as f:
        m = re.search(rf"measured {layer} instructions (\d+)", f.read())
    if not m:
        sys.exit(f"FAIL: no measurement for {layer} in {measured_file}")
    systick = int(m.group(1))
    print(f"{layer} on {machine}: {count} instructions traced, {systick} counted by SysTick; "
          f"{100.0 * in_libgcc / count:.1f} % of them in libgcc routines")
    if not 0 <= systick - count <= 2:
        sys.exit("FAIL: the two counts disagree")


if __name__ == "__main__":
    main()
