//===- HostTensor.cpp - a tensor in host memory -----------------*- C++ -*-===//
//
// Checked creation, element access, tolerance comparison and random filling
// of host tensors.
//
//===----------------------------------------------------------------------===//

#include "kiln/tooling/HostTensor.h"
#include "kiln/tooling/HostMemory.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iomanip>
#include <sstream>

namespace kiln::tooling {

const char *elementTypeName(DataType type) {
  return type == DataType::Bool ? "i1" : rt::dataTypeName(type);
}

std::string typeString(const std::vector<int64_t> &shape, DataType type) {
  std::string s;
  for (int64_t d : shape)
    s += std::to_string(d) + "x";
  return s + elementTypeName(type);
}

rt::StatusOr<HostTensor> HostTensor::create(std::string name, DataType type,
                                            std::vector<int64_t> shape) {
  int64_t count = 1;
  for (int64_t d : shape) {
    if (d < 0)
      return rt::Status(rt::StatusCode::InvalidArgument,
                        "tensor '" + name + "' has a negative dimension (" +
                            tooling::typeString(shape, type) + ")");
    if (__builtin_mul_overflow(count, d, &count))
      count = kMaxHostTensorBytes + 1;
  }
  int64_t bytes = 0;
  if (__builtin_mul_overflow(count, rt::dataTypeBytes(type), &bytes) ||
      bytes > kMaxHostTensorBytes)
    return rt::Status(
        rt::StatusCode::InvalidArgument,
        "tensor '" + name + "' (" + tooling::typeString(shape, type) +
            ") needs more than the " + std::to_string(kMaxHostTensorBytes) +
            " bytes a host tensor may have");
  // Zeroed, 64-byte aligned; a large one on huge pages (HostMemory.h).
  size_t size = static_cast<size_t>(std::max<int64_t>(bytes, 1));
  auto *p = static_cast<uint8_t *>(allocateHost(size, 64));
  if (!p)
    return rt::Status(rt::StatusCode::InvalidArgument,
                      "cannot allocate " + std::to_string(size) +
                          " bytes of host memory for tensor '" + name + "'");
  HostTensor t;
  t.name = std::move(name);
  t.type = type;
  t.shape = std::move(shape);
  t.storage.reset(p, [size](uint8_t *q) { freeHost(q, size); });
  return t;
}

int64_t HostTensor::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

int64_t HostTensor::numBytes() const {
  return numElements() * rt::dataTypeBytes(type);
}

std::string HostTensor::typeString() const {
  return tooling::typeString(shape, type);
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

namespace {
/// A float format of at most 8 bits: exponent and mantissa widths, the
/// exponent bias, and which codes are infinities and NaNs.
struct SmallFloat {
  enum class Special { IEEE, FN, FNUZ, None };
  int exponentBits, mantissaBits, bias;
  Special special;
};
} // namespace

static bool smallFloatFormat(DataType type, SmallFloat &f) {
  using S = SmallFloat::Special;
  switch (type) {
  case DataType::F8E4M3FN:
    f = {4, 3, 7, S::FN};
    return true;
  case DataType::F8E4M3FNUZ:
    f = {4, 3, 8, S::FNUZ};
    return true;
  case DataType::F8E5M2:
    f = {5, 2, 15, S::IEEE};
    return true;
  case DataType::F8E5M2FNUZ:
    f = {5, 2, 16, S::FNUZ};
    return true;
  case DataType::F4E2M1:
    f = {2, 1, 1, S::None};
    return true;
  default:
    return false;
  }
}

/// The value of `code` (its low exponentBits + mantissaBits + 1 bits).
static double decodeSmallFloat(uint32_t code, const SmallFloat &f) {
  using S = SmallFloat::Special;
  int width = f.exponentBits + f.mantissaBits + 1;
  code &= (1u << width) - 1;
  uint32_t magnitude = code & ((1u << (width - 1)) - 1);
  bool negative = code >> (width - 1);
  uint32_t exponent = magnitude >> f.mantissaBits;
  uint32_t mantissa = magnitude & ((1u << f.mantissaBits) - 1);
  uint32_t allOnes = (1u << f.exponentBits) - 1;
  if ((f.special == S::FNUZ && code == 1u << (width - 1)) ||
      (f.special == S::FN && magnitude == (1u << (width - 1)) - 1) ||
      (f.special == S::IEEE && exponent == allOnes && mantissa))
    return std::nan("");
  if (f.special == S::IEEE && exponent == allOnes)
    return negative ? -INFINITY : INFINITY;
  double v = exponent ? std::ldexp(1.0 + std::ldexp(mantissa, -f.mantissaBits),
                                   static_cast<int>(exponent) - f.bias)
                      : std::ldexp(mantissa, 1 - f.bias - f.mantissaBits);
  return negative ? -v : v;
}

bool isFloatType(DataType type) {
  SmallFloat f;
  return type == DataType::F32 || type == DataType::F16 ||
         type == DataType::BF16 || type == DataType::F64 ||
         smallFloatFormat(type, f);
}

double HostTensor::at(int64_t i) const {
  const uint8_t *p = storage.get() + i * rt::dataTypeBytes(type);
  switch (type) {
  case DataType::F32: {
    float v;
    std::memcpy(&v, p, 4);
    return v;
  }
  case DataType::F16: {
    uint16_t v;
    std::memcpy(&v, p, 2);
    return halfToFloat(v);
  }
  case DataType::BF16: {
    uint16_t v;
    std::memcpy(&v, p, 2);
    uint32_t bits = static_cast<uint32_t>(v) << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  }
  case DataType::I8:
    return static_cast<int8_t>(*p);
  case DataType::I32: {
    int32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  case DataType::I64: {
    int64_t v;
    std::memcpy(&v, p, 8);
    return static_cast<double>(v);
  }
  case DataType::Bool:
    return *p ? 1 : 0;
  case DataType::F64: {
    double v;
    std::memcpy(&v, p, 8);
    return v;
  }
  case DataType::I16: {
    int16_t v;
    std::memcpy(&v, p, 2);
    return v;
  }
  case DataType::U8:
    return *p;
  case DataType::U16: {
    uint16_t v;
    std::memcpy(&v, p, 2);
    return v;
  }
  case DataType::U32: {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  case DataType::U64: {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return static_cast<double>(v);
  }
  // Sub-byte integers: the low bits (the device leaves the others
  // unspecified), sign-extended for I4 and I2.
  case DataType::I4:
    return static_cast<int8_t>(*p << 4) >> 4;
  case DataType::U4:
    return *p & 0xf;
  case DataType::I2:
    return static_cast<int8_t>(*p << 6) >> 6;
  case DataType::U2:
    return *p & 0x3;
  case DataType::F8E4M3FN:
  case DataType::F8E4M3FNUZ:
  case DataType::F8E5M2:
  case DataType::F8E5M2FNUZ:
  case DataType::F4E2M1: {
    SmallFloat f;
    smallFloatFormat(type, f);
    return decodeSmallFloat(*p, f);
  }
  }
  return 0;
}

Tolerance defaultTolerance(DataType type) {
  switch (type) {
  case DataType::F32:
    return {1e-3, 1e-5};
  case DataType::F16:
    return {1e-2, 1e-3};
  case DataType::BF16:
    return {2e-2, 1e-2};
  case DataType::F64:
    return {1e-6, 1e-9};
  default:
    return {0, 0};
  }
}

rt::Status compareTensors(const HostTensor &actual, const HostTensor &expected,
                          Tolerance tolerance, double *maxAbsError) {
  if (actual.type != expected.type || actual.shape != expected.shape)
    return rt::Status(rt::StatusCode::InvalidArgument,
                      "type " + actual.typeString() + ", expected " +
                          expected.typeString());
  bool isFloat = isFloatType(expected.type);
  int64_t mismatches = 0, first = -1;
  double worst = 0;
  // The output's magnitude: the root mean square of its finite values.
  double rms = 0;
  if (isFloat) {
    int64_t finite = 0;
    for (int64_t i = 0, n = expected.numElements(); i < n; ++i)
      if (std::isfinite(expected.at(i))) {
        rms += expected.at(i) * expected.at(i);
        ++finite;
      }
    rms = finite ? std::sqrt(rms / double(finite)) : 0;
  }
  for (int64_t i = 0, n = expected.numElements(); i < n; ++i) {
    double a = actual.at(i), e = expected.at(i);
    bool ok;
    if (isFloat) {
      if (std::isnan(e) || std::isnan(a))
        ok = std::isnan(e) && std::isnan(a);
      else if (std::isinf(e) || std::isinf(a))
        ok = a == e;
      else
        ok = std::fabs(a - e) <=
             tolerance.atol + tolerance.rtol * std::max(std::fabs(e), rms);
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
  if (maxAbsError)
    *maxAbsError = worst;
  if (!mismatches)
    return rt::Status::ok();
  std::ostringstream os;
  os << std::setprecision(10) << mismatches << " of " << expected.numElements()
     << " elements differ; first at " << first << ": got " << actual.at(first)
     << ", expected " << expected.at(first) << " (max abs error " << worst
     << ", rtol " << tolerance.rtol << " of max(|expected|, rms " << rms
     << "), atol " << tolerance.atol << ")";
  return rt::Status(rt::StatusCode::InvalidArgument, os.str());
}

void fillRandom(HostTensor &t, std::mt19937 &rng) {
  std::uniform_real_distribution<float> real(-1.0f, 1.0f);
  std::uniform_int_distribution<int> small(0, 9);
  auto *p = static_cast<uint8_t *>(t.data());
  for (int64_t i = 0, n = t.numElements(); i < n; ++i) {
    switch (t.type) {
    case DataType::F32: {
      float v = real(rng);
      std::memcpy(p + 4 * i, &v, 4);
      break;
    }
    case DataType::BF16: {
      float v = real(rng);
      uint32_t bits;
      std::memcpy(&bits, &v, 4);
      uint16_t h = static_cast<uint16_t>(bits >> 16); // truncated to bf16
      std::memcpy(p + 2 * i, &h, 2);
      break;
    }
    case DataType::F16: {
      // One of 0, +-0.25, +-0.5, +-1 (exact in f16).
      static const uint16_t values[] = {0x0000, 0x3400, 0xB400, 0x3800,
                                        0xB800, 0x3C00, 0xBC00};
      uint16_t h = values[small(rng) % 7];
      std::memcpy(p + 2 * i, &h, 2);
      break;
    }
    case DataType::I8:
      p[i] = static_cast<uint8_t>(small(rng));
      break;
    case DataType::I32: {
      int32_t v = small(rng);
      std::memcpy(p + 4 * i, &v, 4);
      break;
    }
    case DataType::I64: {
      int64_t v = small(rng);
      std::memcpy(p + 8 * i, &v, 8);
      break;
    }
    case DataType::Bool:
      p[i] = small(rng) & 1;
      break;
    case DataType::F64: {
      double v = real(rng);
      std::memcpy(p + 8 * i, &v, 8);
      break;
    }
    case DataType::I16: {
      int16_t v = static_cast<int16_t>(small(rng));
      std::memcpy(p + 2 * i, &v, 2);
      break;
    }
    case DataType::I4:
    case DataType::U4:
    case DataType::I2:
    case DataType::U2:
      p[i] = static_cast<uint8_t>(small(rng) % 2);
      break;
    case DataType::F8E4M3FN:
    case DataType::F8E4M3FNUZ:
    case DataType::F8E5M2:
    case DataType::F8E5M2FNUZ:
    case DataType::F4E2M1:
      // A small positive number of the format: a mantissa of 0 or 1 and a
      // small exponent field, never a NaN or infinity code.
      p[i] = static_cast<uint8_t>(small(rng) % 3 + 1);
      break;
    case DataType::U8:
    case DataType::U16:
    case DataType::U32:
    case DataType::U64: {
      // Little-endian: the value in the low byte, zeros above.
      int64_t width = rt::dataTypeBytes(t.type);
      std::memset(p + width * i, 0, width);
      p[width * i] = static_cast<uint8_t>(small(rng));
      break;
    }
    }
  }
}

} // namespace kiln::tooling
