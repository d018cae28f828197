# Helpers that every test folder uses, so that each folder's CMakeLists.txt only lists sources.

# Catch2: version 3 if it is installed, otherwise version 2 (Debian 12 ships 2.13). The shim
# header runtime_tests/support/catch.hpp hides the difference from test sources.
if(CXMAT_BUILD_TESTS AND NOT TARGET cxmat_catch2)
  find_package(Catch2 3 QUIET)
  add_library(cxmat_catch2 STATIC "${PROJECT_SOURCE_DIR}/runtime_tests/support/catch_main.cpp")
  target_include_directories(cxmat_catch2 PUBLIC "${PROJECT_SOURCE_DIR}/runtime_tests/support")
  if(Catch2_FOUND)
    target_link_libraries(cxmat_catch2 PUBLIC Catch2::Catch2)
    target_compile_definitions(cxmat_catch2 PUBLIC CXMAT_CATCH2_V3=1)
  else()
    find_package(Catch2 2 REQUIRED)
    target_link_libraries(cxmat_catch2 PUBLIC Catch2::Catch2)
  endif()
  target_compile_features(cxmat_catch2 PUBLIC cxx_std_20)
endif()

# A static test: an object library of static_asserts. Building it is the test, so the build of
# the CTest entry is the check; there is nothing to run.
function(cxmat_add_static_test name)
  add_library(${name} OBJECT ${ARGN})
  target_link_libraries(${name} PRIVATE cxmat::cxmat)
  cxmat_set_warnings(${name})
endfunction()

# A runtime test: a Catch2 executable registered with CTest.
function(cxmat_add_runtime_test name)
  add_executable(${name} ${ARGN})
  target_link_libraries(${name} PRIVATE cxmat::cxmat cxmat_catch2)
  cxmat_set_warnings(${name})
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
