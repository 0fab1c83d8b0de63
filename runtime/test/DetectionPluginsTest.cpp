//===- DetectionPluginsTest.cpp - NMS_TRT and RPROI_TRT on the host -------===//
//
// The creators of the built-in detection plugins (runtime/plugins/Nms.cu,
// RpRoi.cu) without a GPU: the fields they take and refuse (each refusal
// names its field), the outputs getOutputs gives and the inputs it refuses
// (naming the dimension that disagrees), the workspace, and fields that
// make the same plugin again. The kernels are checked against numpy by
// runtime/plugins/test/check_detection_plugins.py on a GPU.
//
//===----------------------------------------------------------------------===//

#include "BuiltinPlugins.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

using namespace kiln::rt;
using ::testing::HasSubstr;

namespace {

PluginField ints(const std::string &name, std::vector<int64_t> values) {
  return PluginField::of(name, std::move(values));
}
PluginField floats(const std::string &name, std::vector<double> values) {
  return PluginField::of(name, std::move(values));
}

/// `fields` with `field` replacing the one of its name (or added).
PluginFields with(PluginFields fields, const PluginField &field) {
  for (PluginField &f : fields)
    if (f.name == field.name) {
      f = field;
      return fields;
    }
  fields.push_back(field);
  return fields;
}

PluginFields without(PluginFields fields, const std::string &name) {
  PluginFields out;
  for (const PluginField &f : fields)
    if (f.name != name)
      out.push_back(f);
  return out;
}

PluginTensor f32(std::vector<int64_t> dims) {
  return {DataType::F32, std::move(dims)};
}

std::string createError(const PluginCreator &creator,
                        const PluginFields &fields) {
  StatusOr<std::unique_ptr<Plugin>> plugin = creator.create(fields);
  if (plugin)
    return "created";
  EXPECT_EQ(plugin.status().code(), StatusCode::InvalidArgument);
  return plugin.status().message();
}

//===----------------------------------------------------------------------===//
// NMS_TRT
//===----------------------------------------------------------------------===//

PluginFields nmsFields() {
  return {ints("shareLocation", {1}),
          ints("varianceEncodedInTarget", {0}),
          ints("backgroundLabelId", {0}),
          ints("numClasses", {4}),
          ints("topK", {20}),
          ints("keepTopK", {10}),
          floats("confidenceThreshold", {0.3}),
          floats("nmsThreshold", {0.45}),
          ints("inputOrder", {0, 1, 2}),
          ints("confSigmoid", {0}),
          ints("isNormalized", {1}),
          ints("codeType", {1})};
}

/// loc, conf, priors for `priors` priors and `classes` classes.
std::vector<PluginTensor> nmsInputs(int64_t n, int64_t priors, int64_t classes,
                                    int64_t locClasses = 1) {
  return {f32({n, priors * locClasses * 4, 1, 1}),
          f32({n, priors * classes, 1, 1}), f32({1, 2, priors * 4, 1})};
}

class NmsTest : public ::testing::Test {
protected:
  std::shared_ptr<PluginCreator> creator = builtin::makeNmsCreator();

  std::unique_ptr<Plugin> make(const PluginFields &fields) {
    StatusOr<std::unique_ptr<Plugin>> plugin = creator->create(fields);
    EXPECT_TRUE(plugin.isOk()) << plugin.status().toString();
    return plugin ? std::move(*plugin) : nullptr;
  }
  std::string outputsError(const PluginFields &fields,
                           const std::vector<PluginTensor> &inputs) {
    std::unique_ptr<Plugin> plugin = make(fields);
    if (!plugin)
      return "not created";
    StatusOr<std::vector<PluginTensor>> outputs = plugin->getOutputs(inputs);
    if (outputs)
      return "accepted";
    EXPECT_EQ(outputs.status().code(), StatusCode::InvalidArgument);
    return outputs.status().message();
  }
};

TEST_F(NmsTest, IsTensorRTsNmsPlugin) {
  EXPECT_EQ(creator->name(), "NMS_TRT");
  EXPECT_EQ(creator->version(), "1");
  EXPECT_EQ(creator->pluginNamespace(), "");
  std::vector<std::string> names;
  for (const auto &f : creator->fieldNames())
    names.push_back(f.first);
  EXPECT_THAT(names, ::testing::IsSupersetOf(
                         {"shareLocation", "varianceEncodedInTarget",
                          "backgroundLabelId", "numClasses", "topK", "keepTopK",
                          "confidenceThreshold", "nmsThreshold", "inputOrder",
                          "confSigmoid", "isNormalized", "codeType"}));
}

TEST_F(NmsTest, GivesDetectionsAndCounts) {
  std::unique_ptr<Plugin> plugin = make(nmsFields());
  ASSERT_TRUE(plugin);
  StatusOr<std::vector<PluginTensor>> outputs =
      plugin->getOutputs(nmsInputs(3, 64, 4));
  ASSERT_TRUE(outputs.isOk()) << outputs.status().toString();
  ASSERT_EQ(outputs->size(), 2u);
  EXPECT_EQ((*outputs)[0], (PluginTensor{DataType::F32, {3, 1, 10, 7}}));
  EXPECT_EQ((*outputs)[1], (PluginTensor{DataType::I32, {3, 1, 1, 1}}));
  uint64_t one = plugin->getWorkspaceBytes(nmsInputs(1, 64, 4));
  uint64_t three = plugin->getWorkspaceBytes(nmsInputs(3, 64, 4));
  EXPECT_GT(one, 0u);
  EXPECT_GT(three, one);
}

TEST_F(NmsTest, TakesTheInputsInInputOrder) {
  // loc, priors, conf (TensorRT's default order {0, 2, 1}).
  PluginFields fields = without(nmsFields(), "inputOrder");
  std::vector<PluginTensor> in = nmsInputs(2, 16, 4);
  StatusOr<std::vector<PluginTensor>> outputs =
      make(fields)->getOutputs({in[0], in[2], in[1]});
  ASSERT_TRUE(outputs.isOk()) << outputs.status().toString();
  EXPECT_EQ((*outputs)[0].dims, (std::vector<int64_t>{2, 1, 10, 7}));
  // The same tensors in the order {0, 1, 2} disagree.
  EXPECT_THAT(
      outputsError(nmsFields(), {in[0], in[2], in[1]}),
      HasSubstr("priors (input 2, inputOrder[2]): dimension 1 must be 2 "
                "(boxes, variances), got 64"));
}

TEST_F(NmsTest, LocPerClassAndPriorsPerImage) {
  PluginFields fields = with(with(nmsFields(), ints("shareLocation", {0})),
                             ints("isBatchAgnostic", {0}));
  std::vector<PluginTensor> in = nmsInputs(2, 16, 4, 4);
  in[2].dims[0] = 2;
  EXPECT_EQ(outputsError(fields, in), "accepted");
  in[2].dims[0] = 1;
  EXPECT_THAT(
      outputsError(fields, in),
      HasSubstr("priors (input 2, inputOrder[2]): dimension 0 must be the "
                "batch (2)"));
  // A loc shared over classes is too small without shareLocation.
  std::vector<PluginTensor> shared = nmsInputs(2, 16, 4, 1);
  shared[2].dims[0] = 2;
  EXPECT_THAT(outputsError(fields, shared),
              HasSubstr("loc (input 0, inputOrder[0]): dimensions 1-3 hold 64 "
                        "values per image"));
}

TEST_F(NmsTest, RefusesMissingAndMistypedFields) {
  for (const char *name :
       {"shareLocation", "varianceEncodedInTarget", "backgroundLabelId",
        "numClasses", "topK", "keepTopK", "confidenceThreshold", "nmsThreshold",
        "confSigmoid", "isNormalized"})
    EXPECT_THAT(createError(*creator, without(nmsFields(), name)),
                HasSubstr(std::string("field '") + name + "' is missing"))
        << name;
  EXPECT_THAT(createError(*creator,
                          with(nmsFields(), ints("confidenceThreshold", {0}))),
              HasSubstr("field 'confidenceThreshold' must be floats"));
  EXPECT_THAT(createError(*creator, with(nmsFields(), floats("topK", {20}))),
              HasSubstr("field 'topK' must be ints"));
  EXPECT_THAT(
      createError(*creator, with(nmsFields(), ints("numClasses", {4, 5}))),
      HasSubstr("field 'numClasses' must have 1 integer, got 2"));
  EXPECT_THAT(createError(*creator, with(nmsFields(), ints("topk", {20}))),
              HasSubstr("unknown field 'topk'"));
  EXPECT_THAT(
      createError(*creator, with(nmsFields(), ints("shareLocation", {2}))),
      HasSubstr("field 'shareLocation' must be in [0, 1], got 2"));
  EXPECT_THAT(createError(*creator,
                          with(nmsFields(),
                               PluginField::of("codeType", std::string("1")))),
              HasSubstr("field 'codeType' must be ints, got text"));
}

TEST_F(NmsTest, RefusesContradictoryFields) {
  EXPECT_THAT(
      createError(*creator, with(nmsFields(), ints("backgroundLabelId", {4}))),
      HasSubstr("field 'backgroundLabelId' (4) must be -1 (none) or "
                "a class below numClasses (4)"));
  EXPECT_EQ(
      createError(*creator, with(nmsFields(), ints("backgroundLabelId", {-1}))),
      "created");
  EXPECT_THAT(
      createError(*creator, with(nmsFields(), ints("backgroundLabelId", {-2}))),
      HasSubstr("field 'backgroundLabelId' must be in [-1"));
  EXPECT_THAT(
      createError(*creator, with(nmsFields(), ints("inputOrder", {0, 0, 1}))),
      HasSubstr("field 'inputOrder' must be a permutation of 0, 1, 2, got 0, "
                "0, 1"));
  EXPECT_THAT(
      createError(*creator, with(nmsFields(), ints("inputOrder", {0, 1, 3}))),
      HasSubstr("field 'inputOrder' must be a permutation"));
  EXPECT_THAT(
      createError(*creator, with(nmsFields(), ints("inputOrder", {0, 1}))),
      HasSubstr("field 'inputOrder' must have 3 integers, got 2"));
  EXPECT_THAT(createError(*creator, with(nmsFields(), ints("keepTopK", {21}))),
              HasSubstr("field 'keepTopK' (21) must not exceed topK (20)"));
  EXPECT_EQ(createError(*creator, with(nmsFields(), ints("keepTopK", {20}))),
            "created");
  EXPECT_THAT(createError(*creator, with(nmsFields(), ints("codeType", {4}))),
              HasSubstr("field 'codeType' must be CORNER (0), CENTER_SIZE "
                        "(1), CORNER_SIZE (2) or TF_CENTER (3), got 4"));
  EXPECT_THAT(createError(*creator, with(nmsFields(), ints("topK", {4097}))),
              HasSubstr("field 'topK' must be in [1, 4096]"));
  EXPECT_THAT(createError(*creator, with(nmsFields(), ints("numClasses", {0}))),
              HasSubstr("field 'numClasses' must be in [1,"));
  EXPECT_THAT(
      createError(*creator, with(nmsFields(), floats("nmsThreshold", {NAN}))),
      HasSubstr("field 'nmsThreshold' must be finite"));
}

TEST_F(NmsTest, RefusesInputsThatDisagree) {
  std::vector<PluginTensor> in = nmsInputs(2, 16, 4);
  std::vector<PluginTensor> bad = in;
  bad[1].dims[0] = 3;
  EXPECT_THAT(
      outputsError(nmsFields(), bad),
      HasSubstr("conf (input 1, inputOrder[1]): dimension 0 (batch) is 3, "
                "loc's is 2"));
  bad = in;
  bad[1].dims[1] = 16 * 5;
  EXPECT_THAT(outputsError(nmsFields(), bad),
              HasSubstr("conf (input 1, inputOrder[1]): dimensions 1-3 hold 80 "
                        "values per image "
                        "(2x80x1x1), want numPriors (16) * numClasses (4) = "
                        "64"));
  bad = in;
  bad[0].dims[1] = 60;
  EXPECT_THAT(
      outputsError(nmsFields(), bad),
      HasSubstr("loc (input 0, inputOrder[0]): dimensions 1-3 hold 60"));
  bad = in;
  bad[2].dims[1] = 1;
  EXPECT_THAT(
      outputsError(nmsFields(), bad),
      HasSubstr("priors (input 2, inputOrder[2]): dimension 1 must be 2"));
  bad = in;
  bad[2].dims[2] = 63;
  EXPECT_THAT(outputsError(nmsFields(), bad),
              HasSubstr("dimensions 2 and 3 must be numPriors * 4"));
  bad = in;
  bad[2].dims[0] = 2;
  EXPECT_THAT(
      outputsError(nmsFields(), bad),
      HasSubstr("priors (input 2, inputOrder[2]): dimension 0 must be 1 "
                "with isBatchAgnostic=1"));
  bad = in;
  bad[1].type = DataType::F16;
  EXPECT_THAT(outputsError(nmsFields(), bad),
              HasSubstr("conf (input 1, inputOrder[1]) must be f32"));
  bad = in;
  bad[0].dims = {2, 64};
  EXPECT_THAT(outputsError(nmsFields(), bad),
              HasSubstr("loc (input 0, inputOrder[0]) must have 4 dimensions"));
  EXPECT_THAT(outputsError(nmsFields(), {in[0], in[1]}),
              HasSubstr("takes 3 inputs"));
  std::unique_ptr<Plugin> plugin = make(nmsFields());
  EXPECT_EQ(plugin->getWorkspaceBytes({in[0], in[1]}), 0u);
}

TEST_F(NmsTest, FieldsMakeTheSamePluginAgain) {
  PluginFields fields = with(with(nmsFields(), ints("codeType", {3})),
                             ints("inputOrder", {2, 0, 1}));
  std::unique_ptr<Plugin> plugin = make(fields);
  ASSERT_TRUE(plugin);
  std::unique_ptr<Plugin> again = make(plugin->getFields());
  ASSERT_TRUE(again);
  PluginFields a = plugin->getFields(), b = again->getFields();
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].name, b[i].name);
    EXPECT_EQ(a[i].ints, b[i].ints) << a[i].name;
    EXPECT_EQ(a[i].floats, b[i].floats) << a[i].name;
  }
  const PluginField *order = findField(a, "inputOrder");
  ASSERT_TRUE(order);
  EXPECT_EQ(order->ints, (std::vector<int64_t>{2, 0, 1}));
}

//===----------------------------------------------------------------------===//
// RPROI_TRT
//===----------------------------------------------------------------------===//

PluginFields rpRoiFields() {
  return {ints("poolingH", {7}),
          ints("poolingW", {6}),
          ints("featureStride", {16}),
          ints("preNmsTop", {600}),
          ints("nmsMaxOut", {300}),
          floats("iouThreshold", {0.7}),
          floats("minBoxSize", {16}),
          floats("spatialScale", {0.0625}),
          ints("anchorsRatioCount", {3}),
          ints("anchorsScaleCount", {3}),
          floats("anchorsRatios", {0.5, 1, 2}),
          floats("anchorsScales", {8, 16, 32})};
}

/// scores, deltas, feature map, im_info for 9 anchors.
std::vector<PluginTensor> rpRoiInputs(int64_t n, int64_t c = 512) {
  return {f32({n, 18, 38, 50}), f32({n, 36, 38, 50}), f32({n, c, 38, 50}),
          f32({n, 3})};
}

class RpRoiTest : public NmsTest {
protected:
  RpRoiTest() { creator = builtin::makeRpRoiCreator(); }
};

TEST_F(RpRoiTest, IsTensorRTsRpRoiPlugin) {
  EXPECT_EQ(creator->name(), "RPROI_TRT");
  EXPECT_EQ(creator->version(), "1");
  EXPECT_EQ(creator->pluginNamespace(), "");
}

TEST_F(RpRoiTest, GivesRoisAndPooledFeatures) {
  std::unique_ptr<Plugin> plugin = make(rpRoiFields());
  ASSERT_TRUE(plugin);
  StatusOr<std::vector<PluginTensor>> outputs =
      plugin->getOutputs(rpRoiInputs(2));
  ASSERT_TRUE(outputs.isOk()) << outputs.status().toString();
  ASSERT_EQ(outputs->size(), 2u);
  EXPECT_EQ((*outputs)[0], f32({2, 300, 4}));
  EXPECT_EQ((*outputs)[1], f32({600, 512, 7, 6}));
  EXPECT_GT(plugin->getWorkspaceBytes(rpRoiInputs(2)),
            plugin->getWorkspaceBytes(rpRoiInputs(1)));
  // A feature map of another size is pooled through spatialScale.
  std::vector<PluginTensor> in = rpRoiInputs(1, 8);
  in[2].dims = {1, 8, 76, 100};
  EXPECT_EQ(outputsError(rpRoiFields(), in), "accepted");
  // im_info as [N, 3, 1, 1] too.
  in[3].dims = {1, 3, 1, 1};
  EXPECT_EQ(outputsError(rpRoiFields(), in), "accepted");
}

TEST_F(RpRoiTest, TakesPostNmsTopForNmsMaxOut) {
  PluginFields fields =
      with(without(rpRoiFields(), "nmsMaxOut"), ints("postNmsTop", {50}));
  std::unique_ptr<Plugin> plugin = make(fields);
  ASSERT_TRUE(plugin);
  StatusOr<std::vector<PluginTensor>> outputs =
      plugin->getOutputs(rpRoiInputs(1));
  ASSERT_TRUE(outputs.isOk());
  EXPECT_EQ((*outputs)[0].dims, (std::vector<int64_t>{1, 50, 4}));
  EXPECT_THAT(
      createError(*creator, with(rpRoiFields(), ints("postNmsTop", {50}))),
      HasSubstr("fields 'nmsMaxOut' (300) and 'postNmsTop' (50) "
                "disagree"));
  EXPECT_THAT(createError(*creator, without(rpRoiFields(), "nmsMaxOut")),
              HasSubstr("field 'nmsMaxOut' (or its other name 'postNmsTop') "
                        "is missing"));
}

TEST_F(RpRoiTest, RefusesMissingMistypedAndContradictoryFields) {
  for (const char *name :
       {"poolingH", "poolingW", "featureStride", "preNmsTop", "iouThreshold",
        "minBoxSize", "spatialScale", "anchorsRatioCount", "anchorsScaleCount",
        "anchorsRatios", "anchorsScales"})
    EXPECT_THAT(createError(*creator, without(rpRoiFields(), name)),
                HasSubstr(std::string("field '") + name + "' is missing"))
        << name;
  EXPECT_THAT(
      createError(*creator, with(rpRoiFields(), ints("iouThreshold", {1}))),
      HasSubstr("field 'iouThreshold' must be floats, got ints"));
  EXPECT_THAT(createError(*creator, with(rpRoiFields(),
                                         floats("anchorsRatios", {0.5, 1}))),
              HasSubstr("field 'anchorsRatios' has 2 values, "
                        "anchorsRatioCount is 3"));
  EXPECT_THAT(createError(*creator, with(rpRoiFields(),
                                         floats("anchorsScales", {8, 16, 0}))),
              HasSubstr("field 'anchorsScales' must be positive"));
  EXPECT_THAT(
      createError(*creator, with(rpRoiFields(), floats("spatialScale", {0}))),
      HasSubstr("field 'spatialScale' must be positive"));
  EXPECT_THAT(createError(*creator, with(rpRoiFields(), ints("poolingH", {0}))),
              HasSubstr("field 'poolingH' must be in [1,"));
  EXPECT_THAT(
      createError(*creator, with(rpRoiFields(), ints("preNmsTop", {65536}))),
      HasSubstr("field 'preNmsTop' must be in [1, 65535]"));
  PluginFields many = with(with(rpRoiFields(), ints("anchorsRatioCount", {12})),
                           ints("anchorsScaleCount", {12}));
  EXPECT_THAT(createError(*creator, many),
              HasSubstr("anchorsRatioCount * anchorsScaleCount must be at "
                        "most 128, got 144"));
}

TEST_F(RpRoiTest, RefusesInputsThatDisagree) {
  std::vector<PluginTensor> in = rpRoiInputs(2), bad = in;
  bad[0].dims[1] = 16;
  EXPECT_THAT(outputsError(rpRoiFields(), bad),
              HasSubstr("scores' dimension 1 must be 2 * anchors = 18"));
  bad = in;
  bad[1].dims[1] = 18;
  EXPECT_THAT(
      outputsError(rpRoiFields(), bad),
      HasSubstr("deltas' dimension 1 must be 4 * anchors = 36, got 18"));
  bad = in;
  bad[1].dims[2] = 37;
  EXPECT_THAT(outputsError(rpRoiFields(), bad),
              HasSubstr("deltas' dimension 2 (height) is 37, scores' is 38"));
  bad = in;
  bad[1].dims[0] = 1;
  EXPECT_THAT(outputsError(rpRoiFields(), bad),
              HasSubstr("deltas' dimension 0 (batch) is 1, scores' is 2"));
  bad = in;
  bad[2].dims[0] = 1;
  EXPECT_THAT(outputsError(rpRoiFields(), bad),
              HasSubstr("the feature map's dimension 0 (batch) is 1"));
  bad = in;
  bad[3].dims = {2, 4};
  EXPECT_THAT(outputsError(rpRoiFields(), bad),
              HasSubstr("im_info must be [batch (2), 3]"));
  bad = in;
  bad[2].type = DataType::I8;
  EXPECT_THAT(outputsError(rpRoiFields(), bad),
              HasSubstr("feature map (input 2) must be f32"));
  EXPECT_THAT(outputsError(rpRoiFields(), {in[0], in[1], in[2]}),
              HasSubstr("takes 4 inputs"));
}

TEST_F(RpRoiTest, FieldsMakeTheSamePluginAgain) {
  std::unique_ptr<Plugin> plugin = make(rpRoiFields());
  ASSERT_TRUE(plugin);
  std::unique_ptr<Plugin> again = make(plugin->getFields());
  ASSERT_TRUE(again);
  PluginFields a = plugin->getFields(), b = again->getFields();
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].name, b[i].name);
    EXPECT_EQ(a[i].ints, b[i].ints) << a[i].name;
    EXPECT_EQ(a[i].floats, b[i].floats) << a[i].name;
  }
}

} // namespace
