# rnic_listed_tests(<target> PREFIX <prefix> LABELS <label>... [TIMEOUT <s>] [LOCKSTEP])
#
# One CTest per test a bench names with `<target> --list`, called
# <prefix><name> and running `<target> <name>`, so a test added to the
# bench's registry cannot be left out of CTest. add_test cannot run at build
# time, so it works the way gtest_discover_tests does: after each link,
# list_tests.cmake writes the names (and fails the build on an empty or
# malformed list); ctest reads them through <target>_tests.cmake, generated
# here. Until the bench is built, a <prefix>NOT_BUILT test fails in their
# place. Tests made this way do not exist yet when rnic_tests_in_lockstep()
# runs (tests/CMakeLists.txt), so LOCKSTEP gives them its environment here.
function(rnic_listed_tests target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "LOCKSTEP" "PREFIX;TIMEOUT" "LABELS")
  if(NOT arg_PREFIX OR NOT arg_LABELS)
    message(FATAL_ERROR "rnic_listed_tests(${target}): PREFIX and LABELS are required")
  endif()
  if(NOT arg_TIMEOUT)
    set(arg_TIMEOUT 300)
  endif()
  set(env)
  if(arg_LOCKSTEP)
    set(env ${RNIC_LOCKSTEP_ENV})
  endif()
  set(names_file ${CMAKE_CURRENT_BINARY_DIR}/${target}_tests.txt)
  add_custom_command(TARGET ${target} POST_BUILD
    COMMAND ${CMAKE_COMMAND} -DTB=$<TARGET_FILE:${target}> -DOUT=${names_file}
            -P ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/list_tests.cmake
    COMMENT "Listing the ${target} tests for CTest"
    VERBATIM)
  set(prefix ${arg_PREFIX})
  set(labels "${arg_LABELS}")
  set(timeout ${arg_TIMEOUT})
  string(CONFIGURE [[
# Read by ctest: one test per name in @names_file@,
# which @target@ --list wrote after its last link (rnic_listed_tests, tests/common/listed_tests.cmake).
set(names)
if(EXISTS "@names_file@")
  file(STRINGS "@names_file@" names)
endif()
if(NOT names)
  add_test(@prefix@NOT_BUILT sh -c "echo 'no test list for @target@: build it'; exit 1")
  set_tests_properties(@prefix@NOT_BUILT PROPERTIES LABELS "@labels@")
endif()
foreach(t IN LISTS names)
  add_test(@prefix@${t} "$<TARGET_FILE:@target@>" ${t})
  set_tests_properties(@prefix@${t} PROPERTIES LABELS "@labels@" TIMEOUT @timeout@ ENVIRONMENT "@env@")
endforeach()
]] content @ONLY)
  file(GENERATE OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/${target}_tests.cmake CONTENT "${content}")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${CMAKE_CURRENT_BINARY_DIR}/${target}_tests.cmake)
endfunction()
