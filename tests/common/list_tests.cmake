# cmake -DTB=<bench> -DOUT=<file> -P list_tests.cmake
# Runs after each link of a bench registered with rnic_listed_tests()
# (listed_tests.cmake): writes the test names its --list prints, one a line,
# to OUT, where the bench's <target>_tests.cmake (read by ctest) finds them.
# A listing that fails, is empty or holds a name CTest cannot take fails the
# build: otherwise a broken --list would pass as no tests.
file(REMOVE ${OUT})
execute_process(COMMAND ${TB} --list RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${TB} --list failed (${rc}): ${err}")
endif()
string(REGEX MATCHALL "[^\n]+" names "${out}")
if(NOT names)
  message(FATAL_ERROR "${TB} --list printed no tests")
endif()
foreach(n IN LISTS names)
  if(NOT n MATCHES "^[A-Za-z0-9_]+$")
    message(FATAL_ERROR "${TB} --list printed \"${n}\", not a test name")
  endif()
endforeach()
set(unique ${names})
list(REMOVE_DUPLICATES unique)
if(NOT unique STREQUAL names)
  message(FATAL_ERROR "${TB} --list printed a name twice: ${names}")
endif()
list(JOIN names "\n" text)
# Written whole, then renamed: ctest never reads half a list.
file(WRITE ${OUT}.tmp "${text}\n")
file(RENAME ${OUT}.tmp ${OUT})
