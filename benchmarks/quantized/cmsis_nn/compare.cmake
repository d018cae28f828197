# Runs the two images in QEMU through the firmware's check (each must print cxmat's host result
# for the layer), requires the same bytes from both, and prints the comparison table of
# docs/embedded.md: executed instructions per call, stack, and the images' code (.text).
#   cmake -DBUILD=<benchmark build> -DQEMU=<qemu-system-arm> -DCHECK=<embedded_firmware_check>
#         -DSIZE=<arm-none-eabi-size> -P compare.cmake
cmake_minimum_required(VERSION 3.25)
set(run_script "${CMAKE_CURRENT_LIST_DIR}/../../../examples/embedded/firmware/run_in_qemu.cmake")
foreach(image cxmat cmsis_nn)
  execute_process(COMMAND ${CMAKE_COMMAND} -DQEMU=${QEMU} -DMACHINE=mps2-an386 -DELF=${BUILD}/${image}-qemu.elf
                          -DCHECK=${CHECK} -DLAYER=q8_self_attention -DOUTPUT=${BUILD}/run-${image}.txt
                          -DMEASURED=${BUILD}/measured-${image}.txt -P ${run_script}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${image}: ${out}")
  endif()
  file(READ "${BUILD}/measured-${image}.txt" measured)
  string(REGEX MATCH "instructions ([0-9]+) stack ([0-9]+)" _ "${measured}")
  set(instructions_${image} ${CMAKE_MATCH_1})
  set(stack_${image} ${CMAKE_MATCH_2})
  execute_process(COMMAND ${SIZE} -A ${BUILD}/${image}-qemu.elf OUTPUT_VARIABLE sections)
  string(REGEX MATCH "\n\\.text +([0-9]+)" _ "${sections}")
  set(text_${image} ${CMAKE_MATCH_1})
endforeach()
file(STRINGS "${BUILD}/run-cxmat.txt" rows_cxmat REGEX "^row ")
file(STRINGS "${BUILD}/run-cmsis_nn.txt" rows_cmsis REGEX "^row ")
if(NOT rows_cxmat STREQUAL rows_cmsis OR rows_cxmat STREQUAL "")
  message(FATAL_ERROR "cxmat and CMSIS-NN printed different results")
endif()
message("| int8 layer, n = 8, d_model = 16, H = 2, W_o (Cortex-M4F, QEMU) | instructions per call | stack (bytes) | image .text (bytes, with the harness) |
|---|---:|---:|---:|
| cxmat (`q8::multi_head_attention`) | ${instructions_cxmat} | ${stack_cxmat} | ${text_cxmat} |
| CMSIS-NN kernels and the graph's glue | ${instructions_cmsis_nn} | ${stack_cmsis_nn} | ${text_cmsis_nn} |

The same 128 output bytes from both.")
