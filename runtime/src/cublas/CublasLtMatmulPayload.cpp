//===- CublasLtMatmulPayload.cpp - cublaslt.matmul payloads -----*- C++ -*-===//
//
// "KLTM", a version, four flag bytes and fourteen little-endian 64-bit
// fields; version 5 adds thirteen: whether an algorithm is recorded, its
// nine configuration attributes, the cuBLASLt version and compute capability
// it was chosen with and the workspace it needs (all 0 without one).
//
//===----------------------------------------------------------------------===//

#include "kiln/runtime/CublasLtMatmul.h"

#include <cstring>

namespace kiln::rt {

namespace {
constexpr char kMagic[4] = {'K', 'L', 'T', 'M'};
constexpr uint32_t kVersion = 5, kVersionWithoutAlgorithms = 4;
constexpr size_t kFieldsV4 = 14, kBytesV4 = 4 + 4 + 4 + 8 * kFieldsV4;
constexpr size_t kAlgorithmFields = 4 + CublasLtAlgorithm::kConfigs,
                 kBytes = kBytesV4 + 8 * kAlgorithmFields;
constexpr int64_t kMaxDim = int64_t(1) << 40;

template <typename T> void put(std::string &out, T value) {
  for (size_t i = 0; i < sizeof(T); ++i)
    out.push_back(
        static_cast<char>((static_cast<uint64_t>(value) >> (8 * i)) & 0xff));
}

uint64_t get(const std::string &in, size_t at, size_t bytes) {
  uint64_t v = 0;
  for (size_t i = 0; i < bytes; ++i)
    v |= uint64_t(static_cast<uint8_t>(in[at + i])) << (8 * i);
  return v;
}

/// Bytes from the first element of batch 0 to the last of batch `batch` - 1,
/// for `rows` rows of `cols` elements `ld` apart, batches `stride` apart,
/// elements of `type`; UINT64_MAX when that overflows (dimensions and strides
/// reach 2^40 each), which no buffer holds.
uint64_t span(int64_t batch, int64_t stride, int64_t rows, int64_t cols,
              int64_t ld, DataType type) {
  uint64_t batches, lines, elements, bytes;
  if (__builtin_mul_overflow(uint64_t(batch - 1), uint64_t(stride), &batches) ||
      __builtin_mul_overflow(uint64_t(rows - 1), uint64_t(ld), &lines) ||
      __builtin_add_overflow(batches, lines, &elements) ||
      __builtin_add_overflow(elements, uint64_t(cols), &elements) ||
      __builtin_mul_overflow(elements, uint64_t(dataTypeBytes(type)), &bytes))
    return UINT64_MAX;
  return bytes;
}

Status invalid(const std::string &what) {
  return Status(StatusCode::InvalidPlan, "cublaslt.matmul payload: " + what);
}

/// The algorithm fields from `at` into p.algorithm: none (all 0), or one
/// chosen on a plausible GPU that fits the step's workspace.
Status decodeAlgorithm(const std::string &payload, size_t at,
                       CublasLtMatmulParams &p) {
  uint64_t recorded = get(payload, at, 8);
  if (recorded > 1)
    return invalid("the algorithm flag is " + std::to_string(recorded));
  CublasLtAlgorithm a;
  bool anySet = false;
  constexpr size_t n = CublasLtAlgorithm::kConfigs;
  for (size_t i = 0; i < n; ++i) {
    uint64_t v = get(payload, at + 8 + 8 * i, 8);
    // The id is an int32_t, the shapes uint16_t, the rest uint32_t.
    uint64_t max = i == 0 ? 0x7fffffffu : i >= 7 ? 0xffffu : 0xffffffffu;
    if (v > max)
      return invalid("algorithm configuration attribute " + std::to_string(i) +
                     " is " + std::to_string(v));
    a.config[i] = static_cast<uint32_t>(v);
    anySet |= v != 0;
  }
  a.cublasLtVersion = get(payload, at + 8 + 8 * n, 8);
  uint64_t cc = get(payload, at + 16 + 8 * n, 8);
  a.workspaceBytes = get(payload, at + 24 + 8 * n, 8);
  if (!recorded) {
    if (anySet || a.cublasLtVersion || cc || a.workspaceBytes)
      return invalid("algorithm fields are set but no algorithm is recorded");
    return Status::ok();
  }
  if (cc < 10 || cc > 1000)
    return invalid("an algorithm chosen on compute capability " +
                   std::to_string(cc) + " (times ten)");
  a.computeCapability = static_cast<uint32_t>(cc);
  if (a.workspaceBytes > p.workspaceBytes)
    return invalid("the algorithm needs " + std::to_string(a.workspaceBytes) +
                   " bytes of workspace, the step has " +
                   std::to_string(p.workspaceBytes));
  p.algorithm = a;
  return Status::ok();
}
} // namespace

uint64_t CublasLtMatmulParams::bytesA() const {
  return span(batch, strideA, transA ? k : m, transA ? m : k, lda, type);
}
uint64_t CublasLtMatmulParams::bytesB() const {
  return span(batch, strideB, transB ? n : k, transB ? k : n, ldb, type);
}
uint64_t CublasLtMatmulParams::bytesD() const {
  return span(batch, strideD, m, n, ldd, outType);
}
uint64_t CublasLtMatmulParams::bytesBias() const {
  return epilogue == Epilogue::None ? 0 : n * dataTypeBytes(outType);
}

std::string encodeCublasLtMatmul(const CublasLtMatmulParams &p) {
  std::string out(kMagic, 4);
  put<uint32_t>(out, kVersion);
  put<uint8_t>(out, static_cast<uint8_t>(p.type));
  put<uint8_t>(out, p.tf32);
  put<uint8_t>(out, p.transA);
  put<uint8_t>(out, p.transB);
  for (int64_t v : {p.m, p.n, p.k, p.batch, p.lda, p.ldb, p.ldd, p.strideA,
                    p.strideB, p.strideD})
    put<uint64_t>(out, static_cast<uint64_t>(v));
  put<uint64_t>(out, p.workspaceBytes);
  put<uint64_t>(out, static_cast<uint64_t>(p.epilogue));
  put<uint64_t>(out, static_cast<uint64_t>(p.outType));
  put<uint64_t>(out, p.residual);
  CublasLtAlgorithm none;
  const CublasLtAlgorithm &a = p.algorithm ? *p.algorithm : none;
  put<uint64_t>(out, p.algorithm.has_value());
  for (uint32_t value : a.config)
    put<uint64_t>(out, value);
  put<uint64_t>(out, a.cublasLtVersion);
  put<uint64_t>(out, a.computeCapability);
  put<uint64_t>(out, a.workspaceBytes);
  return out;
}

StatusOr<CublasLtMatmulParams>
decodeCublasLtMatmul(const std::string &payload) {
  if (payload.size() < kBytesV4 || std::memcmp(payload.data(), kMagic, 4) != 0)
    return invalid("expected " + std::to_string(kBytes) +
                   " bytes starting with 'KLTM', got " +
                   std::to_string(payload.size()) + " bytes");
  uint64_t version = get(payload, 4, 4);
  if (version != kVersion && version != kVersionWithoutAlgorithms)
    return invalid("version " + std::to_string(version) +
                   ", this runtime reads versions " +
                   std::to_string(kVersionWithoutAlgorithms) + " and " +
                   std::to_string(kVersion));
  size_t expected = version == kVersion ? kBytes : kBytesV4;
  if (payload.size() != expected)
    return invalid("version " + std::to_string(version) + " has " +
                   std::to_string(expected) + " bytes, got " +
                   std::to_string(payload.size()));
  CublasLtMatmulParams p;
  uint64_t type = get(payload, 8, 1);
  p.type = static_cast<DataType>(type);
  if (p.type != DataType::F32 && p.type != DataType::F16 &&
      p.type != DataType::BF16)
    return invalid("element type " + std::to_string(type) +
                   " (expected f32, f16 or bf16)");
  uint64_t flags[3] = {get(payload, 9, 1), get(payload, 10, 1),
                       get(payload, 11, 1)};
  for (uint64_t f : flags)
    if (f > 1)
      return invalid("a flag byte is " + std::to_string(f));
  p.tf32 = flags[0];
  p.transA = flags[1];
  p.transB = flags[2];
  if (p.tf32 && p.type != DataType::F32)
    return invalid("tf32 with a type other than f32");
  int64_t *fields[] = {&p.m,   &p.n,   &p.k,       &p.batch,   &p.lda,
                       &p.ldb, &p.ldd, &p.strideA, &p.strideB, &p.strideD};
  const char *names[] = {"m",   "n",   "k",        "batch",    "lda",
                         "ldb", "ldd", "stride_a", "stride_b", "stride_d"};
  for (size_t i = 0; i < 10; ++i) {
    uint64_t v = get(payload, 12 + 8 * i, 8);
    bool isStride = i >= 7;
    if (v > uint64_t(kMaxDim) || (!isStride && v == 0))
      return invalid(std::string(names[i]) + " is " +
                     std::to_string(static_cast<int64_t>(v)));
    *fields[i] = static_cast<int64_t>(v);
  }
  p.workspaceBytes = get(payload, 12 + 80, 8);
  if (p.workspaceBytes > (uint64_t(1) << 32))
    return invalid("a workspace of " + std::to_string(p.workspaceBytes) +
                   " bytes");
  uint64_t epilogue = get(payload, 12 + 88, 8);
  if (epilogue > uint64_t(CublasLtMatmulParams::Epilogue::ReluBias))
    return invalid("epilogue " + std::to_string(epilogue) +
                   " (expected 0 none, 1 bias or 2 relu and bias)");
  p.epilogue = static_cast<CublasLtMatmulParams::Epilogue>(epilogue);
  uint64_t residual = get(payload, 12 + 104, 8);
  if (residual > 1)
    return invalid("the residual flag is " + std::to_string(residual));
  p.residual = residual;
  uint64_t outType = get(payload, 12 + 96, 8);
  p.outType = static_cast<DataType>(outType);
  if (p.outType != p.type &&
      !(p.outType == DataType::F32 && p.type != DataType::F32))
    return invalid("D of type " + std::to_string(outType) +
                   " for inputs of type " + std::to_string(type) +
                   " (expected the inputs' type, or f32 for f16 and bf16)");
  if (p.lda < (p.transA ? p.m : p.k) || p.ldb < (p.transB ? p.k : p.n) ||
      p.ldd < p.n)
    return invalid("a leading dimension shorter than its rows (lda " +
                   std::to_string(p.lda) + ", ldb " + std::to_string(p.ldb) +
                   ", ldd " + std::to_string(p.ldd) + ")");
  if (p.batch > 1 && p.strideD < (p.m - 1) * p.ldd + p.n)
    return invalid("batches of D overlap (stride_d " +
                   std::to_string(p.strideD) + ")");
  if (version == kVersion) {
    if (Status s = decodeAlgorithm(payload, kBytesV4, p); !s)
      return s;
  }
  return p;
}

} // namespace kiln::rt
