//===- kiln-device-info.cpp - what the runtime sees -------------*- C++ -*-===//
//
// Loads the CUDA driver the way every kiln application does and prints the
// devices, or the reason there are none (exit status 1).
//
//===----------------------------------------------------------------------===//

#include "kiln/runtime/Driver.h"

#include <cstdio>
#include <cstring>

int main(int argc, char **argv) {
  const char *library = kiln::rt::Driver::kDefaultLibrary;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--driver=", 9) == 0) {
      library = argv[i] + 9;
    } else {
      std::fprintf(stderr,
                   "usage: %s [--driver=PATH]\n"
                   "Prints the CUDA devices the kiln runtime can use.\n",
                   argv[0]);
      return 2;
    }
  }
  auto driver = kiln::rt::Driver::load(library);
  if (!driver) {
    std::fprintf(stderr, "kiln-device-info: %s\n",
                 driver.status().toString().c_str());
    return 1;
  }
  int version = (*driver)->driverVersion();
  std::printf("driver: %s (CUDA %d.%d), %d device(s)\n",
              (*driver)->library().c_str(), version / 1000,
              (version % 1000) / 10, (*driver)->deviceCount());
  for (int i = 0; i < (*driver)->deviceCount(); ++i) {
    auto info = (*driver)->device(i);
    if (!info) {
      std::fprintf(stderr, "kiln-device-info: device %d: %s\n", i,
                   info.status().toString().c_str());
      return 1;
    }
    std::printf("device %d: %s, %s, %d SMs, %.1f GiB\n", i, info->name.c_str(),
                info->smArch().c_str(), info->multiprocessorCount,
                static_cast<double>(info->totalMemoryBytes) /
                    (1024.0 * 1024 * 1024));
  }
  return 0;
}
