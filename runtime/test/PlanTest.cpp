//===- PlanTest.cpp - writing and reading plan files ------------*- C++ -*-===//
//
// writePlan/readPlan round trips, the file layout (header, aligned sections,
// checksums), every consistency check writePlan refuses, and readPlan's
// message for each way a file can be damaged: wrong size, magic, version,
// checksums, and manifests tampered with and re-checksummed so that the
// semantic checks (not only the CRCs) are exercised. Format 1.2's kernel
// signatures and argument extents: every launch that does not match its
// kernel, or whose pointers reach outside their spaces or write the weights,
// is refused. Format 1.3's bounds of integer kernel parameters: every
// launch whose integer would size a loop or an index past its pointers'
// extents, or outside its range, is refused, and so is every bound that does
// not name an integer parameter. A file of format 1.0 with launches is
// refused (it has no signatures); one without launches still reads; a file
// of 1.2 with a kernel that takes an integer is refused (it has no bounds).
//
//===----------------------------------------------------------------------===//

#include "PlanTestUtil.h"
#include "plan_generated.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <iterator>

using namespace kiln::rt;
using namespace kiln::rt::test;
using ::testing::HasSubstr;
using ::testing::StartsWith;

namespace {

std::string writeOrDie(const PlanContents &plan) {
  auto file = writePlan(plan);
  EXPECT_TRUE(file.isOk()) << file.status().toString();
  return file.isOk() ? *file : std::string();
}

/// The status readPlan gives for `file`, which must be an error.
Status readError(const std::string &file) {
  auto plan = readPlan(file.data(), file.size());
  EXPECT_FALSE(plan.isOk()) << "readPlan accepted a bad plan";
  return plan.isOk() ? Status() : plan.status();
}

/// makeFullPlan without its kernel that takes integers (and its launch):
/// kernels of pointers only, as kiln-compile writes them.
PlanContents pointerKernelPlan() {
  PlanContents plan = makeFullPlan();
  plan.kernels.erase(plan.kernels.begin());
  std::vector<Step> steps;
  for (Step step : plan.steps) {
    if (step.kind == Step::Kind::Launch && step.launch.kernel-- == 0)
      continue;
    steps.push_back(step);
  }
  plan.steps = steps;
  return plan;
}

fb::Manifest *mutableManifest(std::string &file) {
  return fb::GetMutableManifest(&file[64]);
}

TEST(Crc32, ReferenceMatchesTheStandardCheckValue) {
  EXPECT_EQ(referenceCrc32("123456789", 9), 0xCBF43926u);
  EXPECT_EQ(referenceCrc32("", 0), 0u);
}

TEST(PlanDataTypes, SizesAndNames) {
  EXPECT_EQ(dataTypeBytes(DataType::F32), 4);
  EXPECT_EQ(dataTypeBytes(DataType::F16), 2);
  EXPECT_EQ(dataTypeBytes(DataType::BF16), 2);
  EXPECT_EQ(dataTypeBytes(DataType::I8), 1);
  EXPECT_EQ(dataTypeBytes(DataType::I32), 4);
  EXPECT_EQ(dataTypeBytes(DataType::I64), 8);
  EXPECT_EQ(dataTypeBytes(DataType::Bool), 1);
  EXPECT_STREQ(dataTypeName(DataType::BF16), "bf16");
  EXPECT_STREQ(dataTypeName(DataType::Bool), "bool");
  TensorDesc t{"t", DataType::F16, {2, 3, 5}, true};
  EXPECT_EQ(t.numElements(), 30);
  EXPECT_EQ(t.numBytes(), 60);
  TensorDesc scalar{"s", DataType::I64, {}, true};
  EXPECT_EQ(scalar.numBytes(), 8);
}

TEST(CheckShape, ProfileRangesRanksAndStaticDimensions) {
  TensorDesc x;
  x.name = "x";
  x.shape = {-1, 8};
  x.profiles = {{{1, 8}, {16, 8}, {64, 8}}, {{65, 8}, {80, 8}, {96, 8}}};
  EXPECT_TRUE(x.isDynamic());
  for (int64_t batch : {1, 7, 16, 64})
    EXPECT_TRUE(checkShape(x, {batch, 8}).isOk()) << batch;
  Status above = checkShape(x, {65, 8});
  EXPECT_EQ(above.code(), StatusCode::InvalidArgument);
  EXPECT_EQ(above.message(), "input 'x' dimension 0 is 65, outside its "
                             "profile's range [1, 64] (min 1x8, max 64x8)");
  EXPECT_FALSE(checkShape(x, {0, 8}).isOk());
  // Profile 1 takes 65..96 only.
  EXPECT_TRUE(checkShape(x, {65, 8}, 1).isOk());
  EXPECT_EQ(checkShape(x, {64, 8}, 1).message(),
            "input 'x' dimension 0 is 64, outside its profile 1's range "
            "[65, 96] (min 65x8, max 96x8)");
  EXPECT_NE(checkShape(x, {64, 8}, 2).message().find("no profile 2"),
            std::string::npos);
  EXPECT_EQ(checkShape(x, {4, 9}).message(),
            "input 'x' dimension 1 is 9, but the shape ?x8 fixes it at 8");
  EXPECT_EQ(checkShape(x, {4}).message(),
            "input 'x' has rank 1 (shape 4), but its shape ?x8 has rank 2");
  // A dynamic dimension without a range takes no size.
  TensorDesc open{"y", DataType::F32, {-1}, true};
  EXPECT_NE(checkShape(open, {3}).message().find("no range"),
            std::string::npos);
  // A static tensor takes its own shape only.
  TensorDesc fixed{"z", DataType::F32, {2, 3}, true};
  EXPECT_FALSE(fixed.isDynamic());
  EXPECT_TRUE(checkShape(fixed, {2, 3}).isOk());
  EXPECT_FALSE(checkShape(fixed, {3, 2}).isOk());
}

TEST(PlanRoundTrip, EveryFeatureSurvives) {
  PlanContents plan = makeFullPlan();
  std::string file = writeOrDie(plan);
  auto read = readPlan(file.data(), file.size());
  ASSERT_TRUE(read.isOk()) << read.status().toString();
  std::string difference;
  EXPECT_TRUE(plansEqual(plan, *read, difference)) << difference;
  // Deterministic: the same plan gives the same bytes.
  EXPECT_EQ(writeOrDie(*read), file);
}

TEST(PlanRoundTrip, LibraryCallsSurvive) {
  PlanContents plan = makeSmallPlan();
  std::string payload;
  for (int i = 0; i < 300; ++i)
    payload.push_back(static_cast<char>(i * 11)); // NULs included
  plan.steps.push_back(libraryCallStep("cublaslt.matmul",
                                       {{arena(64), 64},
                                        {weights(0), 64},
                                        {tensor(1, 0), 64},
                                        {tensor(0, 60), 4}},
                                       payload));
  plan.steps.push_back(libraryCallStep("plugin.nop", {}, ""));
  std::string file = writeOrDie(plan);
  auto read = readPlan(file.data(), file.size());
  ASSERT_TRUE(read.isOk()) << read.status().toString();
  std::string difference;
  EXPECT_TRUE(plansEqual(plan, *read, difference)) << difference;
  const LibraryCallStep &call = read->steps[5].libraryCall;
  EXPECT_EQ(read->steps[5].kind, Step::Kind::LibraryCall);
  EXPECT_EQ(call.callee, "cublaslt.matmul");
  EXPECT_EQ(call.payload, payload);
  ASSERT_EQ(call.buffers.size(), 4u);
  EXPECT_EQ(call.buffers[3].address.space, MemorySpace::Tensor);
  EXPECT_EQ(call.buffers[3].address.index, 0u);
  EXPECT_EQ(call.buffers[3].address.offset, 60u);
  EXPECT_EQ(call.buffers[3].bytes, 4u);
  EXPECT_EQ(writeOrDie(*read), file);
}

TEST(PlanRoundTrip, EmptyPlan) {
  PlanContents plan;
  std::string file = writeOrDie(plan);
  auto read = readPlan(file.data(), file.size());
  ASSERT_TRUE(read.isOk()) << read.status().toString();
  std::string difference;
  EXPECT_TRUE(plansEqual(plan, *read, difference)) << difference;
}

TEST(PlanRoundTrip, LargePlan) {
  PlanContents plan;
  for (int i = 0; i < 3000; ++i)
    plan.tensors.push_back(
        {"t" + std::to_string(i), DataType::F32, {1}, i % 2 == 0});
  plan.arenaBytes = 20000;
  for (uint64_t i = 0; i < 20000; ++i)
    plan.steps.push_back(fillStep(arena(i), 1, static_cast<uint8_t>(i)));
  std::string file = writeOrDie(plan);
  auto read = readPlan(file.data(), file.size());
  ASSERT_TRUE(read.isOk()) << read.status().toString();
  std::string difference;
  EXPECT_TRUE(plansEqual(plan, *read, difference)) << difference;
}

TEST(PlanRoundTrip, ReadsFromAnUnalignedBuffer) {
  std::string file = writeOrDie(makeFullPlan());
  std::string shifted = "x" + file;
  auto read = readPlan(shifted.data() + 1, file.size());
  ASSERT_TRUE(read.isOk()) << read.status().toString();
}

TEST(PlanLayout, HeaderSectionsAndChecksums) {
  PlanContents plan = makeFullPlan();
  std::string file = writeOrDie(plan);
  ASSERT_GE(file.size(), 64u);
  EXPECT_EQ(file.substr(0, 8), "KILNPLAN");
  EXPECT_EQ(readLE32(file, 8), kPlanFormatMajor);
  EXPECT_EQ(readLE32(file, 12), kPlanFormatMinor);
  EXPECT_EQ(readLE64(file, 16), file.size());
  EXPECT_EQ(readLE64(file, 24), 64u);
  uint64_t manifestSize = readLE64(file, 32);
  EXPECT_EQ(readLE32(file, 40),
            referenceCrc32(file.data() + 64, file.size() - 64));
  EXPECT_EQ(readLE32(file, 44), referenceCrc32(file.data(), 44));
  EXPECT_EQ(file.substr(48, 16), std::string(16, '\0'));

  const fb::Manifest *m = fb::GetManifest(file.data() + 64);
  ASSERT_NE(m->sections(), nullptr);
  ASSERT_EQ(m->sections()->size(), 3u);
  EXPECT_EQ(m->weights_section(), 2);
  uint64_t previousEnd = 64 + manifestSize;
  for (uint32_t i = 0; i < 3; ++i) {
    const fb::Section *s = m->sections()->Get(i);
    EXPECT_EQ(s->offset() % kPlanSectionAlignment, 0u);
    EXPECT_GE(s->offset(), previousEnd);
    EXPECT_LT(s->offset() - previousEnd, kPlanSectionAlignment);
    EXPECT_EQ(file.substr(previousEnd, s->offset() - previousEnd),
              std::string(s->offset() - previousEnd, '\0'));
    EXPECT_EQ(s->crc32(), referenceCrc32(file.data() + s->offset(), s->size()));
    previousEnd = s->offset() + s->size();
  }
  EXPECT_EQ(m->sections()->Get(0)->name()->str(), "image0");
  EXPECT_EQ(m->sections()->Get(2)->name()->str(), "weights");
  EXPECT_EQ(m->sections()->Get(2)->size(), plan.weights.size());
  EXPECT_EQ(previousEnd, file.size());
}

//===----------------------------------------------------------------------===//
// writePlan refuses inconsistent plans
//===----------------------------------------------------------------------===//

struct BadPlanCase {
  const char *name;
  std::function<void(PlanContents &)> damage;
  const char *message;
};

const BadPlanCase kBadPlans[] = {
    {"tensor without name", [](PlanContents &p) { p.tensors[1].name = ""; },
     "tensor 1 has no name"},
    {"duplicate tensor names", [](PlanContents &p) { p.tensors[4].name = "x"; },
     "tensors 0 and 4 are both named 'x'"},
    {"bad data type",
     [](PlanContents &p) { p.tensors[0].type = static_cast<DataType>(42); },
     "tensor 'x' has data type 42, expected one of f32, f16, bf16, f64, i8, "
     "i16, i32, i64, u8, u16, u32, u64, bool"},
    {"negative dimension",
     [](PlanContents &p) {
       p.tensors[0].shape = {2, -3};
     },
     "tensor 'x' has dimension -3 at index 1 of shape [2,-3], expected >= 0"},
    {"overflowing shape",
     [](PlanContents &p) {
       p.tensors[0].shape = {int64_t(1) << 31, int64_t(1) << 31};
     },
     "tensor 'x' of shape [2147483648,2147483648] and type f32 is too large"},
    {"kernel without name", [](PlanContents &p) { p.kernels[1].name = ""; },
     "kernel 1 has no name"},
    {"kernels without image", [](PlanContents &p) { p.images.clear(); },
     "the plan has 2 kernel(s) but no kernel image"},
    {"bad image format",
     [](PlanContents &p) {
       p.images[1].format = static_cast<KernelImage::Format>(5);
     },
     "image 1 has format 5, expected PTX (0) or cubin (1)"},
    {"image arch 0", [](PlanContents &p) { p.images[0].arch = 0; },
     "image 0 has arch 0"},
    {"empty image", [](PlanContents &p) { p.images[1].data.clear(); },
     "image 1 (sm_90 cubin) has no bytes"},
    {"image arch not listed",
     [](PlanContents &p) { p.compatibility.archs = {80}; },
     "image 1 (sm_90 cubin): arch 90 is not listed in compatibility.archs "
     "[80]"},
    {"duplicate image",
     [](PlanContents &p) { p.images.push_back(p.images[1]); },
     "images 1 and 2 are both sm_90 cubin"},
    {"bad step kind",
     [](PlanContents &p) { p.steps[5].kind = static_cast<Step::Kind>(9); },
     "step 5 has kind 9, expected launch (0), copy (1), fill (2) or library "
     "call (3)"},
    {"kernel index out of range",
     [](PlanContents &p) { p.steps[2].launch.kernel = 2; },
     "step 2 (launch): kernel index 2 is out of range: the plan has 2 "
     "kernel(s)"},
    {"zero grid",
     [](PlanContents &p) {
       p.steps[2].launch.grid = {98, 0, 1};
     },
     "step 2 (launch 'k0_generic'): grid (98,0,1) has y = 0, expected "
     "1..65535"},
    {"grid too large",
     [](PlanContents &p) {
       p.steps[2].launch.grid = {1, 1, 65536};
     },
     "grid (1,1,65536) has z = 65536, expected 1..65535"},
    {"zero block",
     [](PlanContents &p) {
       p.steps[2].launch.block = {0, 1, 1};
     },
     "block (0,1,1) has x = 0, expected 1..1024"},
    {"block z too large",
     [](PlanContents &p) {
       p.steps[2].launch.block = {1, 1, 65};
     },
     "block (1,1,65) has z = 65, expected 1..64"},
    {"too many threads",
     [](PlanContents &p) {
       p.steps[2].launch.block = {32, 32, 2};
     },
     "step 2 (launch 'k0_generic'): block (32,32,2) has 2048 threads, "
     "expected at most 1024"},
    {"bad arg kind",
     [](PlanContents &p) {
       p.steps[2].launch.args[3].kind = static_cast<KernelArg::Kind>(4);
     },
     "step 2 (launch 'k0_generic') arg 3 has kind 4, expected pointer (0), "
     "i32 (1), i64 (2) or f32 (3)"},
    {"bad memory space",
     [](PlanContents &p) {
       p.steps[2].launch.args[0].address.space = static_cast<MemorySpace>(3);
     },
     "step 2 (launch 'k0_generic') arg 0: memory space 3 is not arena (0), "
     "weights (1) or tensor (2)"},
    {"tensor index out of range",
     [](PlanContents &p) { p.steps[2].launch.args[2].address.index = 7; },
     "step 2 (launch 'k0_generic') arg 2: tensor index 7 is out of range: "
     "the plan has 7 tensor(s)"},
    {"arena address with index",
     [](PlanContents &p) { p.steps[2].launch.args[0].address.index = 1; },
     "arg 0: arena address has index 1, expected 0"},
    {"pointer past the end",
     [](PlanContents &p) { p.steps[3].launch.args[1].address.offset = 1001; },
     "step 3 (launch 'k1_reduce') arg 1: pointer range [weights+1001, +0 "
     "bytes) is outside the weights (1000 bytes)"},
    // Format 1.2: signatures and extents.
    {"too few arguments",
     [](PlanContents &p) { p.steps[2].launch.args.pop_back(); },
     "step 2 (launch 'k0_generic') passes 5 argument(s), expected 6: kernel "
     "0 'k0_generic' takes (pointer, pointer, pointer, i32, i64, f32)"},
    {"too many arguments",
     [](PlanContents &p) { p.steps[3].launch.args.push_back(i32Arg(1)); },
     "step 3 (launch 'k1_reduce') passes 4 argument(s), expected 3: kernel 1 "
     "'k1_reduce' takes (pointer, pointer, pointer)"},
    {"arguments to a kernel without signature",
     [](PlanContents &p) { p.kernels[1].params.clear(); },
     "step 3 (launch 'k1_reduce') passes 3 argument(s), expected 0: kernel 1 "
     "'k1_reduce' takes ()"},
    {"argument of the wrong kind",
     [](PlanContents &p) { p.steps[2].launch.args[3] = i64Arg(-7); },
     "step 2 (launch 'k0_generic') arg 3 is i64, expected i32: kernel 0 "
     "'k0_generic' takes (pointer, pointer, pointer, i32, i64, f32)"},
    {"immediate for a pointer",
     [](PlanContents &p) { p.steps[6].launch.args[2] = i64Arg(0); },
     "step 6 (launch 'k1_reduce') arg 2 is i64, expected pointer"},
    {"bad parameter kind",
     [](PlanContents &p) {
       p.kernels[1].params[2] = static_cast<KernelArg::Kind>(7);
     },
     "kernel 1 'k1_reduce' parameter 2 has kind 7, expected pointer (0), i32 "
     "(1), i64 (2) or f32 (3)"},
    {"extent past the arena",
     [](PlanContents &p) { p.steps[6].launch.args[0].extent = 4097; },
     "step 6 (launch 'k1_reduce') arg 0: pointer range [arena+0, +4097 "
     "bytes) is outside the arena (4096 bytes)"},
    {"arena shrunk below an extent",
     [](PlanContents &p) { p.arenaBytes = 4000; },
     "step 6 (launch 'k1_reduce') arg 0: pointer range [arena+0, +4096 "
     "bytes) is outside the arena (4000 bytes)"},
    {"extent that overflows",
     [](PlanContents &p) { p.steps[2].launch.args[0].extent = UINT64_MAX; },
     "step 2 (launch 'k0_generic') arg 0: pointer range [arena+512, "
     "+18446744073709551615 bytes) is outside the arena (4096 bytes)"},
    {"offset that overflows with the extent",
     [](PlanContents &p) {
       p.steps[6].launch.args[0].address.offset = UINT64_MAX - 7;
       p.steps[6].launch.args[0].extent = 16;
     },
     "step 6 (launch 'k1_reduce') arg 0: pointer range "
     "[arena+18446744073709551608, +16 bytes) is outside the arena"},
    {"extent past a tensor",
     [](PlanContents &p) { p.steps[2].launch.args[2].extent = 25; },
     "step 2 (launch 'k0_generic') arg 2: pointer range [tensor4+0, +25 "
     "bytes) is outside tensor 4 'y' (24 bytes)"},
    {"tensor shape shrunk below an extent",
     [](PlanContents &p) {
       p.tensors[4].shape = {3, 3};
     },
     "step 2 (launch 'k0_generic') arg 2: pointer range [tensor4+0, +24 "
     "bytes) is outside tensor 4 'y' (18 bytes)"},
    {"extent past the weights",
     [](PlanContents &p) { p.steps[2].launch.args[1].extent = 985; },
     "step 2 (launch 'k0_generic') arg 1: pointer range [weights+16, +985 "
     "bytes) is outside the weights (1000 bytes)"},
    {"kernel writing the weights",
     [](PlanContents &p) { p.steps[2].launch.args[1].access = kWrite; },
     "step 2 (launch 'k0_generic') arg 1: pointer weights+16 has access "
     "write into the weights, which steps may not write"},
    {"kernel reading and writing the weights",
     [](PlanContents &p) { p.steps[6].launch.args[1].access = kReadWrite; },
     "step 6 (launch 'k1_reduce') arg 1: pointer weights+0 has access "
     "read-write into the weights, which steps may not write"},
    {"zero-byte write into the weights",
     [](PlanContents &p) { p.steps[3].launch.args[1].access = kWrite; },
     "step 3 (launch 'k1_reduce') arg 1: pointer weights+1000 has access "
     "write into the weights"},
    {"bad access",
     [](PlanContents &p) {
       p.steps[2].launch.args[0].access = static_cast<KernelArg::Access>(9);
     },
     "step 2 (launch 'k0_generic') arg 0 has access 9, expected none (0), "
     "read (1), write (2) or read-write (3)"},
    {"untouched memory with an extent",
     [](PlanContents &p) { p.steps[2].launch.args[0].access = kNone; },
     "step 2 (launch 'k0_generic') arg 0 has access none and extent 96, "
     "expected extent 0 for memory the kernel does not touch"},
    {"immediate with an extent",
     [](PlanContents &p) { p.steps[2].launch.args[4].extent = 8; },
     "step 2 (launch 'k0_generic') arg 4 (i64) has extent 8 and access none, "
     "expected 0 and none: only pointers have them"},
    {"immediate with an access",
     [](PlanContents &p) { p.steps[2].launch.args[5].access = kRead; },
     "step 2 (launch 'k0_generic') arg 5 (f32) has extent 0 and access read, "
     "expected 0 and none"},
    // Format 1.3: bounds of integer parameters, and launches within them.
    {"count past a pointer's extent",
     [](PlanContents &p) { p.steps[2].launch.args[3] = i32Arg(7); },
     "step 2 (launch 'k0_generic') arg 3 (i32) is 7: the kernel may touch "
     "112 bytes through arg 0 (0 + 7 x 16), more than its extent of 96 bytes "
     "(kernel 0 'k0_generic' bound 0)"},
    {"extent shrunk below a count",
     [](PlanContents &p) { p.steps[2].launch.args[0].extent = 95; },
     "step 2 (launch 'k0_generic') arg 3 (i32) is 6: the kernel may touch 96 "
     "bytes through arg 0 (0 + 6 x 16), more than its extent of 95 bytes"},
    {"count above its range",
     [](PlanContents &p) {
       p.kernels[0].bounds[0].bytesPerUnit = 1;
       p.steps[2].launch.args[3] = i32Arg(9);
     },
     "step 2 (launch 'k0_generic') arg 3 (i32) is 9, expected 0..8 (kernel 0 "
     "'k0_generic' bound 0)"},
    {"negative count",
     [](PlanContents &p) { p.steps[2].launch.args[3] = i32Arg(-1); },
     "step 2 (launch 'k0_generic') arg 3 (i32) is -1, expected 0..8"},
    {"i32 read from its low 4 bytes",
     [](PlanContents &p) { p.steps[2].launch.args[3].bits = 0x1FFFFFFFFull; },
     "step 2 (launch 'k0_generic') arg 3 (i32) is -1, expected 0..8"},
    {"i64 one above its range",
     [](PlanContents &p) {
       p.steps[2].launch.args[4] = i64Arg((int64_t(1) << 40) + 1);
     },
     "step 2 (launch 'k0_generic') arg 4 (i64) is 1099511627777, expected "
     "0..1099511627776 (kernel 0 'k0_generic' bound 1)"},
    {"count whose bytes overflow",
     [](PlanContents &p) {
       p.kernels[0].bounds[0].bytesPerUnit = uint64_t(1) << 62;
     },
     "step 2 (launch 'k0_generic') arg 3 (i32) is 6: the kernel may touch "
     "more than 2^64 bytes through arg 0"},
    {"base bytes that overflow",
     [](PlanContents &p) { p.kernels[0].bounds[0].baseBytes = UINT64_MAX; },
     "step 2 (launch 'k0_generic') arg 3 (i32) is 6: the kernel may touch "
     "more than 2^64 bytes through arg 0"},
    {"integer parameter without a bound",
     [](PlanContents &p) { p.kernels[0].bounds.pop_back(); },
     "kernel 0 'k0_generic' parameter 4 (i64) has no bound: every integer "
     "parameter says what it may be"},
    {"bound on a pointer parameter",
     [](PlanContents &p) { p.kernels[0].bounds[1].param = 0; },
     "kernel 0 'k0_generic' bound 1 is on parameter 0, expected an i32 or "
     "i64 parameter of (pointer, pointer, pointer, i32, i64, f32)"},
    {"bound on an f32 parameter",
     [](PlanContents &p) { p.kernels[0].bounds[1].param = 5; },
     "kernel 0 'k0_generic' bound 1 is on parameter 5, expected an i32 or "
     "i64 parameter"},
    {"bound on a missing parameter",
     [](PlanContents &p) { p.kernels[0].bounds[1].param = 6; },
     "kernel 0 'k0_generic' bound 1 is on parameter 6, expected an i32 or "
     "i64 parameter"},
    {"bound on a kernel without parameters",
     [](PlanContents &p) { p.kernels[1].bounds = {rangeBound(0, 0, 1)}; },
     "kernel 1 'k1_reduce' bound 0 is on parameter 0, expected an i32 or "
     "i64 parameter of (pointer, pointer, pointer)"},
    {"bound through an integer",
     [](PlanContents &p) { p.kernels[0].bounds[0].pointer = 4; },
     "kernel 0 'k0_generic' bound 0 (parameter 3) names parameter 4 as its "
     "pointer, expected a pointer parameter of (pointer, pointer, pointer, "
     "i32, i64, f32) or none (4294967295)"},
    {"bound through a missing parameter",
     [](PlanContents &p) { p.kernels[0].bounds[0].pointer = 6; },
     "kernel 0 'k0_generic' bound 0 (parameter 3) names parameter 6 as its "
     "pointer"},
    {"empty range",
     [](PlanContents &p) {
       p.kernels[0].bounds[1].min = 5;
       p.kernels[0].bounds[1].max = 4;
     },
     "kernel 0 'k0_generic' bound 1 (parameter 4) has min 5 > max 4"},
    {"negative values through a pointer",
     [](PlanContents &p) { p.kernels[0].bounds[0].min = -1; },
     "kernel 0 'k0_generic' bound 0 (parameter 3) has min -1 and a pointer, "
     "expected min >= 0"},
    {"arena of 2^63 bytes",
     [](PlanContents &p) { p.arenaBytes = uint64_t(1) << 63; },
     "the arena is 9223372036854775808 bytes, expected at most "
     "1099511627776 (1 TiB)"},
    {"arena just over 1 TiB",
     [](PlanContents &p) { p.arenaBytes = kMaxArenaBytes + 1; },
     "the arena is 1099511627777 bytes, expected at most 1099511627776"},
    {"4 GiB of shared memory",
     [](PlanContents &p) { p.steps[2].launch.sharedMemoryBytes = UINT32_MAX; },
     "step 2 (launch 'k0_generic'): 4294967295 bytes of dynamic shared "
     "memory, expected at most 232448 (what a block can have on sm_90)"},
    {"one byte too much shared memory",
     [](PlanContents &p) {
       p.steps[3].launch.sharedMemoryBytes = kMaxSharedMemoryBytes + 1;
     },
     "step 3 (launch 'k1_reduce'): 232449 bytes of dynamic shared memory"},
    {"copy out of the arena",
     [](PlanContents &p) { p.steps[1].copy.dst.offset = 4090; },
     "step 1 (copy): destination range [arena+4090, +96 bytes) is outside "
     "the arena (4096 bytes)"},
    {"copy out of a tensor",
     [](PlanContents &p) { p.steps[1].copy.src.offset = 8; },
     "step 1 (copy): source range [tensor0+8, +96 bytes) is outside tensor "
     "0 'x' (96 bytes)"},
    {"copy range overflows",
     [](PlanContents &p) {
       p.steps[1].copy.dst.offset = UINT64_MAX;
       p.steps[1].copy.bytes = 2;
     },
     "step 1 (copy): destination range [arena+18446744073709551615, +2 "
     "bytes) is outside the arena"},
    {"overlapping copy",
     [](PlanContents &p) { p.steps[1] = copyStep(arena(0), arena(64), 96); },
     "step 1 (copy): source [arena+64, +96 bytes) and destination [arena+0, "
     "+96 bytes) overlap"},
    {"copy into the weights",
     [](PlanContents &p) { p.steps[1] = copyStep(weights(0), arena(0), 8); },
     "step 1 (copy): the destination weights+0 is in the weights, which "
     "steps may not write"},
    {"fill out of range", [](PlanContents &p) { p.steps[5].fill.bytes = 2; },
     "step 5 (fill): destination range [tensor5+0, +2 bytes) is outside "
     "tensor 5 'scalar' (1 bytes)"},
    {"fill into the weights",
     [](PlanContents &p) { p.steps[0] = fillStep(weights(8), 8, 0); },
     "step 0 (fill): the destination weights+8 is in the weights"},
    {"copy from the weights into the weights",
     [](PlanContents &p) {
       p.steps[4] = copyStep(weights(500), weights(0), 16);
     },
     "step 4 (copy): the destination weights+500 is in the weights, which "
     "steps may not write"},
    {"zero-byte copy into the weights",
     [](PlanContents &p) { p.steps[4] = copyStep(weights(1000), arena(0), 0); },
     "step 4 (copy): the destination weights+1000 is in the weights"},
    {"zero-byte fill into the weights",
     [](PlanContents &p) { p.steps[5] = fillStep(weights(0), 0, 0); },
     "step 5 (fill): the destination weights+0 is in the weights"},
    {"library call without callee",
     [](PlanContents &p) { p.steps[8].libraryCall.callee.clear(); },
     "step 8 (call) has no callee"},
    {"library call buffer out of range",
     [](PlanContents &p) { p.steps[8].libraryCall.buffers[2].bytes = 25; },
     "step 8 (call 'test.matmul'): buffer 2 range [tensor4+0, +25 bytes) is "
     "outside tensor 4 'y' (24 bytes)"},
    {"library call buffer past the weights",
     [](PlanContents &p) {
       p.steps[8].libraryCall.buffers[1].address.offset = 990;
     },
     "step 8 (call 'test.matmul'): buffer 1 range [weights+990, +32 bytes) "
     "is outside the weights (1000 bytes)"},
    {"library call buffer in an unknown space",
     [](PlanContents &p) {
       p.steps[8].libraryCall.buffers[0].address.space =
           static_cast<MemorySpace>(3);
     },
     "step 8 (call 'test.matmul'): buffer 0: memory space 3 is not arena "
     "(0), weights (1) or tensor (2)"},
    {"library call buffer of a missing tensor",
     [](PlanContents &p) {
       p.steps[8].libraryCall.buffers[3].address.index = 7;
     },
     "step 8 (call 'test.matmul'): buffer 3: tensor index 7 is out of "
     "range: the plan has 7 tensor(s)"},
};

TEST(PlanWrite, RefusesInconsistentPlans) {
  for (const BadPlanCase &c : kBadPlans) {
    SCOPED_TRACE(c.name);
    PlanContents plan = makeFullPlan();
    c.damage(plan);
    auto file = writePlan(plan);
    ASSERT_FALSE(file.isOk());
    EXPECT_EQ(file.status().code(), StatusCode::InvalidArgument);
    EXPECT_THAT(file.status().message(), HasSubstr(c.message));
    Status verified = verifyPlan(plan);
    EXPECT_EQ(verified.code(), StatusCode::InvalidArgument);
    EXPECT_EQ(verified.message(), file.status().message());
  }
}

TEST(PlanWrite, AcceptsEdgeCases) {
  PlanContents plan = makeFullPlan();
  // A pointer one past the end, a zero-byte copy at the end of a space.
  plan.steps.push_back(copyStep(arena(4096), tensor(3, 0), 0));
  plan.steps.push_back(launchStep(1, {0x7FFFFFFF, 65535, 65535}, {1024, 1, 1},
                                  {pointerArg(arena(4096), 0, kWrite),
                                   pointerArg(weights(1000), 0, kRead),
                                   pointerArg(tensor(6, 0), 16, kReadWrite)},
                                  kMaxSharedMemoryBytes));
  // A kernel without parameters, launched without arguments; a signature
  // with every kind.
  plan.kernels.push_back(kernel("k2_nothing", {}));
  plan.steps.push_back(launchStep(2, {1, 1, 1}, {1, 1, 1}, {}));
  plan.kernels.push_back(kernel("k3_unlaunched", {kF32, kI64, kI32, kPtr}));
  // An integer fixed at compile time, and an index into a pointer (one
  // element past it), each with several bounds.
  ScalarBound index = countBound(2, 3, 4);
  index.baseBytes = 4;
  plan.kernels[3].bounds = {rangeBound(1, 42, 42), index,
                            rangeBound(2, 0, 1000)};
  // Counts at the edges of their bounds: none through an untouched pointer,
  // and a count as the kernel reads it (the low 4 bytes of an i32).
  plan.steps.push_back(launchStep(0, {1, 1, 1}, {1, 1, 1},
                                  {pointerArg(arena(96), 0, kNone),
                                   pointerArg(weights(0), 0, kNone),
                                   pointerArg(tensor(3, 0), 0, kWrite),
                                   i32Arg(0), i64Arg(0), f32Arg(0.0f)}));
  Step upperBits = plan.steps[2];
  upperBits.launch.args[3].bits = 0xFFFFFFFF00000006ull;
  plan.steps.push_back(upperBits);
  // A library call without buffers or payload, one whose buffers cover a
  // whole space, alias each other and lie in the weights (what a call writes
  // is its handler's business), and a zero-byte buffer at the end.
  plan.steps.push_back(libraryCallStep("test.nothing", {}, ""));
  plan.steps.push_back(libraryCallStep("test.everything",
                                       {{arena(0), 4096},
                                        {arena(0), 4096},
                                        {weights(0), 1000},
                                        {tensor(5, 1), 0}},
                                       std::string(3000, '\0')));
  EXPECT_TRUE(verifyPlan(plan).isOk()) << verifyPlan(plan).toString();
  EXPECT_TRUE(writePlan(plan).isOk());
  // The largest arena.
  plan.arenaBytes = kMaxArenaBytes;
  EXPECT_TRUE(verifyPlan(plan).isOk()) << verifyPlan(plan).toString();
  auto file = writePlan(plan);
  ASSERT_TRUE(file.isOk());
  auto read = readPlan(file->data(), file->size());
  ASSERT_TRUE(read.isOk()) << read.status().toString();
  std::string difference;
  EXPECT_TRUE(plansEqual(plan, *read, difference)) << difference;
}

//===----------------------------------------------------------------------===//
// readPlan: damaged files
//===----------------------------------------------------------------------===//

TEST(PlanRead, EmptyAndShort) {
  Status empty = readError("");
  EXPECT_EQ(empty.code(), StatusCode::InvalidPlan);
  EXPECT_EQ(empty.message(),
            "plan is empty: 0 bytes, expected at least the 64-byte header");
  Status shortPlan = readError(std::string("KILNPLAN\x01\x02", 10));
  EXPECT_EQ(shortPlan.message(),
            "plan is too short: 10 bytes, expected at least the 64-byte "
            "header");
  auto null = readPlan(nullptr, 5);
  ASSERT_FALSE(null.isOk());
  EXPECT_EQ(null.status().code(), StatusCode::InvalidArgument);
}

TEST(PlanRead, BadMagic) {
  std::string file = writeOrDie(makeSmallPlan());
  file[7] = 'X';
  file[0] = '\x7f';
  Status s = readError(file);
  EXPECT_EQ(s.code(), StatusCode::InvalidPlan);
  EXPECT_THAT(
      s.message(),
      StartsWith("bad magic: expected 'KILNPLAN', found '\\x7fILNPLAX'"));
}

TEST(PlanRead, HeaderChecksum) {
  std::string file = writeOrDie(makeSmallPlan());
  file[20] ^= 1; // the file size, without fixing the header CRC
  Status s = readError(file);
  EXPECT_EQ(s.code(), StatusCode::InvalidPlan);
  EXPECT_THAT(s.message(), StartsWith("header checksum mismatch: expected 0x"));
  EXPECT_THAT(s.message(), HasSubstr(", computed 0x"));
}

TEST(PlanRead, ReservedBytes) {
  std::string file = writeOrDie(makeSmallPlan());
  file[50] = 3;
  EXPECT_EQ(readError(file).message(),
            "reserved header byte at offset 50 is 3, expected 0");
}

TEST(PlanRead, NewerMajorVersion) {
  std::string file = writeOrDie(makeSmallPlan());
  writeLE32(file, 8, 2);
  writeLE32(file, 12, 0);
  fixHeaderCrc(file);
  Status s = readError(file);
  EXPECT_EQ(s.code(), StatusCode::UnsupportedPlan);
  EXPECT_THAT(s.message(),
              StartsWith("plan format 2.0 is newer than this runtime's 1.4"));
}

TEST(PlanRead, NewerMinorVersion) {
  std::string file = writeOrDie(makeSmallPlan());
  EXPECT_EQ(readLE32(file, 12), 4u); // writers write the current version
  writeLE32(file, 12, 5);
  fixHeaderCrc(file);
  Status s = readError(file);
  EXPECT_EQ(s.code(), StatusCode::UnsupportedPlan);
  EXPECT_THAT(s.message(),
              StartsWith("plan format 1.5 is newer than this runtime's 1.4"));
}

// A file the format 1.0 writer wrote (makeSmallPlan before library calls,
// signatures and extents existed) parses, but its launches cannot be checked
// against kernel signatures: it is refused, naming its first launch.
TEST(PlanRead, Format10FileWithLaunchesIsRefused) {
  std::ifstream in(KILN_TEST_INPUTS "/small-plan-1.0.kplan", std::ios::binary);
  ASSERT_TRUE(in.good()) << "cannot read " KILN_TEST_INPUTS
                            "/small-plan-1.0.kplan";
  const std::string old(std::istreambuf_iterator<char>(in), {});
  ASSERT_EQ(old.size(), 1600u);
  EXPECT_EQ(readLE32(old, 8), 1u);
  EXPECT_EQ(readLE32(old, 12), 0u);
  Status s = readError(old);
  EXPECT_EQ(s.code(), StatusCode::UnsupportedPlan);
  EXPECT_EQ(s.message(), "step 2 is a launch, and the plan was written by "
                         "format 1.0, before kernel signatures (1.2): "
                         "recompile it");
  // The same file claiming to be 1.2 lacks the argument extents.
  std::string claimed = old;
  writeLE32(claimed, 12, 2);
  fixHeaderCrc(claimed);
  EXPECT_EQ(readError(claimed).message(),
            "step 2 has 3 argument(s) and 0 argument extent(s), expected one "
            "per argument");
}

// A plan of format 1.0 or 1.1 without launches has nothing 1.2 added but
// kernel signatures it does not use: it still reads.
TEST(PlanRead, OlderFilesWithoutLaunchesStillRead) {
  PlanContents plan = makeFullPlan();
  std::vector<Step> steps;
  for (const Step &step : plan.steps)
    if (step.kind != Step::Kind::Launch)
      steps.push_back(step);
  plan.steps = steps;
  for (KernelDesc &k : plan.kernels) {
    k.params.clear(); // what an older writer wrote
    k.bounds.clear();
  }
  const std::string current = writeOrDie(plan);
  for (uint32_t minor : {0u, 1u, 2u}) {
    SCOPED_TRACE(minor);
    std::string old = current;
    writeLE32(old, 12, minor);
    fixHeaderCrc(old);
    auto read = readPlan(old.data(), old.size());
    ASSERT_TRUE(read.isOk()) << read.status().toString();
    std::string difference;
    EXPECT_TRUE(plansEqual(plan, *read, difference)) << difference;
  }
  // A library call is no launch: a 1.1 file with one reads.
  std::string old = writeOrDie(plan);
  writeLE32(old, 12, 1);
  fixHeaderCrc(old);
  EXPECT_TRUE(readPlan(old.data(), old.size()).isOk());
  // With a launch, the 1.1 file is refused (its kernels take pointers only:
  // an integer parameter would be refused first).
  plan = pointerKernelPlan();
  old = writeOrDie(plan);
  writeLE32(old, 12, 1);
  fixHeaderCrc(old);
  Status s = readError(old);
  EXPECT_EQ(s.code(), StatusCode::UnsupportedPlan);
  EXPECT_EQ(s.message(), "step 2 is a launch, and the plan was written by "
                         "format 1.1, before kernel signatures (1.2): "
                         "recompile it");
}

// A kernel that takes an integer in a file of format 1.2 or older has no
// bounds: its launches cannot be checked, and the file is refused, naming the
// kernel and the parameter. A 1.2 file whose kernels take only pointers
// (every plan kiln-compile wrote) still reads.
TEST(PlanRead, Format12FileWithIntegerParametersIsRefused) {
  std::string file = writeOrDie(makeFullPlan());
  writeLE32(file, 12, 2);
  fixHeaderCrc(file);
  Status s = readError(file);
  EXPECT_EQ(s.code(), StatusCode::UnsupportedPlan);
  EXPECT_EQ(s.message(), "kernel 0 'k0_generic' parameter 3 is i32, and the "
                         "plan was written by format 1.2, before the bounds "
                         "of integer parameters (1.3): recompile it");
  // Even with no launch of it.
  PlanContents plan = makeFullPlan();
  plan.kernels.push_back(kernel("k2_unlaunched", {kPtr, kI64}));
  plan.kernels.back().bounds = {countBound(1, 0, 8)};
  std::vector<Step> steps;
  for (const Step &step : plan.steps)
    if (step.kind != Step::Kind::Launch)
      steps.push_back(step);
  plan.steps = steps;
  plan.kernels[0].params = {kPtr};
  plan.kernels[0].bounds.clear();
  file = writeOrDie(plan);
  writeLE32(file, 12, 2);
  fixHeaderCrc(file);
  EXPECT_EQ(readError(file).message(),
            "kernel 2 'k2_unlaunched' parameter 1 is i64, and the plan was "
            "written by format 1.2, before the bounds of integer parameters "
            "(1.3): recompile it");
}

TEST(PlanRead, Format12FileOfPointerKernelsStillReads) {
  PlanContents plan = pointerKernelPlan();
  std::string file = writeOrDie(plan);
  writeLE32(file, 12, 2);
  fixHeaderCrc(file);
  auto read = readPlan(file.data(), file.size());
  ASSERT_TRUE(read.isOk()) << read.status().toString();
  std::string difference;
  EXPECT_TRUE(plansEqual(plan, *read, difference)) << difference;
}

TEST(PlanRead, OlderMajorVersion) {
  std::string file = writeOrDie(makeSmallPlan());
  writeLE32(file, 8, 0);
  writeLE32(file, 12, 9);
  fixHeaderCrc(file);
  Status s = readError(file);
  EXPECT_EQ(s.code(), StatusCode::UnsupportedPlan);
  EXPECT_THAT(s.message(),
              StartsWith("plan format 0.9 is older than this runtime's 1.4, "
                         "which reads only format 1.x"));
}

TEST(PlanRead, WrongFileSize) {
  std::string file = writeOrDie(makeSmallPlan());
  std::string size = std::to_string(file.size());
  std::string truncated = file.substr(0, file.size() - 100);
  EXPECT_EQ(readError(truncated).message(),
            "plan is truncated: header says " + size + " bytes, file has " +
                std::to_string(file.size() - 100));
  EXPECT_EQ(readError(file + "junk").message(),
            "plan has trailing bytes: header says " + size +
                " bytes, file has " + std::to_string(file.size() + 4));
}

TEST(PlanRead, ManifestOutOfRange) {
  std::string file = writeOrDie(makeSmallPlan());
  std::string patched = file;
  writeLE64(patched, 24, 128);
  fixHeaderCrc(patched);
  EXPECT_EQ(readError(patched).message(),
            "manifest offset is 128, expected 64 (right after the header)");
  patched = file;
  writeLE64(patched, 32, file.size());
  fixHeaderCrc(patched);
  EXPECT_EQ(readError(patched).message(),
            "manifest [64, +" + std::to_string(file.size()) +
                " bytes) extends past the end of the " +
                std::to_string(file.size()) + "-byte plan");
}

TEST(PlanRead, BodyChecksum) {
  std::string file = writeOrDie(makeSmallPlan());
  file[file.size() - 1] ^= 0x10; // the last weights byte
  Status s = readError(file);
  EXPECT_EQ(s.code(), StatusCode::InvalidPlan);
  EXPECT_THAT(s.message(), StartsWith("body checksum mismatch: expected 0x"));
}

TEST(PlanRead, SectionChecksum) {
  std::string file = writeOrDie(makeFullPlan());
  const fb::Section *weights = fb::GetManifest(&file[64])->sections()->Get(2);
  uint32_t stored = weights->crc32();
  file[weights->offset() + 10] ^= 0x10;
  uint32_t computed =
      referenceCrc32(file.data() + weights->offset(), weights->size());
  fixCrcs(file);
  char expected[128];
  std::snprintf(expected, sizeof(expected),
                "section 2 'weights' checksum mismatch: expected 0x%08x, "
                "computed 0x%08x",
                stored, computed);
  EXPECT_EQ(readError(file).message(), expected);
}

TEST(PlanRead, NonZeroPadding) {
  std::string file = writeOrDie(makeFullPlan());
  const fb::Section *image1 = fb::GetManifest(&file[64])->sections()->Get(1);
  uint64_t padding = image1->offset() - 1;
  file[padding] = 1;
  fixCrcs(file);
  EXPECT_EQ(readError(file).message(),
            "padding byte at offset " + std::to_string(padding) +
                " before section 1 'image1' is 1, expected 0");
}

TEST(PlanRead, ManifestThatIsNotAFlatBuffer) {
  std::string file = writeOrDie(makeSmallPlan());
  writeLE32(file, 64, 0x7FFFFFF0); // the root table offset
  fixCrcs(file);
  Status s = readError(file);
  EXPECT_EQ(s.code(), StatusCode::InvalidPlan);
  EXPECT_THAT(s.message(), HasSubstr("is not a valid FlatBuffer of "
                                     "runtime/schema/plan.fbs"));
}

/// A plan file around a manifest built by hand: no sections.
std::string wrapManifest(const flatbuffers::FlatBufferBuilder &b) {
  std::string file(64, '\0');
  file.append(reinterpret_cast<const char *>(b.GetBufferPointer()),
              b.GetSize());
  file.replace(0, 8, "KILNPLAN");
  writeLE32(file, 8, kPlanFormatMajor);
  writeLE32(file, 12, kPlanFormatMinor);
  writeLE64(file, 16, file.size());
  writeLE64(file, 24, 64);
  writeLE64(file, 32, b.GetSize());
  fixCrcs(file);
  return file;
}

TEST(PlanRead, HandBuiltManifest) {
  flatbuffers::FlatBufferBuilder b;
  auto kernel = fb::CreateKernel(b, b.CreateString("k"));
  auto manifest = fb::CreateManifest(
      b, fb::CreateCompatibility(b, b.CreateString("hand")), 0, 0,
      b.CreateVector(std::vector<flatbuffers::Offset<fb::Kernel>>{kernel}));
  b.Finish(manifest, "KPLM");
  // Everything but the kernel image is there: the semantic checks run.
  EXPECT_EQ(readError(wrapManifest(b)).message(),
            "the plan has 1 kernel(s) but no kernel image");
}

TEST(PlanRead, SharedTablesCannotAmplify) {
  // 100000 steps that all point at one launch with 2000 arguments: a
  // 0.5 MB manifest that would convert to 6.4 GB of arguments.
  flatbuffers::FlatBufferBuilder b;
  std::vector<fb::KernelArg> args(
      2000, fb::KernelArg(fb::ArgKind::I64, fb::Address(), 0));
  std::vector<fb::ArgExtent> extents(2000);
  fb::Dim3 one(1, 1, 1);
  auto launch =
      fb::CreateLaunchStep(b, 0, &one, &one, 0, b.CreateVectorOfStructs(args),
                           b.CreateVectorOfStructs(extents));
  auto step = fb::CreateStep(b, fb::StepKind::LaunchStep, launch.Union());
  std::vector<flatbuffers::Offset<fb::Step>> steps(100000, step);
  auto kernel = fb::CreateKernel(b, b.CreateString("k"));
  auto manifest = fb::CreateManifest(
      b, fb::CreateCompatibility(b), 0, 0,
      b.CreateVector(std::vector<flatbuffers::Offset<fb::Kernel>>{kernel}), 0,
      -1, 0, b.CreateVector(steps));
  b.Finish(manifest, "KPLM");
  Status s = readError(wrapManifest(b));
  EXPECT_EQ(s.code(), StatusCode::InvalidPlan);
  EXPECT_THAT(s.message(), HasSubstr("the manifest describes more data than "
                                     "it holds"));
}

TEST(PlanRead, SharedLibraryCallsCannotAmplify) {
  // 100000 steps that all point at one library call with a 4000-byte payload
  // and 100 buffers: a small manifest that would convert to 0.6 GB.
  flatbuffers::FlatBufferBuilder b;
  std::vector<uint8_t> payload(4000, 7);
  std::vector<fb::LibraryCallBuffer> buffers(
      100, fb::LibraryCallBuffer(fb::Address(), 0));
  auto call = fb::CreateLibraryCallStep(b, b.CreateString("test.call"),
                                        b.CreateVectorOfStructs(buffers),
                                        b.CreateVector(payload));
  auto step = fb::CreateStep(b, fb::StepKind::LibraryCallStep, call.Union());
  std::vector<flatbuffers::Offset<fb::Step>> steps(100000, step);
  auto manifest = fb::CreateManifest(b, fb::CreateCompatibility(b), 0, 0, 0, 0,
                                     -1, 0, b.CreateVector(steps));
  b.Finish(manifest, "KPLM");
  Status s = readError(wrapManifest(b));
  EXPECT_EQ(s.code(), StatusCode::InvalidPlan);
  EXPECT_THAT(s.message(), HasSubstr("the manifest describes more data than "
                                     "it holds"));
}

// Format 1.2 has one extent per launch argument.
TEST(PlanRead, LaunchWithoutOneExtentPerArgument) {
  for (auto [numArgs, numExtents] : {std::pair{1, 0}, {1, 2}, {0, 1}}) {
    SCOPED_TRACE(std::to_string(numArgs) + " " + std::to_string(numExtents));
    flatbuffers::FlatBufferBuilder b;
    std::vector<fb::KernelArg> args(
        numArgs, fb::KernelArg(fb::ArgKind::I64, fb::Address(), 0));
    std::vector<fb::ArgExtent> extents(numExtents);
    fb::Dim3 one(1, 1, 1);
    auto launch =
        fb::CreateLaunchStep(b, 0, &one, &one, 0, b.CreateVectorOfStructs(args),
                             b.CreateVectorOfStructs(extents));
    std::vector<flatbuffers::Offset<fb::Step>> steps = {
        fb::CreateStep(b, fb::StepKind::LaunchStep, launch.Union())};
    auto manifest = fb::CreateManifest(b, fb::CreateCompatibility(b), 0, 0, 0,
                                       0, -1, 0, b.CreateVector(steps));
    b.Finish(manifest, "KPLM");
    Status s = readError(wrapManifest(b));
    EXPECT_EQ(s.code(), StatusCode::InvalidPlan);
    EXPECT_EQ(s.message(), "step 0 has " + std::to_string(numArgs) +
                               " argument(s) and " +
                               std::to_string(numExtents) +
                               " argument extent(s), expected one per "
                               "argument");
  }
}

TEST(PlanRead, LibraryCallWithoutData) {
  flatbuffers::FlatBufferBuilder b;
  std::vector<flatbuffers::Offset<fb::Step>> steps = {
      fb::CreateStep(b, fb::StepKind::LibraryCallStep, 0)};
  auto manifest = fb::CreateManifest(b, fb::CreateCompatibility(b), 0, 0, 0, 0,
                                     -1, 0, b.CreateVector(steps));
  b.Finish(manifest, "KPLM");
  EXPECT_EQ(readError(wrapManifest(b)).message(),
            "step 0 is a LibraryCallStep without data");
}

/// A manifest change, re-checksummed, and the message readPlan must give.
struct TamperCase {
  const char *name;
  std::function<void(fb::Manifest &)> tamper;
  const char *message;
};

fb::LaunchStep &launchAt(fb::Manifest &m, uint32_t step) {
  return *const_cast<fb::LaunchStep *>(
      m.mutable_steps()->GetMutableObject(step)->step_as_LaunchStep());
}
fb::ArgExtent &extentAt(fb::Manifest &m, uint32_t step, uint32_t arg) {
  return *launchAt(m, step).mutable_arg_extents()->GetMutableObject(arg);
}
fb::ScalarBound &boundAt(fb::Manifest &m, uint32_t kernel, uint32_t bound) {
  return *m.mutable_kernels()
              ->GetMutableObject(kernel)
              ->mutable_scalar_bounds()
              ->GetMutableObject(bound);
}
fb::CopyStep &copyAt(fb::Manifest &m, uint32_t step) {
  return *const_cast<fb::CopyStep *>(
      m.mutable_steps()->GetMutableObject(step)->step_as_CopyStep());
}
fb::LibraryCallStep &callAt(fb::Manifest &m, uint32_t step) {
  return *const_cast<fb::LibraryCallStep *>(
      m.mutable_steps()->GetMutableObject(step)->step_as_LibraryCallStep());
}

/// Generated code has no mutator for a union's type field.
bool setStepType(fb::Manifest &m, uint32_t step, uint8_t type) {
  auto *table = reinterpret_cast<flatbuffers::Table *>(
      m.mutable_steps()->GetMutableObject(step));
  return table->SetField<uint8_t>(fb::Step::VT_STEP_TYPE, type);
}

const TamperCase kTamperCases[] = {
    {"kernel index out of range",
     [](fb::Manifest &m) { ASSERT_TRUE(launchAt(m, 2).mutate_kernel(7)); },
     "step 2 (launch): kernel index 7 is out of range: the plan has 2 "
     "kernel(s)"},
    {"copy range out of the arena",
     [](fb::Manifest &m) { ASSERT_TRUE(copyAt(m, 1).mutate_bytes(100000)); },
     "step 1 (copy): destination range [arena+512, +100000 bytes) is "
     "outside the arena (4096 bytes)"},
    {"arena shrunk under a copy",
     [](fb::Manifest &m) { ASSERT_TRUE(m.mutate_arena_bytes(600)); },
     "step 1 (copy): destination range [arena+512, +96 bytes) is outside "
     "the arena (600 bytes)"},
    {"tensor index out of range",
     [](fb::Manifest &m) {
       auto *args = launchAt(m, 2).mutable_args();
       args->GetMutableObject(2)->mutable_address().mutate_index(9);
     },
     "step 2 (launch 'k0_generic') arg 2: tensor index 9 is out of range"},
    {"copy from past the end of a tensor",
     [](fb::Manifest &m) { copyAt(m, 1).mutable_src()->mutate_offset(1); },
     "step 1 (copy): source range [tensor0+1, +96 bytes) is outside tensor "
     "0 'x' (96 bytes)"},
    {"unknown data type",
     [](fb::Manifest &m) {
       ASSERT_TRUE(m.mutable_tensors()->GetMutableObject(2)->mutate_type(
           static_cast<fb::DataType>(200)));
     },
     "tensor 'indices' has data type 200"},
    {"negative dimension",
     [](fb::Manifest &m) {
       m.mutable_tensors()->GetMutableObject(0)->mutable_shape()->Mutate(1, -3);
     },
     "tensor 'x' has dimension -3 at index 1 of shape [2,-3,4]"},
    {"unknown memory space",
     [](fb::Manifest &m) {
       copyAt(m, 4).mutable_dst()->mutate_space(
           static_cast<fb::MemorySpace>(9));
     },
     "step 4 (copy): destination: memory space 9 is not arena (0), weights "
     "(1) or tensor (2)"},
    {"block too large",
     [](fb::Manifest &m) { launchAt(m, 3).mutable_block()->mutate_x(256); },
     "step 3 (launch 'k1_reduce'): block (256,4,2) has 2048 threads, "
     "expected at most 1024"},
    {"step without data",
     [](fb::Manifest &m) { ASSERT_TRUE(setStepType(m, 0, 0)); },
     "step 0 has step kind 0, expected LaunchStep (1), CopyStep (2), "
     "FillStep (3) or LibraryCallStep (4)"},
    {"unknown step kind",
     [](fb::Manifest &m) { ASSERT_TRUE(setStepType(m, 3, 77)); },
     "step 3 has step kind 77, expected LaunchStep (1), CopyStep (2), "
     "FillStep (3) or LibraryCallStep (4)"},
    {"library call buffer grown",
     [](fb::Manifest &m) {
       auto *buffers = callAt(m, 8).mutable_buffers();
       buffers->GetMutableObject(0)->mutate_bytes(4097);
     },
     "step 8 (call 'test.matmul'): buffer 0 range [arena+0, +4097 bytes) is "
     "outside the arena (4096 bytes)"},
    {"library call buffer moved to a missing tensor",
     [](fb::Manifest &m) {
       auto *buffers = callAt(m, 8).mutable_buffers();
       buffers->GetMutableObject(2)->mutable_address().mutate_index(70);
     },
     "step 8 (call 'test.matmul'): buffer 2: tensor index 70 is out of "
     "range"},
    // Format 1.2: what a crafted file with valid checksums cannot do.
    {"arena shrunk below a launch's extent",
     [](fb::Manifest &m) { ASSERT_TRUE(m.mutate_arena_bytes(4000)); },
     "step 6 (launch 'k1_reduce') arg 0: pointer range [arena+0, +4096 "
     "bytes) is outside the arena (4000 bytes)"},
    {"tensor shape shrunk below a launch's extent",
     [](fb::Manifest &m) {
       m.mutable_tensors()->GetMutableObject(4)->mutable_shape()->Mutate(1, 3);
     },
     "step 2 (launch 'k0_generic') arg 2: pointer range [tensor4+0, +24 "
     "bytes) is outside tensor 4 'y' (18 bytes)"},
    {"extent grown past the arena",
     [](fb::Manifest &m) { extentAt(m, 6, 0).mutate_extent(4097); },
     "step 6 (launch 'k1_reduce') arg 0: pointer range [arena+0, +4097 "
     "bytes) is outside the arena (4096 bytes)"},
    {"pointer moved past the end of a tensor",
     [](fb::Manifest &m) {
       auto *args = launchAt(m, 6).mutable_args();
       args->GetMutableObject(2)->mutable_address().mutate_offset(9);
     },
     "step 6 (launch 'k1_reduce') arg 2: pointer range [tensor2+9, +8 "
     "bytes) is outside tensor 2 'indices' (16 bytes)"},
    {"a write into the weights",
     [](fb::Manifest &m) {
       extentAt(m, 2, 1).mutate_access(fb::ArgAccess::Write);
     },
     "step 2 (launch 'k0_generic') arg 1: pointer weights+16 has access "
     "write into the weights, which steps may not write"},
    {"unknown access",
     [](fb::Manifest &m) {
       extentAt(m, 3, 0).mutate_access(static_cast<fb::ArgAccess>(200));
     },
     "step 3 (launch 'k1_reduce') arg 0 has access 200, expected none (0)"},
    {"argument kind changed",
     [](fb::Manifest &m) {
       launchAt(m, 2).mutable_args()->GetMutableObject(3)->mutate_kind(
           fb::ArgKind::I64);
     },
     "step 2 (launch 'k0_generic') arg 3 is i64, expected i32: kernel 0 "
     "'k0_generic' takes (pointer, pointer, pointer, i32, i64, f32)"},
    {"parameter kind changed",
     [](fb::Manifest &m) {
       m.mutable_kernels()->GetMutableObject(1)->mutable_params()->Mutate(
           0, fb::ArgKind::F32);
     },
     "step 3 (launch 'k1_reduce') arg 0 is pointer, expected f32: kernel 1 "
     "'k1_reduce' takes (f32, pointer, pointer)"},
    {"unknown parameter kind",
     [](fb::Manifest &m) {
       m.mutable_kernels()->GetMutableObject(0)->mutable_params()->Mutate(
           5, static_cast<fb::ArgKind>(9));
     },
     "kernel 0 'k0_generic' parameter 5 has kind 9"},
    // Format 1.3: a launch's integer against its kernel's bounds.
    {"launch count raised",
     [](fb::Manifest &m) {
       launchAt(m, 2).mutable_args()->GetMutableObject(3)->mutate_bits(7);
     },
     "step 2 (launch 'k0_generic') arg 3 (i32) is 7: the kernel may touch "
     "112 bytes through arg 0 (0 + 7 x 16), more than its extent of 96 "
     "bytes (kernel 0 'k0_generic' bound 0)"},
    {"bound's max lowered",
     [](fb::Manifest &m) { boundAt(m, 0, 0).mutate_max(5); },
     "step 2 (launch 'k0_generic') arg 3 (i32) is 6, expected 0..5"},
    {"bytes per unit raised",
     [](fb::Manifest &m) { boundAt(m, 0, 0).mutate_bytes_per_unit(17); },
     "step 2 (launch 'k0_generic') arg 3 (i32) is 6: the kernel may touch "
     "102 bytes through arg 0"},
    {"bound moved to a pointer parameter",
     [](fb::Manifest &m) { boundAt(m, 0, 1).mutate_param(2); },
     "kernel 0 'k0_generic' bound 1 is on parameter 2, expected an i32 or "
     "i64 parameter"},
    {"bound through a float",
     [](fb::Manifest &m) { boundAt(m, 0, 0).mutate_pointer(5); },
     "kernel 0 'k0_generic' bound 0 (parameter 3) names parameter 5 as its "
     "pointer"},
    {"arena of 2^63 bytes",
     [](fb::Manifest &m) {
       ASSERT_TRUE(m.mutate_arena_bytes(uint64_t(1) << 63));
     },
     "the arena is 9223372036854775808 bytes, expected at most "
     "1099511627776 (1 TiB)"},
    {"4 GiB of shared memory",
     [](fb::Manifest &m) {
       ASSERT_TRUE(launchAt(m, 2).mutate_shared_memory_bytes(UINT32_MAX));
     },
     "step 2 (launch 'k0_generic'): 4294967295 bytes of dynamic shared "
     "memory, expected at most 232448"},
    {"image points at the weights section",
     [](fb::Manifest &m) {
       ASSERT_TRUE(m.mutable_images()->GetMutableObject(0)->mutate_section(2));
     },
     "image 0 refers to section 2 'weights' of kind 1, expected kernel image "
     "(0)"},
    {"image section out of range",
     [](fb::Manifest &m) {
       ASSERT_TRUE(m.mutable_images()->GetMutableObject(1)->mutate_section(3));
     },
     "image 1 refers to section 3, but the plan has 3 section(s)"},
    {"two images share a section",
     [](fb::Manifest &m) {
       ASSERT_TRUE(m.mutable_images()->GetMutableObject(1)->mutate_section(0));
     },
     "image 1 refers to section 0 'image0', which is already in use"},
    {"weights section out of range",
     [](fb::Manifest &m) { ASSERT_TRUE(m.mutate_weights_section(5)); },
     "weights_section refers to section 5, but the plan has 3 section(s)"},
    {"unused section",
     [](fb::Manifest &m) { ASSERT_TRUE(m.mutate_weights_section(-1)); },
     "section 2 'weights' is not used by any image or as the weights"},
    {"misaligned section",
     [](fb::Manifest &m) {
       auto *s = m.mutable_sections()->GetMutableObject(1);
       ASSERT_TRUE(s->mutate_offset(s->offset() + 8));
     },
     "section 1 'image1' starts at offset"},
    {"section past the end",
     [](fb::Manifest &m) {
       ASSERT_TRUE(m.mutable_sections()->GetMutableObject(2)->mutate_size(
           uint64_t(1) << 40));
     },
     "section 2 'weights' ["},
    {"overlapping sections",
     [](fb::Manifest &m) {
       auto *s = m.mutable_sections()->GetMutableObject(1);
       ASSERT_TRUE(s->mutate_offset(s->offset() - 256));
     },
     "section 1 'image1' starts at offset"},
    {"image arch not listed",
     [](fb::Manifest &m) {
       ASSERT_TRUE(m.mutable_images()->GetMutableObject(1)->mutate_arch(100));
     },
     "image 1 (sm_100 cubin): arch 100 is not listed in compatibility.archs "
     "[80,90]"},
};

TEST(PlanRead, TamperedManifestsWithValidChecksums) {
  const std::string original = writeOrDie(makeFullPlan());
  for (const TamperCase &c : kTamperCases) {
    SCOPED_TRACE(c.name);
    std::string file = original;
    c.tamper(*mutableManifest(file));
    ASSERT_NE(file, original) << "the tampering changed nothing";
    fixCrcs(file);
    Status s = readError(file);
    EXPECT_EQ(s.code(), StatusCode::InvalidPlan);
    EXPECT_THAT(s.message(), HasSubstr(c.message));
  }
}

} // namespace
