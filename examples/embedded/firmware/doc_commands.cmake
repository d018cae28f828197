# Runs the "Build by hand" commands of docs/embedded.md exactly as written, from a copy of the
# repository root (symbolic links to its folders, so that the commands' build/ goes to the test's
# own directory), and fails if any of them fails. The commands are read from the doc, so the doc
# and this test cannot drift apart.
#   cmake -DDOC=docs/embedded.md -DROOT=<cxmat source> -DWORK=<scratch dir> [-DQEMU=<path>] -P doc_commands.cmake
cmake_minimum_required(VERSION 3.25)

file(READ "${DOC}" doc)
string(FIND "${doc}" "Build by hand" at)
if(at EQUAL -1)
  message(FATAL_ERROR "${DOC}: no 'Build by hand' section")
endif()
string(SUBSTRING "${doc}" ${at} -1 doc)
if(NOT doc MATCHES "```sh\n(.*)")
  message(FATAL_ERROR "${DOC}: no sh block after 'Build by hand'")
endif()
string(FIND "${CMAKE_MATCH_1}" "```" block_end)
string(SUBSTRING "${CMAKE_MATCH_1}" 0 ${block_end} block)
string(REPLACE "\\\n" " " block "${block}")  # continuation lines
string(REPLACE ";" "\\;" block "${block}")
string(REPLACE "\n" ";" commands "${block}")

file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
foreach(entry cmake examples include runtime_tests)
  file(CREATE_LINK "${ROOT}/${entry}" "${WORK}/${entry}" SYMBOLIC)
endforeach()

set(count 0)
foreach(command IN LISTS commands)
  string(STRIP "${command}" command)
  if(command STREQUAL "")
    continue()
  endif()
  if(command MATCHES "^qemu-system-arm" AND NOT QEMU)
    message("qemu-system-arm not found: skipped: ${command}")
    continue()
  endif()
  message("$ ${command}")
  execute_process(COMMAND sh -c "${command}" WORKING_DIRECTORY "${WORK}" RESULT_VARIABLE result
                  OUTPUT_VARIABLE output ERROR_VARIABLE output TIMEOUT 600)
  message("${output}")
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "the documented command failed (${result}): ${command}")
  endif()
  math(EXPR count "${count} + 1")
endforeach()
if(count LESS 2)
  message(FATAL_ERROR "${DOC}: found ${count} commands under 'Build by hand'; expected the configure and build steps")
endif()
message("${count} documented commands ran")
