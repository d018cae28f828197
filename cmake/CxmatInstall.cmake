# Installs the headers and an exported package, so that `find_package(cxmat)` then
# `target_link_libraries(app PRIVATE cxmat::cxmat)` works from an installed prefix.
include(CMakePackageConfigHelpers)

install(TARGETS cxmat EXPORT cxmatTargets)
install(DIRECTORY include/cxmat DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT cxmatTargets
  NAMESPACE cxmat::
  DESTINATION ${CMAKE_INSTALL_DATADIR}/cmake/cxmat)

configure_package_config_file(
  cmake/cxmatConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cxmatConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_DATADIR}/cmake/cxmat)
# Header-only and free of ABI: any 64-bit or 32-bit consumer may use it.
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/cxmatConfigVersion.cmake
  COMPATIBILITY SameMinorVersion
  ARCH_INDEPENDENT)
install(FILES
  ${PROJECT_BINARY_DIR}/cxmatConfig.cmake
  ${PROJECT_BINARY_DIR}/cxmatConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_DATADIR}/cmake/cxmat)

# pkg-config (share/pkgconfig: nothing in it depends on the architecture), relocatable through
# ${pcfiledir}: the prefix is found from the file's own place.
set(cxmat_pc_dir ${CMAKE_INSTALL_DATADIR}/pkgconfig)
file(RELATIVE_PATH cxmat_pc_prefix_from_pcdir "/prefix/${cxmat_pc_dir}" "/prefix")
string(REGEX REPLACE "/$" "" cxmat_pc_prefix_from_pcdir "${cxmat_pc_prefix_from_pcdir}")
configure_file(cmake/cxmat.pc.in ${PROJECT_BINARY_DIR}/cxmat.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/cxmat.pc DESTINATION ${cxmat_pc_dir})

# The licence travels with the headers (the Boost Software License asks that its text go with
# every copy of the source).
install(FILES LICENSE_1_0.txt DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/cxmat)

# The importer: share/cxmat/cxmat_import.py and a bin/cxmat-import wrapper that runs it with
# python3 (or $CXMAT_PYTHON), relocatable like cxmat.pc.
install(FILES scripts/cxmat_import.py DESTINATION ${CMAKE_INSTALL_DATADIR}/cxmat)
file(RELATIVE_PATH cxmat_importer_from_bindir "/prefix/${CMAKE_INSTALL_BINDIR}"
     "/prefix/${CMAKE_INSTALL_DATADIR}/cxmat")
configure_file(cmake/cxmat-import.in ${PROJECT_BINARY_DIR}/cxmat-import @ONLY)
install(PROGRAMS ${PROJECT_BINARY_DIR}/cxmat-import DESTINATION ${CMAKE_INSTALL_BINDIR})

# For a firmware project (docs/embedded.md, "Packages for a firmware project"): the Cortex-M
# toolchain files (share/cxmat/toolchains) and a template of the start-up code, linker scripts and
# semihosting harness the examples run on (share/cxmat/firmware).
install(FILES cmake/toolchains/arm-none-eabi.cmake cmake/toolchains/clang-arm-none-eabi.cmake
        DESTINATION ${CMAKE_INSTALL_DATADIR}/cxmat/toolchains)
install(FILES examples/embedded/firmware/startup.cpp examples/embedded/firmware/sections.ld
              examples/embedded/firmware/cortex-m4f.ld examples/embedded/firmware/cortex-m0plus.ld
              examples/embedded/firmware/harness.hpp
        DESTINATION ${CMAKE_INSTALL_DATADIR}/cxmat/firmware)
