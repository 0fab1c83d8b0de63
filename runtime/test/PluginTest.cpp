//===- PluginTest.cpp - plugins, their registry and plugin steps ----------===//
//
// On the stand-in driver, with TestPlugins.h's TestClip (which computes on
// the host, as the stand-in's device memory is host memory): a plan with a
// plugin step gives numpy-exact results; a creator that is not registered,
// a tampered payload, fields that contradict each other and outputs that
// disagree are refused at load with their reasons; every prefix of a
// payload is refused; the registry; a plugin library loaded with dlopen.
//
//===----------------------------------------------------------------------===//

#include "kiln/runtime/Plugin.h"
#include "FakeEngine.h"
#include "PlanTestUtil.h"
#include "TestPlugins.h"
#include "kiln/runtime/kiln_runtime.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

using namespace kiln::rt;
using namespace kiln::rt::test;
using ::testing::HasSubstr;

namespace {

constexpr int64_t kN = 1000;

PluginCall clipCall(double lower, double upper) {
  StatusOr<PluginCall> call =
      decodePluginCall(clipPlan(kN, lower, upper).steps[0].libraryCall.payload);
  EXPECT_TRUE(call.isOk());
  return *call;
}

/// clipPlan's plan with `payload` as its plugin step's.
PlanContents pluginPlan(const std::string &payload) {
  PlanContents plan = clipPlan(kN, 0, 1);
  plan.steps[0].libraryCall.payload = payload;
  return plan;
}

/// Registers TestClip@1 for one test.
struct ScopedClip {
  ScopedClip() {
    Status s = registerPluginCreator(std::make_shared<ClipCreator>());
    EXPECT_TRUE(s.isOk()) << s.toString();
  }
  ~ScopedClip() {
    EXPECT_TRUE(unregisterPluginCreator("TestClip", "1", "kiln.test"));
  }
};

using PluginTest = FakeEngineTest;

TEST_F(PluginTest, APluginStepRuns) {
  ScopedClip clip;
  auto rt = runtime();
  ASSERT_TRUE(rt);
  auto engine = load(*rt, pluginPlan(encodePluginCall(clipCall(-10, 25))));
  ASSERT_TRUE(engine.isOk()) << engine.status().toString();
  auto context = (*engine)->createExecutionContext();
  ASSERT_TRUE(context.isOk());
  std::vector<float> x = randomFloats(kN, 5), out(kN, 0.0f);
  ASSERT_TRUE((*context)->setTensorAddress("x", uint64_t(uintptr_t(x.data()))));
  ASSERT_TRUE(
      (*context)->setTensorAddress("out", uint64_t(uintptr_t(out.data()))));
  ASSERT_TRUE((*context)->enqueue(nullptr));
  for (int64_t i = 0; i < kN; ++i)
    ASSERT_EQ(out[i], std::min(std::max(x[i], -10.0f), 25.0f)) << i;
}

TEST_F(PluginTest, AMissingCreatorIsRefusedNamingIt) {
  auto rt = runtime();
  ASSERT_TRUE(rt);
  auto engine = load(*rt, pluginPlan(encodePluginCall(clipCall(0, 1))));
  ASSERT_FALSE(engine.isOk());
  EXPECT_EQ(engine.status().code(), StatusCode::UnsupportedPlan);
  EXPECT_THAT(engine.status().message(),
              HasSubstr("plugin 'TestClip' version '1' namespace 'kiln.test' "
                        "is not registered"));
}

TEST_F(PluginTest, TamperedFieldsAreRefusedByTheChecksum) {
  ScopedClip clip;
  auto rt = runtime();
  ASSERT_TRUE(rt);
  std::string payload = encodePluginCall(clipCall(-1, 1));
  // The last field's value (upper = 1.0) sits just before the checksum.
  payload[payload.size() - 6] ^= 0x10;
  auto engine = load(*rt, pluginPlan(payload));
  ASSERT_FALSE(engine.isOk());
  EXPECT_EQ(engine.status().code(), StatusCode::InvalidPlan);
  EXPECT_THAT(engine.status().message(), HasSubstr("checksum"));
}

TEST_F(PluginTest, ContradictoryFieldsAreRefusedByThePlugin) {
  ScopedClip clip;
  auto rt = runtime();
  ASSERT_TRUE(rt);
  auto engine = load(*rt, pluginPlan(encodePluginCall(clipCall(3, 1))));
  ASSERT_FALSE(engine.isOk());
  EXPECT_EQ(engine.status().code(), StatusCode::InvalidPlan);
  EXPECT_THAT(engine.status().message(),
              HasSubstr("refuses the recorded fields: lower 3.000000 > upper "
                        "1.000000"));
}

TEST_F(PluginTest, OutputsAndBuffersThatDisagreeAreRefused) {
  ScopedClip clip;
  auto rt = runtime();
  ASSERT_TRUE(rt);
  PluginCall call = clipCall(0, 1);
  call.outputs[0].dims = {kN / 2};
  auto engine = load(*rt, pluginPlan(encodePluginCall(call)));
  ASSERT_FALSE(engine.isOk());
  EXPECT_THAT(engine.status().message(), HasSubstr("gives outputs"));

  call = clipCall(0, 1);
  call.workspaceBytes = 0; // the plan gives none, the plugin needs some
  PlanContents plan = pluginPlan(encodePluginCall(call));
  plan.steps[0].libraryCall.buffers.pop_back();
  engine = load(*rt, plan);
  ASSERT_FALSE(engine.isOk());
  EXPECT_THAT(engine.status().message(), HasSubstr("bytes of workspace"));
}

TEST(PluginPayloadTest, RoundTripsAndRefusesEveryPrefix) {
  PluginCall call = clipCall(-2.5, 7);
  call.fields.push_back(PluginField::of("mode", std::string("nearest")));
  call.fields.push_back(PluginField::of("axes", std::vector<int64_t>{1, 3}));
  std::string payload = encodePluginCall(call);
  StatusOr<PluginCall> back = decodePluginCall(payload);
  ASSERT_TRUE(back.isOk()) << back.status().toString();
  EXPECT_EQ(back->name, "TestClip");
  EXPECT_EQ(back->pluginNamespace, "kiln.test");
  EXPECT_EQ(back->outputs, call.outputs);
  ASSERT_EQ(back->fields.size(), 4u);
  EXPECT_EQ(back->fields[1].floats, std::vector<double>{7});
  EXPECT_EQ(back->fields[2].text, "nearest");
  EXPECT_EQ(back->fields[3].ints, (std::vector<int64_t>{1, 3}));
  for (size_t n = 0; n < payload.size(); ++n) {
    StatusOr<PluginCall> cut = decodePluginCall(payload.substr(0, n));
    ASSERT_FALSE(cut.isOk()) << n;
    EXPECT_EQ(cut.status().code(), StatusCode::InvalidPlan);
  }
}

// Random damage with the checksum repaired, so that it reaches the parser:
// every result is a clean refusal or a payload that encodes back to itself.
TEST(PluginPayloadTest, SurvivesRandomDamage) {
  PluginCall call = clipCall(-2.5, 7);
  call.fields.push_back(PluginField::of("mode", std::string("nearest")));
  call.fields.push_back(PluginField::of("axes", std::vector<int64_t>{1, 3}));
  const std::string good = encodePluginCall(call);
  std::mt19937 rng(7);
  int accepted = 0;
  for (int iteration = 0; iteration < 20000; ++iteration) {
    std::string body = good.substr(0, good.size() - 4);
    for (int edits = 1 + int(rng() % 4); edits > 0; --edits) {
      size_t at = rng() % body.size();
      switch (rng() % 4) {
      case 0:
        body[at] = char(rng());
        break;
      case 1:
        body[at] ^= char(1u << (rng() % 8));
        break;
      case 2:
        body.erase(at, 1 + rng() % 8);
        break;
      default:
        body.insert(at, std::string(1 + rng() % 8, char(rng())));
      }
      if (body.size() < 8)
        body = good.substr(0, good.size() - 4);
    }
    uint32_t crc = referenceCrc32(body.data(), body.size());
    std::string payload = body + std::string(reinterpret_cast<char *>(&crc), 4);
    StatusOr<PluginCall> decoded = decodePluginCall(payload);
    if (!decoded.isOk()) {
      ASSERT_EQ(decoded.status().code(), StatusCode::InvalidPlan);
      continue;
    }
    ++accepted;
    ASSERT_EQ(encodePluginCall(*decoded), payload) << iteration;
  }
  EXPECT_GT(accepted, 0); // some damage still parses (e.g. within a value)
}

TEST(PluginRegistryTest, RegistersFindsAndRefusesDuplicates) {
  ScopedClip clip;
  EXPECT_TRUE(findPluginCreator("TestClip", "1", "kiln.test"));
  EXPECT_FALSE(findPluginCreator("TestClip", "1"));
  Status again = registerPluginCreator(std::make_shared<ClipCreator>());
  EXPECT_EQ(again.code(), StatusCode::InvalidArgument);
  EXPECT_THAT(again.message(), HasSubstr("kiln.test::TestClip@1"));
  std::vector<std::string> keys = registeredPlugins();
  EXPECT_NE(std::find(keys.begin(), keys.end(), "kiln.test::TestClip@1"),
            keys.end());
  EXPECT_EQ(registerPluginCreator(nullptr).code(), StatusCode::InvalidArgument);
}

TEST(PluginRegistryTest, LoadsAPluginLibrary) {
  Status missing = loadPluginLibrary("/no/such/libplugin.so");
  EXPECT_EQ(missing.code(), StatusCode::InvalidArgument);
  EXPECT_THAT(missing.message(), HasSubstr("/no/such/libplugin.so"));
  Status loaded = loadPluginLibrary(KILN_TEST_PLUGIN_LIBRARY);
  ASSERT_TRUE(loaded.isOk()) << loaded.toString();
  EXPECT_TRUE(findPluginCreator("TestClip", "2", "kiln.test"));
  // Loading it again registers nothing twice (dlopen counts references).
  EXPECT_TRUE(loadPluginLibrary(KILN_TEST_PLUGIN_LIBRARY).isOk());
  // A library that is no plugin library.
  Status notPlugins = loadPluginLibrary(KILN_FAKE_CUDA);
  EXPECT_THAT(notPlugins.message(),
              HasSubstr("no kiln_plugin_library_creators"));
}

TEST(PluginRegistryTest, TheCApiLoadsPluginLibraries) {
  EXPECT_EQ(kiln_load_plugin_library(nullptr), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(kiln_load_plugin_library("/no/such/lib.so"),
            KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_THAT(kiln_last_error_message(), HasSubstr("/no/such/lib.so"));
  EXPECT_EQ(kiln_load_plugin_library(KILN_TEST_PLUGIN_LIBRARY), KILN_STATUS_OK);
}

} // namespace
