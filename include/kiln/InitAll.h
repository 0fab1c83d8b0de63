//===- InitAll.h - register everything kiln tools use -----------*- C++ -*-===//
//
// The one place that registers the dialects and passes kiln's tools use, so
// that kiln-opt and kiln-compile accept the same pipelines.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_INITALL_H
#define KILN_INITALL_H

namespace mlir {
class DialectRegistry;
namespace kiln {

/// Adds the kiln dialect and the upstream dialects kiln pipelines use.
void registerAllDialects(DialectRegistry &registry);

/// Registers the kiln passes and pipelines and the upstream passes they use.
void registerAllPasses();

} // namespace kiln
} // namespace mlir

#endif // KILN_INITALL_H
