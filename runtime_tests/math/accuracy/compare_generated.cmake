# Runs a generator and fails if its output differs from the checked-in file.
# Usage: cmake -DGENERATOR=<exe> -DEXPECTED=<file> -DOUTPUT=<scratch file> -P compare_generated.cmake
execute_process(COMMAND "${GENERATOR}" OUTPUT_FILE "${OUTPUT}" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${GENERATOR} failed with ${rc}")
endif()
execute_process(COMMAND "${CMAKE_COMMAND}" -E compare_files "${OUTPUT}" "${EXPECTED}"
  RESULT_VARIABLE differs)
if(differs)
  message(FATAL_ERROR "${EXPECTED} is not what ${GENERATOR} prints now: regenerate it with\n"
    "  ${GENERATOR} > ${EXPECTED}")
endif()
message(STATUS "${EXPECTED} matches its generator")
