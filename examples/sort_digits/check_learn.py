#!/usr/bin/env python3
"""Checks that docs/learn.md shows what examples/sort_digits/sort_attention prints: the block

    <!-- begin output sort-attention | sort_attention -->
    ...
    <!-- end output -->

(the format of exercises/gen_learn.py's compiler-output blocks, which keeps this block when it
regenerates the page).

Usage: check_learn.py <sort_attention program> <docs/learn.md> [--update]
Fails (exit 1) when the block differs from the program's output; --update rewrites it.
"""
import os
import re
import subprocess
import sys

KEY, LABEL = "sort-attention", "sort_attention"
BLOCK = re.compile(r"<!-- begin output %s \| %s -->\n.*?<!-- end output -->\n" % (re.escape(KEY), re.escape(LABEL)), re.S)


def block(text):
    return ("<!-- begin output %s | %s -->\n**%s** (`examples/sort_digits/sort_attention.cpp`):\n\n```text\n%s\n```\n"
            "<!-- end output -->\n" % (KEY, LABEL, LABEL, text.rstrip("\n")))


def main():
    if len(sys.argv) not in (3, 4) or (len(sys.argv) == 4 and sys.argv[3] != "--update"):
        sys.exit(__doc__)
    program, doc = sys.argv[1], sys.argv[2]
    out = subprocess.run([program], check=True, capture_output=True, text=True,
                         env=dict(os.environ, TERM="dumb")).stdout
    with open(doc, encoding="utf-8") as f:
        page = f.read()
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
