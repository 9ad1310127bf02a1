# Installs the build into PREFIX, then builds and runs a DAT consumer the
# way the README says: cc app.c $(pkg-config --cflags --libs dat).
file(REMOVE_RECURSE ${PREFIX})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${PREFIX} --component Unspecified
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed: ${rc}")
endif()
foreach(f include/dat/udat.h include/dat/dat.h include/dat/dat_error.h include/dat/dat_platform_specific.h
          include/dat/udat_config.h include/dat/dat_registry.h include/dat/udat_vendor_specific.h)
  if(NOT EXISTS ${PREFIX}/${f})
    message(FATAL_ERROR "not installed: ${f}")
  endif()
endforeach()
file(GLOB pcs ${PREFIX}/lib*/pkgconfig/dat.pc)
file(GLOB shared ${PREFIX}/lib*/libdat.so)
file(GLOB static ${PREFIX}/lib*/libdat.a)
if(NOT pcs OR NOT shared OR NOT static)
  message(FATAL_ERROR "dat.pc, libdat.so or libdat.a missing under ${PREFIX}")
endif()
list(GET pcs 0 pc)
get_filename_component(pcdir ${pc} DIRECTORY)
execute_process(COMMAND sh -c "PKG_CONFIG_PATH=${pcdir} ${CC} ${EXTRA_FLAGS} ${CONSUMER} $(PKG_CONFIG_PATH=${pcdir} pkg-config --cflags --libs dat) -o ${PREFIX}/consumer"
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "building the consumer with pkg-config failed")
endif()
execute_process(COMMAND ${PREFIX}/consumer RESULT_VARIABLE rc OUTPUT_VARIABLE out)
message("${out}")
if(NOT rc EQUAL 0 OR NOT out MATCHES "\nok\n$")
  message(FATAL_ERROR "the installed consumer failed: ${rc}")
endif()

# The static twin: libdat.a and what `pkg-config --static` adds.
execute_process(COMMAND sh -c "export PKG_CONFIG_PATH=${pcdir}; ${CC} ${EXTRA_FLAGS} ${CONSUMER} $(pkg-config --cflags dat) ${static} $(pkg-config --static --libs-only-L --libs-only-l dat | sed 's/-ldat //') -o ${PREFIX}/consumer-static"
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "linking the consumer against libdat.a failed")
endif()
execute_process(COMMAND ${PREFIX}/consumer-static RESULT_VARIABLE rc OUTPUT_VARIABLE out)
if(NOT rc EQUAL 0 OR NOT out MATCHES "\nok\n$")
  message(FATAL_ERROR "the statically linked consumer failed: ${rc}")
endif()
