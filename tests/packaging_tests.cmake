# Packaging checks, included from tests/CMakeLists.txt:
#  (a) every public header compiles on its own, as strict C11 and as strict C++11 (object libraries
#      built with the normal build: a header that does not compile alone breaks the build);
#  (b) ctest runs every example program and compares its output with tests/packaging/expected/<name>.txt;
#  (c) ctest installs the build into a temporary prefix and uses it like a client would
#      (tests/packaging/install_test.sh: layout + plain g++, find_package, pkg-config);
#  (d) the README operator table names every declared operator, its header, SoC behaviour and docs page.
set(POOLGRAD_PACKAGING_DIR ${CMAKE_CURRENT_SOURCE_DIR}/packaging)

# ---- (a) public headers, each alone ------------------------------------------------------------------------
file(GLOB_RECURSE POOLGRAD_PUBLIC_HEADERS RELATIVE ${PROJECT_SOURCE_DIR}/include CONFIGURE_DEPENDS
     ${PROJECT_SOURCE_DIR}/include/*.h)
set(POOLGRAD_HEADER_C_SOURCES)
set(POOLGRAD_HEADER_CXX_SOURCES)
foreach(POOLGRAD_HEADER IN LISTS POOLGRAD_PUBLIC_HEADERS)
  string(MAKE_C_IDENTIFIER "${POOLGRAD_HEADER}" header_id)
  configure_file(${POOLGRAD_PACKAGING_DIR}/header_alone.c.in ${CMAKE_CURRENT_BINARY_DIR}/header_alone/${header_id}.c
                 @ONLY)
  configure_file(${POOLGRAD_PACKAGING_DIR}/header_alone.cpp.in
                 ${CMAKE_CURRENT_BINARY_DIR}/header_alone/${header_id}.cpp @ONLY)
  list(APPEND POOLGRAD_HEADER_C_SOURCES ${CMAKE_CURRENT_BINARY_DIR}/header_alone/${header_id}.c)
  list(APPEND POOLGRAD_HEADER_CXX_SOURCES ${CMAKE_CURRENT_BINARY_DIR}/header_alone/${header_id}.cpp)
endforeach()

set(POOLGRAD_STRICT_WARNINGS)
if(CMAKE_C_COMPILER_ID MATCHES "GNU|Clang")
  set(POOLGRAD_STRICT_WARNINGS -Wall -Wextra -Werror -pedantic)
endif()

add_library(poolgrad_public_headers_c11 OBJECT ${POOLGRAD_HEADER_C_SOURCES})
target_include_directories(poolgrad_public_headers_c11 PRIVATE ${PROJECT_SOURCE_DIR}/include)
target_compile_options(poolgrad_public_headers_c11 PRIVATE ${POOLGRAD_STRICT_WARNINGS})
set_target_properties(poolgrad_public_headers_c11 PROPERTIES C_STANDARD 11 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF)

add_library(poolgrad_public_headers_cxx11 OBJECT ${POOLGRAD_HEADER_CXX_SOURCES})
target_include_directories(poolgrad_public_headers_cxx11 PRIVATE ${PROJECT_SOURCE_DIR}/include)
target_compile_options(poolgrad_public_headers_cxx11 PRIVATE ${POOLGRAD_STRICT_WARNINGS})
set_target_properties(poolgrad_public_headers_cxx11 PROPERTIES CXX_STANDARD 11 CXX_STANDARD_REQUIRED ON
                                                               CXX_EXTENSIONS OFF)

# ---- (b) example programs and their output ---------------------------------------------------------------
if(POOLGRAD_BUILD_EXAMPLES)
  # The list as examples/CMakeLists.txt defines it (read from that directory, so this does not depend on
  # how it is exported to the parent scope), plus the exported one; only names with a target count.
  get_directory_property(examples_listed DIRECTORY ${PROJECT_SOURCE_DIR}/examples DEFINITION POOLGRAD_EXAMPLES)
  set(examples_to_check)
  foreach(example IN LISTS examples_listed POOLGRAD_EXAMPLES)
    if(TARGET example_${example})
      list(APPEND examples_to_check ${example})
    endif()
  endforeach()
  list(REMOVE_DUPLICATES examples_to_check)
  foreach(example IN LISTS examples_to_check)
    # A new example needs tests/packaging/expected/<name>.txt; without it this test fails and says so.
    add_test(NAME example_${example}_output
             COMMAND ${CMAKE_COMMAND} -DPROGRAM=$<TARGET_FILE:example_${example}>
                     -DEXPECTED=${POOLGRAD_PACKAGING_DIR}/expected/${example}.txt -DSTDERR_FORBID_REGEX=poolgrad:
                     -P ${POOLGRAD_PACKAGING_DIR}/run_and_match.cmake)
    # POOLGRAD_VERBOSE=0: no diagnostics on stderr.
    set_tests_properties(example_${example}_output PROPERTIES ENVIRONMENT "POOLGRAD_VERBOSE=0" TIMEOUT 60)
  endforeach()
  # POOLGRAD_VERBOSE=1: one line per operator run on stderr matching `regex`; stdout unchanged.
  function(poolgrad_add_verbose_example_test example regex)
    if(TARGET example_${example})
      add_test(NAME example_${example}_verbose
               COMMAND ${CMAKE_COMMAND} -DPROGRAM=$<TARGET_FILE:example_${example}>
                       -DEXPECTED=${POOLGRAD_PACKAGING_DIR}/expected/${example}.txt "-DSTDERR_REGEX=${regex}"
                       -P ${POOLGRAD_PACKAGING_DIR}/run_and_match.cmake)
      set_tests_properties(example_${example}_verbose PROPERTIES ENVIRONMENT "POOLGRAD_VERBOSE=1" TIMEOUT 60)
    endif()
  endfunction()
  # The line names the implementation.
  poolgrad_add_verbose_example_test(max_pool3d_with_argmax_backward
                                    "poolgrad: aclnnMaxPool3dWithArgmaxBackward .*impl=[A-Za-z0-9_]+ .*status=0")
  # Operands are shown as the 5-D (n,c,d,h,w) view the kernels see: a 2-D operand (N,C,H,W) with d = 1.
  poolgrad_add_verbose_example_test(max_pool2d_with_indices
    "poolgrad: aclnnMaxPool2dWithIndicesBackward .*gradInput=float32\\(n,c,d,h,w\\)\\[1x1x1x4x4\\]:\\[16,16,0,4,1\\] .*status=0")
endif()

# ---- (c) the installed package --------------------------------------------------------------------------------
find_program(POOLGRAD_BASH bash)
if(POOLGRAD_BASH)
  foreach(mode layout find_package pkg_config)
    add_test(NAME packaging_install_${mode}
             COMMAND ${POOLGRAD_BASH} ${POOLGRAD_PACKAGING_DIR}/install_test.sh ${mode} ${PROJECT_BINARY_DIR}
                     ${PROJECT_SOURCE_DIR} ${CMAKE_INSTALL_LIBDIR} ${CMAKE_INSTALL_INCLUDEDIR} ${CMAKE_COMMAND}
                     ${CMAKE_GENERATOR} $<IF:$<BOOL:${POOLGRAD_SANITIZE}>,ON,OFF> ${CMAKE_CXX_COMPILER}
                     ${CMAKE_C_COMPILER})
    # cmake --install writes install_manifest.txt into the build tree: one install at a time.
    set_tests_properties(packaging_install_${mode} PROPERTIES TIMEOUT 300 LABELS packaging RESOURCE_LOCK poolgrad_install)
  endforeach()
endif()

# ---- (d) the README's operator table ------------------------------------------------------------------------
# Every operator a public aclnnop header declares has a row naming its header, the CANN SoC behaviour poolgrad
# follows and an existing docs page.
find_package(Python3 COMPONENTS Interpreter QUIET)
if(Python3_Interpreter_FOUND)
  add_test(NAME docs_readme_operator_table
           COMMAND ${Python3_EXECUTABLE} ${POOLGRAD_PACKAGING_DIR}/check_readme_operator_table.py ${PROJECT_SOURCE_DIR})
endif()
