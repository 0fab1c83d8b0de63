//===- Plugin.h - layers the application supplies ---------------*- C++ -*-===//
//
// TensorRT's IPluginV2 workflow in modern C++. A plugin is a layer kiln does
// not generate code for: the application (or a plugin library) implements
// it, and a creator makes it from named fields.
//
//   class Axpy : public kiln::rt::Plugin { ... };
//   class AxpyCreator : public kiln::rt::PluginCreator {
//     std::string name() const override { return "Axpy"; }
//     std::string version() const override { return "1"; }
//     ...
//   };
//   KILN_REGISTER_PLUGIN(AxpyCreator);
//
// The compiler asks a plugin for its outputs' types and shapes, and records
// in the plan a library-call step to the callee "kiln.plugin" (LibraryCall.h)
// whose payload names the creator (name, version, namespace) and holds the
// plugin's fields, its tensors and a CRC-32 of all of it. Loading the plan
// finds the creator in the process-wide registry and creates the plugin
// again from the fields:
// - a creator that is not registered is UnsupportedPlan, naming the plugin,
//   its version and namespace, before anything runs;
// - a payload whose checksum does not match (tampered fields) is
//   InvalidPlan;
// - fields the plugin refuses (contradicting each other) are InvalidPlan,
//   with the plugin's reason.
// Register creators (or load their libraries, loadPluginLibrary) before
// deserializing a plan that uses them.
//
// Plugin libraries: a shared object names its creators once with
// KILN_PLUGIN_LIBRARY(CreatorA, CreatorB, ...), which defines the C entry
// point kiln_plugin_library_creators. loadPluginLibrary dlopens the library,
// calls it and registers what it gives in the loading program's registry.
// Plugin and PluginCreator are header-only (inline), so a plugin library
// links nothing of the runtime: it loads into any kiln program (kiln-run,
// the Python package) built with the same C++ standard library.
//
// Threads: the registry may be used from any thread. A creator is called by
// every thread that loads an engine. A plugin is made per engine; enqueue is
// called by every context of it, possibly at once on different streams, so
// it must be thread-safe (its per-run memory is the workspace, which is each
// context's own).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_RUNTIME_PLUGIN_H
#define KILN_RUNTIME_PLUGIN_H

#include "kiln/runtime/Plan.h"
#include "kiln/runtime/Status.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace kiln::rt {

/// A named setting of a plugin (TensorRT's PluginField): integers, floats or
/// text.
struct PluginField {
  enum class Type : uint8_t { Ints, Floats, Text };
  std::string name;
  Type type = Type::Ints;
  std::vector<int64_t> ints;
  std::vector<double> floats;
  std::string text;

  static PluginField of(std::string name, std::vector<int64_t> values) {
    PluginField f;
    f.name = std::move(name);
    f.type = Type::Ints;
    f.ints = std::move(values);
    return f;
  }
  static PluginField of(std::string name, std::vector<double> values) {
    PluginField f;
    f.name = std::move(name);
    f.type = Type::Floats;
    f.floats = std::move(values);
    return f;
  }
  static PluginField of(std::string name, std::string text) {
    PluginField f;
    f.name = std::move(name);
    f.type = Type::Text;
    f.text = std::move(text);
    return f;
  }
};
using PluginFields = std::vector<PluginField>;

/// The field called `name` in `fields`, or null.
inline const PluginField *findField(const PluginFields &fields,
                                    const std::string &name) {
  for (const PluginField &f : fields)
    if (f.name == name)
      return &f;
  return nullptr;
}

/// An input or output of a plugin.
struct PluginTensor {
  DataType type = DataType::F32;
  std::vector<int64_t> dims;

  bool operator==(const PluginTensor &other) const {
    return type == other.type && dims == other.dims;
  }
};

/// What enqueue works on: device addresses of the inputs and outputs, in
/// order, and of the workspace (workspaceBytes() bytes, 0 when none).
struct PluginBuffers {
  void *stream = nullptr;
  std::vector<uint64_t> inputs, outputs;
  uint64_t workspace = 0;
};

/// A layer the application implements (TensorRT's IPluginV2).
class Plugin {
public:
  virtual ~Plugin() = default;
  /// The outputs for `inputs`, or InvalidArgument saying why the plugin
  /// cannot take them. The compiler calls it to infer shapes; the runtime
  /// calls it again at load and checks the answer against the plan.
  virtual StatusOr<std::vector<PluginTensor>>
  getOutputs(const std::vector<PluginTensor> &inputs) const = 0;
  /// Prepares for these inputs and outputs (once per engine, before any
  /// enqueue).
  virtual Status configure(const std::vector<PluginTensor> &inputs,
                           const std::vector<PluginTensor> &outputs) {
    (void)inputs, (void)outputs;
    return Status::ok();
  }
  /// Device bytes enqueue needs for scratch, for these inputs.
  virtual uint64_t
  getWorkspaceBytes(const std::vector<PluginTensor> &inputs) const {
    (void)inputs;
    return 0;
  }
  /// Enqueues the layer on `buffers.stream` without waiting (the device's
  /// primary context is current). A failure names its cause.
  virtual Status enqueue(const PluginBuffers &buffers) = 0;
  /// The fields that make this plugin again (what the plan records).
  virtual PluginFields getFields() const = 0;
};

/// Makes plugins of one kind (TensorRT's IPluginCreator).
class PluginCreator {
public:
  virtual ~PluginCreator() = default;
  virtual std::string name() const = 0;
  virtual std::string version() const = 0;
  /// "" by default.
  virtual std::string pluginNamespace() const { return ""; }
  /// The fields create() takes, with their types (importers map attributes
  /// to them).
  virtual std::vector<std::pair<std::string, PluginField::Type>>
  fieldNames() const = 0;
  /// A plugin from `fields`, or InvalidArgument naming what is missing or
  /// contradictory.
  virtual StatusOr<std::unique_ptr<Plugin>>
  create(const PluginFields &fields) const = 0;
};

/// "namespace::name@version" (no "::" for the empty namespace).
std::string pluginKey(const std::string &name, const std::string &version,
                      const std::string &pluginNamespace);

/// Registers `creator` for the process (TensorRT's getPluginRegistry()->
/// registerCreator). InvalidArgument for a null creator, an empty name or
/// version, or a name, version and namespace already registered.
Status registerPluginCreator(std::shared_ptr<PluginCreator> creator);
/// Removes a creator; false when there was none.
bool unregisterPluginCreator(const std::string &name,
                             const std::string &version,
                             const std::string &pluginNamespace = "");
/// The creator registered for name, version and namespace, or null. The
/// built-in plugins are loaded first (loadBuiltinPlugins).
std::shared_ptr<PluginCreator>
findPluginCreator(const std::string &name, const std::string &version,
                  const std::string &pluginNamespace = "");
/// pluginKey() of every registered creator, sorted (built-ins included).
std::vector<std::string> registeredPlugins();
/// Every registered creator, in pluginKey() order (built-ins included).
std::vector<std::shared_ptr<PluginCreator>> registeredPluginCreators();

/// Registers kiln's built-in plugins (TensorRT's LReLU_TRT, Clip_TRT,
/// PriorBox_TRT, GridAnchor_TRT, NMS_TRT, Normalize_TRT, Reorg_TRT,
/// Region_TRT and RPROI_TRT), once per process: loads the plugin library
/// libkiln_plugins.so from $KILN_BUILTIN_PLUGINS when that is set ("none"
/// loads nothing), else from beside the program or library that holds the
/// runtime, or from ../lib from there (kiln's build and install trees).
/// The registry's lookups call it, so the built-ins are registered by
/// default; its status (NotFound when there is no library) is kept and
/// returned by every later call.
Status loadBuiltinPlugins();

/// Loads the plugin library at `path` (dlopen) and registers the creators
/// its KILN_PLUGIN_LIBRARY names. InvalidArgument naming the library when it
/// cannot be loaded (dlerror()'s words), has no kiln_plugin_library_creators,
/// or gives a creator that cannot be registered (a duplicate: loading a
/// library twice registers nothing twice). The library stays loaded.
Status loadPluginLibrary(const std::string &path);

/// The entry point of a plugin library (KILN_PLUGIN_LIBRARY).
using PluginLibraryEntry =
    void (*)(std::vector<std::shared_ptr<PluginCreator>> *creators);

/// What a plugin step records: the creator, the tensors and the fields.
struct PluginCall {
  std::string name, version, pluginNamespace;
  std::vector<PluginTensor> inputs, outputs;
  uint64_t workspaceBytes = 0;
  PluginFields fields;
};

/// The library-call callee of plugin steps.
inline constexpr const char *kPluginCallee = "kiln.plugin";

/// The payload of a plugin step (versioned, with a CRC-32 at its end).
std::string encodePluginCall(const PluginCall &call);
/// Reads a payload back; InvalidPlan naming what is wrong (a bad magic, a
/// truncated or oversized field, a checksum that does not match).
StatusOr<PluginCall> decodePluginCall(const std::string &payload);

/// Registers a creator when constructed (KILN_REGISTER_PLUGIN, for creators
/// compiled into the program); a failure is printed to stderr and kept in
/// status().
class PluginRegistration {
public:
  explicit PluginRegistration(std::shared_ptr<PluginCreator> creator);
  const Status &status() const { return status_; }

private:
  Status status_;
};

#define KILN_PLUGIN_CONCAT_(a, b) a##b
#define KILN_PLUGIN_CONCAT(a, b) KILN_PLUGIN_CONCAT_(a, b)
/// Registers a creator of class `Creator` (default-constructible) at static
/// initialization, at namespace scope (REGISTER_TENSORRT_PLUGIN).
#define KILN_REGISTER_PLUGIN(Creator)                                          \
  static ::kiln::rt::PluginRegistration KILN_PLUGIN_CONCAT(                    \
      kilnPluginRegistration, __LINE__)(std::make_shared<Creator>())

} // namespace kiln::rt

/// Defines a plugin library's entry point, giving a creator of each class
/// (default-constructible) named: KILN_PLUGIN_LIBRARY(ClipCreator, ...). Once
/// per library, at namespace scope.
#define KILN_PLUGIN_LIBRARY(...)                                               \
  extern "C" __attribute__((visibility("default"))) void                       \
  kiln_plugin_library_creators(                                                \
      std::vector<std::shared_ptr<::kiln::rt::PluginCreator>> *creators) {     \
    ::kiln::rt::detail::appendCreators<__VA_ARGS__>(*creators);                \
  }

namespace kiln::rt::detail {
template <typename... Creators>
void appendCreators(std::vector<std::shared_ptr<PluginCreator>> &creators) {
  (creators.push_back(std::make_shared<Creators>()), ...);
}
} // namespace kiln::rt::detail

#endif // KILN_RUNTIME_PLUGIN_H
