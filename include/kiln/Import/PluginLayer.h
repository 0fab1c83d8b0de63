//===- PluginLayer.h - importers' layers that become plugins ----*- C++ -*-===//
//
// What every front end (the ONNX and Caffe importers, the network API) calls
// for a layer kiln does not generate code for but a registered plugin
// creator implements (kiln/runtime/Plugin.h). It finds the creator by name,
// version and namespace, creates the plugin from `fields` (the creator checks
// them), asks it for the outputs of `inputs`, and builds one kiln.plugin op
// with those result types. Each failure is a message saying which of these
// refused and why; the caller adds where (node, layer, line).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_IMPORT_PLUGINLAYER_H
#define KILN_IMPORT_PLUGINLAYER_H

#include "kiln/runtime/Plugin.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/ValueRange.h"

#include <string>

namespace mlir::kiln {

/// The plugin a layer becomes.
struct PluginLayerSpec {
  std::string name;
  std::string version = "1";
  std::string pluginNamespace;
  ::kiln::rt::PluginFields fields;
};

/// `fields` with integers given for a field `creator` takes as floats made
/// floats (models and Python write 1 for 1.0).
::kiln::rt::PluginFields
coercePluginFields(const ::kiln::rt::PluginCreator &creator,
                   ::kiln::rt::PluginFields fields);

/// The outputs of a new kiln.plugin op over `inputs`, or failure with
/// `error` set: the creator is not registered (the message lists the
/// registered ones), it refuses the fields (after coercePluginFields), the
/// plugin refuses the inputs' types or shapes, or an input is not a ranked
/// tensor of static shape.
FailureOr<SmallVector<Value>> buildPluginLayer(OpBuilder &builder, Location loc,
                                               const PluginLayerSpec &spec,
                                               ValueRange inputs,
                                               std::string &error);

/// The registered creator named `name` (any version; the highest version
/// when several are registered) in `pluginNamespace`, or null: how an
/// importer decides whether an op it does not know is a plugin.
std::shared_ptr<::kiln::rt::PluginCreator>
findPluginCreatorByName(const std::string &name,
                        const std::string &pluginNamespace);

} // namespace mlir::kiln

#endif // KILN_IMPORT_PLUGINLAYER_H
