# Fails if any of OBJECTS (separated by |) has an undefined symbol according to NM.
string(REPLACE "|" ";" objects "${OBJECTS}")
foreach(obj IN LISTS objects)
  execute_process(COMMAND "${NM}" -u "${obj}" OUTPUT_VARIABLE undefined RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${NM} failed on ${obj}")
  endif()
  # A build with -fsanitize=... adds calls into the sanitizers' own run-time libraries
  # (__asan_*, __ubsan_*, and the weak section bounds of ASan's globals): instrumentation, not
  # something the code asked for, so they are left out.
  string(REGEX REPLACE "[^\n]*[ \t](__asan_|__ubsan_|__start_asan_globals|__stop_asan_globals)[^\n]*\n?" ""
         undefined "${undefined}")
  string(STRIP "${undefined}" undefined)
  if(undefined)
    message(FATAL_ERROR "${obj} references external symbols:\n${undefined}")
  endif()
  message(STATUS "${obj}: no external symbols")
endforeach()
