# Runs one firmware image in QEMU and checks what it printed.
#   cmake -DQEMU=<qemu-system-arm> -DMACHINE=<board> -DELF=<image> -DCHECK=<embedded_firmware_check>
#         -DLAYER=<name> -DOUTPUT=<file> -DMEASURED=<file> [-DEXPECT=pass|wrong|hang|crash|silent]
#         [-DSECONDS=<timeout>] [-DSAME_AS=<another run of the layer>] -P run_in_qemu.cmake
# The run is classified as pass, hang (no exit within SECONDS), crash (a non-zero exit: a fault,
# or the firmware reporting failure), silent (exited without printing a result) or wrong (the
# host check rejects the numbers). EXPECT=pass (the default) fails on anything else; a negative
# control names the failure it must produce, so it fails if the firmware's fault goes unnoticed.
cmake_minimum_required(VERSION 3.25)

if(NOT QEMU)
  message("qemu-system-arm not found: the emulator test is skipped (Debian: qemu-system-arm)")
  return()
endif()
if(NOT DEFINED EXPECT)
  set(EXPECT pass)
endif()
if(NOT DEFINED SECONDS)
  set(SECONDS 60)
endif()

# Semihosting for output and exit; -icount shift=7: every instruction advances the virtual clock
# by exactly 128 ns, so SysTick counts instructions (harness.hpp); no display, no monitor.
execute_process(
  COMMAND "${QEMU}" -M ${MACHINE} -nographic -monitor none -semihosting-config enable=on,target=native
          -icount shift=7 -kernel "${ELF}"
  TIMEOUT ${SECONDS}
  RESULT_VARIABLE run_result
  OUTPUT_VARIABLE run_output
  ERROR_VARIABLE run_output)
file(WRITE "${OUTPUT}" "${run_output}")

set(check_output "")
if(NOT run_result MATCHES "^[0-9]+$")
  set(outcome hang)
  set(detail "no exit within ${SECONDS} s (${run_result})")
elseif(NOT run_result EQUAL 0)
  set(outcome crash)
  set(detail "QEMU exited with status ${run_result}: ${run_output}")
else()
  execute_process(COMMAND "${CHECK}" ${LAYER} "${OUTPUT}" RESULT_VARIABLE check_result
                  OUTPUT_VARIABLE check_output ERROR_VARIABLE check_output)
  if(check_result EQUAL 0)
    set(outcome pass)
  elseif(check_output MATCHES "printed no result")
    set(outcome silent)
  else()
    set(outcome wrong)
  endif()
  set(detail "${check_output}")
endif()

if(EXPECT STREQUAL "pass")
  if(NOT outcome STREQUAL "pass")
    message(FATAL_ERROR "${LAYER} on ${MACHINE}: ${outcome}: ${detail}")
  endif()
  message("${check_output}")
  # SAME_AS: another build's run of the same layer, whose printed results must be the same bytes.
  if(DEFINED SAME_AS)
    file(STRINGS "${SAME_AS}" want REGEX "^(layer|row) ")
    file(STRINGS "${OUTPUT}" got REGEX "^(layer|row) ")
    if(NOT got STREQUAL want OR got STREQUAL "")
      message(FATAL_ERROR "${LAYER} on ${MACHINE}: the results differ from ${SAME_AS}")
    endif()
    message("the same result bytes as ${SAME_AS}")
  endif()
  string(REGEX MATCH "measured [^\n]*" measured "${check_output}")
  file(WRITE "${MEASURED}" "${measured}\n")
elseif(outcome STREQUAL EXPECT)
  message("negative control on ${MACHINE}: the ${EXPECT} firmware is caught (${detail})")
else()
  message(FATAL_ERROR "negative control on ${MACHINE}: expected the run to be classified '${EXPECT}', got "
                      "'${outcome}': ${detail}")
endif()
