//===- HostTensor.h - a tensor in host memory -------------------*- C++ -*-===//
//
// Inputs, outputs and reference data of the CPU reference executor and the
// conformance runner: an element type, a shape and 64-byte-aligned bytes.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_REFERENCE_HOSTTENSOR_H
#define KILN_REFERENCE_HOSTTENSOR_H

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mlir::kiln {

enum class ElementKind { F32, F16, BF16, I8, I32, I64, Bool };

/// Bytes per element (bool: 1).
int64_t elementBytes(ElementKind kind);
/// "f32", "bf16", "i1", ...
const char *elementName(ElementKind kind);

struct HostTensor {
  std::string name;
  ElementKind kind = ElementKind::F32;
  std::vector<int64_t> shape;

  HostTensor() = default;
  HostTensor(std::string name, ElementKind kind, std::vector<int64_t> shape);

  int64_t numElements() const;
  int64_t numBytes() const { return numElements() * elementBytes(kind); }
  void *data() { return storage.get(); }
  const void *data() const { return storage.get(); }
  /// Element `i` as double (any kind).
  double at(int64_t i) const;
  /// "1x3x224x224xf32"
  std::string typeString() const;

private:
  std::shared_ptr<uint8_t> storage;
};

/// Compares `actual` with `expected` elementwise: |a - e| <= atol + rtol*|e|
/// for floats (NaN matches NaN), equality for integers and booleans. Returns
/// an empty string when they match, else what differs.
std::string compareTensors(const HostTensor &actual, const HostTensor &expected,
                           double rtol, double atol);

/// The tolerance used for an element kind: f32 rtol 1e-3 atol 1e-5,
/// f16 1e-2/1e-3, bf16 2e-2/1e-2, integers exact.
void defaultTolerance(ElementKind kind, double &rtol, double &atol);

} // namespace mlir::kiln

#endif // KILN_REFERENCE_HOSTTENSOR_H
