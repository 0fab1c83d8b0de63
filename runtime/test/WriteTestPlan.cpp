//===- WriteTestPlan.cpp - a fake-driver plan as a file ---------*- C++ -*-===//
//
// kiln-write-test-plan OUT.kplan N WEIGHTS.f32: writes the plan of
// addPlan(N, w) (PlanTestUtil.h: out = (a + w) + b over N floats with the
// stand-in driver's fake_add_f32 kernel), w read from N raw little-endian
// floats. kiln-write-test-plan --clip OUT.kplan N LOWER UPPER: a plugin
// step of the test plugin library's TestClip@2 (clipPlan).
// kiln-write-test-plan --dynamic OUT.kplan ROWS WEIGHTS.f32: the plan of
// dynamicAddPlan(ROWS, w), format 1.4's run-time shapes (inputs ?x4, 1 to
// ROWS rows), w read from ROWS * 4 floats. The Python
// package's tests (python/tests) run them on the stand-in driver.
//
//===----------------------------------------------------------------------===//

#include "PlanTestUtil.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

/// Writes `plan` to `path`; an exit status.
int write(const kiln::rt::PlanContents &plan, const char *path) {
  auto file = kiln::rt::writePlan(plan);
  if (!file) {
    std::fprintf(stderr, "kiln-write-test-plan: %s\n",
                 file.status().message().c_str());
    return 1;
  }
  std::ofstream out(path, std::ios::binary);
  out.write(file->data(), std::streamsize(file->size()));
  if (!out) {
    std::fprintf(stderr, "kiln-write-test-plan: cannot write '%s'\n", path);
    return 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 6 && std::string(argv[1]) == "--clip") {
    // --clip OUT.kplan N LOWER UPPER: clipPlan(N, LOWER, UPPER) of
    // kiln.test::TestClip@2, the plugin of the test plugin library.
    long long n = std::atoll(argv[3]);
    if (n <= 0 || n > (1 << 26))
      return 2;
    return write(kiln::rt::test::clipPlan(n, std::atof(argv[4]),
                                          std::atof(argv[5]), "2"),
                 argv[2]);
  }
  // --dynamic OUT.kplan ROWS WEIGHTS.f32: as below, with ROWS * 4 floats.
  bool dynamic = argc == 5 && std::string(argv[1]) == "--dynamic";
  if (dynamic) {
    --argc;
    ++argv;
  }
  if (argc != 4) {
    std::fprintf(stderr,
                 "usage: %s OUT.kplan N WEIGHTS.f32\n"
                 "       %s --dynamic OUT.kplan ROWS WEIGHTS.f32\n"
                 "       %s --clip OUT.kplan N LOWER UPPER\n",
                 argv[0], argv[0], argv[0]);
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
  long long floats = dynamic ? n * 4 : n;
  if (raw.size() != size_t(floats) * sizeof(float)) {
    std::fprintf(stderr, "kiln-write-test-plan: '%s' has %zu bytes, not %lld\n",
                 argv[3], raw.size(), floats * 4);
    return 1;
  }
  std::vector<float> w(floats);
  std::copy(raw.begin(), raw.end(), reinterpret_cast<char *>(w.data()));
  return write(dynamic ? kiln::rt::test::dynamicAddPlan(n, w)
                       : kiln::rt::test::addPlan(n, w),
               argv[1]);
}
