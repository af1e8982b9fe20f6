# Build-time step of credit_add_kernel (CreditAddKernel.cmake):
#   cmake -DCREDIT_REPORT=<report.json> -DCREDIT_EXPECT=0|2 -P CreditRunCreditc.cmake -- <creditc> <args...>
# Runs creditc with its stdout (the --report=json report) going to CREDIT_REPORT and
# fails unless creditc exits with CREDIT_EXPECT (0: accepted and generated;
# 2: rejected, for EXPECT_REJECT). Nothing is left behind on failure.
set(cmd "")
set(after_dashes OFF)
math(EXPR last "${CMAKE_ARGC} - 1")
foreach(i RANGE ${last})
  if(after_dashes)
    list(APPEND cmd "${CMAKE_ARGV${i}}")
  elseif(CMAKE_ARGV${i} STREQUAL "--")
    set(after_dashes ON)
  endif()
endforeach()
if(NOT cmd OR NOT DEFINED CREDIT_REPORT OR NOT DEFINED CREDIT_EXPECT)
  message(FATAL_ERROR "usage: cmake -DCREDIT_REPORT=f -DCREDIT_EXPECT=0|2 -P CreditRunCreditc.cmake -- creditc args...")
endif()

execute_process(COMMAND ${cmd} OUTPUT_FILE "${CREDIT_REPORT}.tmp" ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc STREQUAL CREDIT_EXPECT)
  file(REMOVE "${CREDIT_REPORT}.tmp" "${CREDIT_REPORT}")
  string(REPLACE ";" " " shown "${cmd}")
  if(CREDIT_EXPECT STREQUAL "2" AND rc STREQUAL "0")
    set(why "the workload was accepted, but EXPECT_REJECT expects a rejection (exit 2)")
  elseif(rc STREQUAL "2")
    set(why "the workload was rejected (exit 2); EXPECT_REJECT makes that the expected result")
  else()
    set(why "exit status ${rc}")
  endif()
  message(FATAL_ERROR "${err}creditc failed: ${why}\n  ${shown}")
endif()
file(RENAME "${CREDIT_REPORT}.tmp" "${CREDIT_REPORT}")
if(CREDIT_EXPECT STREQUAL "2")
  # The expected outcome: say why, quietly (creditc prints no diagnostic for it).
  file(READ "${CREDIT_REPORT}" json)
  string(JSON category ERROR_VARIABLE jerr GET "${json}" category)
  string(JSON reason ERROR_VARIABLE jerr GET "${json}" reason)
  message(STATUS "rejected as expected (${category}): ${reason}")
elseif(err)
  message(STATUS "${err}")   # creditc's warnings, if any
endif()
