//===- HostTensor.h - a tensor in host memory -------------------*- C++ -*-===//
//
// Inputs, outputs and reference data of the tools that run networks (the
// plan runner, kiln-run, kiln-conformance, the CPU reference executor): a
// name, the runtime's element type, a shape and 64-byte-aligned bytes.
// Sizes are checked before anything is allocated.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TOOLING_HOSTTENSOR_H
#define KILN_TOOLING_HOSTTENSOR_H

#include "kiln/runtime/Plan.h"
#include "kiln/runtime/Status.h"

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace kiln::tooling {

using rt::DataType;

/// The largest host tensor the tools allocate (1 TiB).
constexpr int64_t kMaxHostTensorBytes = int64_t(1) << 40;

/// "f32", "f16", "bf16", "i8", "i32", "i64", "i1": element types as MLIR
/// spells them, for messages about shapes ("1x3x224x224xf32").
const char *elementTypeName(DataType type);
/// Whether `type` holds floating-point values (f64 down to the 4-bit float).
bool isFloatType(DataType type);

class HostTensor {
public:
  /// A tensor of `shape` (zero-filled), or InvalidArgument when a dimension
  /// is negative, the byte count overflows or exceeds kMaxHostTensorBytes,
  /// or the memory cannot be allocated.
  static rt::StatusOr<HostTensor> create(std::string name, DataType type,
                                         std::vector<int64_t> shape);
  /// An empty f32 scalar without storage; assign a created one.
  HostTensor() = default;

  std::string name;
  DataType type = DataType::F32;
  std::vector<int64_t> shape;

  int64_t numElements() const;
  int64_t numBytes() const;
  void *data() { return storage.get(); }
  const void *data() const { return storage.get(); }
  /// Element `i` as double (any type).
  double at(int64_t i) const;
  /// "1x3x224x224xf32"; a scalar is "f32".
  std::string typeString() const;

private:
  std::shared_ptr<uint8_t> storage;
};

/// "2x3xf32" for a shape and type (as HostTensor::typeString).
std::string typeString(const std::vector<int64_t> &shape, DataType type);

/// The tolerance used for an element type: f32 rtol 1e-3 atol 1e-5, f16
/// 1e-2/1e-3, bf16 2e-2/1e-2, integers and booleans exact.
struct Tolerance {
  double rtol = 0, atol = 0;
};
Tolerance defaultTolerance(DataType type);

/// Compares `actual` with `expected` elementwise: for floats
///   |a - e| <= atol + rtol * max(|e|, rms(expected))
/// (NaN matches NaN, infinities match themselves), equality for integers and
/// booleans. The rms term scales the bound with the output's magnitude: the
/// rounding error of an output of a long reduction (a matmul, a conv, a
/// softmax's sum) is relative to the size of the terms it added, not to the
/// result, so an element that cancels to near zero in a deep network still
/// carries an error of about rtol times the output's typical value. Ok when
/// they match; otherwise InvalidArgument saying how many elements differ, the
/// first one and the largest error. `maxAbsError`, when given, receives the
/// largest |a - e| over the finite elements either way.
rt::Status compareTensors(const HostTensor &actual, const HostTensor &expected,
                          Tolerance tolerance, double *maxAbsError = nullptr);

/// Fills `t` with random values: floats uniform in [-1, 1] (f16 from {0,
/// +-0.25, +-0.5, +-1}, exact in f16; bf16 truncated from f32), integers in
/// 0..9, booleans 0/1.
void fillRandom(HostTensor &t, std::mt19937 &rng);

} // namespace kiln::tooling

#endif // KILN_TOOLING_HOSTTENSOR_H
