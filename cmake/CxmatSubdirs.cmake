# Adds every immediate subfolder of the current source folder that has a CMakeLists.txt, so a
# new group of tests or benchmarks is picked up by creating its folder. With ONLY <names...>
# (non-empty), only the subfolders of those names.
function(cxmat_add_subfolders)
  cmake_parse_arguments(arg "" "" "ONLY" ${ARGN})
  file(GLOB children LIST_DIRECTORIES true "${CMAKE_CURRENT_SOURCE_DIR}/*")
  list(SORT children)
  foreach(child IN LISTS children)
    get_filename_component(name "${child}" NAME)
    if(arg_ONLY AND NOT name IN_LIST arg_ONLY)
      continue()
    endif()
    if(IS_DIRECTORY "${child}" AND EXISTS "${child}/CMakeLists.txt")
      add_subdirectory("${child}")
    endif()
  endforeach()
endfunction()
