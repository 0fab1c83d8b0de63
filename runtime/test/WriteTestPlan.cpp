//===- WriteTestPlan.cpp - a fake-driver plan as a file ---------*- C++ -*-===//
//
// kiln-write-test-plan OUT.kplan N WEIGHTS.f32: writes the plan of
// addPlan(N, w) (PlanTestUtil.h: out = (a + w) + b over N floats with the
// stand-in driver's fake_add_f32 kernel), w read from N raw little-endian
// floats. The Python package's tests (python/tests) run it on the stand-in
// driver, which really adds.
//
//===----------------------------------------------------------------------===//

#include "PlanTestUtil.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

int main(int argc, char **argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s OUT.kplan N WEIGHTS.f32\n", argv[0]);
    return 2;
  }
  char *end = nullptr;
  long long n = std::strtoll(argv[2], &end, 10);
  if (*end || n <= 0 || n > (1 << 26)) {
    std::fprintf(stderr, "kiln-write-test-plan: bad N '%s'\n", argv[2]);
    return 2;
  }
  std::ifstream in(argv[3], std::ios::binary);
  std::string raw((std::istreambuf_iterator<char>(in)),
                  std::istreambuf_iterator<char>());
  if (!in.good() && !in.eof()) {
    std::fprintf(stderr, "kiln-write-test-plan: cannot read '%s'\n", argv[3]);
    return 1;
  }
  if (raw.size() != size_t(n) * sizeof(float)) {
    std::fprintf(stderr, "kiln-write-test-plan: '%s' has %zu bytes, not %lld\n",
                 argv[3], raw.size(), n * 4);
    return 1;
  }
  std::vector<float> w(n);
  std::copy(raw.begin(), raw.end(), reinterpret_cast<char *>(w.data()));
  auto file = kiln::rt::writePlan(kiln::rt::test::addPlan(n, w));
  if (!file) {
    std::fprintf(stderr, "kiln-write-test-plan: %s\n",
                 file.status().message().c_str());
    return 1;
  }
  std::ofstream out(argv[1], std::ios::binary);
  out.write(file->data(), std::streamsize(file->size()));
  if (!out) {
    std::fprintf(stderr, "kiln-write-test-plan: cannot write '%s'\n", argv[1]);
    return 1;
  }
  return 0;
}
