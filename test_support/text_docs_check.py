#!/usr/bin/env python3
"""Runs every command of docs/text.md and compiles its C++ blocks.

    python3 test_support/text_docs_check.py [--compiler c++]

Each `$ ` line of a ```console block runs in a scratch folder where scripts/ and test_support/
are the repository's (so the page's paths work as written) and must exit 0. Then each ```c++ block
(but the #embed one, whose file is a real model's) is compiled there with -fsyntax-only, inside an
unnamed namespace after `#include <cxmat/text.hpp>`: the headers the commands wrote are found in
the scratch folder. Exits 1 naming the first command or block that fails.
"""
import argparse
import pathlib
import re
import shlex
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent


def blocks(text, language):
    return re.findall(r"```" + re.escape(language) + r"\n(.*?)```", text, re.S)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--compiler", default="c++")
    args = parser.parse_args()
    doc = (ROOT / "docs" / "text.md").read_text()
    with tempfile.TemporaryDirectory() as tmp:
        scratch = pathlib.Path(tmp)
        for folder in ("scripts", "test_support"):
            (scratch / folder).symlink_to(ROOT / folder)
        commands = [line[2:] for block in blocks(doc, "console") for line in block.splitlines() if line.startswith("$ ")]
        for command in commands:
            words = shlex.split(command)
            if words[0] == "python3":
                words[0] = sys.executable
            result = subprocess.run(words, cwd=scratch, capture_output=True, text=True)
            if result.returncode != 0:
                print(f"docs/text.md: `{command}` exited {result.returncode}:\n{result.stdout}{result.stderr}")
                return 1
        compiled = 0
        for number, block in enumerate(blocks(doc, "c++"), start=1):
            if "#embed" in block:
                continue
            includes = [line for line in block.splitlines() if line.startswith("#include")]
            body = [line for line in block.splitlines() if not line.startswith("#include")]
            source = scratch / f"block_{number}.cpp"
            source.write_text("#include <cxmat/text.hpp>\n" + "\n".join(includes) + "\nnamespace {\n" + "\n".join(body) +
                              "\n}  // namespace\n")
            result = subprocess.run([args.compiler, "-std=c++20", "-fsyntax-only", "-Wall", "-Wextra",
                                     "-Wno-unused-variable", "-Wno-unused-const-variable", f"-I{ROOT / 'include'}",
                                     f"-I{scratch}", str(source)], capture_output=True, text=True)
            if result.returncode != 0:
                print(f"docs/text.md: C++ block {number} does not compile:\n{block}\n{result.stderr}")
                return 1
            compiled += 1
    print(f"text_docs_check: {len(commands)} commands ran, {compiled} C++ blocks compiled")
    return 0


if __name__ == "__main__":
    sys.exit(main())
