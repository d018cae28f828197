#!/usr/bin/env python3
"""Checks that cxmat says its licence everywhere it ships: the Boost Software License 1.0 text at
the root, an SPDX line near the top of every header under include/, and the same identifier in
library.json (PlatformIO) and in the Zephyr module. Prints one line per problem; exit 1 if any."""
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
SPDX = "SPDX-License-Identifier: BSL-1.0"


def main() -> int:
    problems = []
    licence = ROOT / "LICENSE_1_0.txt"
    if not licence.is_file() or not licence.read_text().startswith(
            "Boost Software License - Version 1.0 - August 17th, 2003"):
        problems.append("LICENSE_1_0.txt: missing, or not the Boost Software License 1.0 text")
    for header in sorted((ROOT / "include").rglob("*.hpp")):
        head = header.read_text(encoding="utf-8").splitlines()[:5]
        if not any(SPDX in line for line in head):
            problems.append(f"{header.relative_to(ROOT)}: no '{SPDX}' line in its first 5 lines")
    manifest = json.loads((ROOT / "library.json").read_text())
    if manifest.get("license") != "BSL-1.0":
        problems.append(f"library.json: license is {manifest.get('license')!r}, not 'BSL-1.0'")
    for line in problems:
        print(line)
    print(f"check_license: {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
