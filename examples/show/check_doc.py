#!/usr/bin/env python3
"""Checks that docs/show.md shows the code and output of examples/show/show_attention.cpp.

Usage: check_doc.py <show_attention program> <docs/show.md> [--update]

The program prints "=== NAME ===" before each section's output; its source marks the code of a
section between "// show:begin NAME" and "// show:end". In the document, a section is

    <!-- code: NAME -->
    ```cpp
    ...
    ```
    <!-- output: NAME -->
    ```text
    ...
    ```

Fails (exit 1) when a block differs; with --update, rewrites the blocks from the program.
"""
import os
import pathlib
import re
import subprocess
import sys


def program_sections(program):
    out = subprocess.run([program], check=True, capture_output=True, text=True, env=dict(os.environ, TERM="dumb")).stdout
    sections, name = {}, None
    for line in out.splitlines(keepends=True):
        m = re.fullmatch(r"=== (\w+) ===\n", line)
        if m:
            name = m.group(1)
            sections[name] = ""
        elif name is not None:
            sections[name] += line
    return sections


def code_sections(source):
    sections = {}
    for m in re.finditer(r"^[ \t]*// show:begin (\w+)\n(.*?)^[ \t]*// show:end\n", source, re.M | re.S):
        lines = m.group(2).splitlines(keepends=True)
        indent = min(len(l) - len(l.lstrip(" ")) for l in lines if l.strip())
        sections[m.group(1)] = "".join(l[indent:] if l.strip() else l for l in lines)
    return sections


BLOCK = re.compile(r"<!-- (code|output): (\w+) -->\n```(\w+)\n(.*?)```\n", re.S)


def main():
    program, doc_path = sys.argv[1], pathlib.Path(sys.argv[2])
    update = "--update" in sys.argv[3:]
    source = (pathlib.Path(__file__).parent / "show_attention.cpp").read_text()
    want = {"output": program_sections(program), "code": code_sections(source)}
    doc = doc_path.read_text()
    problems, seen = [], set()

    def replace(m):
        kind, name, lang, body = m.groups()
        seen.add((kind, name))
        expected = want[kind].get(name)
        if expected is None:
            problems.append(f"docs/show.md has a {kind} block '{name}' the program does not make")
            return m.group(0)
        if body != expected:
            problems.append(f"the {kind} of '{name}' in docs/show.md differs from the program")
        return f"<!-- {kind}: {name} -->\n```{lang}\n{expected}```\n"

    new_doc = BLOCK.sub(replace, doc)
    for kind in want:
        for name in want[kind]:
            if (kind, name) not in seen:
                problems.append(f"docs/show.md lacks the {kind} block '{name}'")
    if update:
        doc_path.write_text(new_doc)
        print(f"updated {doc_path}")
        return 0
    for p in problems:
        print("FAIL:", p)
    if not problems:
        print(f"OK: {len(seen)} blocks of docs/show.md match the program")
    return 1 if problems else 0


sys.exit(main())
