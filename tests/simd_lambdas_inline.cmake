# Fails when a lambda of a SIMD kernel (a Highway target namespace N_<TARGET>) is compiled out of line. Such a
# lambda reaches the kernel's vectors through its closure, so they live in memory and every use loads and stores
# them: the channels-last forward's block search ran at half speed that way on every target until the lambda was
# forced inline (POOLGRAD_LAMBDA_INLINE, src/cpu/lambda_inline.h; bench/analysis.md, session of 2026-12-06 05:52).
# Run by CTest on the Release build with GCC: cmake -DNM=<nm> -DLIBRARY=<libpoolgrad.so> -P simd_lambdas_inline.cmake
execute_process(COMMAND ${NM} -C ${LIBRARY} OUTPUT_VARIABLE symbols RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${NM} -C ${LIBRARY} failed (${status})")
endif()
string(REPLACE "\n" ";" lines "${symbols}")
set(outOfLine "")
set(kernelSymbols 0)
foreach(line IN LISTS lines)
  if(line MATCHES "poolgrad::cpu::N_[A-Z0-9_]+::")
    math(EXPR kernelSymbols "${kernelSymbols} + 1")
    if(line MATCHES "{lambda\\(")
      list(APPEND outOfLine "${line}")
    endif()
  endif()
endforeach()
if(kernelSymbols EQUAL 0)
  message(FATAL_ERROR "no SIMD kernel symbols in ${LIBRARY}: the check would pass vacuously")
endif()
list(LENGTH outOfLine count)
if(count GREATER 0)
  list(SUBLIST outOfLine 0 5 shown)
  string(REPLACE ";" "\n  " shown "${shown}")
  message(FATAL_ERROR "${count} lambdas of SIMD kernels are out of line (mark them POOLGRAD_LAMBDA_INLINE); "
                      "the first:\n  ${shown}")
endif()
message(STATUS "${kernelSymbols} SIMD kernel symbols, no lambda among them")
