# Fails when the README's first C++ code block differs from examples/quickstart.cpp, so the
# code a reader sees first is code that compiles and runs as a test.
# Usage: cmake -DREADME=... -DEXAMPLE=... -P readme_check.cmake
file(READ "${README}" readme)
file(READ "${EXAMPLE}" example)
string(FIND "${readme}" "```cpp\n" start)
if(start EQUAL -1)
  message(FATAL_ERROR "README has no ```cpp code block")
endif()
math(EXPR start "${start} + 7")
string(SUBSTRING "${readme}" ${start} -1 rest)
string(FIND "${rest}" "```" stop)
string(SUBSTRING "${rest}" 0 ${stop} block)
if(NOT block STREQUAL example)
  message(FATAL_ERROR "README's first code block is not examples/quickstart.cpp; copy the example into the README")
endif()
message(STATUS "README quick start matches examples/quickstart.cpp")
