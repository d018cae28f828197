# CXMAT_COMPILER_PLAIN_ERRORS (cached): whether the build's compiler and flags put cxmat in
# plain-error mode (CXMAT_PLAIN_ERRORS, include/cxmat/core/config.hpp), where shape errors are
# sentences. Tests that match a shape error's text choose their expected message by it.
include_guard(GLOBAL)
include(CheckCXXSourceCompiles)

set(CMAKE_REQUIRED_INCLUDES "${PROJECT_SOURCE_DIR}/include")
# try_compile does not see a standard option given on the command line
# (CMAKE_CXX26_STANDARD_COMPILE_OPTION in the clang19-c++2c preset), so pass the targets' option
# (CXMAT_STD_OPTION, CxmatTesting.cmake).
set(CMAKE_REQUIRED_FLAGS "${CXMAT_STD_OPTION}")
check_cxx_source_compiles([[
#include <cxmat/core/config.hpp>
#if !CXMAT_PLAIN_ERRORS
#error "shape errors are types in this mode"
#endif
int main() { return 0; }
]] CXMAT_COMPILER_PLAIN_ERRORS)
unset(CMAKE_REQUIRED_INCLUDES)
unset(CMAKE_REQUIRED_FLAGS)
