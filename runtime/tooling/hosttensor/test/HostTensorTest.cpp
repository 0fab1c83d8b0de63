//===- HostTensorTest.cpp - host tensors and .npy files ---------*- C++ -*-===//
//
// The host-tensor library on random data: checked host tensors, tolerance
// comparison, and .npy files written and read back (malformed ones refused
// before memory is allocated). It links kiln_host_tensor alone, as the
// compiler's libraries do.
//
//===----------------------------------------------------------------------===//

#include "kiln/tooling/HostTensor.h"
#include "HostTensorTestUtil.h"
#include "kiln/tooling/HostMemory.h"
#include "kiln/tooling/Npy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

using namespace kiln;
using namespace kiln::tooling;
using namespace kiln::tooling::test;
using ::testing::HasSubstr;

namespace {

/// A .npy file with the given header dict and `dataBytes` zero bytes.
std::string npyFile(const std::string &dict, size_t dataBytes) {
  std::string header = dict;
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string file = "\x93NUMPY";
  file += '\x01';
  file += '\x00';
  file += static_cast<char>(header.size() & 0xff);
  file += static_cast<char>(header.size() >> 8);
  return file + header + std::string(dataBytes, '\0');
}

} // namespace

//===----------------------------------------------------------------------===//
// HostTensor
//===----------------------------------------------------------------------===//

TEST(HostTensorTest, CreatesZeroFilledTensors) {
  HostTensor t = make(DataType::I64, {2, 3, 4});
  EXPECT_EQ(t.numElements(), 24);
  EXPECT_EQ(t.numBytes(), 192);
  EXPECT_EQ(t.typeString(), "2x3x4xi64");
  for (int64_t i = 0; i < t.numElements(); ++i)
    EXPECT_EQ(t.at(i), 0);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t.data()) % 64, 0u);
  EXPECT_EQ(make(DataType::Bool, {}).typeString(), "i1");
  EXPECT_EQ(make(DataType::F32, {0, 5}).numBytes(), 0);
}

// Small buffers come from the C allocator, large ones from their own
// huge-page mapping: both zeroed, aligned as asked and writable to the end.
TEST(HostMemoryTest, BuffersAreZeroedAlignedAndWritable) {
  for (size_t bytes : {size_t(1), size_t(4096) + 3, kHugePageBytes - 1,
                       kHugePageBytes, (size_t(16) << 20) + 5}) {
    SCOPED_TRACE(bytes);
    auto *p = static_cast<unsigned char *>(allocateHost(bytes, 64));
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
    if (bytes >= kHugePageBytes) { // whole huge pages
      EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % (size_t(2) << 20), 0u);
    }
    for (size_t i = 0; i < bytes; i += 4093)
      ASSERT_EQ(p[i], 0) << "at " << i;
    EXPECT_EQ(p[bytes - 1], 0);
    std::memset(p, 0xab, bytes);
    EXPECT_EQ(p[bytes - 1], 0xab);
    freeHost(p, bytes);
  }
  freeHost(nullptr, 0);
}

TEST(HostTensorTest, LargeTensorsAreZeroFilled) {
  auto t = HostTensor::create("big", DataType::F32, {3, 1 << 20});
  ASSERT_TRUE(t.isOk()) << t.status().message();
  const auto *f = static_cast<const float *>(t->data());
  for (int64_t i = 0; i < t->numElements(); i += 1021)
    ASSERT_EQ(f[i], 0.0f) << "at " << i;
  EXPECT_EQ(f[t->numElements() - 1], 0.0f);
}

TEST(HostTensorTest, RefusesSizesThatOverflowOrAreHuge) {
  auto overflow = HostTensor::create("x", DataType::F32, {int64_t(1) << 62, 4});
  ASSERT_FALSE(overflow.isOk());
  EXPECT_EQ(overflow.status().code(), rt::StatusCode::InvalidArgument);
  EXPECT_THAT(overflow.status().message(), HasSubstr("tensor 'x'"));
  EXPECT_THAT(overflow.status().message(), HasSubstr("needs more than"));
  auto huge = HostTensor::create("y", DataType::I64, {int64_t(1) << 38});
  ASSERT_FALSE(huge.isOk());
  EXPECT_THAT(huge.status().message(), HasSubstr("needs more than"));
  auto negative = HostTensor::create("z", DataType::F32, {3, -1});
  ASSERT_FALSE(negative.isOk());
  EXPECT_THAT(negative.status().message(), HasSubstr("negative dimension"));
}

TEST(HostTensorTest, ReadsEveryElementType) {
  HostTensor f16 = make(DataType::F16, {3});
  const uint16_t halves[] = {0x3C00, 0xC000, 0x0001}; // 1, -2, 2^-24
  std::memcpy(f16.data(), halves, sizeof(halves));
  EXPECT_EQ(f16.at(0), 1.0);
  EXPECT_EQ(f16.at(1), -2.0);
  EXPECT_EQ(f16.at(2), std::ldexp(1.0, -24));
  HostTensor bf16 = make(DataType::BF16, {1});
  const uint16_t b = 0x4049; // 3.140625
  std::memcpy(bf16.data(), &b, 2);
  EXPECT_EQ(bf16.at(0), 3.140625);
  HostTensor i8 = make(DataType::I8, {1});
  static_cast<int8_t *>(i8.data())[0] = -7;
  EXPECT_EQ(i8.at(0), -7);
  // Unsigned types read their top bit as a value, not a sign.
  HostTensor u8 = make(DataType::U8, {1});
  static_cast<uint8_t *>(u8.data())[0] = 200;
  EXPECT_EQ(u8.at(0), 200);
  HostTensor u32 = make(DataType::U32, {1});
  static_cast<uint32_t *>(u32.data())[0] = 4000000000u;
  EXPECT_EQ(u32.at(0), 4000000000.0);
  HostTensor u64 = make(DataType::U64, {1});
  static_cast<uint64_t *>(u64.data())[0] = uint64_t(1) << 63;
  EXPECT_EQ(u64.at(0), std::ldexp(1.0, 63));
}

/// Element `i` of a tensor of `type` whose bytes are `codes`.
static double decode(DataType type, std::vector<uint8_t> codes, size_t i) {
  HostTensor t = make(type, {static_cast<int64_t>(codes.size())});
  std::memcpy(t.data(), codes.data(), codes.size());
  return t.at(static_cast<int64_t>(i));
}

TEST(HostTensorTest, ReadsTheSmallTypes) {
  // float8 E4M3FN: 448 is the largest, 0x7F and 0xFF are NaN, 0x80 is -0,
  // 0x01 the smallest subnormal (2^-9).
  std::vector<uint8_t> e4m3 = {0x7E, 0x7F, 0x80, 0x01, 0xB8};
  EXPECT_EQ(decode(DataType::F8E4M3FN, e4m3, 0), 448.0);
  EXPECT_TRUE(std::isnan(decode(DataType::F8E4M3FN, e4m3, 1)));
  EXPECT_TRUE(std::signbit(decode(DataType::F8E4M3FN, e4m3, 2)));
  EXPECT_EQ(decode(DataType::F8E4M3FN, e4m3, 3), std::ldexp(1.0, -9));
  EXPECT_EQ(decode(DataType::F8E4M3FN, e4m3, 4), -1.0);
  // FNUZ: 0x80 is the one NaN, 0x7F the largest (240), bias 8.
  EXPECT_TRUE(std::isnan(decode(DataType::F8E4M3FNUZ, {0x80}, 0)));
  EXPECT_EQ(decode(DataType::F8E4M3FNUZ, {0x7F}, 0), 240.0);
  EXPECT_EQ(decode(DataType::F8E4M3FNUZ, {0x40}, 0), 1.0);
  // E5M2 is IEEE-like: 0x7C is infinity, 0x7D NaN, 0x7B the largest.
  EXPECT_EQ(decode(DataType::F8E5M2, {0x7C}, 0), INFINITY);
  EXPECT_EQ(decode(DataType::F8E5M2, {0xFC}, 0), -INFINITY);
  EXPECT_TRUE(std::isnan(decode(DataType::F8E5M2, {0x7D}, 0)));
  EXPECT_EQ(decode(DataType::F8E5M2, {0x7B}, 0), 57344.0);
  EXPECT_EQ(decode(DataType::F8E5M2FNUZ, {0x7F}, 0), 57344.0);
  EXPECT_TRUE(std::isnan(decode(DataType::F8E5M2FNUZ, {0x80}, 0)));
  // float4 E2M1 and the sub-byte integers read the low bits only: a device
  // output's high bits are unspecified.
  EXPECT_EQ(decode(DataType::F4E2M1, {0x07}, 0), 6.0);
  EXPECT_EQ(decode(DataType::F4E2M1, {0xAF}, 0), -6.0);
  EXPECT_EQ(decode(DataType::F4E2M1, {0x31}, 0), 0.5);
  EXPECT_EQ(decode(DataType::I4, {0xF8}, 0), -8.0);
  EXPECT_EQ(decode(DataType::I4, {0x18}, 0), -8.0);
  EXPECT_EQ(decode(DataType::I4, {0x27}, 0), 7.0);
  EXPECT_EQ(decode(DataType::U4, {0x1F}, 0), 15.0);
  EXPECT_EQ(decode(DataType::I2, {0xFE}, 0), -2.0);
  EXPECT_EQ(decode(DataType::I2, {0x41}, 0), 1.0);
  EXPECT_EQ(decode(DataType::U2, {0x07}, 0), 3.0);
  // Floats compare as floats: NaN matches NaN, a one-code difference fails.
  HostTensor a = make(DataType::F8E5M2, {2}), b = make(DataType::F8E5M2, {2});
  const uint8_t x[] = {0x7D, 0x3C}, y[] = {0x7E, 0x3C}, z[] = {0x7D, 0x3D};
  std::memcpy(a.data(), x, 2);
  std::memcpy(b.data(), y, 2);
  EXPECT_TRUE(compareTensors(a, b, defaultTolerance(DataType::F8E5M2)).isOk());
  std::memcpy(b.data(), z, 2);
  EXPECT_FALSE(compareTensors(a, b, defaultTolerance(DataType::F8E5M2)).isOk());
}

TEST(HostTensorTest, ComparesWithTolerances) {
  HostTensor a = randomTensor(DataType::F32, {4, 8}, 1);
  HostTensor b = make(DataType::F32, {4, 8});
  std::memcpy(b.data(), a.data(), a.numBytes());
  EXPECT_TRUE(compareTensors(a, b, defaultTolerance(DataType::F32)).isOk());
  // Within rtol 1e-3 of the expected value: a match.
  setFloat(b, 3, static_cast<float>(a.at(3) * (1 + 5e-4)));
  EXPECT_TRUE(compareTensors(a, b, defaultTolerance(DataType::F32)).isOk());
  // An element near zero is held to rtol of the output's magnitude (its
  // rms, about 0.58 for values uniform in [-1, 1]), not of its own value.
  HostTensor c = make(DataType::F32, {4, 8});
  std::memcpy(c.data(), a.data(), a.numBytes());
  setFloat(c, 2, 1e-6f);
  HostTensor d = make(DataType::F32, {4, 8});
  std::memcpy(d.data(), c.data(), c.numBytes());
  setFloat(d, 2, 3e-4f);
  EXPECT_TRUE(compareTensors(d, c, defaultTolerance(DataType::F32)).isOk());
  setFloat(d, 2, 2e-3f);
  EXPECT_FALSE(compareTensors(d, c, defaultTolerance(DataType::F32)).isOk());
  // Two elements off by 0.5: a mismatch naming the first and the count.
  setFloat(b, 5, static_cast<float>(a.at(5) + 0.5));
  setFloat(b, 9, static_cast<float>(a.at(9) - 0.5));
  rt::Status diff = compareTensors(a, b, defaultTolerance(DataType::F32));
  ASSERT_FALSE(diff.isOk());
  EXPECT_THAT(diff.message(), HasSubstr("2 of 32 elements differ; first at 5"));
  EXPECT_THAT(diff.message(), HasSubstr("max abs error 0.5"));
  // NaN matches NaN only.
  setFloat(a, 0, NAN);
  setFloat(b, 0, NAN);
  setFloat(b, 5, static_cast<float>(a.at(5)));
  setFloat(b, 9, static_cast<float>(a.at(9)));
  EXPECT_TRUE(compareTensors(a, b, defaultTolerance(DataType::F32)).isOk());
  setFloat(b, 0, 0.0f);
  EXPECT_FALSE(compareTensors(a, b, defaultTolerance(DataType::F32)).isOk());
  // Types and shapes must agree.
  rt::Status type = compareTensors(a, make(DataType::F32, {32}), {});
  EXPECT_THAT(type.message(), HasSubstr("type 4x8xf32, expected 32xf32"));
  // Integers compare exactly.
  HostTensor i = randomTensor(DataType::I32, {16}, 2);
  HostTensor j = make(DataType::I32, {16});
  std::memcpy(j.data(), i.data(), i.numBytes());
  static_cast<int32_t *>(j.data())[7] += 1;
  EXPECT_FALSE(compareTensors(i, j, defaultTolerance(DataType::I32)).isOk());
}

TEST(HostTensorTest, RandomValuesAreSeededAndInRange) {
  HostTensor a = randomTensor(DataType::F32, {1000}, 7);
  HostTensor b = randomTensor(DataType::F32, {1000}, 7);
  HostTensor c = randomTensor(DataType::F32, {1000}, 8);
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.numBytes()), 0);
  EXPECT_NE(std::memcmp(a.data(), c.data(), a.numBytes()), 0);
  double lo = 1, hi = -1;
  for (int64_t i = 0; i < a.numElements(); ++i) {
    lo = std::min(lo, a.at(i));
    hi = std::max(hi, a.at(i));
  }
  EXPECT_GE(lo, -1.0);
  EXPECT_LE(hi, 1.0);
  EXPECT_LT(lo, -0.9);
  EXPECT_GT(hi, 0.9);
  HostTensor ints = randomTensor(DataType::I64, {200}, 3);
  for (int64_t i = 0; i < ints.numElements(); ++i) {
    EXPECT_GE(ints.at(i), 0);
    EXPECT_LE(ints.at(i), 9);
  }
}

//===----------------------------------------------------------------------===//
// .npy
//===----------------------------------------------------------------------===//

TEST(NpyTest, WritesAndReadsBackEveryType) {
  std::string dir = tempDir("npy");
  std::vector<std::vector<int64_t>> shapes = {{}, {7}, {2, 3, 5}};
  unsigned seed = 0;
  for (DataType type :
       {DataType::F32, DataType::F16, DataType::I8, DataType::I32,
        DataType::I64, DataType::Bool, DataType::F64, DataType::I16,
        DataType::U8, DataType::U16, DataType::U32, DataType::U64})
    for (const auto &shape : shapes) {
      HostTensor t = randomTensor(type, shape, ++seed);
      std::string path = dir + "/t" + std::to_string(seed) + ".npy";
      ASSERT_TRUE(writeNpy(path, t).isOk());
      auto back = readNpy(path);
      ASSERT_TRUE(back.isOk()) << back.status().toString();
      EXPECT_EQ(back->name, "t" + std::to_string(seed));
      EXPECT_EQ(back->type, type);
      EXPECT_EQ(back->shape, shape);
      EXPECT_TRUE(compareTensors(*back, t, {}).isOk());
      // The data starts at a multiple of 64 bytes, as NumPy writes it.
      EXPECT_EQ((readFile(path).size() - t.numBytes()) % 64, 0u);
    }
  rt::Status bf16 = writeNpy(dir + "/b.npy", make(DataType::BF16, {2}));
  EXPECT_THAT(bf16.message(), HasSubstr("bf16 has no NumPy dtype"));
}

TEST(NpyTest, ReadsWhatNumPyWrites) {
  // np.save of np.arange(6, dtype=np.int32).reshape(2, 3).
  std::string dir = tempDir("numpy");
  std::string file =
      npyFile("{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }", 0);
  for (int32_t v = 0; v < 6; ++v)
    file.append(reinterpret_cast<const char *>(&v), 4);
  writeFile(dir + "/a.npy", file);
  auto t = readNpy(dir + "/a.npy");
  ASSERT_TRUE(t.isOk()) << t.status().toString();
  EXPECT_EQ(t->typeString(), "2x3xi32");
  for (int64_t i = 0; i < 6; ++i)
    EXPECT_EQ(t->at(i), i);
}

TEST(NpyTest, RefusesMalformedFilesBeforeAllocating) {
  std::string dir = tempDir("badnpy");
  struct Case {
    const char *name;
    std::string bytes;
    const char *message;
  } cases[] = {
      {"magic", "NOTNUMPY", "is not a .npy file"},
      {"truncated-data",
       npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", 12),
       "holds fewer bytes than its shape needs (12 of 16)"},
      {"extra-data",
       npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", 20),
       "holds more bytes than its shape needs"},
      // A header that asks for 2^40 elements of a 100-byte file.
      {"huge",
       npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (1048576, "
               "1048576), }",
               100),
       "holds fewer bytes than its shape needs"},
      {"overflow",
       npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': "
               "(4611686018427387904, 8), }",
               0),
       "has an invalid shape"},
      {"fortran",
       npyFile("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }",
               16),
       "is in Fortran order"},
      {"dtype",
       npyFile("{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }", 16),
       "has dtype '<c8', which kiln does not read"},
      {"version", std::string("\x93NUMPY\x07\x00", 8), "format version 7"},
  };
  for (const Case &c : cases) {
    std::string path = dir + "/" + c.name + ".npy";
    writeFile(path, c.bytes);
    auto t = readNpy(path);
    ASSERT_FALSE(t.isOk()) << c.name;
    EXPECT_THAT(t.status().message(), HasSubstr(c.message)) << c.name;
    EXPECT_THAT(t.status().message(), HasSubstr(path)) << c.name;
  }
  auto missing = readNpy(dir + "/missing.npy");
  EXPECT_THAT(missing.status().message(), HasSubstr("cannot open"));
  auto folder = readNpy(dir);
  EXPECT_THAT(folder.status().message(), HasSubstr("is not a regular file"));
}
