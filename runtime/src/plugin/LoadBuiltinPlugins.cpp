//===- LoadBuiltinPlugins.cpp - kiln's own plugin library -------*- C++ -*-===//
//
// Finds libkiln_plugins.so (runtime/plugins, built by nvcc) and registers
// its creators once per process: $KILN_BUILTIN_PLUGINS names it, or it lies
// beside the program or shared library that holds this code, or in ../lib
// from there (bin/ and lib/ of kiln's build and install trees; the Python
// package keeps it beside its modules).
//
//===----------------------------------------------------------------------===//

#include "kiln/runtime/Plugin.h"

#include <cstdlib>
#include <dlfcn.h>
#include <mutex>
#include <sys/stat.h>

namespace kiln::rt {

namespace {
constexpr const char *kLibraryName = "libkiln_plugins.so";

bool isFile(const std::string &path) {
  struct stat info;
  return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

/// The library's path, or NotFound saying where it was looked for.
StatusOr<std::string> findLibrary() {
  if (const char *path = std::getenv("KILN_BUILTIN_PLUGINS")) {
    if (std::string(path) == "none")
      return Status(StatusCode::NotFound,
                    "the built-in plugins are off (KILN_BUILTIN_PLUGINS=none)");
    return std::string(path);
  }
  Dl_info info;
  if (!dladdr(reinterpret_cast<void *>(&loadBuiltinPlugins), &info) ||
      !info.dli_fname)
    return Status(StatusCode::NotFound,
                  "cannot tell where the runtime was loaded from");
  std::string self = info.dli_fname;
  std::string dir = self.substr(0, self.find_last_of('/') + 1);
  if (dir.empty())
    dir = "./";
  std::string candidates[] = {dir + kLibraryName,
                              dir + "../lib/" + kLibraryName};
  for (const std::string &candidate : candidates)
    if (isFile(candidate))
      return candidate;
  return Status(StatusCode::NotFound,
                std::string("no ") + kLibraryName + " in " + candidates[0] +
                    " or " + candidates[1] +
                    " (set KILN_BUILTIN_PLUGINS to its path)");
}
} // namespace

Status loadBuiltinPlugins() {
  static std::once_flag once;
  static Status *status = nullptr; // never destroyed
  std::call_once(once, [] {
    StatusOr<std::string> path = findLibrary();
    status = new Status(path ? loadPluginLibrary(*path) : path.status());
  });
  return *status;
}

} // namespace kiln::rt
