//===- HostTensor.cpp - a tensor in host memory -----------------*- C++ -*-===//
//
// Storage, element access and tolerance comparison of host tensors.
//
//===----------------------------------------------------------------------===//

#include "kiln/Reference/HostTensor.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iomanip>
#include <sstream>

using namespace mlir::kiln;

int64_t mlir::kiln::elementBytes(ElementKind kind) {
  switch (kind) {
  case ElementKind::F32:
  case ElementKind::I32:
    return 4;
  case ElementKind::F16:
  case ElementKind::BF16:
    return 2;
  case ElementKind::I64:
    return 8;
  case ElementKind::I8:
  case ElementKind::Bool:
    return 1;
  }
  return 1;
}

const char *mlir::kiln::elementName(ElementKind kind) {
  switch (kind) {
  case ElementKind::F32:
    return "f32";
  case ElementKind::F16:
    return "f16";
  case ElementKind::BF16:
    return "bf16";
  case ElementKind::I8:
    return "i8";
  case ElementKind::I32:
    return "i32";
  case ElementKind::I64:
    return "i64";
  case ElementKind::Bool:
    return "i1";
  }
  return "?";
}

HostTensor::HostTensor(std::string name, ElementKind kind,
                       std::vector<int64_t> shape)
    : name(std::move(name)), kind(kind), shape(std::move(shape)) {
  size_t bytes = static_cast<size_t>(std::max<int64_t>(numBytes(), 1));
  size_t rounded = (bytes + 63) / 64 * 64;
  storage.reset(static_cast<uint8_t *>(std::aligned_alloc(64, rounded)),
                [](uint8_t *p) { std::free(p); });
  std::memset(storage.get(), 0, rounded);
}

int64_t HostTensor::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

static float halfToFloat(uint16_t h) {
  uint32_t sign = (h & 0x8000u) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
  uint32_t bits;
  if (exp == 0) {
    if (man == 0) {
      bits = sign;
    } else { // subnormal
      float v = std::ldexp(static_cast<float>(man), -24);
      return sign ? -v : v;
    }
  } else if (exp == 31) {
    bits = sign | 0x7f800000u | (man << 13);
  } else {
    bits = sign | ((exp + 112) << 23) | (man << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

double HostTensor::at(int64_t i) const {
  const uint8_t *p = storage.get() + i * elementBytes(kind);
  switch (kind) {
  case ElementKind::F32: {
    float v;
    std::memcpy(&v, p, 4);
    return v;
  }
  case ElementKind::F16: {
    uint16_t v;
    std::memcpy(&v, p, 2);
    return halfToFloat(v);
  }
  case ElementKind::BF16: {
    uint16_t v;
    std::memcpy(&v, p, 2);
    uint32_t bits = static_cast<uint32_t>(v) << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  }
  case ElementKind::I8:
    return static_cast<int8_t>(*p);
  case ElementKind::I32: {
    int32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  case ElementKind::I64: {
    int64_t v;
    std::memcpy(&v, p, 8);
    return static_cast<double>(v);
  }
  case ElementKind::Bool:
    return *p ? 1 : 0;
  }
  return 0;
}

std::string HostTensor::typeString() const {
  std::string s;
  for (int64_t d : shape)
    s += std::to_string(d) + "x";
  return s + elementName(kind);
}

void mlir::kiln::defaultTolerance(ElementKind kind, double &rtol,
                                  double &atol) {
  switch (kind) {
  case ElementKind::F32:
    rtol = 1e-3;
    atol = 1e-5;
    return;
  case ElementKind::F16:
    rtol = 1e-2;
    atol = 1e-3;
    return;
  case ElementKind::BF16:
    rtol = 2e-2;
    atol = 1e-2;
    return;
  default:
    rtol = atol = 0;
    return;
  }
}

std::string mlir::kiln::compareTensors(const HostTensor &actual,
                                       const HostTensor &expected, double rtol,
                                       double atol) {
  if (actual.kind != expected.kind || actual.shape != expected.shape)
    return "type " + actual.typeString() + ", expected " +
           expected.typeString();
  bool isFloat = expected.kind == ElementKind::F32 ||
                 expected.kind == ElementKind::F16 ||
                 expected.kind == ElementKind::BF16;
  int64_t mismatches = 0, first = -1;
  double worst = 0;
  for (int64_t i = 0, n = expected.numElements(); i < n; ++i) {
    double a = actual.at(i), e = expected.at(i);
    bool ok;
    if (isFloat) {
      if (std::isnan(e) || std::isnan(a))
        ok = std::isnan(e) && std::isnan(a);
      else if (std::isinf(e) || std::isinf(a))
        ok = a == e;
      else
        ok = std::fabs(a - e) <= atol + rtol * std::fabs(e);
    } else {
      ok = a == e;
    }
    if (!ok) {
      if (first < 0)
        first = i;
      ++mismatches;
    }
    if (std::isfinite(a) && std::isfinite(e))
      worst = std::max(worst, std::fabs(a - e));
  }
  if (!mismatches)
    return "";
  std::ostringstream os;
  os << std::setprecision(10) << mismatches << " of " << expected.numElements()
     << " elements differ; first at " << first << ": got " << actual.at(first)
     << ", expected " << expected.at(first) << " (max abs error " << worst
     << ", rtol " << rtol << ", atol " << atol << ")";
  return os.str();
}
