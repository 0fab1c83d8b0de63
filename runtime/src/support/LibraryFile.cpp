//===- LibraryFile.cpp - what dlopen may be given ---------------*- C++ -*-===//
//
// Checks a library's path before dlopen: a regular file (after links), or
// a bare name for dlopen to search.
//
//===----------------------------------------------------------------------===//

#include "LibraryFile.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

namespace kiln::rt {

std::string whyNotALibraryFile(const std::string &path) {
  if (path.find('/') == std::string::npos)
    return "";
  struct stat info;
  if (::stat(path.c_str(), &info) != 0)
    return std::strerror(errno);
  if (S_ISREG(info.st_mode))
    return "";
  const char *kind = S_ISFIFO(info.st_mode)   ? "a FIFO"
                     : S_ISDIR(info.st_mode)  ? "a folder"
                     : S_ISCHR(info.st_mode)  ? "a character device"
                     : S_ISBLK(info.st_mode)  ? "a block device"
                     : S_ISSOCK(info.st_mode) ? "a socket"
                                              : "not a file";
  return std::string("it is ") + kind + ", not a regular file";
}

} // namespace kiln::rt
