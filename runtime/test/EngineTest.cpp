//===- EngineTest.cpp - engines and contexts on the fake driver -*- C++ -*-===//
//
// Runtime, Engine and ExecutionContext against FakeCudaDriver.c, whose device
// memory is host memory and whose "fake_add_f32" kernel really runs: image
// selection and its errors, driver version checks, module and kernel
// lookup, weights upload, the host copies freed after it, tensor binding and
// its errors, argument packing, an end-to-end numeric check, concurrent
// contexts, custom allocators, and that everything is released.
//
//===----------------------------------------------------------------------===//

#include "FakeEngine.h"
#include "PlanTestUtil.h"
#include "kiln/runtime/Runtime.h"
#include "plan_generated.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

using namespace kiln::rt;
using namespace kiln::rt::test;
using ::testing::HasSubstr;

namespace {

/// Device memory from the host heap, which the fake driver's device memory
/// is too.
class CountingAllocator : public GpuAllocator {
public:
  StatusOr<uint64_t> allocate(uint64_t bytes, uint64_t alignment) override {
    uint64_t rounded = (bytes + alignment - 1) / alignment * alignment;
    void *memory = std::aligned_alloc(alignment, rounded);
    if (!memory)
      return Status(StatusCode::DriverError, "out of host memory");
    ++allocations;
    ++live;
    return reinterpret_cast<uint64_t>(memory);
  }
  void free(uint64_t ptr) override {
    std::free(reinterpret_cast<void *>(ptr));
    --live;
  }
  int allocations = 0, live = 0;
};

//===----------------------------------------------------------------------===//
// Choosing and loading the code
//===----------------------------------------------------------------------===//

TEST_F(FakeEngineTest, CreatesRuntimeOnTheFakeDevice) {
  int refs = contextRefs();
  {
    auto rt = runtime();
    ASSERT_TRUE(rt);
    EXPECT_EQ(rt->device().name, "Kiln Fake GPU");
    EXPECT_EQ(rt->device().smArch(), "sm_90");
    EXPECT_EQ(contextRefs(), refs + 1);
    EXPECT_TRUE(logger_.saw(Logger::Severity::Info, "'Kiln Fake GPU' (sm_90"));
  }
  EXPECT_EQ(contextRefs(), refs);
}

TEST_F(FakeEngineTest, MissingArchIsUnsupportedAndNamesBoth) {
  setenv("KILN_FAKE_CUDA_CC", "80", 1);
  auto rt = runtime();
  ASSERT_TRUE(rt);
  PlanContents plan = addPlan(16, std::vector<float>(16));
  plan.compatibility.archs = {90};
  plan.images = {image(KernelImage::Format::Cubin, 90, kAddModule)};
  int modules = liveModules();
  auto engine = load(*rt, plan);
  ASSERT_FALSE(engine.isOk());
  EXPECT_EQ(engine.status().code(), StatusCode::UnsupportedPlan);
  EXPECT_EQ(engine.status().message(),
            "plan has code for sm_90 (cubin); device 0 'Kiln Fake GPU' is "
            "sm_80");
  EXPECT_EQ(liveModules(), modules);
}

TEST_F(FakeEngineTest, MissingArchListsEveryImage) {
  setenv("KILN_FAKE_CUDA_CC", "75", 1);
  auto rt = runtime();
  ASSERT_TRUE(rt);
  PlanContents plan = addPlan(16, std::vector<float>(16));
  plan.compatibility.archs = {80, 90};
  plan.images = {image(KernelImage::Format::PTX, 90, kAddModule),
                 image(KernelImage::Format::Cubin, 90, kAddModule),
                 image(KernelImage::Format::Cubin, 80, kAddModule)};
  auto engine = load(*rt, plan);
  ASSERT_FALSE(engine.isOk());
  EXPECT_EQ(engine.status().message(),
            "plan has code for sm_80, sm_90 (cubin), compute_90 (PTX); device "
            "0 'Kiln Fake GPU' is sm_75");
}

TEST_F(FakeEngineTest, PicksTheBestImage) {
  PlanContents plan = addPlan(16, std::vector<float>(16));
  plan.compatibility.archs = {80, 86, 90};
  plan.images = {image(KernelImage::Format::Cubin, 80, kAddModule),
                 image(KernelImage::Format::Cubin, 86, kAddModule),
                 image(KernelImage::Format::PTX, 90, kAddModule),
                 image(KernelImage::Format::PTX, 80, kAddModule)};
  struct {
    const char *capability;
    int image;
  } cases[] = {{"80", 0}, {"86", 1}, {"89", 1}, {"90", 2}, {"120", 2}};
  for (const auto &c : cases) {
    SCOPED_TRACE(c.capability);
    setenv("KILN_FAKE_CUDA_CC", c.capability, 1);
    auto rt = runtime();
    ASSERT_TRUE(rt);
    auto engine = load(*rt, plan);
    ASSERT_TRUE(engine.isOk()) << engine.status().toString();
    EXPECT_EQ((*engine)->imageIndex(), c.image);
  }
}

TEST_F(FakeEngineTest, PtxRunsOnNewerDevices) {
  auto rt = runtime(); // sm_90
  ASSERT_TRUE(rt);
  auto engine = load(*rt, addPlan(16, std::vector<float>(16)));
  ASSERT_TRUE(engine.isOk()) << engine.status().toString();
  EXPECT_EQ((*engine)->imageIndex(), 0);
  EXPECT_TRUE(logger_.saw(Logger::Severity::Info,
                          "engine: the compute_80 PTX (image 0)"));
  // The JIT compiler's information log is passed on.
  EXPECT_TRUE(
      logger_.saw(Logger::Severity::Verbose, "fake ptxas info: module loaded"));
}

TEST_F(FakeEngineTest, DriverTooOld) {
  setenv("KILN_FAKE_CUDA_DRIVER", "12040", 1);
  auto rt = runtime();
  ASSERT_TRUE(rt);
  PlanContents plan = addPlan(16, std::vector<float>(16));
  plan.compatibility.minDriverVersion = 12080;
  auto engine = load(*rt, plan);
  ASSERT_FALSE(engine.isOk());
  EXPECT_EQ(engine.status().code(), StatusCode::UnsupportedPlan);
  EXPECT_EQ(engine.status().message(),
            std::string("the plan needs CUDA driver 12.8 (12080) or newer; the "
                        "driver '") +
                KILN_FAKE_CUDA + "' is 12.4 (12040)");
}

TEST_F(FakeEngineTest, KernelMissingFromTheModule) {
  auto rt = runtime();
  ASSERT_TRUE(rt);
  PlanContents plan = addPlan(16, std::vector<float>(16));
  plan.kernels.push_back(kernel("fake_missing", {}));
  int modules = liveModules();
  auto engine = load(*rt, plan);
  ASSERT_FALSE(engine.isOk());
  EXPECT_EQ(engine.status().code(), StatusCode::InvalidPlan);
  EXPECT_EQ(engine.status().message(),
            "kernel 'fake_missing' (kernel 1) is not in the compute_80 PTX "
            "(image 0): cuModuleGetFunction failed with CUDA_ERROR_NOT_FOUND "
            "(named symbol not found)");
  EXPECT_EQ(liveModules(), modules); // unloaded again
}

TEST_F(FakeEngineTest, ModuleThatDoesNotLoadReportsTheJitLog) {
  auto rt = runtime();
  ASSERT_TRUE(rt);
  PlanContents plan = addPlan(16, std::vector<float>(16));
  plan.images[0].data = ".entry fake_add_f32() {}";
  auto engine = load(*rt, plan);
  ASSERT_FALSE(engine.isOk());
  EXPECT_EQ(engine.status().code(), StatusCode::DriverError);
  EXPECT_EQ(engine.status().message(),
            "loading the compute_80 PTX (image 0) failed: cuModuleLoadDataEx "
            "failed with CUDA_ERROR_INVALID_PTX (a PTX JIT compilation "
            "failed); JIT log:\nfake ptxas fatal: the image lacks the "
            "'kiln-fake-module' marker");
}

TEST_F(FakeEngineTest, CorruptPlanIsRefusedBeforeAnythingIsLoaded) {
  auto rt = runtime();
  ASSERT_TRUE(rt);
  auto file = writePlan(addPlan(16, std::vector<float>(16)));
  ASSERT_TRUE(file.isOk());
  (*file)[file->size() - 3] ^= 0x40;
  int modules = liveModules(), allocations = liveAllocations();
  auto engine = (*rt).deserializeEngine(file->data(), file->size());
  ASSERT_FALSE(engine.isOk());
  EXPECT_EQ(engine.status().code(), StatusCode::InvalidPlan);
  EXPECT_THAT(engine.status().message(), HasSubstr("body checksum mismatch"));
  EXPECT_EQ(liveModules(), modules);
  EXPECT_EQ(liveAllocations(), allocations);
}

// A launch whose element count is larger than its buffers' extents (with
// valid checksums: what a hostile file holds) would make the stand-in's
// fake_add_f32 read and write past them. Its kernel's bounds refuse it at
// load, before any module is loaded or memory allocated; the same plan
// untampered loads.
TEST_F(FakeEngineTest, LaunchCountPastItsBuffersIsRefusedAtLoad) {
  auto rt = runtime();
  ASSERT_TRUE(rt);
  auto file = writePlan(addPlan(16, std::vector<float>(16)));
  ASSERT_TRUE(file.isOk());
  std::string tampered = *file;
  auto *manifest = fb::GetMutableManifest(&tampered[64]);
  auto *launch = const_cast<fb::LaunchStep *>(
      manifest->mutable_steps()->GetMutableObject(2)->step_as_LaunchStep());
  ASSERT_NE(launch, nullptr);
  ASSERT_EQ(launch->args()->Get(3)->bits(), 16u);
  launch->mutable_args()->GetMutableObject(3)->mutate_bits(64);
  fixCrcs(tampered);
  int modules = liveModules(), allocations = liveAllocations();
  int launches = launchCount();
  auto engine = (*rt).deserializeEngine(tampered.data(), tampered.size());
  ASSERT_FALSE(engine.isOk());
  EXPECT_EQ(engine.status().code(), StatusCode::InvalidPlan);
  EXPECT_EQ(engine.status().message(),
            "step 2 (launch 'fake_add_f32') arg 3 (i64) is 64: the kernel may "
            "touch 256 bytes through arg 0 (0 + 64 x 4), more than its extent "
            "of 64 bytes (kernel 0 'fake_add_f32' bound 0)");
  EXPECT_EQ(liveModules(), modules);
  EXPECT_EQ(liveAllocations(), allocations);
  EXPECT_EQ(launchCount(), launches);
  auto untampered = (*rt).deserializeEngine(file->data(), file->size());
  EXPECT_TRUE(untampered.isOk()) << untampered.status().toString();
}

TEST_F(FakeEngineTest, PlanWithoutKernelsNeedsNoImage) {
  auto rt = runtime();
  ASSERT_TRUE(rt);
  PlanContents plan;
  plan.tensors = {{"in", DataType::I32, {4}, true},
                  {"out", DataType::I32, {4}, false}};
  plan.steps = {copyStep(tensor(1, 0), tensor(0, 0), 16)};
  auto engine = load(*rt, plan);
  ASSERT_TRUE(engine.isOk()) << engine.status().toString();
  EXPECT_EQ((*engine)->imageIndex(), -1);
  auto context = (*engine)->createExecutionContext();
  ASSERT_TRUE(context.isOk());
  int32_t in[4] = {1, -2, 3, -4}, out[4] = {};
  ASSERT_TRUE((*context)->setTensorAddress("in", uint64_t(uintptr_t(in))));
  ASSERT_TRUE((*context)->setTensorAddress("out", uint64_t(uintptr_t(out))));
  ASSERT_TRUE((*context)->execute());
  EXPECT_EQ(std::memcmp(in, out, sizeof(in)), 0);
}

//===----------------------------------------------------------------------===//
// Binding and running
//===----------------------------------------------------------------------===//

TEST_F(FakeEngineTest, TensorQueries) {
  auto rt = runtime();
  ASSERT_TRUE(rt);
  auto engine = load(*rt, addPlan(16, std::vector<float>(16)));
  ASSERT_TRUE(engine.isOk());
  EXPECT_EQ((*engine)->numTensors(), 3);
  EXPECT_EQ((*engine)->findTensor("b"), 1);
  EXPECT_EQ((*engine)->findTensor("nope"), -1);
  EXPECT_EQ((*engine)->tensor(2).name, "out");
  EXPECT_FALSE((*engine)->tensor(2).isInput);
  EXPECT_EQ((*engine)->deviceMemorySize(), 256u);
  EXPECT_EQ((*engine)->plan().kernels[0].name, "fake_add_f32");
}

// After deserializeEngine the device has the code and the weights: the
// engine keeps no host copy of either, and still runs.
TEST_F(FakeEngineTest, HostCopiesAreFreedAfterUpload) {
  auto rt = runtime();
  ASSERT_TRUE(rt);
  const int64_t n = 1000;
  std::vector<float> w = randomFloats(n, 41);
  PlanContents plan = addPlan(n, w);
  plan.compatibility.archs = {80, 90};
  plan.images.push_back(image(KernelImage::Format::Cubin, 90,
                              std::string(kAddModule) + "// sm_90\n"));
  auto engine = load(*rt, plan);
  ASSERT_TRUE(engine.isOk()) << engine.status().toString();
  const Engine &e = **engine;
  EXPECT_EQ(e.imageIndex(), 1); // the cubin
  ASSERT_EQ(e.plan().images.size(), 2u);
  const size_t empty = std::string().capacity();
  for (int i = 0; i < 2; ++i) {
    SCOPED_TRACE(i);
    EXPECT_TRUE(e.plan().images[i].data.empty());
    EXPECT_LE(e.plan().images[i].data.capacity(), empty); // freed
    EXPECT_EQ(e.imageBytes(i), plan.images[i].data.size());
    EXPECT_EQ(e.plan().images[i].arch, plan.images[i].arch);
  }
  EXPECT_EQ(e.imageBytes(2), 0u);
  EXPECT_EQ(e.imageBytes(-1), 0u);
  EXPECT_TRUE(e.plan().weights.empty());
  EXPECT_LE(e.plan().weights.capacity(), empty);
  EXPECT_EQ(e.weightsBytes(), n * sizeof(float));
  // Everything else is still described.
  EXPECT_EQ(e.plan().steps.size(), 3u);
  EXPECT_EQ(e.plan().kernels[0].name, "fake_add_f32");
  EXPECT_EQ(e.plan().tensors[2].name, "out");
  EXPECT_TRUE(logger_.saw(Logger::Severity::Info, "4000 bytes of weights"));

  // And it runs: fake_add_f32 reads the weights uploaded before the free.
  auto context = (*engine)->createExecutionContext();
  ASSERT_TRUE(context.isOk());
  AddBuffers io{randomFloats(n, 42), randomFloats(n, 43),
                std::vector<float>(n, 0.0f)};
  for (auto [name, v] : {std::pair{"a", &io.a}, {"b", &io.b}, {"out", &io.out}})
    ASSERT_TRUE(
        (*context)->setTensorAddress(name, uint64_t(uintptr_t(v->data()))));
  ASSERT_TRUE((*context)->execute());
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(io.out[i], (io.a[i] + w[i]) + io.b[i]) << "at " << i;
}

TEST_F(FakeEngineTest, UnboundTensorOnEnqueue) {
  auto rt = runtime();
  ASSERT_TRUE(rt);
  auto engine = load(*rt, addPlan(16, std::vector<float>(16)));
  ASSERT_TRUE(engine.isOk());
  auto context = (*engine)->createExecutionContext();
  ASSERT_TRUE(context.isOk());
  std::vector<float> a(16);
  ASSERT_TRUE((*context)->setTensorAddress("a", uint64_t(uintptr_t(a.data()))));
  int launches = launchCount();
  Status s = (*context)->enqueue(nullptr);
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument);
  EXPECT_EQ(s.message(), "tensor 'b' (input), 'out' (output) have no address: "
                         "call setTensorAddress before enqueue");
  ASSERT_TRUE((*context)->setTensorAddress("b", uint64_t(uintptr_t(a.data()))));
  s = (*context)->enqueue(nullptr);
  EXPECT_EQ(s.message(), "tensor 'out' (output) has no address: call "
                         "setTensorAddress before enqueue");
  EXPECT_EQ(launchCount(), launches);
}

TEST_F(FakeEngineTest, UnknownTensorName) {
  auto rt = runtime();
  ASSERT_TRUE(rt);
  auto engine = load(*rt, addPlan(16, std::vector<float>(16)));
  ASSERT_TRUE(engine.isOk());
  auto context = (*engine)->createExecutionContext();
  ASSERT_TRUE(context.isOk());
  Status s = (*context)->setTensorAddress("input", 4096);
  EXPECT_EQ(s.code(), StatusCode::NotFound);
  EXPECT_EQ(s.message(), "the engine has no tensor named 'input'; its tensors "
                         "are 'a' (input), 'b' (input), 'out' (output)");
  EXPECT_EQ((*context)->tensorAddress("input"), 0u);
}

TEST_F(FakeEngineTest, BadTensorAddresses) {
  auto rt = runtime();
  ASSERT_TRUE(rt);
  auto engine = load(*rt, addPlan(16, std::vector<float>(16)));
  ASSERT_TRUE(engine.isOk());
  auto context = (*engine)->createExecutionContext();
  ASSERT_TRUE(context.isOk());
  Status s = (*context)->setTensorAddress("a", 0);
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument);
  EXPECT_EQ(s.message(), "null address for tensor 'a' (64 bytes)");
  s = (*context)->setTensorAddress("a", 4098);
  EXPECT_EQ(s.message(), "address 4098 of tensor 'a' is not a multiple of its "
                         "element size (4 bytes, f32)");
  ASSERT_TRUE((*context)->setTensorAddress("a", 4096));
  EXPECT_EQ((*context)->tensorAddress("a"), 4096u);
}

TEST_F(FakeEngineTest, DeviceMemoryRules) {
  auto rt = runtime();
  ASSERT_TRUE(rt);
  auto engine = load(*rt, addPlan(16, std::vector<float>(16)));
  ASSERT_TRUE(engine.isOk());
  auto context = (*engine)->createExecutionContextWithoutDeviceMemory();
  ASSERT_TRUE(context.isOk());
  std::vector<float> a(16), b(16), out(16);
  ASSERT_TRUE((*context)->setTensorAddress("a", uint64_t(uintptr_t(a.data()))));
  ASSERT_TRUE((*context)->setTensorAddress("b", uint64_t(uintptr_t(b.data()))));
  ASSERT_TRUE(
      (*context)->setTensorAddress("out", uint64_t(uintptr_t(out.data()))));
  Status s = (*context)->enqueue(nullptr);
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument);
  EXPECT_EQ(s.message(), "the context has no device memory: call "
                         "setDeviceMemory with 256 bytes before enqueue");

  auto memory = rt->allocate((*engine)->deviceMemorySize());
  ASSERT_TRUE(memory.isOk());
  s = (*context)->setDeviceMemory(*memory + 8);
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument);
  EXPECT_EQ(s.message(), "device memory at " + std::to_string(*memory + 8) +
                             " is not a multiple of 256 bytes");
  EXPECT_EQ((*context)->setDeviceMemory(0).message(),
            "device memory is null; the engine needs 256 bytes");
  ASSERT_TRUE((*context)->setDeviceMemory(*memory));
  EXPECT_EQ((*context)->deviceMemory(), *memory);
  EXPECT_TRUE((*context)->execute());

  auto owning = (*engine)->createExecutionContext();
  ASSERT_TRUE(owning.isOk());
  EXPECT_NE((*owning)->deviceMemory(), 0u);
  EXPECT_THAT((*owning)->setDeviceMemory(*memory).message(),
              HasSubstr("this context allocated its own device memory"));
  context->reset();
  rt->free(*memory);
}

TEST_F(FakeEngineTest, WeightsAreUploaded) {
  auto rt = runtime();
  ASSERT_TRUE(rt);
  PlanContents plan;
  plan.tensors = {{"out", DataType::I8, {200}, false}};
  for (int i = 0; i < 300; ++i)
    plan.weights.push_back(static_cast<char>(i * 37 + 11));
  plan.steps = {copyStep(tensor(0, 0), weights(100), 200)};
  auto engine = load(*rt, plan);
  ASSERT_TRUE(engine.isOk()) << engine.status().toString();
  auto context = (*engine)->createExecutionContext();
  ASSERT_TRUE(context.isOk());
  auto out = rt->allocate(200);
  ASSERT_TRUE(out.isOk());
  ASSERT_TRUE(rt->memset(*out, 0, 200));
  ASSERT_TRUE((*context)->setTensorAddress("out", *out));
  ASSERT_TRUE((*context)->execute());
  std::string host(200, '\0');
  ASSERT_TRUE(rt->copyToHost(&host[0], *out, 200));
  EXPECT_EQ(host, plan.weights.substr(100, 200));
  rt->free(*out);
}

TEST_F(FakeEngineTest, FillStepsFill) {
  auto rt = runtime();
  ASSERT_TRUE(rt);
  PlanContents plan;
  plan.tensors = {{"out", DataType::I8, {64}, false}};
  plan.steps = {fillStep(tensor(0, 0), 64, 0x5A), fillStep(tensor(0, 8), 8, 1),
                fillStep(tensor(0, 64), 0, 7)};
  auto engine = load(*rt, plan);
  ASSERT_TRUE(engine.isOk()) << engine.status().toString();
  auto context = (*engine)->createExecutionContext();
  ASSERT_TRUE(context.isOk());
  std::vector<uint8_t> out(64);
  ASSERT_TRUE(
      (*context)->setTensorAddress("out", uint64_t(uintptr_t(out.data()))));
  ASSERT_TRUE((*context)->execute());
  for (int i = 0; i < 64; ++i)
    EXPECT_EQ(out[i], i >= 8 && i < 16 ? 1 : 0x5A) << i;
}

TEST_F(FakeEngineTest, LaunchParametersArePacked) {
  auto rt = runtime();
  ASSERT_TRUE(rt);
  PlanContents plan;
  plan.compatibility.archs = {90};
  plan.tensors = {{"x", DataType::F32, {64}, true}};
  plan.kernels = {kernel("scale", {kPtr, kF32, kI32, kI64})};
  // Integers that size nothing: any value.
  plan.kernels[0].bounds = {rangeBound(2, INT32_MIN, INT32_MAX),
                            rangeBound(3, INT64_MIN, INT64_MAX)};
  plan.images = {image(KernelImage::Format::Cubin, 90, kAddModule)};
  plan.weights = std::string(512, '\1');
  plan.arenaBytes = 1024;
  plan.steps = {launchStep(0, {3, 2, 1}, {64, 2, 1},
                           {pointerArg(tensor(0, 8), 248, kReadWrite),
                            f32Arg(2.5f), i32Arg(-3), i64Arg(int64_t(1) << 40)},
                           512),
                launchStep(0, {1, 1, 1}, {1, 1, 1},
                           {pointerArg(arena(128), 64, kReadWrite),
                            f32Arg(-1.0f), i32Arg(7), i64Arg(-2)}),
                launchStep(0, {1, 1, 1}, {1, 1, 1},
                           {pointerArg(weights(256), 256, kRead), f32Arg(0.0f),
                            i32Arg(0), i64Arg(0)})};
  // One engine per step, to see each launch's parameters.
  for (size_t s = 0; s < plan.steps.size(); ++s) {
    SCOPED_TRACE(s);
    PlanContents one = plan;
    one.steps = {plan.steps[s]};
    auto engine = load(*rt, one);
    ASSERT_TRUE(engine.isOk()) << engine.status().toString();
    auto context = (*engine)->createExecutionContext();
    ASSERT_TRUE(context.isOk());
    ASSERT_TRUE((*context)->setTensorAddress("x", 0x10000));
    int launches = launchCount();
    ASSERT_TRUE((*context)->enqueue(nullptr));
    ASSERT_EQ(launchCount(), launches + 1);
    EXPECT_STREQ(lastKernel(), "scale");
    ASSERT_EQ(lastNumParams(), 4);
    const std::vector<KernelArg> &args = plan.steps[s].launch.args;
    if (s == 0) {
      EXPECT_EQ(lastParam(0), 0x10000u + 8);
    } else if (s == 1) {
      EXPECT_EQ(lastParam(0), (*context)->deviceMemory() + 128);
    } else {
      // weights+256: inside the uploaded weights, 256 past a 256-byte
      // aligned start (fake device memory is host memory).
      EXPECT_EQ(lastParam(0) % 256, 0u);
      EXPECT_EQ(*reinterpret_cast<const char *>(uintptr_t(lastParam(0))), 1);
    }
    // Immediates: the low 4 bytes for f32 and i32, all 8 for i64.
    EXPECT_EQ(lastParam(1), args[1].bits);
    EXPECT_EQ(lastParam(2), args[2].bits);
    EXPECT_EQ(lastParam(3), args[3].bits);
    if (s == 0) {
      unsigned grid[3], block[3], shared;
      lastDims(grid, block, &shared);
      EXPECT_EQ(grid[0], 3u);
      EXPECT_EQ(grid[1], 2u);
      EXPECT_EQ(grid[2], 1u);
      EXPECT_EQ(block[0], 64u);
      EXPECT_EQ(block[1], 2u);
      EXPECT_EQ(shared, 512u);
      // Rebinding patches the address for the next enqueue.
      ASSERT_TRUE((*context)->setTensorAddress("x", 0x20000));
      ASSERT_TRUE((*context)->enqueue(nullptr));
      EXPECT_EQ(lastParam(0), 0x20000u + 8);
    }
  }
  auto engine = load(*rt, plan);
  ASSERT_TRUE(engine.isOk());
  auto context = (*engine)->createExecutionContext();
  ASSERT_TRUE(context.isOk());
  ASSERT_TRUE((*context)->setTensorAddress("x", 0x10000));
  int launches = launchCount();
  ASSERT_TRUE((*context)->enqueue(nullptr));
  EXPECT_EQ(launchCount(), launches + 3);
}

TEST_F(FakeEngineTest, EndToEndAddMatchesTheHost) {
  auto rt = runtime();
  ASSERT_TRUE(rt);
  const int64_t n = 1000;
  std::vector<float> a = randomFloats(n, 1), b = randomFloats(n, 2),
                     w = randomFloats(n, 3);
  auto engine = load(*rt, addPlan(n, w));
  ASSERT_TRUE(engine.isOk()) << engine.status().toString();
  auto context = (*engine)->createExecutionContext();
  ASSERT_TRUE(context.isOk());

  uint64_t bytes = n * sizeof(float);
  auto da = rt->allocate(bytes), db = rt->allocate(bytes),
       dout = rt->allocate(bytes);
  ASSERT_TRUE(da.isOk() && db.isOk() && dout.isOk());
  ASSERT_TRUE(rt->copyToDevice(*da, a.data(), bytes));
  ASSERT_TRUE(rt->copyToDevice(*db, b.data(), bytes));
  ASSERT_TRUE(rt->memset(*dout, 0xFF, bytes));
  ASSERT_TRUE((*context)->setTensorAddress("a", *da));
  ASSERT_TRUE((*context)->setTensorAddress("b", *db));
  ASSERT_TRUE((*context)->setTensorAddress("out", *dout));

  auto stream = rt->createStream();
  ASSERT_TRUE(stream.isOk());
  auto start = rt->createEvent(), end = rt->createEvent();
  ASSERT_TRUE(start.isOk() && end.isOk());
  ASSERT_TRUE(rt->recordEvent(*start, *stream));
  ASSERT_TRUE((*context)->enqueue(*stream));
  ASSERT_TRUE(rt->recordEvent(*end, *stream));
  auto ms = rt->elapsedMs(*start, *end);
  ASSERT_TRUE(ms.isOk());
  EXPECT_GE(*ms, 0.0f);
  ASSERT_TRUE(rt->synchronize(*stream));

  std::vector<float> out(n);
  ASSERT_TRUE(rt->copyToHost(out.data(), *dout, bytes));
  // The same float additions in the same order: exact (tolerance 0).
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(out[i], (a[i] + w[i]) + b[i]) << "at " << i;

  EXPECT_TRUE(rt->destroyEvent(*start));
  EXPECT_TRUE(rt->destroyEvent(*end));
  EXPECT_TRUE(rt->destroyStream(*stream));
  rt->free(*da);
  rt->free(*db);
  rt->free(*dout);
}

TEST_F(FakeEngineTest, TwoContextsWithTheirOwnArenas) {
  auto rt = runtime();
  ASSERT_TRUE(rt);
  const int64_t n = 300;
  std::vector<float> w = randomFloats(n, 4);
  auto engine = load(*rt, addPlan(n, w));
  ASSERT_TRUE(engine.isOk()) << engine.status().toString();
  auto first = (*engine)->createExecutionContext();
  auto second = (*engine)->createExecutionContextWithoutDeviceMemory();
  ASSERT_TRUE(first.isOk() && second.isOk());
  auto arena = rt->allocate((*engine)->deviceMemorySize());
  ASSERT_TRUE(arena.isOk());
  ASSERT_TRUE((*second)->setDeviceMemory(*arena));
  EXPECT_NE((*first)->deviceMemory(), (*second)->deviceMemory());

  AddBuffers buffers[2];
  ExecutionContext *contexts[2] = {first->get(), second->get()};
  void *streams[2];
  for (int c = 0; c < 2; ++c) {
    buffers[c].a = randomFloats(n, 10 + c);
    buffers[c].b = randomFloats(n, 20 + c);
    buffers[c].out.assign(n, 0.0f);
    ASSERT_TRUE(contexts[c]->setTensorAddress(
        "a", uint64_t(uintptr_t(buffers[c].a.data()))));
    ASSERT_TRUE(contexts[c]->setTensorAddress(
        "b", uint64_t(uintptr_t(buffers[c].b.data()))));
    ASSERT_TRUE(contexts[c]->setTensorAddress(
        "out", uint64_t(uintptr_t(buffers[c].out.data()))));
    auto stream = rt->createStream();
    ASSERT_TRUE(stream.isOk());
    streams[c] = *stream;
  }
  for (int c = 0; c < 2; ++c)
    ASSERT_TRUE(contexts[c]->enqueue(streams[c]));
  for (int c = 0; c < 2; ++c) {
    ASSERT_TRUE(rt->synchronize(streams[c]));
    EXPECT_TRUE(rt->destroyStream(streams[c]));
    for (int64_t i = 0; i < n; ++i)
      ASSERT_EQ(buffers[c].out[i], (buffers[c].a[i] + w[i]) + buffers[c].b[i])
          << "context " << c << " at " << i;
  }
  second->reset();
  rt->free(*arena);
}

TEST_F(FakeEngineTest, LaunchFailureNamesTheStepAndKernel) {
  auto rt = runtime();
  ASSERT_TRUE(rt);
  auto engine = load(*rt, addPlan(16, std::vector<float>(16)));
  ASSERT_TRUE(engine.isOk());
  auto context = (*engine)->createExecutionContext();
  ASSERT_TRUE(context.isOk());
  std::vector<float> a(16), b(16), out(16);
  ASSERT_TRUE((*context)->setTensorAddress("a", uint64_t(uintptr_t(a.data()))));
  ASSERT_TRUE((*context)->setTensorAddress("b", uint64_t(uintptr_t(b.data()))));
  ASSERT_TRUE(
      (*context)->setTensorAddress("out", uint64_t(uintptr_t(out.data()))));
  setenv("KILN_FAKE_CUDA_LAUNCH_RESULT", "719", 1);
  Status s = (*context)->enqueue(nullptr);
  EXPECT_EQ(s.code(), StatusCode::DriverError);
  EXPECT_EQ(s.message(), "step 1 (launch 'fake_add_f32'): cuLaunchKernel "
                         "failed with CUDA_ERROR_LAUNCH_FAILED (unspecified "
                         "launch failure)");
}

TEST_F(FakeEngineTest, ApplicationAllocator) {
  auto rt = runtime();
  ASSERT_TRUE(rt);
  CountingAllocator allocator;
  rt->setGpuAllocator(&allocator);
  EXPECT_EQ(&rt->gpuAllocator(), &allocator);
  int driverAllocations = liveAllocations();
  {
    auto engine = load(*rt, addPlan(64, randomFloats(64, 5)));
    ASSERT_TRUE(engine.isOk());
    EXPECT_EQ(allocator.live, 1); // the weights
    auto context = (*engine)->createExecutionContext();
    ASSERT_TRUE(context.isOk());
    EXPECT_EQ(allocator.live, 2); // and the arena
    EXPECT_EQ((*context)->deviceMemory() % 256, 0u);
    auto buffer = rt->allocate(100);
    ASSERT_TRUE(buffer.isOk());
    EXPECT_EQ(allocator.live, 3);
    rt->free(*buffer);
  }
  EXPECT_EQ(allocator.live, 0);
  EXPECT_EQ(allocator.allocations, 3);
  EXPECT_EQ(liveAllocations(), driverAllocations);
  rt->setGpuAllocator(nullptr);
  EXPECT_NE(&rt->gpuAllocator(), &allocator);
}

TEST_F(FakeEngineTest, EverythingIsReleased) {
  int allocations = liveAllocations(), modules = liveModules(),
      streams = liveStreams(), events = liveEvents(), refs = contextRefs();
  {
    auto rt = runtime();
    ASSERT_TRUE(rt);
    auto engine = load(*rt, addPlan(64, randomFloats(64, 6)));
    ASSERT_TRUE(engine.isOk());
    auto context = (*engine)->createExecutionContext();
    ASSERT_TRUE(context.isOk());
    std::vector<float> a(64), b(64), out(64);
    ASSERT_TRUE(
        (*context)->setTensorAddress("a", uint64_t(uintptr_t(a.data()))));
    ASSERT_TRUE(
        (*context)->setTensorAddress("b", uint64_t(uintptr_t(b.data()))));
    ASSERT_TRUE(
        (*context)->setTensorAddress("out", uint64_t(uintptr_t(out.data()))));
    ASSERT_TRUE((*context)->execute()); // creates the context's stream
    EXPECT_EQ(liveAllocations(), allocations + 2);
    EXPECT_EQ(liveModules(), modules + 1);
    EXPECT_EQ(liveStreams(), streams + 1);
  }
  EXPECT_EQ(liveAllocations(), allocations);
  EXPECT_EQ(liveModules(), modules);
  EXPECT_EQ(liveStreams(), streams);
  EXPECT_EQ(liveEvents(), events);
  EXPECT_EQ(contextRefs(), refs);
  for (const auto &[severity, message] : logger_.messages)
    EXPECT_NE(severity, Logger::Severity::Error) << message;
}

} // namespace

namespace {
/// Collects what a profiled run reports.
struct RecordingProfiler : Profiler {
  std::vector<std::pair<int, std::string>> steps;
  std::vector<float> times;
  void reportStepTime(int step, const std::string &name, float ms) override {
    steps.push_back({step, name});
    times.push_back(ms);
  }
};
} // namespace

TEST_F(FakeEngineTest, ProfilerGetsEveryStepInOrder) {
  auto rt = runtime();
  ASSERT_TRUE(rt);
  const int64_t n = 300;
  std::vector<float> w = randomFloats(n, 6);
  auto engine = load(*rt, addPlan(n, w));
  ASSERT_TRUE(engine.isOk()) << engine.status().toString();
  auto context = (*engine)->createExecutionContext();
  ASSERT_TRUE(context.isOk());
  // Under the fake driver, host memory is device memory.
  AddBuffers io{randomFloats(n, 4), randomFloats(n, 5),
                std::vector<float>(n, 0.0f)};
  for (auto [name, v] : {std::pair{"a", &io.a}, {"b", &io.b}, {"out", &io.out}})
    ASSERT_TRUE(
        (*context)->setTensorAddress(name, uint64_t(uintptr_t(v->data()))));

  RecordingProfiler profiler;
  (*context)->setProfiler(&profiler);
  for (int run = 0; run < 2; ++run)
    ASSERT_TRUE((*context)->execute());
  std::vector<std::pair<int, std::string>> once = {
      {0, "copy"}, {1, "launch fake_add_f32"}, {2, "launch fake_add_f32"}};
  std::vector<std::pair<int, std::string>> twice = once;
  twice.insert(twice.end(), once.begin(), once.end());
  EXPECT_EQ(profiler.steps, twice);
  for (float ms : profiler.times)
    EXPECT_GE(ms, 0.0f);
  // Profiling changes nothing in the results.
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(io.out[i], (io.a[i] + w[i]) + io.b[i]) << "at " << i;
  // Off again: nothing more is reported.
  (*context)->setProfiler(nullptr);
  ASSERT_TRUE((*context)->execute());
  EXPECT_EQ(profiler.steps.size(), twice.size());
}

// From pageable memory the real cuMemcpyHtoD returns once the bytes are
// staged; work on a non-blocking stream could read the old contents (seen on
// the H200 as a conformance case that failed once in three runs). The fake
// driver stages the same way; copyToDevice must still be complete on return,
// for the inputs and for the weights the engine uploads.
TEST_F(FakeEngineTest, CopyToDeviceIsCompleteOnReturn) {
  setenv("KILN_FAKE_CUDA_STAGED_HTOD", "1", 1);
  auto rt = runtime();
  ASSERT_TRUE(rt);
  const int64_t n = 64;
  std::vector<float> w = randomFloats(n, 7);
  auto engine = load(*rt, addPlan(n, w));
  ASSERT_TRUE(engine.isOk()) << engine.status().toString();
  auto context = (*engine)->createExecutionContext();
  ASSERT_TRUE(context.isOk());
  std::vector<float> a = randomFloats(n, 8), b = randomFloats(n, 9);
  uint64_t bytes = n * sizeof(float);
  auto da = rt->allocate(bytes), db = rt->allocate(bytes),
       dout = rt->allocate(bytes);
  ASSERT_TRUE(da.isOk() && db.isOk() && dout.isOk());
  ASSERT_TRUE(rt->copyToDevice(*da, a.data(), bytes));
  ASSERT_TRUE(rt->copyToDevice(*db, b.data(), bytes));
  ASSERT_TRUE((*context)->setTensorAddress("a", *da));
  ASSERT_TRUE((*context)->setTensorAddress("b", *db));
  ASSERT_TRUE((*context)->setTensorAddress("out", *dout));
  auto stream = rt->createStream();
  ASSERT_TRUE(stream.isOk());
  ASSERT_TRUE((*context)->enqueue(*stream)); // the fake runs kernels at once
  std::vector<float> out(n);
  ASSERT_TRUE(rt->copyToHost(out.data(), *dout, bytes));
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(out[i], (a[i] + w[i]) + b[i]) << "at " << i;
  EXPECT_TRUE(rt->destroyStream(*stream));
  rt->free(*da);
  rt->free(*db);
  rt->free(*dout);
}
