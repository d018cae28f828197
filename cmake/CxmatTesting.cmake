# Helpers that every test folder uses, so that each folder's CMakeLists.txt only lists sources.

# Python for the tests' scripts (gallery, learn page, reference checks). Prefer an interpreter
# that has numpy and mpmath, which the reference checks need: the first python3 on PATH may be a
# separate installation without them, while Debian's python3-numpy and python3-mpmath are for the
# system interpreter.
if(NOT DEFINED Python3_EXECUTABLE)
  find_program(cxmat_path_python3 NAMES python3)
  find_program(cxmat_system_python3 NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
  foreach(candidate IN ITEMS "${cxmat_path_python3}" "${cxmat_system_python3}")
    if(candidate AND NOT DEFINED cxmat_numpy_python3)
      execute_process(COMMAND "${candidate}" -c "import numpy, mpmath" RESULT_VARIABLE has_numpy OUTPUT_QUIET ERROR_QUIET)
      if(has_numpy EQUAL 0)
        set(cxmat_numpy_python3 "${candidate}")
      endif()
    endif()
  endforeach()
  if(DEFINED cxmat_numpy_python3)
    set(Python3_EXECUTABLE "${cxmat_numpy_python3}" CACHE FILEPATH "Python 3 for cxmat's test scripts (with numpy and mpmath)")
  endif()
endif()
# Without numpy and mpmath the reference checks, the importer's tests and the safetensors test
# would be skipped; configuring stops instead, unless skipping is asked for.
option(CXMAT_ALLOW_SKIPPED_PYTHON_TESTS "Configure without a Python 3 that has numpy and mpmath (its tests are skipped)" OFF)
if(Python3_EXECUTABLE)
  execute_process(COMMAND "${Python3_EXECUTABLE}" -c "import numpy, mpmath" RESULT_VARIABLE cxmat_python_has_numpy
                  OUTPUT_QUIET ERROR_QUIET)
endif()
if(NOT Python3_EXECUTABLE OR NOT cxmat_python_has_numpy EQUAL 0)
  set(cxmat_python_message
      "cxmat: no Python 3 with numpy and mpmath (tried ${Python3_EXECUTABLE} ${cxmat_path_python3} ${cxmat_system_python3}): "
      "the tests that need them would be skipped. Install them (Debian: python3-numpy python3-mpmath, for /usr/bin/python3), "
      "pass -DPython3_EXECUTABLE=<a python3 that has them>, or -DCXMAT_ALLOW_SKIPPED_PYTHON_TESTS=ON to skip those tests.")
  if(CXMAT_ALLOW_SKIPPED_PYTHON_TESTS)
    message(WARNING ${cxmat_python_message})
  else()
    message(FATAL_ERROR ${cxmat_python_message})
  endif()
endif()

# A check that a generated reference file is current: `SCRIPT ARGS...` exits 0 when the committed
# file equals what the script writes now, 77 when a module it needs is missing (skipped). The
# references must come out the same on every machine, whatever kernels numpy picks for its CPU,
# so the check runs three times (test_support/numpy_features.py): NAME with numpy as it starts
# here, NAME.no_avx512 without its AVX-512 kernels, NAME.baseline without any dispatched kernel.
function(cxmat_add_reference_check name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "COMMAND;LABELS")
  foreach(mode IN ITEMS all no-avx512 baseline)
    set(test_name ${name})
    if(NOT mode STREQUAL "all")
      string(REPLACE "-" "_" suffix "${mode}")
      set(test_name ${name}.${suffix})
    endif()
    add_test(NAME ${test_name}
      COMMAND ${Python3_EXECUTABLE} "${PROJECT_SOURCE_DIR}/test_support/numpy_features.py" ${mode}
              ${Python3_EXECUTABLE} ${arg_COMMAND})
    set_tests_properties(${test_name} PROPERTIES SKIP_RETURN_CODE 77 LABELS "${arg_LABELS}")
  endforeach()
endfunction()

# The one support folder of the tests, test_support/: data and checks shared by the static and
# run-time tests (worksheet data, softmax cases, reference values) and the run-time helpers
# (Catch2 shim, generators, plain-loop references). Sources include "test_support/<file>.hpp".
if(NOT TARGET cxmat_test_support)
  add_library(cxmat_test_support INTERFACE)
  target_include_directories(cxmat_test_support INTERFACE "${PROJECT_SOURCE_DIR}")
  target_link_libraries(cxmat_test_support INTERFACE cxmat::cxmat)
endif()

# Catch2: version 3 if it is installed, otherwise version 2 (Debian 12 ships 2.13). The shim
# header test_support/catch.hpp hides the difference from test sources. Its main is compiled
# once, into this library.
if(CXMAT_BUILD_RUNTIME_TESTS AND NOT TARGET cxmat_catch2)
  find_package(Catch2 3 QUIET)
  add_library(cxmat_catch2 STATIC "${PROJECT_SOURCE_DIR}/test_support/catch_main.cpp")
  target_link_libraries(cxmat_catch2 PUBLIC cxmat_test_support)
  if(Catch2_FOUND)
    target_link_libraries(cxmat_catch2 PUBLIC Catch2::Catch2)
    target_compile_definitions(cxmat_catch2 PUBLIC CXMAT_CATCH2_V3=1)
  else()
    find_package(Catch2 2 REQUIRED)
    target_link_libraries(cxmat_catch2 PUBLIC Catch2::Catch2)
  endif()
  target_compile_features(cxmat_catch2 PUBLIC cxx_std_20)
  # Catch2's own runner needs neither optimisation nor sanitizer instrumentation (the code under
  # test is in the test sources), and compiling it with either is the slowest single compile of
  # the suite.
  target_compile_options(cxmat_catch2 PRIVATE -O0 -fno-sanitize=all)
endif()

# The builds of the run-time kernel and fuzz tests besides the variants (runtime_tests/kernels,
# runtime_tests/fuzz): with the build machine's instructions (CXMAT_NATIVE_TESTS, where the
# compiler has -march=native) and at the target's own width (CXMAT_TARGET_WIDTH_TESTS, or
# whenever there is no native build: one of the two is always built).
if(CXMAT_BUILD_RUNTIME_TESTS)
  include(CheckCXXCompilerFlag)
  check_cxx_compiler_flag(-march=native CXMAT_HAS_MARCH_NATIVE)
  set(cxmat_native_tests OFF)
  if(CXMAT_NATIVE_TESTS AND CXMAT_HAS_MARCH_NATIVE)
    set(cxmat_native_tests ON)
  endif()
  set(cxmat_target_width_tests ON)
  if(cxmat_native_tests AND NOT CXMAT_TARGET_WIDTH_TESTS)
    set(cxmat_target_width_tests OFF)
  endif()
endif()

# A static test: an object library of static_asserts. Building it is the test, so the build of
# the CTest entry is the check; there is nothing to run.
function(cxmat_add_static_test name)
  add_library(${name} OBJECT ${ARGN})
  target_link_libraries(${name} PRIVATE cxmat::cxmat cxmat_test_support)
  cxmat_set_warnings(${name})
endfunction()

# The static tests of one area (a folder of static_tests/ named after a layer of the library):
# every *.cpp of the folder in one object library cxmat_static_<area>, built without exceptions
# and RTTI (the library promises to need neither), and a CTest entry static.<area> that builds it.
function(cxmat_add_static_test_folder area)
  file(GLOB sources CONFIGURE_DEPENDS "${CMAKE_CURRENT_SOURCE_DIR}/*.cpp")
  cxmat_add_static_test(cxmat_static_${area} ${sources})
  target_compile_options(cxmat_static_${area} PRIVATE -fno-exceptions -fno-rtti)
  add_test(NAME static.${area} COMMAND ${CMAKE_COMMAND} --build ${PROJECT_BINARY_DIR} --target cxmat_static_${area})
  set_tests_properties(static.${area} PROPERTIES RESOURCE_LOCK cxmat_build_tree LABELS "static;${area}")
endfunction()

# Catch2's header precompiled once per configuration for the run-time tests that ask for it:
# the header is about two seconds of every source that includes it, its precompiled form as much
# as two such sources. A precompiled header is only valid for sources compiled with the same
# options, so the tests built with the machine's instructions (NATIVE) get their own.
function(cxmat_catch_pch_owner name)
  if(TARGET ${name})
    return()
  endif()
  set(source "${CMAKE_BINARY_DIR}/${name}.cpp")
  file(CONFIGURE OUTPUT "${source}" CONTENT "// Precompiles Catch2's header for the run-time tests.\n")
  add_library(${name} OBJECT "${source}")
  target_link_libraries(${name} PRIVATE cxmat::cxmat cxmat_test_support cxmat_catch2)
  cxmat_set_warnings(${name})
  target_precompile_headers(${name} PRIVATE "${PROJECT_SOURCE_DIR}/test_support/catch.hpp")
  target_compile_options(${name} PRIVATE ${ARGN})
endfunction()

# A runtime test: a Catch2 executable registered with CTest. PRECOMPILED_CATCH: its sources use
# the configuration's precompiled Catch2 header (so they must not add options that change what
# the header compiles to, e.g. -O2 in an unoptimised build or -ffast-math; macros of their own
# are fine). NATIVE: built with the machine's instructions (-march=native).
function(cxmat_add_runtime_test name)
  cmake_parse_arguments(arg "PRECOMPILED_CATCH;NATIVE" "" "" ${ARGN})
  add_executable(${name} ${arg_UNPARSED_ARGUMENTS})
  target_link_libraries(${name} PRIVATE cxmat::cxmat cxmat_test_support cxmat_catch2)
  cxmat_set_warnings(${name})
  set(native_options "")
  set(pch_owner cxmat_catch_pch)
  if(arg_NATIVE)
    set(native_options -march=native)
    set(pch_owner cxmat_catch_pch_native)
  endif()
  target_compile_options(${name} PRIVATE ${native_options})
  if(arg_PRECOMPILED_CATCH)
    cxmat_catch_pch_owner(${pch_owner} ${native_options})
    target_precompile_headers(${name} REUSE_FROM ${pch_owner})
  endif()
  add_test(NAME ${name} COMMAND ${name})
  set_tests_properties(${name} PROPERTIES LABELS runtime)
endfunction()

# An example: built with the project's warnings and run as a test.
function(cxmat_add_example name)
  add_executable(${name} ${ARGN})
  target_link_libraries(${name} PRIVATE cxmat::cxmat)
  cxmat_set_warnings(${name})
  add_test(NAME example.${name} COMMAND ${name})
  set_tests_properties(example.${name} PROPERTIES LABELS example)
endfunction()

# The language-standard option of the project's targets (C++20 unless the configuration sets
# CMAKE_CXX_STANDARD, e.g. 26 in the clang19-c++2c preset), for compiles outside targets: the
# compile tests below and try_compile checks, which do not see the targets' option.
set(CXMAT_STD_OPTION "${CMAKE_CXX20_STANDARD_COMPILE_OPTION}")
if(DEFINED CMAKE_CXX_STANDARD AND DEFINED CMAKE_CXX${CMAKE_CXX_STANDARD}_STANDARD_COMPILE_OPTION)
  set(CXMAT_STD_OPTION "${CMAKE_CXX${CMAKE_CXX_STANDARD}_STANDARD_COMPILE_OPTION}")
endif()

# A test that compiles one source with the build's compiler and flags, called directly rather
# than through the build (-fsyntax-only: the front end, where templates are instantiated and
# constant expressions evaluated), so that such tests run in parallel with each other and with
# the rest of the suite. Options: DEFINITIONS (NAME=VALUE...), INCLUDES (folders), OPTIONS (flags).
function(cxmat_add_compile_test name source)
  cmake_parse_arguments(arg "" "" "DEFINITIONS;INCLUDES;OPTIONS" ${ARGN})
  separate_arguments(flags UNIX_COMMAND "${CMAKE_CXX_FLAGS}")
  set(includes "-I${PROJECT_SOURCE_DIR}/include")
  foreach(dir IN LISTS arg_INCLUDES)
    list(APPEND includes "-I${dir}")
  endforeach()
  list(TRANSFORM arg_DEFINITIONS PREPEND "-D")
  add_test(NAME ${name}
    COMMAND ${CMAKE_CXX_COMPILER} ${CXMAT_STD_OPTION} ${flags} -fsyntax-only ${includes} ${arg_DEFINITIONS}
            ${arg_OPTIONS} "${source}")
endfunction()
