# Adds every immediate subfolder of the current source folder that has a CMakeLists.txt, so a
# new group of tests or benchmarks is picked up by creating its folder. With SKIP <names...>,
# all but the subfolders of those names.
function(cxmat_add_subfolders)
  cmake_parse_arguments(arg "" "" "SKIP" ${ARGN})
  file(GLOB children LIST_DIRECTORIES true "${CMAKE_CURRENT_SOURCE_DIR}/*")
  list(SORT children)
  foreach(child IN LISTS children)
    get_filename_component(name "${child}" NAME)
    if(name IN_LIST arg_SKIP)
      continue()
    endif()
    if(IS_DIRECTORY "${child}" AND EXISTS "${child}/CMakeLists.txt")
      add_subdirectory("${child}")
    endif()
  endforeach()
endfunction()
