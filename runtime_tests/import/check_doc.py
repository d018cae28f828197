#!/usr/bin/env python3
"""Runs what docs/import.md shows and compares what it prints with the page.

    check_doc.py DOC COMPILER [--update]

In a temporary folder where `cxmat` is this repository: a code block after `<!-- file: NAME -->`
is written to NAME, one after `<!-- copy of: PATH -->` must be a part of the repository's file
PATH; every ```sh block is run by bash (`python3` is this interpreter, `g++` the
compiler given), and its output (stdout and stderr) must equal the ```text block after the next
`<!-- output -->`. --update writes the outputs into the page instead. Exit status 77 (skipped)
without PyTorch, which the page's example uses.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
BLOCK = re.compile(r"(<!-- (file: (?P<name>\S+)|copy of: (?P<copy>\S+)|output) -->\n)?```(?P<lang>\w*)\n(?P<body>.*?)```\n",
                   re.S)


def main():
    doc, compiler = sys.argv[1], sys.argv[2]
    update = "--update" in sys.argv[3:]
    try:
        import torch  # noqa: F401
    except ImportError:
        print(f"skipped: PyTorch is not installed for {sys.executable}; {doc} makes its example with it")
        return 77
    text = open(doc).read()
    work = tempfile.mkdtemp(prefix="cxmat_import_doc_")
    os.symlink(ROOT, os.path.join(work, "cxmat"))
    env = dict(os.environ, CXMAT_PYTHON=sys.executable, CXMAT_CXX=compiler)
    pieces, last, pending, problems = [], 0, None, []
    try:
        for m in BLOCK.finditer(text):
            body = m.group("body")
            if m.group("copy"):
                with open(os.path.join(ROOT, m.group("copy"))) as f:
                    if body not in f.read():
                        problems.append(f"the block at offset {m.start()} is not a copy of {m.group('copy')}")
            elif m.group("name"):
                with open(os.path.join(work, m.group("name")), "w") as f:
                    f.write(body)
            elif m.group(1) and m.group(1).startswith("<!-- output"):
                if pending is None:
                    problems.append(f"an output block at offset {m.start()} follows no command")
                    continue
                if body != pending:
                    problems.append(f"output differs:\n--- page\n{body}--- program\n{pending}")
                pieces.append(text[last:m.start("body")] + pending)
                last = m.end("body")
                pending = None
            elif m.group("lang") == "sh":
                script = re.sub(r"^python3 ", '"$CXMAT_PYTHON" ', body, flags=re.M)
                script = re.sub(r"^g\+\+ ", '"$CXMAT_CXX" ', script, flags=re.M)
                r = subprocess.run(["bash", "-c", script], cwd=work, env=env, capture_output=True, text=True)
                pending = r.stdout + r.stderr
                print(f"ran:\n{body}{pending}")
        pieces.append(text[last:])
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if update:
        with open(doc, "w") as f:
            f.write("".join(pieces))
        print(f"updated {doc}")
        return 0
    for p in problems:
        print("FAIL:", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
