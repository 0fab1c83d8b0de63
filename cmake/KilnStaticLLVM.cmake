#===- KilnStaticLLVM.cmake - self-contained compiler tools ---------------===#
#
# Debian's MLIR archives link against the shared libLLVM.so through the
# imported target `LLVM`. The GPU machine has no LLVM, so with
# -DKILN_STATIC_LLVM=ON we point that imported target at a GNU ld linker
# script that names LLVM's static archives instead. The tools then need only
# libc, libstdc++, libz and libzstd (see shared/BUILDING.md).
#
#===----------------------------------------------------------------------===#
find_program(KILN_LLVM_CONFIG llvm-config
  HINTS ${LLVM_TOOLS_BINARY_DIR} NO_DEFAULT_PATH REQUIRED)
set(KILN_STATIC_LLVM_COMPONENTS
  nvptx passes core support irreader bitreader bitwriter linker
  frontendopenmp frontendoffloading frontendhlsl frontendatomic target
  asmprinter codegen mc object transformutils analysis ipo instrumentation
  native orcjit executionengine perfjitevents)
execute_process(
  COMMAND ${KILN_LLVM_CONFIG} --link-static --libfiles ${KILN_STATIC_LLVM_COMPONENTS}
  OUTPUT_VARIABLE KILN_LLVM_STATIC_LIBS
  RESULT_VARIABLE KILN_LLVM_CONFIG_RC
  OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT KILN_LLVM_CONFIG_RC EQUAL 0)
  message(FATAL_ERROR "llvm-config --link-static failed (${KILN_LLVM_CONFIG_RC}); "
                      "is llvm-22-dev installed with its static archives?")
endif()
find_library(KILN_ZSTD zstd REQUIRED)
set(KILN_LLVM_LD ${CMAKE_BINARY_DIR}/libLLVM-static.ld)
file(WRITE ${KILN_LLVM_LD} "GROUP ( ${KILN_LLVM_STATIC_LIBS} -lzstd -lz )\n")
set_target_properties(LLVM PROPERTIES
  IMPORTED_LOCATION ${KILN_LLVM_LD}
  IMPORTED_LOCATION_RELEASE ${KILN_LLVM_LD}
  IMPORTED_LOCATION_RELWITHDEBINFO ${KILN_LLVM_LD}
  IMPORTED_SONAME "")
message(STATUS "kiln: compiler tools link LLVM statically (${KILN_LLVM_LD})")
