# Cross-compiling for bare-metal ARM (Cortex-M) with clang++ 19 and ld.lld, using the GNU Arm
# Embedded toolchain's C++ headers and libgcc (Debian: clang-19, lld-19, gcc-arm-none-eabi,
# libstdc++-arm-none-eabi-newlib). The core's flags (-mcpu, -mfpu, -mfloat-abi) come from the
# project, which also asks arm-none-eabi-g++ for the matching multilib's header and libgcc paths
# (examples/embedded/firmware/CMakeLists.txt).
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)

find_program(CMAKE_CXX_COMPILER NAMES clang++-19 clang++)
set(CMAKE_CXX_COMPILER_TARGET arm-none-eabi)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

# The GNU binutils read clang's objects as well; the reports use the same tools for both compilers.
find_program(CMAKE_SIZE arm-none-eabi-size)
find_program(CMAKE_NM arm-none-eabi-nm)

set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
