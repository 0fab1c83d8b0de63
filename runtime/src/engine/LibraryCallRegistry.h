//===- LibraryCallRegistry.h - looking up library-call handlers -*- C++ -*-===//
//
// The engine's side of the registry in LibraryCall.h: LibraryCall.cpp keeps
// it, LibraryCallStep.cpp looks handlers up. Internal to the runtime.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_RUNTIME_SRC_ENGINE_LIBRARYCALLREGISTRY_H
#define KILN_RUNTIME_SRC_ENGINE_LIBRARYCALLREGISTRY_H

#include "kiln/runtime/LibraryCall.h"

#include <string>

namespace kiln::rt::detail {

/// A copy of the handler registered for `callee`, or an empty one.
LibraryCallHandler findLibraryCallHandler(const std::string &callee);

} // namespace kiln::rt::detail

#endif // KILN_RUNTIME_SRC_ENGINE_LIBRARYCALLREGISTRY_H
