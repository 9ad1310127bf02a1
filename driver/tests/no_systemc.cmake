# driver_vfio_without_systemc: a board's program, the driver core and the
# vfio backend, runs and links without the simulation. Checked:
#  - PROGRAM, vfio_only.c as CMake linked it (target rnic_hal_vfio);
#  - OUT, the same SOURCE linked by hand from CORE_LIB and VFIO_LIB alone,
#    as docs/driver.md tells a board to (a strong reference to anything of
#    the platform in the archives is an undefined symbol here);
#  - the two archives: no symbol of the platform, defined or needed, and the
#    sim backend's open function referred to only weakly.
# Each program must print "ok" (its opens are RNIC_E_NODEV), hold no symbol
# of SystemC or the platform (nm) and need no SystemC library (ldd).
set(failed "")

# What marks the platform in a symbol table: SystemC's namespaces and entry
# point, the Verilated model, the platform's C ABI.
set(platform_symbols "sc_core|sc_dt|sc_main|Vrnic_top|Verilated|rnic_sim_")

function(check_program program)
  execute_process(COMMAND ${program} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 OR NOT out STREQUAL "ok\n")
    string(APPEND failed "${program} failed (${rc}): ${out}${err}\n")
  endif()
  execute_process(COMMAND ${NM} ${program} RESULT_VARIABLE rc OUTPUT_VARIABLE syms ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(APPEND failed "nm ${program} failed: ${err}\n")
  endif()
  string(REGEX MATCHALL "[^\n]*(${platform_symbols})[^\n]*" found "${syms}")
  if(found)
    list(LENGTH found n)
    list(GET found 0 first)
    string(APPEND failed "${program} holds ${n} symbols of the platform, e.g. ${first}\n")
  endif()
  if(NOT syms MATCHES "\n[0-9a-f]+ T rnic_hal_open_vfio\n")
    string(APPEND failed "the vfio backend (rnic_hal_open_vfio) is not in ${program}\n")
  endif()
  if(syms MATCHES "[0-9a-f]+ [A-Za-z] rnic_hal_open_sim\n")
    string(APPEND failed "the sim backend (rnic_hal_open_sim) is in ${program}\n")
  endif()
  execute_process(COMMAND ${LDD} ${program} RESULT_VARIABLE rc OUTPUT_VARIABLE libs ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(APPEND failed "ldd ${program} failed: ${err}\n")
  elseif(libs MATCHES "systemc")
    string(APPEND failed "${program} needs SystemC:\n${libs}")
  endif()
  set(failed "${failed}" PARENT_SCOPE)
endfunction()

check_program(${PROGRAM})

# By hand: the two archives, nothing else (EXTRA_FLAGS: a sanitizer build's).
get_filename_component(core_dir ${CORE_LIB} DIRECTORY)
get_filename_component(vfio_dir ${VFIO_LIB} DIRECTORY)
file(REMOVE ${OUT})
separate_arguments(extra UNIX_COMMAND "${EXTRA_FLAGS}")
execute_process(COMMAND ${CC} ${extra} -std=c11 -Wall -Wextra -Werror -I${INCLUDE} ${SOURCE}
                  -Wl,--no-as-needed -Wl,--undefined=rnic_hal_open_vfio
                  -L${vfio_dir} -L${core_dir} -lrnic_hal_vfio -lrnic_driver_core -o ${OUT}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  string(APPEND failed "linking ${SOURCE} with the core and vfio archives alone failed:\n${out}${err}\n")
else()
  check_program(${OUT})
endif()

foreach(lib ${CORE_LIB} ${VFIO_LIB})
  execute_process(COMMAND ${NM} ${lib} RESULT_VARIABLE rc OUTPUT_VARIABLE syms ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(APPEND failed "nm ${lib} failed: ${err}\n")
  endif()
  string(REGEX MATCHALL "[^\n]*(${platform_symbols})[^\n]*" found "${syms}")
  if(found)
    list(GET found 0 first)
    string(APPEND failed "${lib} names the platform: ${first}\n")
  endif()
  string(REGEX MATCHALL " [A-Za-z] rnic_hal_open_sim\n" refs "${syms}")
  foreach(ref IN LISTS refs)
    if(NOT ref STREQUAL " w rnic_hal_open_sim\n")
      string(APPEND failed "${lib} names the sim backend other than weakly:${ref}")
    endif()
  endforeach()
endforeach()

if(failed)
  message(FATAL_ERROR "${failed}")
endif()
message("no SystemC in ${PROGRAM}, ${OUT}, ${CORE_LIB}, ${VFIO_LIB}")
