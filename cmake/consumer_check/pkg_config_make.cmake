# consumer.pkg_config_make: pkg-config reads only the installed cxmat.pc (PKG_CONFIG_LIBDIR), its
# --cflags must name the installed include directory, and the Makefile that uses it must
# cross-compile the consumer.
set(ENV{PKG_CONFIG_LIBDIR} "${PREFIX}/share/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "")
execute_process(COMMAND ${PKG_CONFIG} --cflags cxmat RESULT_VARIABLE rc OUTPUT_VARIABLE cflags
                ERROR_VARIABLE err OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "pkg-config --cflags cxmat failed: ${err}")
endif()
string(REGEX REPLACE "^-I" "" include_dir "${cflags}")
file(REAL_PATH "${include_dir}" include_dir)
file(REAL_PATH "${PREFIX}/include" want)
if(NOT include_dir STREQUAL want OR NOT EXISTS "${include_dir}/cxmat/cxmat.hpp")
  message(FATAL_ERROR "pkg-config --cflags cxmat gave '${cflags}', not -I${want}")
endif()
file(REMOVE "${OUT}/consumer.o")
execute_process(COMMAND ${MAKE} -f ${MAKEFILE} SOURCE=${SOURCE} OUT=${OUT} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT EXISTS "${OUT}/consumer.o")
  message(FATAL_ERROR "the Makefile using pkg-config did not cross-compile the consumer")
endif()
message("pkg-config --cflags cxmat: ${cflags}; consumer.o cross-compiled")
