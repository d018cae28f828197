#!/usr/bin/env python3
"""Checks that docs/learn.md shows what examples/sort_digits/sort_attention prints: the block

    <!-- begin output sort-attention | sort_attention -->
    ...
    <!-- end output -->

(the format of exercises/gen_learn.py's compiler-output blocks, which keeps this block when it
regenerates the page).

The page shows the command that prints it (COMMAND below); the check runs the program as that
command does, with an SVG path, and checks the picture too: the second layer's four heads and
their mean, at most 1000 wide (panels in rows), every cell's value a weight.

Usage: check_learn.py <sort_attention program> <docs/learn.md> [--update]
Fails (exit 1) when the block differs from the program's output; --update rewrites it.
"""
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

COMMAND = ("cmake --build build/gcc --target sort_attention && "
           "build/gcc/examples/sort_digits/sort_attention sort_attention.svg")

KEY, LABEL = "sort-attention", "sort_attention"
BLOCK = re.compile(r"<!-- begin output %s \| %s -->\n.*?<!-- end output -->\n" % (re.escape(KEY), re.escape(LABEL)), re.S)


def block(text):
    return ("<!-- begin output %s | %s -->\n**%s** (`examples/sort_digits/sort_attention.cpp`):\n\n```text\n%s\n```\n"
            "<!-- end output -->\n" % (KEY, LABEL, LABEL, text.rstrip("\n")))


def check_svg(path):
    """What is wrong with the picture the program wrote, or None."""
    if not os.path.exists(path):
        return "not written"
    root = ET.parse(path).getroot()
    ns = "{http://www.w3.org/2000/svg}"
    panels = [g.get("data-panel") for g in root.iter(ns + "g") if g.get("class") == "panel"]
    if panels != ["H=0", "H=1", "H=2", "H=3", "mean"]:
        return "panels %s, not the four heads and their mean" % panels
    if not float(root.get("width")) <= 1000:
        return "%s wide, more than 1000" % root.get("width")
    cells = [float(r.get("data-value")) for r in root.iter(ns + "rect") if r.get("class") == "cell"]
    if len(cells) != 5 * 64 or not all(0 <= v <= 1 for v in cells):
        return "%d cells, not 5 x 64 weights in [0, 1]" % len(cells)
    return None


def main():
    if len(sys.argv) not in (3, 4) or (len(sys.argv) == 4 and sys.argv[3] != "--update"):
        sys.exit(__doc__)
    program, doc = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        svg = os.path.join(tmp, "sort_attention.svg")
        out = subprocess.run([program, svg], check=True, capture_output=True, text=True,
                             env=dict(os.environ, TERM="dumb")).stdout
        problem = check_svg(svg)
    if problem:
        print("FAIL: the SVG of %s: %s" % (os.path.basename(program), problem))
        return 1
    with open(doc, encoding="utf-8") as f:
        page = f.read()
    if COMMAND not in page:
        print("FAIL: %s does not show the command %r" % (doc, COMMAND))
        return 1
    m = BLOCK.search(page)
    if not m:
        print("%s has no block '%s | %s' (exercises/gen_learn.py writes its place)" % (doc, KEY, LABEL))
        return 1
    want = block(out)
    if m.group(0) == want:
        print("OK: %s shows the output of %s" % (doc, os.path.basename(program)))
        return 0
    if len(sys.argv) == 4:
        with open(doc, "w", encoding="utf-8") as f:
            f.write(page[:m.start()] + want + page[m.end():])
        print("updated %s" % doc)
        return 0
    print("FAIL: the block '%s' in %s differs from the program's output; rerun with --update" % (KEY, doc))
    return 1


if __name__ == "__main__":
    sys.exit(main())
