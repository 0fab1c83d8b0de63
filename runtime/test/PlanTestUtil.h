//===- PlanTestUtil.h - plans and plan-file helpers for tests ---*- C++ -*-===//
//
// Plans the runtime tests share (one that uses every feature of the format,
// one small enough to fuzz exhaustively), field-by-field comparison, and
// helpers that patch plan files the way an attacker would: change bytes,
// then recompute the checksums so that the reader's later checks run.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_RUNTIME_TEST_PLANTESTUTIL_H
#define KILN_RUNTIME_TEST_PLANTESTUTIL_H

#include "kiln/runtime/Plan.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::rt::test {

/// A CRC-32 written independently of the runtime's (bit by bit).
uint32_t referenceCrc32(const void *data, size_t size);

/// Every data type, memory space, step kind, argument kind and access, and
/// image format, a zero-sized and a scalar tensor, and sections that need
/// padding.
PlanContents makeFullPlan();
/// 2 kernels, 1 PTX image, 64 bytes of weights, 5 steps; no library call
/// (test/Inputs/small-plan-1.0.kplan is this plan without the signatures and
/// extents, written by the format 1.0 writer).
PlanContents makeSmallPlan();

/// The text of a module of the fake driver (FakeCudaDriver.c) with the
/// kernels fake_add_f32(p,p,p,i64), which really runs, and
/// scale(p,f32,i32,i64).
extern const char *const kAddModule;
/// An image of `format` and `arch` holding `text`.
KernelImage image(KernelImage::Format format, uint32_t arch, std::string text);
/// out = (a + w) + b over n floats, through the arena: copy a to the arena,
/// add the weights w into the arena, add b into out (tensors a, b, out; one
/// compute_80 PTX image of kAddModule).
PlanContents addPlan(int64_t n, const std::vector<float> &w);
/// addPlan over `rows` x 4 floats for any `rows` in [1, maxRows] (format
/// 1.4): inputs a and b of shape ?x4 (one symbol, profile min 1x4, opt
/// 8x4, max maxRows x4), out ?x4, the weights `w` (maxRows x 4 floats); the
/// copied bytes, the launches' grids (ceil(4 rows / 256)), their `n` and
/// their pointers' extents are shape expressions of the rows.
PlanContents dynamicAddPlan(int64_t maxRows, const std::vector<float> &w);
/// The shape expression `s * factor`, or ceil(s * factor / divisor).
ShapeExpr symbolTimes(int64_t symbol, int64_t factor, int64_t divisor = 1);

/// out = min(max(x, lower), upper) over n floats as one plugin step of
/// kiln.test::TestClip@`version` (TestPlugins.h), its workspace in the arena.
PlanContents clipPlan(int64_t n, double lower, double upper,
                      const std::string &version = "1");
/// `n` floats in [-100, 100) from a fixed seed.
std::vector<float> randomFloats(size_t n, unsigned seed);

/// The elements of `out` (m x n) that differ from relu(in (m x k) * w (k x n)
/// + bias), computed in f64, by more than `rtol` times the sum of the
/// magnitudes of their terms (plus 1), as "i,j: got x, expected y" (the
/// first 5); empty when all match.
std::string reluBiasProductMismatches(const std::vector<float> &out,
                                      const std::vector<float> &in,
                                      const std::vector<float> &w,
                                      const std::vector<float> &bias, int64_t m,
                                      int64_t n, int64_t k, double rtol);

/// Field-by-field equality, with a description of the first difference.
bool plansEqual(const PlanContents &a, const PlanContents &b,
                std::string &difference);

/// Header fields (docs/plan-format.md).
uint32_t readLE32(const std::string &file, size_t offset);
uint64_t readLE64(const std::string &file, size_t offset);
void writeLE32(std::string &file, size_t offset, uint32_t value);
void writeLE64(std::string &file, size_t offset, uint64_t value);

/// Recomputes the header checksum (after patching the header).
void fixHeaderCrc(std::string &file);
/// Recomputes the body and header checksums (after patching the body).
void fixCrcs(std::string &file);

/// Parameter kinds and accesses, briefly.
constexpr KernelArg::Kind kPtr = KernelArg::Kind::Pointer;
constexpr KernelArg::Kind kI32 = KernelArg::Kind::I32;
constexpr KernelArg::Kind kI64 = KernelArg::Kind::I64;
constexpr KernelArg::Kind kF32 = KernelArg::Kind::F32;
constexpr KernelArg::Access kNone = KernelArg::Access::None;
constexpr KernelArg::Access kRead = KernelArg::Access::Read;
constexpr KernelArg::Access kWrite = KernelArg::Access::Write;
constexpr KernelArg::Access kReadWrite = KernelArg::Access::ReadWrite;

/// A kernel with its signature.
KernelDesc kernel(std::string name, std::vector<KernelArg::Kind> params,
                  std::string tiling = "");

/// Scalar bounds (format 1.3): integer parameter `param` counts units of
/// `bytesPerUnit` bytes through pointer parameter `pointer` (0 <= v and
/// v * bytesPerUnit <= its extent); or lies in [min, max].
ScalarBound countBound(uint32_t param, uint32_t pointer, uint64_t bytesPerUnit);
ScalarBound rangeBound(uint32_t param, int64_t min, int64_t max);
/// fake_add_f32(a, b, out, n): n floats through each pointer.
KernelDesc addKernel(std::string tiling = "");

/// An Address, briefly.
Address arena(uint64_t offset);
Address weights(uint64_t offset);
Address tensor(uint32_t index, uint64_t offset);
/// A pointer to `extent` bytes at `address` that the kernel uses as
/// `access` says.
KernelArg pointerArg(Address address, uint64_t extent,
                     KernelArg::Access access);
KernelArg i32Arg(int32_t value);
KernelArg i64Arg(int64_t value);
KernelArg f32Arg(float value);
Step launchStep(uint32_t kernel, std::array<uint32_t, 3> grid,
                std::array<uint32_t, 3> block, std::vector<KernelArg> args,
                uint32_t sharedMemoryBytes = 0);
Step copyStep(Address dst, Address src, uint64_t bytes);
Step fillStep(Address dst, uint64_t bytes, uint8_t value);
Step libraryCallStep(std::string callee, std::vector<LibraryCallBuffer> buffers,
                     std::string payload);

} // namespace kiln::rt::test

#endif // KILN_RUNTIME_TEST_PLANTESTUTIL_H
