//===- LibraryFile.h - what dlopen may be given -----------------*- C++ -*-===//
//
// A shared library named by a path (a plugin library, a CUDA driver given
// with --driver) must be a regular file before dlopen sees it: dlopen of a
// FIFO blocks forever, and a device or a folder gives an obscure error. A
// bare name (no '/') is left to dlopen's search of the library paths.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_RUNTIME_SUPPORT_LIBRARYFILE_H
#define KILN_RUNTIME_SUPPORT_LIBRARYFILE_H

#include <string>

namespace kiln::rt {

/// Empty when `path` may be given to dlopen; else why not ("it is a FIFO,
/// not a regular file", "no such file or directory").
std::string whyNotALibraryFile(const std::string &path);

} // namespace kiln::rt

#endif // KILN_RUNTIME_SUPPORT_LIBRARYFILE_H
