//===- HostTensorTestUtil.h - helpers of the host-tensor tests --*- C++ -*-===//
//
// Host tensors made and filled for tests, temporary folders and whole files:
// shared by the host-tensor library's tests and the tooling's.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TOOLING_HOSTTENSOR_TEST_HOSTTENSORTESTUTIL_H
#define KILN_TOOLING_HOSTTENSOR_TEST_HOSTTENSORTESTUTIL_H

#include "kiln/tooling/HostTensor.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace kiln::tooling::test {

inline HostTensor make(DataType type, std::vector<int64_t> shape,
                       const std::string &name = "t") {
  auto t = HostTensor::create(name, type, std::move(shape));
  EXPECT_TRUE(t.isOk()) << t.status().toString();
  return *t;
}

inline HostTensor randomTensor(DataType type, std::vector<int64_t> shape,
                               unsigned seed) {
  HostTensor t = make(type, std::move(shape));
  std::mt19937 rng(seed);
  fillRandom(t, rng);
  return t;
}

inline void setFloat(HostTensor &t, int64_t i, float v) {
  std::memcpy(static_cast<char *>(t.data()) + 4 * i, &v, 4);
}

/// A fresh folder under the test's temporary directory.
inline std::string tempDir(const std::string &name) {
  std::string dir = ::testing::TempDir() + "kiln-tooling-" + name + "-" +
                    std::to_string(::getpid());
  std::string command = "rm -rf '" + dir + "' && mkdir -p '" + dir + "'";
  EXPECT_EQ(std::system(command.c_str()), 0);
  return dir;
}

inline void writeFile(const std::string &path, const std::string &bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

inline std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

} // namespace kiln::tooling::test

#endif // KILN_TOOLING_HOSTTENSOR_TEST_HOSTTENSORTESTUTIL_H
