#!/usr/bin/env python3
"""consumer.package_files: the PlatformIO and Zephyr descriptions of cxmat, read as their tools read
them. library.json is JSON with PlatformIO's required fields, and its include directory holds the
headers it names; zephyr/module.yml is YAML whose build.cmake folder has a CMakeLists.txt that adds
the include directory under the Kconfig symbol its Kconfig file defines. Usage: check_package_files.py ROOT"""
import json
import pathlib
import re
import sys

import yaml


def fail(message):
    print("package files:", message)
    sys.exit(1)


def main():
    root = pathlib.Path(sys.argv[1])
    cmake = (root / "CMakeLists.txt").read_text()
    version = re.search(r"project\(cxmat\s+VERSION\s+([0-9.]+)", cmake).group(1)

    lib = json.loads((root / "library.json").read_text())
    for key in ("name", "version", "description", "frameworks", "platforms"):
        if key not in lib:
            fail(f"library.json has no '{key}'")
    if lib["name"] != "cxmat" or lib["version"] != version:
        fail(f"library.json names {lib['name']} {lib['version']}, CMakeLists.txt cxmat {version}")
    include = root / lib.get("build", {}).get("includeDir", "include")
    for header in lib.get("headers", []):
        if not (include / header).is_file():
            fail(f"library.json names {header}, not under {include}")
    if "-std=gnu++20" not in lib["build"].get("flags", []):
        fail("library.json does not ask for C++20")
    for exported in lib.get("export", {}).get("include", []):
        if not (root / exported).exists():
            fail(f"library.json exports {exported}, which does not exist")

    module = yaml.safe_load((root / "zephyr" / "module.yml").read_text())
    if module.get("name") != "cxmat":
        fail("zephyr/module.yml does not name cxmat")
    build = module.get("build", {})
    module_cmake = root / build.get("cmake", "") / "CMakeLists.txt"
    kconfig = root / build.get("kconfig", "")
    if not module_cmake.is_file() or not kconfig.is_file():
        fail("zephyr/module.yml's build.cmake or build.kconfig is missing")
    symbols = re.findall(r"^config\s+(\w+)", kconfig.read_text(), re.M)
    text = module_cmake.read_text()
    if symbols != ["CXMAT"] or "if(CONFIG_CXMAT)" not in text:
        fail(f"zephyr: Kconfig defines {symbols}, the CMake file must act under CONFIG_CXMAT")
    match = re.search(r"zephyr_include_directories\(\$\{ZEPHYR_CURRENT_MODULE_DIR\}/(\S+)\)", text)
    if not match or not (root / match.group(1) / "cxmat" / "cxmat.hpp").is_file():
        fail("zephyr/CMakeLists.txt does not add the include directory")
    print(f"library.json (cxmat {version}, include/) and zephyr/module.yml (CONFIG_CXMAT, include/) are consistent")


if __name__ == "__main__":
    main()
