# Fails when the first C++ code block of a page (the README, a guide in docs/) differs from an
# example (examples/quickstart.cpp, ...), so the code a reader sees first is code that compiles
# and runs as a test.
# Usage: cmake -DREADME=<page> -DEXAMPLE=<example> -P readme_check.cmake
file(READ "${README}" readme)
file(READ "${EXAMPLE}" example)
string(FIND "${readme}" "```cpp\n" start)
if(start EQUAL -1)
  message(FATAL_ERROR "${README} has no ```cpp code block")
endif()
math(EXPR start "${start} + 7")
string(SUBSTRING "${readme}" ${start} -1 rest)
string(FIND "${rest}" "```" stop)
string(SUBSTRING "${rest}" 0 ${stop} block)
if(NOT block STREQUAL example)
  message(FATAL_ERROR "the first code block of ${README} is not ${EXAMPLE}; copy the example into the page")
endif()
message(STATUS "the first code block of ${README} matches ${EXAMPLE}")
