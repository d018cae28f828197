# consumer.installed_tools: what `cmake --install` adds besides the headers and the package files:
# the importer (share/cxmat/cxmat_import.py, run through bin/cxmat-import), the Cortex-M toolchain
# files and the firmware template.
foreach(file IN ITEMS ${DATADIR}/cxmat/cxmat_import.py ${BINDIR}/cxmat-import
                      ${DATADIR}/cxmat/toolchains/arm-none-eabi.cmake ${DATADIR}/cxmat/toolchains/clang-arm-none-eabi.cmake
                      ${DATADIR}/cxmat/firmware/startup.cpp ${DATADIR}/cxmat/firmware/sections.ld
                      ${DATADIR}/cxmat/firmware/cortex-m4f.ld ${DATADIR}/cxmat/firmware/cortex-m0plus.ld
                      ${DATADIR}/cxmat/firmware/harness.hpp)
  if(NOT EXISTS "${PREFIX}/${file}")
    message(FATAL_ERROR "cmake --install did not install ${file}")
  endif()
endforeach()
# The wrapper is run as installed (its execute bit included), from another directory, so that it
# must find the script relative to itself.
set(ENV{CXMAT_PYTHON} "${PYTHON}")
execute_process(COMMAND "${PREFIX}/${BINDIR}/cxmat-import" --help WORKING_DIRECTORY "${PREFIX}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "usage: cxmat_import.py")
  message(FATAL_ERROR "bin/cxmat-import --help failed (${rc}): ${out}${err}")
endif()
message("installed: the importer (bin/cxmat-import runs), toolchain files, firmware template")
