# Warning flags for cxmat's own test, example and benchmark targets. They are never put on the
# INTERFACE target: a user's warning policy is the user's business.
set(CXMAT_WARNINGS
  -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion -Wold-style-cast)
if(CXMAT_WERROR)
  list(APPEND CXMAT_WARNINGS -Werror)
endif()

# Attach cxmat's warnings (and -ftime-trace on request) to a target of the project.
function(cxmat_set_warnings target)
  target_compile_options(${target} PRIVATE ${CXMAT_WARNINGS})
  if(CXMAT_TIME_TRACE AND CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    target_compile_options(${target} PRIVATE -ftime-trace)
  endif()
endfunction()
