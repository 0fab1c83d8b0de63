//===- PluginOps.cpp - layers plugins implement -----------------*- C++ -*-===//
//
// Verification of kiln.plugin. Its result types come from the plugin itself
// (the importer asks the creator, kiln/Import/PluginLayer.h), so the
// verifier checks only what the IR can: a name and version, fields of the
// three kinds a plugin field can be, a workspace that is not negative.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace mlir::kiln;

LogicalResult PluginOp::verify() {
  if (getPlugin().empty())
    return emitOpError() << "expects a plugin name";
  if (getVersion().empty())
    return emitOpError() << "expects a plugin version";
  if (getWorkspaceAttr().getInt() < 0)
    return emitOpError() << "expects a workspace of at least 0 bytes, got "
                         << getWorkspaceAttr().getInt();
  if (getOutputs().empty())
    return emitOpError() << "expects at least one result";
  for (NamedAttribute field : getFields()) {
    Attribute value = field.getValue();
    if (!isa<DenseI64ArrayAttr, DenseF64ArrayAttr, StringAttr>(value))
      return emitOpError() << "expects field '" << field.getName().getValue()
                           << "' to be an array<i64>, an array<f64> or a "
                              "string, got "
                           << value;
  }
  return success();
}
