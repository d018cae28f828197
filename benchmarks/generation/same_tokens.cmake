# Runs cxmat's step and the plain C baseline for 16 greedy steps on the same weights and fails
# unless both print the same tokens.
# Usage: cmake -DSTEP=<exe> -DPLAIN=<exe> -DMODEL=<model.bin> -P same_tokens.cmake
foreach(program STEP PLAIN)
  execute_process(COMMAND "${${program}}" "${MODEL}" 16 1 OUTPUT_VARIABLE json RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${${program}} failed with ${rc}")
  endif()
  string(JSON tokens_${program} GET "${json}" tokens)
endforeach()
if(NOT tokens_STEP STREQUAL tokens_PLAIN)
  message(FATAL_ERROR "cxmat: ${tokens_STEP}\nplain C: ${tokens_PLAIN}")
endif()
message(STATUS "the same 16 tokens: ${tokens_STEP}")
