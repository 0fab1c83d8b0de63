//===- TestPluginLibrary.cpp - a plugin library for the tests -------------===//
//
// A shared object whose entry point gives kiln.test::TestClip@2
// (loadPluginLibrary registers it): what a user's plugin library does. It
// links nothing of the runtime.
//
//===----------------------------------------------------------------------===//

#include "TestPlugins.h"

namespace {
class LibraryClipCreator : public kiln::rt::test::ClipCreator {
public:
  std::string version() const override { return "2"; }
};
} // namespace

KILN_PLUGIN_LIBRARY(LibraryClipCreator)
