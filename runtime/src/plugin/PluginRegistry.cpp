//===- PluginRegistry.cpp - the process's plugin creators -------*- C++ -*-===//
//
// One map from "namespace::name@version" to creator, behind a mutex, built on
// first use (static registrations of other files may run first); plugin
// libraries loaded with dlopen; the fields' helpers.
//
//===----------------------------------------------------------------------===//

#include "kiln/runtime/Plugin.h"

#include <cstdio>
#include <dlfcn.h>
#include <map>
#include <mutex>

namespace kiln::rt {

namespace {
struct Registry {
  std::mutex mutex;
  std::map<std::string, std::shared_ptr<PluginCreator>> creators;
  /// Registrations that failed, in order (loadPluginLibrary reports those
  /// of the library it loads).
  std::vector<std::string> failures;
};

Registry &registry() {
  static Registry *instance = new Registry; // never destroyed
  return *instance;
}
} // namespace

Plugin::~Plugin() = default;
PluginCreator::~PluginCreator() = default;

Status Plugin::configure(const std::vector<PluginTensor> &,
                         const std::vector<PluginTensor> &) {
  return Status::ok();
}

uint64_t Plugin::getWorkspaceBytes(const std::vector<PluginTensor> &) const {
  return 0;
}

std::string PluginCreator::pluginNamespace() const { return ""; }

PluginField PluginField::of(std::string name, std::vector<int64_t> values) {
  PluginField f;
  f.name = std::move(name);
  f.type = Type::Ints;
  f.ints = std::move(values);
  return f;
}

PluginField PluginField::of(std::string name, std::vector<double> values) {
  PluginField f;
  f.name = std::move(name);
  f.type = Type::Floats;
  f.floats = std::move(values);
  return f;
}

PluginField PluginField::of(std::string name, std::string text) {
  PluginField f;
  f.name = std::move(name);
  f.type = Type::Text;
  f.text = std::move(text);
  return f;
}

const PluginField *findField(const PluginFields &fields,
                             const std::string &name) {
  for (const PluginField &f : fields)
    if (f.name == name)
      return &f;
  return nullptr;
}

std::string pluginKey(const std::string &name, const std::string &version,
                      const std::string &pluginNamespace) {
  return (pluginNamespace.empty() ? "" : pluginNamespace + "::") + name + "@" +
         version;
}

Status registerPluginCreator(std::shared_ptr<PluginCreator> creator) {
  if (!creator)
    return Status(StatusCode::InvalidArgument, "a null plugin creator");
  std::string name = creator->name(), version = creator->version();
  if (name.empty() || version.empty())
    return Status(StatusCode::InvalidArgument,
                  "a plugin creator needs a name and a version (got '" + name +
                      "', '" + version + "')");
  std::string key = pluginKey(name, version, creator->pluginNamespace());
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (!r.creators.emplace(key, std::move(creator)).second)
    return Status(StatusCode::InvalidArgument,
                  "plugin " + key + " is already registered");
  return Status::ok();
}

bool unregisterPluginCreator(const std::string &name,
                             const std::string &version,
                             const std::string &pluginNamespace) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  return r.creators.erase(pluginKey(name, version, pluginNamespace)) != 0;
}

std::shared_ptr<PluginCreator>
findPluginCreator(const std::string &name, const std::string &version,
                  const std::string &pluginNamespace) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.creators.find(pluginKey(name, version, pluginNamespace));
  return it == r.creators.end() ? nullptr : it->second;
}

std::vector<std::string> registeredPlugins() {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<std::string> keys;
  for (const auto &entry : r.creators)
    keys.push_back(entry.first);
  return keys;
}

PluginRegistration::PluginRegistration(std::shared_ptr<PluginCreator> creator)
    : status_(registerPluginCreator(std::move(creator))) {
  if (status_.isOk())
    return;
  std::fprintf(stderr, "kiln: error: registering a plugin: %s\n",
               status_.message().c_str());
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.failures.push_back(status_.message());
}

Status loadPluginLibrary(const std::string &path) {
  Registry &r = registry();
  size_t before;
  {
    std::lock_guard<std::mutex> lock(r.mutex);
    before = r.failures.size();
  }
  if (!dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) {
    const char *why = dlerror();
    return Status(StatusCode::InvalidArgument,
                  "cannot load the plugin library '" + path +
                      "': " + (why ? why : "unknown error"));
  }
  std::lock_guard<std::mutex> lock(r.mutex);
  if (r.failures.size() > before)
    return Status(StatusCode::InvalidArgument,
                  "the plugin library '" + path +
                      "' failed to register a plugin: " + r.failures[before]);
  return Status::ok();
}

} // namespace kiln::rt
