//===- PluginLayerTest.cpp - plugin layers in the network API ---*- C++ -*-===//
//
// NetworkDefinition::addPluginV2 with a plugin of two outputs registered
// here (kiln.unittest::Halves@1 splits the last dimension in two halves):
// the layer's outputs come from the plugin, the plan holds one plugin step
// whose payload names it with its fields, the reference executor refuses it
// by name, and a plugin that is missing or refuses its fields or inputs is
// an error naming why.
//
//===----------------------------------------------------------------------===//

#include "kiln/Builder/Builder.h"
#include "kiln/runtime/LibraryCall.h"
#include "kiln/runtime/Plan.h"
#include "kiln/runtime/Plugin.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

using namespace kiln;
using ::testing::HasSubstr;

namespace {

class HalvesPlugin : public rt::Plugin {
public:
  explicit HalvesPlugin(int64_t tag) : tag(tag) {}
  rt::StatusOr<std::vector<rt::PluginTensor>>
  getOutputs(const std::vector<rt::PluginTensor> &inputs) const override {
    if (inputs.size() != 1 || inputs[0].dims.empty() ||
        inputs[0].dims.back() % 2)
      return rt::Status(rt::StatusCode::InvalidArgument,
                        "Halves takes one tensor whose last dimension is even");
    rt::PluginTensor half = inputs[0];
    half.dims.back() /= 2;
    return std::vector<rt::PluginTensor>{half, half};
  }
  rt::Status enqueue(const rt::PluginBuffers &) override {
    return rt::Status(rt::StatusCode::Internal, "not run in this test");
  }
  rt::PluginFields getFields() const override {
    return {rt::PluginField::of("tag", std::vector<int64_t>{tag})};
  }

private:
  int64_t tag;
};

class HalvesCreator : public rt::PluginCreator {
public:
  std::string name() const override { return "Halves"; }
  std::string version() const override { return "1"; }
  std::string pluginNamespace() const override { return "kiln.unittest"; }
  std::vector<std::pair<std::string, rt::PluginField::Type>>
  fieldNames() const override {
    return {{"tag", rt::PluginField::Type::Ints}};
  }
  rt::StatusOr<std::unique_ptr<rt::Plugin>>
  create(const rt::PluginFields &fields) const override {
    const rt::PluginField *tag = rt::findField(fields, "tag");
    if (!tag || tag->ints.size() != 1 || tag->ints[0] < 0)
      return rt::Status(rt::StatusCode::InvalidArgument,
                        "Halves needs one tag of at least 0");
    return std::unique_ptr<rt::Plugin>(new HalvesPlugin(tag->ints[0]));
  }
};

KILN_REGISTER_PLUGIN(HalvesCreator);

class Logger : public rt::Logger {
public:
  void log(Severity, const std::string &) override {}
};

rt::PluginFields tagged(int64_t tag) {
  return {rt::PluginField::of("tag", std::vector<int64_t>{tag})};
}

TEST(PluginLayerTest, OutputsComeFromThePluginAndThePlanNamesIt) {
  Logger logger;
  NetworkDefinition network(logger);
  Tensor x = network.addInput("x", DataType::F32, {2, 6});
  Layer halves =
      network.addPluginV2({x}, "Halves", tagged(7), "1", "kiln.unittest");
  ASSERT_TRUE(halves);
  ASSERT_EQ(halves.getNbOutputs(), 2);
  EXPECT_EQ(halves.getOutput(0).getDimensions(), (Dims{2, 3}));
  EXPECT_EQ(halves.getOutput(1).getDimensions(), (Dims{2, 3}));
  halves.getOutput(0).setName("left");
  halves.getOutput(1).setName("right");
  network.markOutput(halves.getOutput(0));
  network.markOutput(halves.getOutput(1));

  Builder builder(logger);
  auto plan = builder.buildSerializedPlan(network, BuilderConfig());
  ASSERT_TRUE(plan.isOk()) << plan.status().toString();
  auto contents = rt::readPlan(plan->data(), plan->size());
  ASSERT_TRUE(contents.isOk()) << contents.status().toString();
  int plugins = 0;
  for (const rt::Step &step : contents->steps) {
    if (step.kind != rt::Step::Kind::LibraryCall ||
        step.libraryCall.callee != rt::kPluginCallee)
      continue;
    ++plugins;
    auto call = rt::decodePluginCall(step.libraryCall.payload);
    ASSERT_TRUE(call.isOk()) << call.status().toString();
    EXPECT_EQ(rt::pluginKey(call->name, call->version, call->pluginNamespace),
              "kiln.unittest::Halves@1");
    ASSERT_EQ(call->fields.size(), 1u);
    EXPECT_EQ(call->fields[0].ints, (std::vector<int64_t>{7}));
    ASSERT_EQ(call->outputs.size(), 2u);
    EXPECT_EQ(call->outputs[1].dims, (std::vector<int64_t>{2, 3}));
  }
  EXPECT_EQ(plugins, 1);

  std::vector<tooling::HostTensor> in, out;
  auto t = tooling::HostTensor::create("x", DataType::F32, {2, 6});
  ASSERT_TRUE(t.isOk());
  in.push_back(std::move(*t));
  rt::Status refused = builder.runReference(network, in, out);
  ASSERT_FALSE(refused);
  EXPECT_THAT(refused.message(),
              HasSubstr("the plugin kiln.unittest::Halves@1, which runs only "
                        "on the GPU"));
}

TEST(PluginLayerTest, MissingOrRefusingPluginsAreErrors) {
  Logger logger;
  NetworkDefinition network(logger);
  Tensor x = network.addInput("x", DataType::F32, {2, 5});
  EXPECT_FALSE(network.addPluginV2({x}, "Nope", {}, "1", "kiln.unittest"));
  EXPECT_FALSE(
      network.addPluginV2({x}, "Halves", tagged(-1), "1", "kiln.unittest"));
  EXPECT_FALSE(
      network.addPluginV2({x}, "Halves", tagged(1), "1", "kiln.unittest"));
  Layer halves =
      network.addPluginV2({network.addInput("y", DataType::F32, {4})}, "Halves",
                          tagged(1), "1", "kiln.unittest");
  ASSERT_TRUE(halves);
  EXPECT_FALSE(halves.getOutput(2));
  std::vector<std::string> errors = network.getErrors();
  ASSERT_EQ(errors.size(), 4u);
  EXPECT_THAT(errors[3], HasSubstr("layer 'plugin_0' has 2 outputs"));
  EXPECT_THAT(errors[0], HasSubstr("add plugin kiln.unittest::Nope@1: it is "
                                   "not registered"));
  EXPECT_THAT(errors[1], HasSubstr("Halves needs one tag of at least 0"));
  EXPECT_THAT(errors[2], HasSubstr("last dimension is even"));
}

} // namespace
