#!/usr/bin/env python3
"""Measures what a language model costs the importer and the compiler (not a test: times depend on
the machine and its load):

    measure_lm.py [COMPILER ...]

A random LLaMA of llama2.c's stories260K sizes (vocabulary 512, d_model 64, 5 layers, 8 heads, 4
key/value heads, SwiGLU 172, context 512: 260K parameters) is written as a llama2.c checkpoint,
imported, and its header compiled (-c, without generating) by each compiler (default g++);
prints the wall and processor time of each step and the header's size.
"""
import os
import resource
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "test_support"))
import lm_writers  # noqa: E402


def timed(cmd, cwd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main():
    compilers = sys.argv[1:] or ["g++"]
    with tempfile.TemporaryDirectory(prefix="cxmat_measure_lm_") as work:
        model = lm_writers.random_llama(1, vocab=512, dim=64, layers=5, heads=8, kv_heads=4, ffn=172, context=512,
                                        tied=True)
        lm_writers.write_llama2c(model, os.path.join(work, "stories260K.bin"), 0)
        wall, cpu = timed([sys.executable, os.path.join(ROOT, "scripts", "cxmat_import.py"), "stories260K.bin",
                           "--module", "llama", "--name", "story", "-o", "story.hpp"], work)
        size = os.path.getsize(os.path.join(work, "story.hpp"))
        print(f"import of a 260K-parameter llama2.c checkpoint: {wall:.2f} s wall, {cpu:.2f} s processor; "
              f"header {size / 1e6:.1f} MB")
        with open(os.path.join(work, "use.cpp"), "w") as f:
            f.write('#include "story.hpp"\nint main() { return story.blocks[0].w_q(0, 0) > 100.0f; }\n')
        for cxx in compilers:
            wall, cpu = timed([cxx, "-std=c++20", "-I", os.path.join(ROOT, "include"), "-c", "use.cpp", "-o",
                               "use.o"], work)
            print(f"{cxx}: the header compiled (no generation) in {wall:.2f} s wall, {cpu:.2f} s processor")


if __name__ == "__main__":
    main()
