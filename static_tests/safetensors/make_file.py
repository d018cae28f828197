#!/usr/bin/env python3
"""The .safetensors file of the safetensors reader's tests (numpy only), and its bytes as a header
made by the importer (--module bytes). Every value is exact in its dtype, so the tests compare with ==.

    make_file.py OUTDIR      writes OUTDIR/test_file.safetensors and OUTDIR/test_file.hpp
"""
import json
import os
import struct
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
IMPORTER = os.path.join(HERE, "..", "..", "scripts", "cxmat_import.py")

TENSORS = {
    # nn.Linear(2, 4).weight as PyTorch stores it: out x in. Element k is k / 8 - 1.
    "layers.0.linear1.weight": ("F32", np.arange(8, dtype=np.float32).reshape(4, 2) / 8 - 1),
    "layers.0.linear1.bias": ("F32", np.array([0.5, -0.25, 2.0, 3.0], np.float32)),
    # float16: a subnormal (3 * 2^-24), the largest finite value, a negative zero and -1.5.
    "half": ("F16", np.array([[3 * 2.0 ** -24, 65504.0, -0.0], [-1.5, 0.09997558593750, 1024.0]], np.float16)),
    # bfloat16 1.5 and -2 (upper halves of the float32 bits).
    "bf": ("BF16", np.array([[0x3FC0, 0xC000]], np.uint16)),
    "wide": ("F64", np.array([[0.1, 0.2], [0.3, 0.4]], np.float64)),
    "steps": ("I64", np.array(12, np.int64)),
    "name with \"quote\"": ("F32", np.array([7.0], np.float32)),
}


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    header, blobs, offset = {"__metadata__": {"format": "pt"}}, [], 0
    for key, (tag, array) in TENSORS.items():
        raw = np.ascontiguousarray(array).tobytes()
        header[key] = {"dtype": tag, "shape": list(array.shape), "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    text = json.dumps(header).encode()
    path = os.path.join(out, "test_file.safetensors")
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))
    subprocess.run([sys.executable, IMPORTER, path, "--module", "bytes", "--name", "test_file", "-o",
                    os.path.join(out, "test_file.hpp")], check=True)


if __name__ == "__main__":
    main()
