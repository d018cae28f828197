#!/usr/bin/env python3
"""Runs a command with some of numpy's CPU-dispatched kernels turned off.

    numpy_features.py MODE COMMAND [ARG...]

MODE is `all` (numpy as it starts on this machine), `no-avx512` (every AVX-512 kernel off) or
`baseline` (every dispatched kernel off: SSE2-era code on x86-64). numpy chooses its exp, sqrt,
sum and other kernels by the CPU it runs on, and they round differently; the generated references
must not depend on that, so their freshness checks run under each mode (CTest entries
*.numpy_<mode>). The modes set NPY_DISABLE_CPU_FEATURES to those of numpy's dispatched features
(numpy.core._multiarray_umath.__cpu_dispatch__) that the mode removes, check in a child
interpreter that numpy then reports them off, print what is on, and run COMMAND.
Exit status: COMMAND's; 77 (skipped) without numpy; 2 when the mode did not take effect.
"""
import json
import os
import subprocess
import sys

PROBE = ("import json\n"
         "from numpy.core._multiarray_umath import __cpu_dispatch__ as d, __cpu_features__ as f\n"
         "print(json.dumps({'dispatch': list(d), 'on': [k for k in d if f.get(k)]}))\n")


def probe(env):
    out = subprocess.run([sys.executable, "-W", "ignore", "-c", PROBE], env=env, capture_output=True, text=True)
    if out.returncode != 0:
        return None
    return json.loads(out.stdout)


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("all", "no-avx512", "baseline"):
        print(__doc__, file=sys.stderr)
        return 2
    mode, command = sys.argv[1], sys.argv[2:]
    env = dict(os.environ)
    env.pop("NPY_DISABLE_CPU_FEATURES", None)
    found = probe(env)
    if found is None:
        print("numpy is not available (Debian: python3-numpy): skipped")
        return 77
    off = {"all": [], "no-avx512": [k for k in found["dispatch"] if k.startswith("AVX512")],
           "baseline": found["dispatch"]}[mode]
    if off:
        env["NPY_DISABLE_CPU_FEATURES"] = " ".join(off)
    now = probe(env)
    if now is None or any(k in now["on"] for k in off):
        print(f"numpy_features: mode {mode} did not take effect (still on: {now and now['on']})", file=sys.stderr)
        return 2
    print(f"numpy kernels on ({mode}): {' '.join(now['on']) or 'none beyond the baseline'}", flush=True)
    return subprocess.run(command, env=env).returncode


if __name__ == "__main__":
    sys.exit(main())
