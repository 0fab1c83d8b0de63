//===- WriteSeeds.cpp - kiln-plan-fuzz-seeds: the seed corpus -------------===//
//
// kiln-plan-fuzz-seeds DIR writes the seed plans (PlanFuzzSeeds.h) into DIR,
// which must exist, for scripts/fuzz-plan-reader.sh.
//
//===----------------------------------------------------------------------===//

#include "PlanFuzzSeeds.h"

#include <cstdio>
#include <fstream>

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr,
                 "usage: %s DIR\nWrites the plan-reader fuzzer's seed "
                 "plans into DIR.\n",
                 argv[0]);
    return 2;
  }
  int written = 0;
  for (const auto &[name, bytes] : kiln::rt::fuzz::planFuzzSeeds()) {
    std::string path = std::string(argv[1]) + "/" + name;
    std::ofstream out(path, std::ios::binary);
    out << bytes;
    if (!out) {
      std::fprintf(stderr, "kiln-plan-fuzz-seeds: cannot write '%s'\n",
                   path.c_str());
      return 1;
    }
    ++written;
  }
  std::printf("kiln-plan-fuzz-seeds: %d seed plans in %s\n", written, argv[1]);
  return 0;
}
