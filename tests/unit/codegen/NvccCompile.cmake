# ctest codegen-nvcc: every example (and the name-collision input) through
# `creditc X.credit -o X.cu` and `nvcc -arch=sm_90 -c -I<credit include> X.cu`
# (the include path of the credit::device target), one nvcc each. Fails on any
# error, on any nvcc warning, on any kernel that spills, and on an SMEM form with
# runs of 8 that breaks its launch bounds' promise of six CTAs of 256 threads per SM
# (form.cuh: at most 40 registers a thread).
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
  execute_process(COMMAND "${NVCC}" -std=c++17 -arch=sm_90 -c -Xptxas -v -I${INCLUDE} "${WORK}/${name}.cu"
                          -o "${WORK}/${name}.o"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 OR err MATCHES "warning")
    message(SEND_ERROR "nvcc ${name}.cu: exit ${rc}\n${out}${err}")
    list(APPEND failed "${name}")
    continue()
  endif()
  # ptxas -v, per kernel: "Compiling entry function 'K'", then its spills, then "Used R registers".
  # (brackets, as in "cmem[0]", would keep a CMake list from splitting)
  string(REGEX REPLACE "[][;]" " " lines "${err}")
  string(REPLACE "\n" ";" lines "${lines}")
  set(kernel "")
  set(problems "")
  foreach(line IN LISTS lines)
    if(line MATCHES "Compiling entry function '([A-Za-z0-9_]+)'")
      set(kernel "${CMAKE_MATCH_1}")
    elseif(line MATCHES "([0-9]+) bytes spill stores, ([0-9]+) bytes spill loads")
      if(NOT CMAKE_MATCH_1 EQUAL 0 OR NOT CMAKE_MATCH_2 EQUAL 0)
        string(APPEND problems "  ${kernel}: ${line}\n")
      endif()
    elseif(line MATCHES "Used ([0-9]+) registers")
      set(registers "${CMAKE_MATCH_1}")
      if(registers GREATER 40 AND
         kernel MATCHES "_(staged|cluster_sync|cluster_mbarrier|cluster_partial_sync|cluster_partial_mbarrier)_v8$")
        string(APPEND problems "  ${kernel}: ${registers} registers, more than six CTAs of 256 threads allow\n")
      endif()
    endif()
  endforeach()
  if(problems)
    message(SEND_ERROR "nvcc ${name}.cu: ptxas\n${problems}")
    list(APPEND failed "${name}")
  else()
    message(STATUS "nvcc -arch=sm_90 -c -I${INCLUDE} ${name}.cu: ok, no spills")
  endif()
endforeach()
if(failed)
  message(FATAL_ERROR "codegen-nvcc failed for: ${failed}")
endif()
