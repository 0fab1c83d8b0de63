//===- InitAll.h - register everything kiln tools use -----------*- C++ -*-===//
//
// The one place that registers the dialects, passes and pipelines kiln's
// tools use, so that kiln-opt and kiln-compile accept the same pipelines.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_INITALL_H
#define KILN_INITALL_H

namespace mlir {
class DialectRegistry;
namespace kiln {

/// Adds the kiln dialects and the upstream dialects, interfaces and
/// translations that kiln IR and every kiln pipeline use.
void registerAllDialects(DialectRegistry &registry);

/// Registers every kiln pass and pipeline and the upstream passes the
/// pipelines are made of.
void registerAllPasses();

} // namespace kiln
} // namespace mlir

#endif // KILN_INITALL_H
