//===- PlanFormat.h - layout of a plan file, shared by reader and writer --===//
//
// The fixed 64-byte header of a .kplan file and the helpers PlanWriter.cpp,
// PlanReader.cpp and Plan.cpp share. docs/plan-format.md describes the file;
// this header is its single source of truth for offsets. Internal to the
// runtime.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_RUNTIME_SRC_PLAN_PLANFORMAT_H
#define KILN_RUNTIME_SRC_PLAN_PLANFORMAT_H

#include "kiln/runtime/Plan.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::rt::detail {

/// The header: every field little-endian.
constexpr char kPlanMagic[8] = {'K', 'I', 'L', 'N', 'P', 'L', 'A', 'N'};
constexpr uint64_t kPlanHeaderSize = 64;
constexpr uint64_t kMagicOffset = 0;           // 8 bytes
constexpr uint64_t kFormatMajorOffset = 8;     // u32
constexpr uint64_t kFormatMinorOffset = 12;    // u32
constexpr uint64_t kFileSizeOffset = 16;       // u64
constexpr uint64_t kManifestOffsetOffset = 24; // u64
constexpr uint64_t kManifestSizeOffset = 32;   // u64
constexpr uint64_t kBodyCrcOffset = 40;        // u32: CRC-32 of [64, end)
constexpr uint64_t kHeaderCrcOffset = 44;      // u32: CRC-32 of [0, 44)
constexpr uint64_t kReservedOffset = 48;       // 16 bytes, zero

/// The FlatBuffers file identifier of the manifest (plan.fbs).
constexpr const char *kManifestIdentifier = "KPLM";

/// The largest manifest: below FlatBuffers' limit (its offsets are 32-bit
/// and signed). The reader refuses larger ones.
constexpr uint64_t kMaxManifestBytes = (uint64_t(1) << 31) - 8;

inline uint32_t loadLE32(const unsigned char *p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 |
         uint32_t(p[3]) << 24;
}
inline uint64_t loadLE64(const unsigned char *p) {
  return uint64_t(loadLE32(p)) | uint64_t(loadLE32(p + 4)) << 32;
}
inline void storeLE32(unsigned char *p, uint32_t v) {
  for (int i = 0; i < 4; ++i)
    p[i] = static_cast<unsigned char>(v >> (8 * i));
}
inline void storeLE64(unsigned char *p, uint64_t v) {
  storeLE32(p, static_cast<uint32_t>(v));
  storeLE32(p + 4, static_cast<uint32_t>(v >> 32));
}

/// `value` rounded up to a multiple of kPlanSectionAlignment; false when that
/// overflows.
inline bool alignToSection(uint64_t value, uint64_t &aligned) {
  uint64_t mask = kPlanSectionAlignment - 1;
  if (value > UINT64_MAX - mask)
    return false;
  aligned = (value + mask) & ~mask;
  return true;
}

/// "0x1234abcd".
std::string hex32(uint32_t value);

/// "sm_90" for a cubin, "compute_80" for PTX.
std::string imageArchName(KernelImage::Format format, uint32_t arch);

/// The consistency checks writePlan and readPlan share (verifyPlan in
/// Plan.h); failures carry `code`.
Status checkPlanContents(const PlanContents &plan, StatusCode code);
/// verifyPlanAtShapes (Plan.h).
Status checkPlanAtShapes(const PlanContents &plan,
                         const std::vector<int64_t> &symbols);

} // namespace kiln::rt::detail

#endif // KILN_RUNTIME_SRC_PLAN_PLANFORMAT_H
