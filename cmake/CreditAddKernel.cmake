# credit_add_kernel: a creditc kernel as a library target of the caller's build,
# in the shape of Halide's add_halide_library (docs/usage.md).
#
#   credit_add_kernel(<target> SRC <op.credit>
#                     [VARIANTS cluster|staged|reread|control ...]   # default: all
#                     [ARCH sm_90|sm_100|sm_120|sm_80|sm_86|sm_89]    # default: sm_90
#                     [FLAGS <creditc flag> ...]                     # e.g. --cta-threads=512 --kernel=k
#                     [PROFILE <device profile .json>]               # model-driven dispatch
#                     [PREFIX <symbol prefix>]                        # default: credit_<kernel>
#                     [REPORT_VAR <var>]
#                     [EXPECT_REJECT])
#
# At build time, runs creditc (credit::creditc) on SRC, once, producing
#   ${CMAKE_CURRENT_BINARY_DIR}/<target>.credit/<target>.cu           (creditc -o)
#   ${CMAKE_CURRENT_BINARY_DIR}/<target>.credit/<target>.h            (creditc --header)
#   ${CMAKE_CURRENT_BINARY_DIR}/<target>.credit/<target>.report.json  (creditc --report=json)
# and re-runs when SRC or creditc changes. <target> is a STATIC library (language
# CUDA, CUDA_ARCHITECTURES from ARCH, CUDA runtime linked as CUDA::cudart) whose
# include directory holds <target>.h, the extern "C" launch API
# (credit_<kernel>_launch_cluster / _staged / _reread / _generic, ...;
# docs/codegen.md). Plain C++ code can call it; the caller's project must enable
# the CUDA language (project(... LANGUAGES CXX CUDA)) to compile the kernels.
# The kernels link the shared CUDA runtime; set(CMAKE_CUDA_RUNTIME_LIBRARY Shared)
# in the caller keeps CMake from also putting cudart_static on the final link line
# (harmless, libcudart.so comes first, but one runtime is clearer).
#
# PROFILE <file>: creditc --profile <file>: the header also declares the
# model-driven dispatch (credit_<kernel>_launch_auto, _autotune, _plan,
# _last_plan; docs/cost-model.md), and the kernel is regenerated when the
# profile changes.
# PREFIX <name>: creditc --prefix <name>: the launch API is <name>_launch_cluster,
# ..., its macros <NAME>_STATUS_OK, ..., its include guard <NAME>_API_H. Two
# configurations of one kernel in one program need two prefixes: with one, their
# headers cannot be included together and a header links only with its own .cu.
# REPORT_VAR <var>: sets <var> in the caller's scope to the path of the JSON report.
# EXPECT_REJECT: the build step succeeds only if creditc rejects the workload
# (exit 2); <target> is then a custom target (no library), built by default.
include_guard(GLOBAL)

set(_CREDIT_ADD_KERNEL_DIR "${CMAKE_CURRENT_LIST_DIR}")

function(credit_add_kernel target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "EXPECT_REJECT" "SRC;ARCH;REPORT_VAR;PROFILE;PREFIX" "VARIANTS;FLAGS")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "credit_add_kernel(${target}): unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_SRC)
    message(FATAL_ERROR "credit_add_kernel(${target}): SRC <file.credit> is required")
  endif()
  if(NOT TARGET credit::creditc)
    message(FATAL_ERROR "credit_add_kernel(${target}): credit::creditc is not defined "
                        "(this Credit package was installed without the compiler)")
  endif()
  if(TARGET ${target})
    message(FATAL_ERROR "credit_add_kernel(${target}): a target of that name already exists")
  endif()
  get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  if(NOT ARG_EXPECT_REJECT AND NOT "CUDA" IN_LIST languages)
    message(FATAL_ERROR "credit_add_kernel(${target}): enable the CUDA language first "
                        "(project(... LANGUAGES CXX CUDA) or enable_language(CUDA))")
  endif()

  if(NOT ARG_ARCH)
    set(ARG_ARCH sm_90)
  endif()
  if(NOT ARG_ARCH MATCHES "^sm_([0-9]+)$")
    message(FATAL_ERROR "credit_add_kernel(${target}): ARCH must be sm_80, sm_86, sm_89, sm_90, sm_100 or sm_120, not '${ARG_ARCH}'")
  endif()
  set(cuda_arch "${CMAKE_MATCH_1}")

  set(args "--arch=${ARG_ARCH}")
  if(ARG_VARIANTS)
    foreach(v IN LISTS ARG_VARIANTS)
      if(NOT v MATCHES "^(cluster|staged|reread|control)$")
        message(FATAL_ERROR "credit_add_kernel(${target}): unknown variant '${v}' "
                            "(expected cluster, staged, reread or control)")
      endif()
    endforeach()
    string(REPLACE ";" "," variants "${ARG_VARIANTS}")
    list(APPEND args "--variant=${variants}")
  endif()
  if(DEFINED ARG_PREFIX)
    if(NOT ARG_PREFIX MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
      message(FATAL_ERROR "credit_add_kernel(${target}): PREFIX '${ARG_PREFIX}' is not a C identifier")
    endif()
    list(APPEND args "--prefix=${ARG_PREFIX}")
  endif()
  list(APPEND args ${ARG_FLAGS})
  set(profile_dep "")
  if(ARG_PROFILE)
    get_filename_component(profile_dep "${ARG_PROFILE}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    if(NOT EXISTS "${profile_dep}")
      message(FATAL_ERROR "credit_add_kernel(${target}): PROFILE '${ARG_PROFILE}' does not exist")
    endif()
    list(APPEND args "--profile=${profile_dep}")
  endif()

  get_filename_component(src "${ARG_SRC}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  set(dir "${CMAKE_CURRENT_BINARY_DIR}/${target}.credit")
  set(cu "${dir}/${target}.cu")
  set(header "${dir}/${target}.h")
  set(report "${dir}/${target}.report.json")
  set(runner "${_CREDIT_ADD_KERNEL_DIR}/CreditRunCreditc.cmake")
  file(MAKE_DIRECTORY "${dir}")
  file(RELATIVE_PATH src_rel "${CMAKE_CURRENT_SOURCE_DIR}" "${src}")

  if(ARG_EXPECT_REJECT)
    # Only the report: exit 2 (rejected) is the expected result, 0 (accepted) and
    # 1 (an error in the input) fail the build.
    add_custom_command(
      OUTPUT "${report}"
      COMMAND "${CMAKE_COMMAND}" -DCREDIT_REPORT=${report} -DCREDIT_EXPECT=2 -P "${runner}"
              -- $<TARGET_FILE:credit::creditc> "${src}" ${args} --report=json
      DEPENDS "${src}" credit::creditc "${runner}" ${profile_dep}
      COMMENT "creditc ${src_rel}: expecting a rejection"
      VERBATIM)
    add_custom_target(${target} ALL DEPENDS "${report}")
  else()
    add_custom_command(
      OUTPUT "${cu}" "${header}" "${report}"
      COMMAND "${CMAKE_COMMAND}" -DCREDIT_REPORT=${report} -DCREDIT_EXPECT=0 -P "${runner}"
              -- $<TARGET_FILE:credit::creditc> "${src}" ${args}
                 -o "${cu}" "--header=${header}" --report=json
      DEPENDS "${src}" credit::creditc "${runner}" ${profile_dep}
      COMMENT "creditc ${src_rel} -> ${target}.cu, ${target}.h"
      VERBATIM)
    add_library(${target} STATIC "${cu}" "${header}")
    set_source_files_properties("${cu}" PROPERTIES LANGUAGE CUDA)
    # The header is force-included into the generated file, so a launcher whose
    # definition disagrees with its declaration is a compile error here.
    target_compile_options(${target} PRIVATE "$<$<COMPILE_LANGUAGE:CUDA>:SHELL:-include \"${header}\">")
    target_include_directories(${target} PUBLIC "$<BUILD_INTERFACE:${dir}>")
    # credit::device: the device template library and the launch headers the file includes.
    target_link_libraries(${target} PUBLIC CUDA::cudart PRIVATE credit::device)
    set_target_properties(${target} PROPERTIES
      CUDA_ARCHITECTURES "${cuda_arch}"
      CUDA_RUNTIME_LIBRARY Shared     # the one libcudart of CUDA::cudart, never a second static copy
      POSITION_INDEPENDENT_CODE ON)
  endif()
  set_property(TARGET ${target} PROPERTY CREDIT_REPORT "${report}")
  set_property(TARGET ${target} PROPERTY CREDIT_SOURCE "${src}")
  if(ARG_REPORT_VAR)
    set(${ARG_REPORT_VAR} "${report}" PARENT_SCOPE)
  endif()
endfunction()
