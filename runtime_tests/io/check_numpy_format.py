#!/usr/bin/env python3
"""Compares cxmat's numpy-style printing with numpy's own, character for character.

Usage: check_numpy_format.py <numpy_cases program>

The program writes cases (see numpy_cases.cpp); for each, this script builds the same array
with numpy, prints it with str() under the same options (precision, suppress, floatmode
'maxprec' or 'fixed', linewidth) and compares. Prints every mismatch; exits 1 if any.
"""
import subprocess
import sys

import numpy as np


def main():
    out = subprocess.run([sys.argv[1]], check=True, capture_output=True, text=True).stdout.split("\n")
    i, cases, bad = 0, 0, 0
    while i < len(out) and out[i]:
        head = out[i].split()
        dtype, precision, suppress, fixed = head[1], int(head[2]), head[3] == "1", head[4] == "1"
        width = int(head[5]) or 1 << 20  # 0: no wrapping
        dims = tuple(int(d) for d in head[6:])
        values = [float(v) for v in out[i + 1].split()]
        j = i + 2
        while out[j] != "end":
            j += 1
        got = "\n".join(out[i + 2:j])
        a = np.array(values, dtype=np.float64).astype(dtype).reshape(dims)
        with np.printoptions(precision=precision, suppress=suppress, floatmode="fixed" if fixed else "maxprec",
                             linewidth=width, threshold=1 << 20):
            want = str(a)
        cases += 1
        if got != want:
            bad += 1
            print(f"MISMATCH {out[i]}\n values: {out[i + 1]}\n cxmat:\n{got}\n numpy:\n{want}\n")
        i = j + 1
    print(f"{cases - bad} of {cases} arrays print as numpy {np.__version__} prints them")
    return 1 if bad or cases == 0 else 0


sys.exit(main())
