//===- BuiltinPlugins.cpp - libkiln_plugins.so's entry point --------------===//
//
// The one exported symbol of kiln's built-in plugin library: the entry point
// loadPluginLibrary (and loadBuiltinPlugins) calls, giving a creator of every
// built-in plugin. Everything else in the library is hidden.
//
//===----------------------------------------------------------------------===//

#include "BuiltinPlugins.h"

#include <memory>
#include <vector>

extern "C" __attribute__((visibility("default"))) void
kiln_plugin_library_creators(
    std::vector<std::shared_ptr<kiln::rt::PluginCreator>> *creators) {
  using namespace kiln::rt::builtin;
  creators->push_back(makeLeakyReluCreator());
  creators->push_back(makeClipCreator());
  creators->push_back(makeNormalizeCreator());
  creators->push_back(makeReorgCreator());
  creators->push_back(makeRegionCreator());
  creators->push_back(makePriorBoxCreator());
  creators->push_back(makeGridAnchorCreator());
  creators->push_back(makeNmsCreator());
  creators->push_back(makeRpRoiCreator());
}
