#===- KilnNoMLIRDylib.cmake - one copy of MLIR in every binary -----------===#
#
# Debian's imported MLIRExecutionEngine names the shared libMLIR.so (target
# `MLIR`) besides the static archives kiln links. A binary linked with both
# holds two copies of MLIR: each function comes from whichever the linker met
# first, and each copy keeps its own TypeIDs (of ops, traits, interfaces) and
# registries. An executable mostly gets away with it (the dynamic linker binds
# libMLIR.so's data to the executable's copy), but the Python module hides
# its archives' symbols (--exclude-libs), so MLIR code from libMLIR.so saw
# other TypeIDs than kiln's: `hasTrait<ConstantLike>` failed on kiln's
# constants and the greedy rewriter folded and materialized them forever
# (issue 31). Every MLIR library is linked from its static archive, so the
# name `MLIR` resolves to an empty archive, in every build.
#
#===----------------------------------------------------------------------===#
if(TARGET MLIR)
  set(KILN_EMPTY_ARCHIVE ${CMAKE_BINARY_DIR}/libkiln-empty.a)
  execute_process(COMMAND ${CMAKE_AR} rc ${KILN_EMPTY_ARCHIVE})
  set_target_properties(MLIR PROPERTIES
    IMPORTED_LOCATION ${KILN_EMPTY_ARCHIVE}
    IMPORTED_LOCATION_RELEASE ${KILN_EMPTY_ARCHIVE}
    IMPORTED_LOCATION_RELWITHDEBINFO ${KILN_EMPTY_ARCHIVE}
    IMPORTED_SONAME "")
endif()
