# One view of waveforms/ made from a fresh trace, and with CHECK checked:
#   cmake -DPROGRAM=exe -DARGS="a;b" -DTEMPLATE=waveforms/fence.gtkw -DTRACE=fence.fst -DDIR=out
#         -DFILTERS=gen/gtkwave -DOUT=out/fence.gtkw -DPYTHON=python3 -DFST2VCD=fst2vcd [-DCHECK=ON] -P view.cmake
# The old trace goes first: a program that could not write one must not
# leave a stale trace to be made into a view.
file(MAKE_DIRECTORY ${DIR})
file(REMOVE ${DIR}/${TRACE} ${OUT})
get_filename_component(here ${CMAKE_CURRENT_LIST_FILE} DIRECTORY)
# The program's own report shows only when it fails.
execute_process(COMMAND ${CMAKE_COMMAND} -E env RNIC_WAVE_DIR=${DIR} RNIC_TRACE=${TRACE} ${PROGRAM} ${ARGS}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} ${ARGS} failed (${rc}):\n${out}")
endif()
execute_process(COMMAND ${PYTHON} -B ${here}/make_gtkw.py ${TEMPLATE} ${DIR}/${TRACE} ${FILTERS} ${OUT} ${FST2VCD}
                COMMAND_ERROR_IS_FATAL ANY)
if(CHECK)
  execute_process(COMMAND ${PYTHON} -B ${here}/check_gtkw.py ${OUT} ${DIR}/${TRACE} ${FST2VCD}
                  COMMAND_ERROR_IS_FATAL ANY)
endif()
