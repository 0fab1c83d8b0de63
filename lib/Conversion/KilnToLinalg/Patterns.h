//===- Patterns.h - kiln-to-linalg pattern families -------------*- C++ -*-===//
//
// One populate function per op family; populateKilnToLinalgPatterns adds all.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_CONVERSION_KILNTOLINALG_PATTERNS_H
#define KILN_LIB_CONVERSION_KILNTOLINALG_PATTERNS_H

namespace mlir {
class RewritePatternSet;
namespace kiln::lowering {

void populateElementwisePatterns(RewritePatternSet &patterns);
void populateConvPoolPatterns(RewritePatternSet &patterns,
                              int64_t convProductMinFlops);
void populateMatrixPatterns(RewritePatternSet &patterns);
void populateNormalizationPatterns(RewritePatternSet &patterns);
void populateDataMovementPatterns(RewritePatternSet &patterns);
void populateResizePatterns(RewritePatternSet &patterns);

} // namespace kiln::lowering
} // namespace mlir

#endif // KILN_LIB_CONVERSION_KILNTOLINALG_PATTERNS_H
