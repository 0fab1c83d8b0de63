//===- PluginStep.h - the kiln.plugin library call --------------*- C++ -*-===//
//
// The handler of plugin steps (Plugin.h): registered for "kiln.plugin" by
// the library-call registry itself, as cuBLASLt's is. Internal to the
// runtime.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_RUNTIME_SRC_PLUGIN_PLUGINSTEP_H
#define KILN_RUNTIME_SRC_PLUGIN_PLUGINSTEP_H

#include "kiln/runtime/LibraryCall.h"

namespace kiln::rt::detail {

/// Decodes the step's payload, finds its creator, makes the plugin from the
/// recorded fields, checks its outputs against the recorded ones and the
/// step's buffers against the tensors, and configures it.
StatusOr<std::unique_ptr<LibraryCallInstance>>
preparePlugin(const LibraryCallSetup &setup);

} // namespace kiln::rt::detail

#endif // KILN_RUNTIME_SRC_PLUGIN_PLUGINSTEP_H
