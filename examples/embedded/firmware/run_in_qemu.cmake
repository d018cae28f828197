# Runs one firmware image in QEMU and checks what it printed.
#   cmake -DQEMU=<qemu-system-arm> -DMACHINE=<board> -DELF=<image> -DCHECK=<embedded_firmware_check>
#         -DLAYER=<name> -DOUTPUT=<file> -DMEASURED=<file> [-DEXPECT=pass|wrong|hang|crash|silent]
#         [-DSECONDS=<timeout>] [-DSAME_AS=<another run of the layer>] -P run_in_qemu.cmake
# The run is classified as pass, hang (no exit within SECONDS), crash (a non-zero exit: a fault,
# or the firmware reporting failure), silent (exited without printing a result) or wrong (the
# host check rejects the numbers). EXPECT=pass (the default) fails on anything else; a negative
# control names the failure it must produce, so it fails if the firmware's fault goes unnoticed.
#   cmake -DALTER=<a passing run of a sequence model> -DCHECK=... -DLAYER=... -DOUTPUT=<file>
#         -DEXPECT=wrong -P run_in_qemu.cmake
# instead checks that run's output with one value of its last sequence changed (the first int8
# logit one step more when it prints logits, else the middle character of its result another):
# the negative control of the sequence models' check, without a faulty image of each model.
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

# One value of the last sequence changed (ALTER's lines, rewritten into run_output).
function(altered_run file out_var)
  file(STRINGS "${file}" lines)
  set(last_logits -1)
  set(last_sorted -1)
  list(LENGTH lines count)
  math(EXPR end "${count} - 1")
  foreach(i RANGE ${end})
    list(GET lines ${i} line)
    if(line MATCHES "^logits ")
      set(last_logits ${i})
    elseif(line MATCHES "^sorted ")
      set(last_sorted ${i})
    endif()
  endforeach()
  set(hex 0 1 2 3 4 5 6 7 8 9 a b c d e f)
  if(last_logits GREATER last_sorted)  # the first logit, a two-digit hex byte, one step more
    list(GET lines ${last_logits} line)
    if(NOT line MATCHES "^logits ([0-9a-f])([0-9a-f])(.*)$")
      message(FATAL_ERROR "${file}: no int8 logits in '${line}'")
    endif()
    list(FIND hex "${CMAKE_MATCH_1}" high)
    list(FIND hex "${CMAKE_MATCH_2}" low)
    math(EXPR byte "(${high} * 16 + ${low} + 1) % 256")
    math(EXPR high "${byte} / 16")
    math(EXPR low "${byte} % 16")
    list(GET hex ${high} high)
    list(GET hex ${low} low)
    set(changed "logits ${high}${low}${CMAKE_MATCH_3}")
    list(REMOVE_AT lines ${last_logits})
    list(INSERT lines ${last_logits} "${changed}")
  elseif(last_sorted GREATER -1)  # the result's middle character: a digit one more, else 0
    list(GET lines ${last_sorted} line)
    if(NOT line MATCHES "^sorted [^ ]+ (.+)$")
      message(FATAL_ERROR "${file}: no result in '${line}'")
    endif()
    set(result "${CMAKE_MATCH_1}")
    string(LENGTH "${result}" length)
    math(EXPR middle "${length} / 2")
    string(SUBSTRING "${result}" ${middle} 1 character)
    set(replacement 0)
    if(character MATCHES "^[0-9]$")
      math(EXPR replacement "(${character} + 1) % 10")
    endif()
    math(EXPR after "${middle} + 1")
    string(SUBSTRING "${result}" 0 ${middle} before)
    string(SUBSTRING "${result}" ${after} -1 rest)
    string(REGEX REPLACE " [^ ]+$" " ${before}${replacement}${rest}" changed "${line}")
    list(REMOVE_AT lines ${last_sorted})
    list(INSERT lines ${last_sorted} "${changed}")
  else()
    message(FATAL_ERROR "${file}: no sequence printed")
  endif()
  message("changed: ${changed}")
  list(JOIN lines "\n" text)
  set(${out_var} "${text}\n" PARENT_SCOPE)
endfunction()

if(DEFINED ALTER)
  altered_run("${ALTER}" run_output)
  set(run_result 0)
else()
  # Semihosting for output and exit; -icount shift=7: every instruction advances the virtual clock
  # by exactly 128 ns, so SysTick counts instructions (harness.hpp); no display, no monitor.
  execute_process(
    COMMAND "${QEMU}" -M ${MACHINE} -nographic -monitor none -semihosting-config enable=on,target=native
            -icount shift=7 -kernel "${ELF}"
    TIMEOUT ${SECONDS}
    RESULT_VARIABLE run_result
    OUTPUT_VARIABLE run_output
    ERROR_VARIABLE run_output)
endif()
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
elseif(outcome STREQUAL EXPECT AND DEFINED ALTER)
  message("negative control: ${ALTER} with one value changed is caught (${detail})")
elseif(outcome STREQUAL EXPECT)
  message("negative control on ${MACHINE}: the ${EXPECT} firmware is caught (${detail})")
else()
  message(FATAL_ERROR "negative control on ${MACHINE}: expected the run to be classified '${EXPECT}', got "
                      "'${outcome}': ${detail}")
endif()
