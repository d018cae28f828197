# The digit sorter's generated headers with CMake's default generator (Unix Makefiles), which,
# unlike Ninja, does not create a custom command's output folder: configures cxmat with the
# examples only in a scratch folder and builds the targets that import the weights.
#   cmake -DSOURCE=<cxmat> -DBINARY=<scratch> -DCXX=<compiler> -DPYTHON=<python> -DTARGETS=<a,b>
#         -P makefiles_check.cmake
file(REMOVE_RECURSE "${BINARY}")
execute_process(
  COMMAND ${CMAKE_COMMAND} -S "${SOURCE}" -B "${BINARY}" -G "Unix Makefiles" -DCMAKE_BUILD_TYPE=Release
          "-DCMAKE_CXX_COMPILER=${CXX}" "-DPython3_EXECUTABLE=${PYTHON}" -DCXMAT_BUILD_TESTS=OFF
          -DCXMAT_BUILD_BENCHMARKS=OFF -DCXMAT_BUILD_EXAMPLES=ON
  RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "configuring with Unix Makefiles failed (${status})")
endif()
string(REPLACE "," ";" targets "${TARGETS}")
foreach(target IN LISTS targets)
  execute_process(COMMAND ${CMAKE_COMMAND} --build "${BINARY}" --target ${target} RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "building ${target} with Unix Makefiles failed (${status})")
  endif()
endforeach()
file(REMOVE_RECURSE "${BINARY}")
message(STATUS "built ${TARGETS} with Unix Makefiles")
