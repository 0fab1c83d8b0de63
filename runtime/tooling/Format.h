//===- Format.h - printf into a std::string ---------------------*- C++ -*-===//
//
// For the tools' tables: one line at a time, 256 characters at most.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TOOLING_FORMAT_H
#define KILN_TOOLING_FORMAT_H

#include <cstdio>
#include <string>

namespace kiln::tooling {

template <typename... Args> std::string format(const char *fmt, Args... args) {
  char buf[256];
  std::snprintf(buf, sizeof(buf), fmt, args...);
  return buf;
}

} // namespace kiln::tooling

#endif // KILN_TOOLING_FORMAT_H
