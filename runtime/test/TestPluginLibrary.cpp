//===- TestPluginLibrary.cpp - a plugin library for the tests -------------===//
//
// A shared object that registers kiln.test::TestClip@2 when it is loaded
// (loadPluginLibrary): what a user's plugin library does. It does not link
// the runtime; the loading program provides it (its symbols exported).
//
//===----------------------------------------------------------------------===//

#include "TestPlugins.h"

namespace {
class LibraryClipCreator : public kiln::rt::test::ClipCreator {
public:
  std::string version() const override { return "2"; }
};
} // namespace

KILN_REGISTER_PLUGIN(LibraryClipCreator);
