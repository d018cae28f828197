#!/usr/bin/env python3
"""Checks that docs/learn.md shows what a trained model's example prints: the block

    <!-- begin output KEY | LABEL -->
    ...
    <!-- end output -->

(the format of exercises/gen_learn.py's compiler-output blocks, which keeps these blocks when it
regenerates the page). The page shows the command that prints it (--command); the check runs
the program as that command does, with an SVG path, and checks the picture too: the panels
named by --panels (the heads and their mean), at most 1000 wide (panels in rows), --cells
cells, each a weight in [0, 1].

Usage: check_learn_output.py PROGRAM docs/learn.md --key KEY --label LABEL --source FILE
       --command COMMAND --panels H=0,H=1,...,mean --cells N [--update]
Fails (exit 1) when the block differs from the program's output; --update rewrites it.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET


def block(args, text):
    return ("<!-- begin output %s | %s -->\n**%s** (`%s`):\n\n```text\n%s\n```\n<!-- end output -->\n"
            % (args.key, args.label, args.label, args.source, text.rstrip("\n")))


def check_svg(path, panels, cells):
    """What is wrong with the picture the program wrote, or None."""
    if not os.path.exists(path):
        return "not written"
    root = ET.parse(path).getroot()
    ns = "{http://www.w3.org/2000/svg}"
    found = [g.get("data-panel") for g in root.iter(ns + "g") if g.get("class") == "panel"]
    if found != panels:
        return "panels %s, not %s" % (found, panels)
    if not float(root.get("width")) <= 1000:
        return "%s wide, more than 1000" % root.get("width")
    values = [float(r.get("data-value")) for r in root.iter(ns + "rect") if r.get("class") == "cell"]
    if len(values) != cells or not all(0 <= v <= 1 for v in values):
        return "%d cells, not %d weights in [0, 1]" % (len(values), cells)
    return None


def main():
    p = argparse.ArgumentParser()
    p.add_argument("program")
    p.add_argument("doc")
    p.add_argument("--key", required=True)
    p.add_argument("--label", required=True)
    p.add_argument("--source", required=True)
    p.add_argument("--command", required=True)
    p.add_argument("--panels", required=True)
    p.add_argument("--cells", type=int, required=True)
    p.add_argument("--update", action="store_true")
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        svg = os.path.join(tmp, "heads.svg")
        out = subprocess.run([args.program, svg], check=True, capture_output=True, text=True,
                             env=dict(os.environ, TERM="dumb")).stdout
        problem = check_svg(svg, args.panels.split(","), args.cells)
    if problem:
        print("FAIL: the SVG of %s: %s" % (os.path.basename(args.program), problem))
        return 1
    with open(args.doc, encoding="utf-8") as f:
        page = f.read()
    if args.command not in page:
        print("FAIL: %s does not show the command %r" % (args.doc, args.command))
        return 1
    pattern = re.compile(r"<!-- begin output %s \| %s -->\n.*?<!-- end output -->\n"
                         % (re.escape(args.key), re.escape(args.label)), re.S)
    m = pattern.search(page)
    if not m:
        print("%s has no block '%s | %s' (exercises/gen_learn.py writes its place)" % (args.doc, args.key, args.label))
        return 1
    want = block(args, out)
    if m.group(0) == want:
        print("OK: %s shows the output of %s" % (args.doc, os.path.basename(args.program)))
        return 0
    if args.update:
        with open(args.doc, "w", encoding="utf-8") as f:
            f.write(page[:m.start()] + want + page[m.end():])
        print("updated %s" % args.doc)
        return 0
    print("FAIL: the block '%s' in %s differs from the program's output; rerun with --update" % (args.key, args.doc))
    return 1


if __name__ == "__main__":
    sys.exit(main())
