# Runs each pair of images in QEMU and prints a comparison table of docs/embedded.md: executed
# instructions per call, stack, and the images' code (.text). The small layer's images go through
# the firmware's check (each must print cxmat's host result for the layer); the larger layer's
# images must print the same bytes as each other. Instructions are the harness's SysTick ticks
# under -icount scaled by its calibration loops, as the firmware check computes them.
#   cmake -DBUILD=<benchmark build> -DQEMU=<qemu-system-arm> -DCHECK=<embedded_firmware_check>
#         -DSIZE=<arm-none-eabi-size> [-DCORE=m4f|m55] -P compare.cmake
# CORE=m4f (the default): the Cortex-M4F's images on mps2-an386. CORE=m55: the Cortex-M55's on
# mps3-an547, with Helium (MVE) for both libraries and cxmat's without it (the DSP path); the
# table is printed on the standard output (check_doc_m55 compares it with docs/embedded.md).
cmake_minimum_required(VERSION 3.25)
set(run_script "${CMAKE_CURRENT_LIST_DIR}/../../../examples/embedded/firmware/run_in_qemu.cmake")
if(NOT DEFINED CORE)
  set(CORE m4f)
endif()
if(CORE STREQUAL "m4f")
  set(machine mps2-an386)
  set(suffix "")
  set(pairs "cxmat;cmsis_nn" "cxmat_large;cmsis_nn_large")
else()
  set(machine mps3-an547)
  set(suffix "-m55")
  set(pairs "cxmat-m55;cmsis_nn-m55" "cxmat_large-m55;cmsis_nn_large-m55" "cxmat-m55;cxmat-m55dsp"
            "cxmat_large-m55;cxmat_large-m55dsp")
endif()

function(run image)
  execute_process(COMMAND ${QEMU} -M ${machine} -nographic -monitor none -semihosting-config enable=on,target=native
                          -icount shift=7 -kernel ${BUILD}/${image}-qemu.elf
                  TIMEOUT 120 RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${image}: QEMU exited with ${rc}: ${out}")
  endif()
  file(WRITE "${BUILD}/run-${image}.txt" "${out}")
  if(NOT out MATCHES "ticks ([0-9]+) empty ([0-9]+)")
    message(FATAL_ERROR "${image}: no measurement")
  endif()
  set(ticks ${CMAKE_MATCH_1})
  set(empty ${CMAKE_MATCH_2})
  string(REGEX MATCH "calibration ([0-9]+) ([0-9]+) ([0-9]+) ([0-9]+)" _ "${out}")
  math(EXPR per "${CMAKE_MATCH_4} - ${CMAKE_MATCH_2}")
  math(EXPR n "${CMAKE_MATCH_3} - ${CMAKE_MATCH_1}")
  math(EXPR instructions "((${ticks} - ${empty}) * ${n} + ${per} / 2) / ${per}")
  string(REGEX MATCH "stack ([0-9]+)" _ "${out}")
  set(stack ${CMAKE_MATCH_1})
  execute_process(COMMAND ${SIZE} -A ${BUILD}/${image}-qemu.elf OUTPUT_VARIABLE sections)
  string(REGEX MATCH "\n\\.text +([0-9]+)" _ "${sections}")
  set(row_${image} "${instructions} | ${stack} | ${CMAKE_MATCH_1}" PARENT_SCOPE)
  string(REGEX MATCHALL "row [^\n]*" rows "${out}")
  set(rows_${image} "${rows}" PARENT_SCOPE)
endfunction()

# The small layer: cxmat's host result, checked by the firmware check, for its images.
set(small cxmat${suffix} cmsis_nn${suffix})
if(CORE STREQUAL "m55")
  list(APPEND small cxmat-m55dsp)
endif()
foreach(image IN LISTS small)
  execute_process(COMMAND ${CMAKE_COMMAND} -DQEMU=${QEMU} -DMACHINE=${machine} -DELF=${BUILD}/${image}-qemu.elf
                          -DCHECK=${CHECK} -DLAYER=q8_self_attention -DOUTPUT=${BUILD}/check-${image}.txt
                          -DMEASURED=${BUILD}/measured-${image}.txt -P ${run_script}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${image}: ${out}")
  endif()
endforeach()
set(all_images cxmat${suffix} cmsis_nn${suffix} cxmat_large${suffix} cmsis_nn_large${suffix})
if(CORE STREQUAL "m55")
  list(APPEND all_images cxmat-m55dsp cxmat_large-m55dsp)
endif()
foreach(image IN LISTS all_images)
  run(${image})
endforeach()
# Each pair prints the same bytes.
list(LENGTH pairs pair_count)
math(EXPR last "${pair_count} / 2 - 1")
foreach(i RANGE ${last})
  math(EXPR first "${i} * 2")
  math(EXPR second "${i} * 2 + 1")
  list(GET pairs ${first} a)
  list(GET pairs ${second} b)
  if(NOT rows_${a} STREQUAL rows_${b} OR rows_${a} STREQUAL "")
    message(FATAL_ERROR "${a} and ${b} printed different results")
  endif()
endforeach()

if(CORE STREQUAL "m4f")
  message("| int8 self-attention with W_o, Cortex-M4F, QEMU | instructions per call | stack (bytes) | image .text (bytes, with the harness) |
|---|---:|---:|---:|
| n = 8, d_model = 16, H = 2: cxmat (`q8::multi_head_attention`) | ${row_cxmat} |
| n = 8, d_model = 16, H = 2: CMSIS-NN kernels and the graph's glue | ${row_cmsis_nn} |
| n = 32, d_model = 64, H = 4: cxmat | ${row_cxmat_large} |
| n = 32, d_model = 64, H = 4: CMSIS-NN | ${row_cmsis_nn_large} |

The same output bytes from both, for each layer (the small one also the host's).")
else()
  set(table "| int8 self-attention with W_o, Cortex-M55, QEMU mps3-an547 | instructions per call | stack (bytes) | image .text (bytes, with the harness) |
|---|---:|---:|---:|
| n = 8, d_model = 16, H = 2: cxmat, Helium (`runtime_mve.hpp`) | ${row_cxmat-m55} |
| n = 8, d_model = 16, H = 2: cxmat, no MVE (`+nomve`: the DSP path) | ${row_cxmat-m55dsp} |
| n = 8, d_model = 16, H = 2: CMSIS-NN, Helium (`ARM_MATH_MVEI`) | ${row_cmsis_nn-m55} |
| n = 32, d_model = 64, H = 4: cxmat, Helium | ${row_cxmat_large-m55} |
| n = 32, d_model = 64, H = 4: cxmat, no MVE | ${row_cxmat_large-m55dsp} |
| n = 32, d_model = 64, H = 4: CMSIS-NN, Helium | ${row_cmsis_nn_large-m55} |
")
  execute_process(COMMAND ${CMAKE_COMMAND} -E echo_append "${table}")
endif()
