#!/usr/bin/env python3
"""consumer.package_files: the PlatformIO and Zephyr descriptions of cxmat, read as their tools read
them. library.json is JSON with PlatformIO's required fields, and its include directory holds the
headers it names, and it names the licence, the authors, the platforms and the compiler its flags
need; zephyr/module.yml is YAML whose build.cmake folder has a CMakeLists.txt that adds the include
directory under the Kconfig symbol its Kconfig file defines, and that symbol depends on C++ and
C++20 and selects a full C++ library under the names of Zephyr before and after 3.4. Usage:
check_package_files.py ROOT"""
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
    if lib.get("license") != "BSL-1.0":
        fail("library.json's license is not BSL-1.0")
    if {"name": "The cxmat authors"} not in lib.get("authors", []):
        fail("library.json's authors do not name the cxmat authors")
    # Platforms cxmat is built and tested for (Arm Cortex-M with arm-none-eabi, and hosts), by
    # PlatformIO's names: a list, not "*" (AVR and the like have no C++20 library).
    platforms = lib["platforms"]
    if not isinstance(platforms, list) or "native" not in platforms or not {"ststm32", "nordicnrf52"} <= set(platforms):
        fail(f"library.json's platforms are {platforms!r}: list the Cortex-M platforms and native")
    if "GCC 12" not in lib["description"] or "toolchain-gccarmnoneeabi" not in lib["description"]:
        fail("library.json's description does not say which compiler the build flags need")
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
    # The Kconfig keys, for Zephyr before and after 3.4 (CPLUSPLUS became CPP; the full C++ library
    # is REQUIRES_FULL_LIBCPP, LIB_CPLUSPLUS before): C++ on, C++20 or later (a choice entry, which
    # can only be depended on), a full C++ library selected.
    body = kconfig.read_text()
    properties = [line.split("#", 1)[0].strip() for line in body.splitlines()]
    depends = [p[len("depends on "):] for p in properties if p.startswith("depends on ")]
    selects = [p[len("select "):] for p in properties if p.startswith("select ")]
    if "CPP || CPLUSPLUS" not in depends:
        fail(f"zephyr/Kconfig: CXMAT must depend on CPP || CPLUSPLUS, it depends on {depends}")
    if not any(re.match(r"STD_CPP20(\s*\|\|\s*STD_CPP\w+)*$", d) for d in depends):
        fail(f"zephyr/Kconfig: CXMAT must depend on STD_CPP20 or a later standard, it depends on {depends}")
    if "REQUIRES_FULL_LIBCPP" not in selects or "LIB_CPLUSPLUS if CPLUSPLUS" not in selects:
        fail(f"zephyr/Kconfig: CXMAT must select REQUIRES_FULL_LIBCPP (and LIB_CPLUSPLUS before 3.4), it selects {selects}")
    if any(s.startswith("STD_CPP") for s in selects):
        fail("zephyr/Kconfig selects a C++ standard: a choice entry cannot be selected (Kconfig ignores it)")
    match = re.search(r"zephyr_include_directories\(\$\{ZEPHYR_CURRENT_MODULE_DIR\}/(\S+)\)", text)
    if not match or not (root / match.group(1) / "cxmat" / "cxmat.hpp").is_file():
        fail("zephyr/CMakeLists.txt does not add the include directory")
    print(f"library.json (cxmat {version}, include/) and zephyr/module.yml (CONFIG_CXMAT, include/) are consistent")


if __name__ == "__main__":
    main()
