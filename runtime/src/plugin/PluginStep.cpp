//===- PluginStep.cpp - the kiln.plugin library call ------------*- C++ -*-===//

#include "plugin/PluginStep.h"

#include "kiln/runtime/Plugin.h"

namespace kiln::rt::detail {

namespace {
class PluginInstance : public LibraryCallInstance {
public:
  PluginInstance(std::unique_ptr<Plugin> plugin, size_t numInputs,
                 size_t numOutputs, bool workspace)
      : plugin(std::move(plugin)), numInputs(numInputs), numOutputs(numOutputs),
        workspace(workspace) {}

  Status enqueue(void *stream, const uint64_t *buffers,
                 size_t numBuffers) override {
    (void)numBuffers; // checked when prepared
    PluginBuffers args;
    args.stream = stream;
    args.inputs.assign(buffers, buffers + numInputs);
    args.outputs.assign(buffers + numInputs, buffers + numInputs + numOutputs);
    if (workspace)
      args.workspace = buffers[numInputs + numOutputs];
    return plugin->enqueue(args);
  }

private:
  std::unique_ptr<Plugin> plugin;
  size_t numInputs, numOutputs;
  bool workspace;
};

std::string describe(const std::vector<PluginTensor> &tensors) {
  std::string text;
  for (const PluginTensor &t : tensors) {
    text += text.empty() ? "" : ", ";
    for (int64_t d : t.dims)
      text += std::to_string(d) + "x";
    text += dataTypeName(t.type);
  }
  return "(" + text + ")";
}
} // namespace

StatusOr<std::unique_ptr<LibraryCallInstance>>
preparePlugin(const LibraryCallSetup &setup) {
  StatusOr<PluginCall> call = decodePluginCall(setup.step.payload);
  if (!call)
    return call.status();
  std::string key = pluginKey(call->name, call->version, call->pluginNamespace);
  std::shared_ptr<PluginCreator> creator =
      findPluginCreator(call->name, call->version, call->pluginNamespace);
  if (!creator) {
    std::string known;
    for (const std::string &k : registeredPlugins())
      known += (known.empty() ? "" : ", ") + k;
    Status builtins = loadBuiltinPlugins();
    return Status(
        StatusCode::UnsupportedPlan,
        "plugin '" + call->name + "' version '" + call->version +
            "' namespace '" + call->pluginNamespace +
            "' is not registered (register its creator or load its "
            "library before deserializing; registered: " +
            (known.empty() ? "none" : known) +
            (builtins ? "" : "; built-in plugins: " + builtins.message()) +
            ")");
  }
  auto invalid = [&](const std::string &why) {
    return Status(StatusCode::InvalidPlan, "plugin " + key + ": " + why);
  };
  size_t numBuffers = call->inputs.size() + call->outputs.size() +
                      (call->workspaceBytes ? 1 : 0);
  if (setup.step.buffers.size() != numBuffers)
    return invalid("the step has " + std::to_string(setup.step.buffers.size()) +
                   " buffers for " + std::to_string(numBuffers) +
                   " (inputs, outputs and workspace)");
  auto checkBytes = [&](const std::vector<PluginTensor> &tensors,
                        size_t first) -> Status {
    for (size_t i = 0; i < tensors.size(); ++i) {
      uint64_t want = uint64_t(dataTypeBytes(tensors[i].type));
      for (int64_t d : tensors[i].dims)
        if (__builtin_mul_overflow(want, uint64_t(d), &want) ||
            want > (uint64_t(1) << 48))
          return invalid("tensor " + std::to_string(first + i) +
                         " is too large");
      if (setup.step.buffers[first + i].bytes < want)
        return invalid("buffer " + std::to_string(first + i) + " has " +
                       std::to_string(setup.step.buffers[first + i].bytes) +
                       " bytes for a tensor of " + std::to_string(want));
    }
    return Status::ok();
  };
  if (Status s = checkBytes(call->inputs, 0); !s)
    return s;
  if (Status s = checkBytes(call->outputs, call->inputs.size()); !s)
    return s;
  StatusOr<std::unique_ptr<Plugin>> plugin = creator->create(call->fields);
  if (!plugin)
    return invalid("its creator refuses the recorded fields: " +
                   plugin.status().message());
  StatusOr<std::vector<PluginTensor>> outputs =
      (*plugin)->getOutputs(call->inputs);
  if (!outputs)
    return invalid("it refuses the recorded inputs " + describe(call->inputs) +
                   ": " + outputs.status().message());
  if (*outputs != call->outputs)
    return invalid("it gives outputs " + describe(*outputs) +
                   " for the recorded inputs, the plan has " +
                   describe(call->outputs));
  uint64_t workspace = (*plugin)->getWorkspaceBytes(call->inputs);
  if (workspace > call->workspaceBytes ||
      (workspace && setup.step.buffers.back().bytes < workspace))
    return invalid("it needs " + std::to_string(workspace) +
                   " bytes of workspace, the plan gives " +
                   std::to_string(call->workspaceBytes));
  if (Status s = (*plugin)->configure(call->inputs, call->outputs); !s)
    return invalid("configure: " + s.message());
  return std::unique_ptr<LibraryCallInstance>(
      new PluginInstance(std::move(*plugin), call->inputs.size(),
                         call->outputs.size(), call->workspaceBytes != 0));
}

} // namespace kiln::rt::detail
