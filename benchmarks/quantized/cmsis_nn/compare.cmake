# Runs each pair of images in QEMU and prints the comparison table of docs/embedded.md: executed
# instructions per call, stack, and the images' code (.text). The small layer's images go through
# the firmware's check (each must print cxmat's host result for the layer); the larger layer's
# images must print the same bytes as each other. Instructions are the harness's SysTick ticks
# under -icount scaled by its calibration loops, as the firmware check computes them.
#   cmake -DBUILD=<benchmark build> -DQEMU=<qemu-system-arm> -DCHECK=<embedded_firmware_check>
#         -DSIZE=<arm-none-eabi-size> -P compare.cmake
cmake_minimum_required(VERSION 3.25)
set(run_script "${CMAKE_CURRENT_LIST_DIR}/../../../examples/embedded/firmware/run_in_qemu.cmake")

function(run image)
  execute_process(COMMAND ${QEMU} -M mps2-an386 -nographic -monitor none -semihosting-config enable=on,target=native
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

# The small layer: cxmat's host result, checked by the firmware check, for both images.
foreach(image cxmat cmsis_nn)
  execute_process(COMMAND ${CMAKE_COMMAND} -DQEMU=${QEMU} -DMACHINE=mps2-an386 -DELF=${BUILD}/${image}-qemu.elf
                          -DCHECK=${CHECK} -DLAYER=q8_self_attention -DOUTPUT=${BUILD}/check-${image}.txt
                          -DMEASURED=${BUILD}/measured-${image}.txt -P ${run_script}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${image}: ${out}")
  endif()
endforeach()
foreach(image cxmat cmsis_nn cxmat_large cmsis_nn_large)
  run(${image})
endforeach()
foreach(pair "cxmat;cmsis_nn" "cxmat_large;cmsis_nn_large")
  list(GET pair 0 a)
  list(GET pair 1 b)
  if(NOT rows_${a} STREQUAL rows_${b} OR rows_${a} STREQUAL "")
    message(FATAL_ERROR "${a} and ${b} printed different results")
  endif()
endforeach()
message("| int8 self-attention with W_o, Cortex-M4F, QEMU | instructions per call | stack (bytes) | image .text (bytes, with the harness) |
|---|---:|---:|---:|
| n = 8, d_model = 16, H = 2: cxmat (`q8::multi_head_attention`) | ${row_cxmat} |
| n = 8, d_model = 16, H = 2: CMSIS-NN kernels and the graph's glue | ${row_cmsis_nn} |
| n = 32, d_model = 64, H = 4: cxmat | ${row_cxmat_large} |
| n = 32, d_model = 64, H = 4: CMSIS-NN | ${row_cmsis_nn_large} |

The same output bytes from both, for each layer (the small one also the host's).")
