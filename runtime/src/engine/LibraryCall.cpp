//===- LibraryCall.cpp - the registry of library-call handlers --*- C++ -*-===//
//
// One map from callee to handler for the process, behind a mutex. Lookups
// copy the handler out, so a handler runs without the lock held.
//
//===----------------------------------------------------------------------===//

#include "kiln/runtime/LibraryCall.h"

#include "cublas/CublasLt.h"
#include "engine/LibraryCallRegistry.h"
#include "kiln/runtime/CublasLtMatmul.h"
#include "kiln/runtime/Plugin.h"
#include "plugin/PluginStep.h"

#include <cstdio>
#include <map>
#include <mutex>

namespace kiln::rt {

namespace {
struct Registry {
  std::mutex mutex;
  std::map<std::string, LibraryCallHandler> handlers;
};

/// Built on first use, so that static registrations in other files may run
/// before or after this file's statics.
Registry &registry() {
  static Registry *instance = [] {
    auto r = new Registry; // never destroyed: see above
    // The runtime's own library calls.
    r->handlers[CublasLtMatmulParams::kCallee] = detail::prepareCublasLtMatmul;
    r->handlers[kPluginCallee] = detail::preparePlugin;
    return r;
  }();
  return *instance;
}
} // namespace

LibraryCallInstance::~LibraryCallInstance() = default;

Status registerLibraryCallHandler(const std::string &callee,
                                  LibraryCallHandler handler) {
  if (callee.empty())
    return Status(StatusCode::InvalidArgument,
                  "a library-call handler needs a callee name");
  if (!handler)
    return Status(StatusCode::InvalidArgument,
                  "the library-call handler for '" + callee + "' is empty");
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (!r.handlers.emplace(callee, std::move(handler)).second)
    return Status(StatusCode::InvalidArgument,
                  "library call '" + callee + "' already has a handler");
  return Status::ok();
}

bool unregisterLibraryCallHandler(const std::string &callee) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  return r.handlers.erase(callee) != 0;
}

bool hasLibraryCallHandler(const std::string &callee) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  return r.handlers.count(callee) != 0;
}

std::vector<std::string> registeredLibraryCalls() {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<std::string> callees;
  for (const auto &entry : r.handlers)
    callees.push_back(entry.first);
  return callees;
}

LibraryCallRegistration::LibraryCallRegistration(const char *callee,
                                                 LibraryCallHandler handler)
    : status_(registerLibraryCallHandler(callee ? callee : "",
                                         std::move(handler))) {
  if (!status_)
    std::fprintf(stderr, "kiln: error: registering a library call: %s\n",
                 status_.message().c_str());
}

namespace detail {
LibraryCallHandler findLibraryCallHandler(const std::string &callee) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.handlers.find(callee);
  return it == r.handlers.end() ? LibraryCallHandler() : it->second;
}
} // namespace detail

} // namespace kiln::rt
