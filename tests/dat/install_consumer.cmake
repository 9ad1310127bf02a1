# Installs the build into PREFIX and checks the package a user gets:
# - the files are there (headers, both libraries, dat.pc, the CMake
#   package, the dat.conf manual page);
# - no installed file names SOURCE_DIR or BUILD_DIR, binaries included (a
#   path of the build machine in a library, or an absolute path in dat.pc
#   or the CMake files, which would also tie the tree to its place), but in
#   a SANITIZED build;
# - dat.pc sets no rpath;
# - a DAT consumer builds and runs the way docs/libdat.md says:
#   cc app.c $(pkg-config --cflags --libs dat), and statically;
# - the install tree, moved elsewhere, still serves a CMake project
#   (CMAKE_CONSUMER_DIR) that uses find_package(dat): dat::dat and
#   dat::dat_static, each built and run.
set(WORK ${PREFIX}-work)
set(MOVED ${PREFIX}-moved)
file(REMOVE_RECURSE ${PREFIX} ${WORK} ${MOVED})
file(MAKE_DIRECTORY ${WORK})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${PREFIX} --component Unspecified
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed: ${rc}")
endif()
foreach(f include/dat/udat.h include/dat/dat.h include/dat/dat_error.h include/dat/dat_platform_specific.h
          include/dat/udat_config.h include/dat/dat_registry.h include/dat/udat_vendor_specific.h
          share/man/man5/dat.conf.5)
  if(NOT EXISTS ${PREFIX}/${f})
    message(FATAL_ERROR "not installed: ${f}")
  endif()
endforeach()
file(GLOB pcs ${PREFIX}/lib*/pkgconfig/dat.pc)
file(GLOB shared ${PREFIX}/lib*/libdat.so)
file(GLOB static ${PREFIX}/lib*/libdat.a)
file(GLOB configs ${PREFIX}/lib*/cmake/dat/datConfig.cmake)
if(NOT pcs OR NOT shared OR NOT static OR NOT configs)
  message(FATAL_ERROR "dat.pc, libdat.so, libdat.a or datConfig.cmake missing under ${PREFIX}")
endif()

# grep reads binary files too (-l lists them): exit 0 is a match. In a
# sanitizer build the binaries are left out (-I): ASan and UBSan record each
# source file's name as the compiler was given it, which no prefix map
# changes (GCC 12, Clang 14), and such a build is for checking, never for
# installing. Its text files, dat.pc and the CMake files, are still checked.
set(binaries)
if(SANITIZED)
  set(binaries -I)
endif()
execute_process(COMMAND grep -rlF ${binaries} -e ${SOURCE_DIR} -e ${BUILD_DIR} ${PREFIX}
                RESULT_VARIABLE rc OUTPUT_VARIABLE named ERROR_VARIABLE err)
if(rc EQUAL 0)
  message(FATAL_ERROR "installed files that name ${SOURCE_DIR} or ${BUILD_DIR}:\n${named}")
elseif(NOT rc EQUAL 1)
  message(FATAL_ERROR "grep failed on ${PREFIX}: ${err}")
endif()

list(GET pcs 0 pc)
get_filename_component(pcdir ${pc} DIRECTORY)
get_filename_component(libdir ${pcdir} DIRECTORY)
file(STRINGS ${pc} pc_libs REGEX "^Libs")
execute_process(COMMAND sh -c "PKG_CONFIG_PATH=${pcdir} pkg-config --libs --static dat"
                RESULT_VARIABLE rc OUTPUT_VARIABLE pc_flags)
if(NOT rc EQUAL 0 OR pc_flags STREQUAL "")
  message(FATAL_ERROR "pkg-config --libs --static dat failed: ${rc}")
endif()
if(pc_libs MATCHES "rpath" OR pc_flags MATCHES "rpath")
  message(FATAL_ERROR "dat.pc sets an rpath: ${pc_libs}")
endif()

execute_process(COMMAND sh -c "PKG_CONFIG_PATH=${pcdir} ${CC} ${EXTRA_FLAGS} ${CONSUMER} $(PKG_CONFIG_PATH=${pcdir} pkg-config --cflags --libs dat) -o ${WORK}/consumer"
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "building the consumer with pkg-config failed")
endif()
# No rpath: the user says where libdat.so is, as for any library outside
# the system's directories.
execute_process(COMMAND ${CMAKE_COMMAND} -E env LD_LIBRARY_PATH=${libdir} ${WORK}/consumer
                RESULT_VARIABLE rc OUTPUT_VARIABLE out)
message("${out}")
if(NOT rc EQUAL 0 OR NOT out MATCHES "\nok\n$")
  message(FATAL_ERROR "the installed consumer failed: ${rc}")
endif()

# The static twin: libdat.a and what `pkg-config --static` adds.
execute_process(COMMAND sh -c "export PKG_CONFIG_PATH=${pcdir}; ${CC} ${EXTRA_FLAGS} ${CONSUMER} $(pkg-config --cflags dat) ${static} $(pkg-config --static --libs-only-L --libs-only-l dat | sed 's/-ldat //') -o ${WORK}/consumer-static"
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "linking the consumer against libdat.a failed")
endif()
execute_process(COMMAND ${WORK}/consumer-static RESULT_VARIABLE rc OUTPUT_VARIABLE out)
if(NOT rc EQUAL 0 OR NOT out MATCHES "\nok\n$")
  message(FATAL_ERROR "the statically linked consumer failed: ${rc}")
endif()

# find_package(dat) from the tree at another place than it was installed to.
file(RENAME ${PREFIX} ${MOVED})
execute_process(COMMAND ${CMAKE_COMMAND} -S ${CMAKE_CONSUMER_DIR} -B ${WORK}/cmake
                  -DCMAKE_PREFIX_PATH=${MOVED} -DCMAKE_C_COMPILER=${CC} "-DCMAKE_C_FLAGS=${EXTRA_FLAGS}"
                  -DCONSUMER=${CONSUMER}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configuring the CMake consumer failed:\n${out}")
endif()
file(STRINGS ${WORK}/cmake/CMakeCache.txt dat_dir REGEX "^dat_DIR:")
string(FIND "${dat_dir}" "=${MOVED}/" at)
if(NOT at GREATER 0)
  message(FATAL_ERROR "find_package(dat) did not take the moved install tree: ${dat_dir}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK}/cmake RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "building the CMake consumer failed:\n${out}")
endif()
foreach(program consumer consumer_static)
  execute_process(COMMAND ${WORK}/cmake/${program} RESULT_VARIABLE rc OUTPUT_VARIABLE out)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "\nok\n$")
    message(FATAL_ERROR "the CMake consumer ${program} failed: ${rc}\n${out}")
  endif()
endforeach()
message("find_package(dat): dat::dat and dat::dat_static built and ran from the moved install tree")
