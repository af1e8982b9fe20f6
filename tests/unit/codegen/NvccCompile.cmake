# ctest codegen-nvcc: every example (and the name-collision input) through
# `creditc X.credit -o X.cu` and `nvcc -arch=sm_90 -c -I<credit include> X.cu`
# (the include path of the credit::device target), one nvcc each. Fails on any
# error and on any nvcc warning.
file(MAKE_DIRECTORY "${WORK}")
file(GLOB inputs "${EXAMPLES}/*.credit")
list(APPEND inputs "${EXTRA}")
set(failed "")
foreach(src IN LISTS inputs)
  get_filename_component(name "${src}" NAME_WE)
  execute_process(COMMAND "${CREDITC}" "${src}" -o "${WORK}/${name}.cu"
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(SEND_ERROR "creditc ${src}: exit ${rc}\n${err}")
    list(APPEND failed "${name}")
    continue()
  endif()
  execute_process(COMMAND "${NVCC}" -std=c++17 -arch=sm_90 -c -I${INCLUDE} "${WORK}/${name}.cu" -o "${WORK}/${name}.o"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 OR err MATCHES "warning")
    message(SEND_ERROR "nvcc ${name}.cu: exit ${rc}\n${out}${err}")
    list(APPEND failed "${name}")
  else()
    message(STATUS "nvcc -arch=sm_90 -c -I${INCLUDE} ${name}.cu: ok")
  endif()
endforeach()
if(failed)
  message(FATAL_ERROR "codegen-nvcc failed for: ${failed}")
endif()
