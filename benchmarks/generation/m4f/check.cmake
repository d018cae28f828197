# The Cortex-M4F benchmark's smoke check (CTest benchmark.generation.m4f.smoke): builds the
# harness image of this folder on the given weights (the smoke model's), runs it in QEMU and fails
# unless it prints the tokens that HOST (m4f_host.cpp on the same weights) prints.
# Usage: cmake -DSOURCE=<this folder> -DBUILD=<dir> -DWEIGHTS=<folder of llama_weights.hpp>
#              -DGENERATOR=<generator> -DHOST=<exe> -DQEMU=<qemu-system-arm> -P check.cmake
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE} -B ${BUILD} -G ${GENERATOR} -DCMAKE_BUILD_TYPE=MinSizeRel
                        -DCXMAT_LLAMA_WEIGHTS=${WEIGHTS}
                RESULT_VARIABLE rc OUTPUT_VARIABLE log ERROR_VARIABLE log)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configure failed:\n${log}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BUILD} --target llama_q8-qemu
                RESULT_VARIABLE rc OUTPUT_VARIABLE log ERROR_VARIABLE log)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "build failed:\n${log}")
endif()
execute_process(COMMAND ${HOST} RESULT_VARIABLE rc OUTPUT_VARIABLE want)
if(NOT rc EQUAL 0 OR NOT want MATCHES "^row ")
  message(FATAL_ERROR "${HOST} failed (${rc}): ${want}")
endif()
# Semihosting's output comes on QEMU's stderr.
execute_process(COMMAND ${QEMU} -M mps2-an386 -nographic -monitor none -semihosting-config enable=on,target=native
                        -icount shift=7 -kernel ${BUILD}/llama_q8-qemu.elf
                TIMEOUT 60 RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
string(REGEX MATCHALL "row [^\n]*" got "${out}")
string(REGEX MATCHALL "row [^\n]*" wanted "${want}")
if(NOT rc EQUAL 0 OR NOT got STREQUAL wanted)
  message(FATAL_ERROR "the Cortex-M4F's tokens differ from the host's (QEMU status ${rc}):\n${out}\nhost:\n${want}")
endif()
list(LENGTH got rows)
message(STATUS "the same ${rows} rows of tokens on the Cortex-M4F as on the host")
