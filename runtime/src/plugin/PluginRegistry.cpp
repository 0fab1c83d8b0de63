//===- PluginRegistry.cpp - the process's plugin creators -------*- C++ -*-===//
//
// One map from "namespace::name@version" to creator, behind a mutex, built on
// first use (static registrations of other files may run first), and plugin
// libraries loaded with dlopen.
//
//===----------------------------------------------------------------------===//

#include "kiln/runtime/Plugin.h"
#include "support/LibraryFile.h"

#include <cstdio>
#include <dlfcn.h>
#include <map>
#include <mutex>
#include <typeinfo>

namespace kiln::rt {

namespace {
struct Registry {
  std::mutex mutex;
  std::map<std::string, std::shared_ptr<PluginCreator>> creators;
};

Registry &registry() {
  static Registry *instance = new Registry; // never destroyed
  return *instance;
}
} // namespace

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

namespace {
/// The creator for `key`, without loading the built-ins.
std::shared_ptr<PluginCreator> findRegistered(const std::string &key) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.creators.find(key);
  return it == r.creators.end() ? nullptr : it->second;
}
} // namespace

std::shared_ptr<PluginCreator>
findPluginCreator(const std::string &name, const std::string &version,
                  const std::string &pluginNamespace) {
  std::string key = pluginKey(name, version, pluginNamespace);
  if (std::shared_ptr<PluginCreator> creator = findRegistered(key))
    return creator;
  (void)loadBuiltinPlugins();
  return findRegistered(key);
}

std::vector<std::shared_ptr<PluginCreator>> registeredPluginCreators() {
  (void)loadBuiltinPlugins();
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<std::shared_ptr<PluginCreator>> creators;
  for (const auto &entry : r.creators)
    creators.push_back(entry.second);
  return creators;
}

std::vector<std::string> registeredPlugins() {
  (void)loadBuiltinPlugins();
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
}

Status loadPluginLibrary(const std::string &path) {
  auto refuse = [&](const std::string &why) {
    return Status(StatusCode::InvalidArgument,
                  "plugin library '" + path + "': " + why);
  };
  if (std::string why = whyNotALibraryFile(path); !why.empty())
    return refuse("cannot load it: " + why);
  void *library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *why = dlerror();
    return refuse(std::string("cannot load it: ") +
                  (why ? why : "unknown error"));
  }
  auto entry = reinterpret_cast<PluginLibraryEntry>(
      dlsym(library, "kiln_plugin_library_creators"));
  if (!entry)
    return refuse("it has no kiln_plugin_library_creators (define it with "
                  "KILN_PLUGIN_LIBRARY)");
  std::vector<std::shared_ptr<PluginCreator>> creators;
  entry(&creators);
  for (std::shared_ptr<PluginCreator> &creator : creators) {
    if (!creator)
      return refuse("it gave a null creator");
    std::shared_ptr<PluginCreator> registered = findRegistered(pluginKey(
        creator->name(), creator->version(), creator->pluginNamespace()));
    if (registered) {
      const PluginCreator &before = *registered, &now = *creator;
      if (typeid(before) == typeid(now))
        continue; // the library was loaded before: already registered
    }
    if (Status s = registerPluginCreator(creator); !s)
      return refuse(s.message());
  }
  return Status::ok();
}

} // namespace kiln::rt
