//===- BuiltinPluginsTest.cpp - libkiln_plugins.so on the host ------------===//
//
// kiln's built-in plugin library (runtime/plugins) loaded as programs load
// it (loadPluginLibrary), without a GPU: the CUDA runtime is linked into it
// statically and does nothing until a kernel is launched, so nothing here
// enqueues. Checks that every plugin is registered under TensorRT's name,
// version "1" and the empty namespace with TensorRT's field names; that
// create() refuses missing, mistyped and contradictory fields naming the
// field; that getOutputs() gives hand-computed shapes and refuses wrong
// inputs; and that getFields() makes the same plugin again. The kernels are
// checked against numpy by runtime/plugins/test/check_builtin_plugins.py on
// a GPU.
//
//===----------------------------------------------------------------------===//

#include "kiln/runtime/Plugin.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

using namespace kiln::rt;
using ::testing::HasSubstr;

namespace {

using Type = PluginField::Type;

PluginField ints(const std::string &name, std::vector<int64_t> values) {
  return PluginField::of(name, std::move(values));
}
PluginField floats(const std::string &name, std::vector<double> values) {
  return PluginField::of(name, std::move(values));
}
PluginTensor f32(std::vector<int64_t> dims) {
  return {DataType::F32, std::move(dims)};
}

/// `fields` with `field` in place of the one of its name (or added).
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

/// The built-in creator `name` (version "1", namespace ""), from the
/// library.
std::shared_ptr<PluginCreator> creator(const std::string &name) {
  Status loaded = loadPluginLibrary(KILN_BUILTIN_PLUGINS_LIBRARY);
  EXPECT_TRUE(loaded.isOk()) << loaded.message();
  std::shared_ptr<PluginCreator> c = findPluginCreator(name, "1", "");
  EXPECT_NE(c, nullptr) << name << " is not registered";
  return c;
}

std::unique_ptr<Plugin> make(const std::string &name,
                             const PluginFields &fields) {
  StatusOr<std::unique_ptr<Plugin>> plugin = creator(name)->create(fields);
  EXPECT_TRUE(plugin.isOk()) << plugin.status().message();
  return plugin ? std::move(*plugin) : nullptr;
}

/// create()'s refusal, or "created".
std::string createError(const std::string &name, const PluginFields &fields) {
  StatusOr<std::unique_ptr<Plugin>> plugin = creator(name)->create(fields);
  if (plugin)
    return "created";
  EXPECT_EQ(plugin.status().code(), StatusCode::InvalidArgument);
  return plugin.status().message();
}

/// The dims of getOutputs() for `inputs` (an output per entry), or its
/// refusal as the only entry's... message in `error`.
std::vector<std::vector<int64_t>> outputs(const Plugin &plugin,
                                          const std::vector<PluginTensor> &in,
                                          std::string *error = nullptr) {
  StatusOr<std::vector<PluginTensor>> out = plugin.getOutputs(in);
  if (!out) {
    EXPECT_EQ(out.status().code(), StatusCode::InvalidArgument);
    if (error)
      *error = out.status().message();
    return {};
  }
  std::vector<std::vector<int64_t>> dims;
  for (const PluginTensor &t : *out) {
    EXPECT_EQ(t.type, DataType::F32);
    dims.push_back(t.dims);
  }
  return dims;
}

std::string outputsError(const Plugin &plugin,
                         const std::vector<PluginTensor> &in) {
  std::string error = "accepted";
  outputs(plugin, in, &error);
  return error;
}

bool sameFields(const PluginFields &a, const PluginFields &b) {
  if (a.size() != b.size())
    return false;
  for (const PluginField &f : a) {
    const PluginField *g = findField(b, f.name);
    if (!g || g->type != f.type || g->ints != f.ints || g->floats != f.floats ||
        g->text != f.text)
      return false;
  }
  return true;
}

/// getFields() makes a plugin whose fields and outputs for `in` are the
/// same.
void expectRoundTrip(const std::string &name, const PluginFields &fields,
                     const std::vector<PluginTensor> &in) {
  std::unique_ptr<Plugin> first = make(name, fields);
  ASSERT_TRUE(first);
  std::unique_ptr<Plugin> second = make(name, first->getFields());
  ASSERT_TRUE(second);
  EXPECT_TRUE(sameFields(first->getFields(), second->getFields())) << name;
  EXPECT_EQ(outputs(*first, in), outputs(*second, in)) << name;
  EXPECT_EQ(first->getWorkspaceBytes(in), second->getWorkspaceBytes(in));
  // Every field the plugin gives is one its creator takes, of that type.
  for (const PluginField &f : first->getFields()) {
    bool listed = false;
    for (const auto &[fieldName, type] : creator(name)->fieldNames())
      listed |= fieldName == f.name && type == f.type;
    EXPECT_TRUE(listed) << name << " gives field " << f.name;
  }
}

PluginFields normalizeFields() {
  return {floats("weights", {1, 2, 3}), ints("nbWeights", {3}),
          ints("acrossSpatial", {0}), ints("channelShared", {0}),
          floats("eps", {1e-10})};
}

PluginFields priorBoxFields() {
  return {floats("minSize", {30}),     floats("maxSize", {60}),
          floats("aspectRatios", {2}), ints("flip", {1}),
          ints("clip", {0}),           floats("variance", {.1, .1, .2, .2}),
          ints("imgH", {300}),         ints("imgW", {300}),
          floats("stepH", {8}),        floats("stepW", {8}),
          floats("offset", {0.5})};
}

PluginFields gridAnchorFields() {
  return {floats("minSize", {0.2}),
          floats("maxSize", {0.95}),
          floats("aspectRatios", {1.0, 2.0, 0.5, 3.0, 0.3333}),
          floats("variance", {.1, .1, .2, .2}),
          ints("featureMapShapes", {19, 10, 5, 3, 2, 1}),
          ints("numLayers", {6})};
}

TEST(BuiltinPlugins, RegisteredUnderTensorRTNamesAndFields) {
  std::vector<std::pair<std::string, std::vector<std::pair<std::string, Type>>>>
      expected = {
          {"LReLU_TRT", {{"negSlope", Type::Floats}}},
          {"Clip_TRT", {{"clipMin", Type::Floats}, {"clipMax", Type::Floats}}},
          {"Normalize_TRT",
           {{"weights", Type::Floats},
            {"acrossSpatial", Type::Ints},
            {"channelShared", Type::Ints},
            {"eps", Type::Floats},
            {"nbWeights", Type::Ints}}},
          {"Reorg_TRT", {{"stride", Type::Ints}}},
          {"Region_TRT",
           {{"num", Type::Ints},
            {"coords", Type::Ints},
            {"classes", Type::Ints}}},
          {"PriorBox_TRT",
           {{"minSize", Type::Floats},
            {"maxSize", Type::Floats},
            {"aspectRatios", Type::Floats},
            {"flip", Type::Ints},
            {"clip", Type::Ints},
            {"variance", Type::Floats},
            {"imgH", Type::Ints},
            {"imgW", Type::Ints},
            {"stepH", Type::Floats},
            {"stepW", Type::Floats},
            {"offset", Type::Floats}}},
          {"GridAnchor_TRT",
           {{"minSize", Type::Floats},
            {"maxSize", Type::Floats},
            {"aspectRatios", Type::Floats},
            {"variance", Type::Floats},
            {"featureMapShapes", Type::Ints},
            {"numLayers", Type::Ints}}},
          {"NMS_TRT",
           {{"shareLocation", Type::Ints},
            {"varianceEncodedInTarget", Type::Ints},
            {"backgroundLabelId", Type::Ints},
            {"numClasses", Type::Ints},
            {"topK", Type::Ints},
            {"keepTopK", Type::Ints},
            {"confidenceThreshold", Type::Floats},
            {"nmsThreshold", Type::Floats},
            {"inputOrder", Type::Ints},
            {"confSigmoid", Type::Ints},
            {"isNormalized", Type::Ints},
            {"codeType", Type::Ints},
            {"scoreBits", Type::Ints},
            {"isBatchAgnostic", Type::Ints}}},
          {"RPROI_TRT",
           {{"poolingH", Type::Ints},
            {"poolingW", Type::Ints},
            {"featureStride", Type::Ints},
            {"preNmsTop", Type::Ints},
            {"nmsMaxOut", Type::Ints},
            {"postNmsTop", Type::Ints},
            {"iouThreshold", Type::Floats},
            {"minBoxSize", Type::Floats},
            {"spatialScale", Type::Floats},
            {"anchorsRatioCount", Type::Ints},
            {"anchorsScaleCount", Type::Ints},
            {"anchorsRatios", Type::Floats},
            {"anchorsScales", Type::Floats}}}};
  for (const auto &[name, fields] : expected) {
    std::shared_ptr<PluginCreator> c = creator(name);
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->name(), name);
    EXPECT_EQ(c->version(), "1");
    EXPECT_EQ(c->pluginNamespace(), "");
    EXPECT_EQ(c->fieldNames(), fields) << name;
  }
  // Loading the library again registers nothing twice.
  EXPECT_TRUE(loadPluginLibrary(KILN_BUILTIN_PLUGINS_LIBRARY).isOk());
}

TEST(BuiltinPlugins, ElementwiseFieldsAndShapes) {
  EXPECT_THAT(createError("LReLU_TRT", {}),
              HasSubstr("LReLU_TRT: field 'negSlope' is missing"));
  EXPECT_THAT(createError("LReLU_TRT", {ints("negSlope", {1})}),
              HasSubstr("field 'negSlope' must be floats, got ints"));
  EXPECT_THAT(createError("LReLU_TRT", {floats("negSlope", {0.1, 0.2})}),
              HasSubstr("field 'negSlope' must have 1 float, got 2"));
  EXPECT_THAT(createError("LReLU_TRT",
                          {floats("negSlope", {0.1}), floats("slope", {0.1})}),
              HasSubstr("unknown field 'slope'"));
  EXPECT_THAT(createError("Clip_TRT", {floats("clipMin", {0})}),
              HasSubstr("field 'clipMax' is missing"));
  EXPECT_THAT(
      createError("Clip_TRT", {floats("clipMin", {2}), floats("clipMax", {1})}),
      HasSubstr("field 'clipMin' (2.000000) must not exceed field 'clipMax'"));
  EXPECT_EQ(
      createError("Clip_TRT", {floats("clipMin", {1}), floats("clipMax", {1})}),
      "created");

  std::vector<std::unique_ptr<Plugin>> plugins;
  plugins.push_back(make("LReLU_TRT", {floats("negSlope", {0.1})}));
  plugins.push_back(
      make("Clip_TRT", {floats("clipMin", {-1}), floats("clipMax", {1})}));
  for (const std::unique_ptr<Plugin> &plugin : plugins) {
    ASSERT_TRUE(plugin);
    EXPECT_EQ(outputs(*plugin, {f32({2, 3, 4})}),
              (std::vector<std::vector<int64_t>>{{2, 3, 4}}));
    EXPECT_EQ(outputs(*plugin, {f32({})}),
              (std::vector<std::vector<int64_t>>{{}}));
    EXPECT_THAT(outputsError(*plugin, {{DataType::F16, {4}}}),
                HasSubstr("input 0 must be f32"));
    EXPECT_THAT(outputsError(*plugin, {f32({4}), f32({4})}),
                HasSubstr("takes 1 input, got 2"));
    EXPECT_EQ(plugin->getWorkspaceBytes({f32({4})}), 0u);
  }
  expectRoundTrip("LReLU_TRT", {floats("negSlope", {-0.3})}, {f32({5})});
  expectRoundTrip("Clip_TRT",
                  {floats("clipMin", {-0.1}), floats("clipMax", {6})},
                  {f32({5})});
}

TEST(BuiltinPlugins, NormalizeFieldsAndShapes) {
  PluginFields f = normalizeFields();
  EXPECT_EQ(createError("Normalize_TRT", f), "created");
  EXPECT_THAT(createError("Normalize_TRT", without(f, "weights")),
              HasSubstr("Normalize_TRT: field 'weights' is missing"));
  EXPECT_THAT(createError("Normalize_TRT", without(f, "eps")),
              HasSubstr("field 'eps' is missing"));
  EXPECT_THAT(createError("Normalize_TRT", with(f, ints("nbWeights", {2}))),
              HasSubstr("field 'nbWeights' (2) must be the number of weights "
                        "(3)"));
  EXPECT_THAT(createError("Normalize_TRT", with(f, ints("channelShared", {1}))),
              HasSubstr("field 'nbWeights' must be 1 with channelShared = 1"));
  EXPECT_THAT(createError("Normalize_TRT", with(f, ints("acrossSpatial", {2}))),
              HasSubstr("field 'acrossSpatial' must be in [0, 1], got 2"));
  EXPECT_THAT(createError("Normalize_TRT", with(f, floats("eps", {-1}))),
              HasSubstr("field 'eps' must be >= 0"));
  EXPECT_THAT(createError("Normalize_TRT", with(f, ints("eps", {0}))),
              HasSubstr("field 'eps' must be floats, got ints"));

  std::unique_ptr<Plugin> channels = make("Normalize_TRT", f);
  ASSERT_TRUE(channels);
  EXPECT_EQ(outputs(*channels, {f32({2, 3, 5, 7})}),
            (std::vector<std::vector<int64_t>>{{2, 3, 5, 7}}));
  EXPECT_EQ(channels->getWorkspaceBytes({f32({2, 3, 5, 7})}), 0u);
  EXPECT_THAT(outputsError(*channels, {f32({2, 4, 5, 7})}),
              HasSubstr("nbWeights (3) must be the input's channels (input "
                        "2x4x5x7)"));
  EXPECT_THAT(outputsError(*channels, {f32({3, 5, 7})}),
              HasSubstr("input 0 must have 4 dimensions (NCHW), got 3x5x7"));

  std::unique_ptr<Plugin> shared =
      make("Normalize_TRT", {floats("weights", {20}), ints("nbWeights", {1}),
                             ints("acrossSpatial", {1}),
                             ints("channelShared", {1}), floats("eps", {0})});
  ASSERT_TRUE(shared);
  EXPECT_EQ(outputs(*shared, {f32({4, 9, 2, 2})}),
            (std::vector<std::vector<int64_t>>{{4, 9, 2, 2}}));
  // Across space: partial sums and one inverse norm per image (doubles).
  EXPECT_EQ(shared->getWorkspaceBytes({f32({4, 9, 2, 2})}),
            4u * (1 + 1) * sizeof(double));
  EXPECT_EQ(shared->getWorkspaceBytes({f32({1, 512, 38, 38})}),
            1u * (256 + 1) * sizeof(double));
  expectRoundTrip("Normalize_TRT", f, {f32({1, 3, 2, 2})});
}

TEST(BuiltinPlugins, ReorgFieldsAndShapes) {
  EXPECT_THAT(createError("Reorg_TRT", {}),
              HasSubstr("Reorg_TRT: field 'stride' is missing"));
  EXPECT_THAT(createError("Reorg_TRT", {ints("stride", {0})}),
              HasSubstr("field 'stride' must be in [1, 32768], got 0"));
  EXPECT_THAT(createError("Reorg_TRT", {floats("stride", {2})}),
              HasSubstr("field 'stride' must be ints, got floats"));
  std::unique_ptr<Plugin> reorg = make("Reorg_TRT", {ints("stride", {2})});
  ASSERT_TRUE(reorg);
  EXPECT_EQ(outputs(*reorg, {f32({1, 64, 26, 26})}),
            (std::vector<std::vector<int64_t>>{{1, 256, 13, 13}}));
  EXPECT_EQ(outputs(*reorg, {f32({3, 4, 2, 6})}),
            (std::vector<std::vector<int64_t>>{{3, 16, 1, 3}}));
  EXPECT_THAT(outputsError(*reorg, {f32({1, 4, 3, 4})}),
              HasSubstr("height and width (1x4x3x4) must divide by stride 2"));
  EXPECT_THAT(outputsError(*reorg, {f32({1, 6, 4, 4})}),
              HasSubstr("channels (6) must divide by stride * stride (4"));
  std::unique_ptr<Plugin> three = make("Reorg_TRT", {ints("stride", {3})});
  ASSERT_TRUE(three);
  EXPECT_EQ(outputs(*three, {f32({2, 18, 6, 9})}),
            (std::vector<std::vector<int64_t>>{{2, 162, 2, 3}}));
  expectRoundTrip("Reorg_TRT", {ints("stride", {2})}, {f32({1, 4, 2, 2})});
}

TEST(BuiltinPlugins, RegionFieldsAndShapes) {
  PluginFields f = {ints("num", {5}), ints("coords", {4}),
                    ints("classes", {20})};
  EXPECT_THAT(createError("Region_TRT", without(f, "classes")),
              HasSubstr("Region_TRT: field 'classes' is missing"));
  EXPECT_THAT(createError("Region_TRT", with(f, ints("num", {0}))),
              HasSubstr("field 'num' must be in [1, 65536], got 0"));
  EXPECT_THAT(createError("Region_TRT", with(f, ints("coords", {1}))),
              HasSubstr("field 'coords' must be in [2, 65536], got 1"));
  EXPECT_THAT(createError("Region_TRT", with(f, floats("num", {5}))),
              HasSubstr("field 'num' must be ints, got floats"));
  EXPECT_THAT(createError("Region_TRT", with(f, ints("smTree", {0}))),
              HasSubstr("unknown field 'smTree'"));
  std::unique_ptr<Plugin> region = make("Region_TRT", f);
  ASSERT_TRUE(region);
  EXPECT_EQ(outputs(*region, {f32({2, 125, 13, 13})}),
            (std::vector<std::vector<int64_t>>{{2, 125, 13, 13}}));
  EXPECT_THAT(outputsError(*region, {f32({2, 120, 13, 13})}),
              HasSubstr("must have num * (coords + 1 + classes) = 125 "
                        "channels"));
  EXPECT_THAT(outputsError(*region, {}), HasSubstr("takes 1 input, got 0"));
  expectRoundTrip("Region_TRT", f, {f32({1, 125, 2, 2})});
}

TEST(BuiltinPlugins, PriorBoxFieldsAndShapes) {
  PluginFields f = priorBoxFields();
  std::vector<PluginTensor> conv43 = {f32({1, 512, 38, 38}),
                                      f32({1, 3, 300, 300})};
  std::unique_ptr<Plugin> ssd = make("PriorBox_TRT", f);
  ASSERT_TRUE(ssd);
  // Ratios 1, 2, 1/2 and the maxSize square: 4 priors per cell.
  EXPECT_EQ(outputs(*ssd, conv43),
            (std::vector<std::vector<int64_t>>{{1, 2, 38 * 38 * 4 * 4, 1}}));
  // Two minSizes with maxSizes; ratios 1, 2, 1/2, 3, 1/3 (1.0 and the
  // second 2.0 are dropped): 2 * (5 + 1) = 12 priors per cell.
  std::unique_ptr<Plugin> two = make(
      "PriorBox_TRT", with(with(with(f, floats("minSize", {8, 20})),
                                floats("maxSize", {16, 33.5})),
                           floats("aspectRatios", {1.0, 2.0, 2.0, 0.5, 3.0})));
  ASSERT_TRUE(two);
  EXPECT_EQ(outputs(*two, {f32({1, 2, 5, 7}), f32({1, 1, 64, 96})}),
            (std::vector<std::vector<int64_t>>{{1, 2, 5 * 7 * 12 * 4, 1}}));
  // No flip, no maxSize: ratios 1 and 3 for each of 2 minSizes.
  std::unique_ptr<Plugin> noFlip =
      make("PriorBox_TRT",
           {floats("minSize", {12, 25}), floats("aspectRatios", {3}),
            ints("flip", {0}), floats("variance", {.1, .1, .2, .2})});
  ASSERT_TRUE(noFlip);
  EXPECT_EQ(outputs(*noFlip, {f32({1, 1, 6, 4}), f32({1, 3, 90, 40})}),
            (std::vector<std::vector<int64_t>>{{1, 2, 6 * 4 * 4 * 4, 1}}));
  EXPECT_THAT(outputsError(*noFlip, {f32({1, 1, 6, 4}), f32({1, 3, 0, 40})}),
              HasSubstr("imgH and imgW are taken from the image input, which "
                        "is empty (1x3x0x40)"));
  EXPECT_THAT(outputsError(*ssd, {f32({1, 512, 38, 38})}),
              HasSubstr("takes 2 inputs, got 1"));
  EXPECT_THAT(outputsError(*ssd, {f32({1, 512, 38, 38}), f32({3, 300, 300})}),
              HasSubstr("input 1 must have 4 dimensions"));

  EXPECT_THAT(createError("PriorBox_TRT", without(f, "minSize")),
              HasSubstr("PriorBox_TRT: field 'minSize' is missing"));
  EXPECT_THAT(createError("PriorBox_TRT", without(f, "variance")),
              HasSubstr("field 'variance' is missing (4 floats)"));
  EXPECT_THAT(createError("PriorBox_TRT", with(f, floats("variance", {.1}))),
              HasSubstr("field 'variance' must have 4 floats, got 1"));
  EXPECT_THAT(createError("PriorBox_TRT", with(f, floats("maxSize", {20}))),
              HasSubstr("field 'maxSize' must exceed minSize at index 0"));
  EXPECT_THAT(createError("PriorBox_TRT", with(f, floats("maxSize", {60, 90}))),
              HasSubstr("field 'maxSize' must have 1 float, got 2"));
  EXPECT_THAT(createError("PriorBox_TRT", with(f, floats("minSize", {-1}))),
              HasSubstr("field 'minSize' must be positive"));
  EXPECT_THAT(createError("PriorBox_TRT", with(f, floats("aspectRatios", {0}))),
              HasSubstr("field 'aspectRatios' must be positive"));
  EXPECT_THAT(createError("PriorBox_TRT", with(f, ints("flip", {3}))),
              HasSubstr("field 'flip' must be in [0, 1], got 3"));
  EXPECT_THAT(createError("PriorBox_TRT", with(f, floats("imgH", {300}))),
              HasSubstr("field 'imgH' must be ints, got floats"));
  EXPECT_THAT(createError("PriorBox_TRT", with(f, floats("stepW", {-8}))),
              HasSubstr("field 'stepW' must be >= 0"));
  expectRoundTrip("PriorBox_TRT", f, conv43);
  expectRoundTrip("PriorBox_TRT",
                  {floats("minSize", {4}), floats("variance", {1, 1, 1, 1})},
                  {f32({1, 1, 2, 3}), f32({1, 1, 8, 12})});
}

TEST(BuiltinPlugins, GridAnchorFieldsAndShapes) {
  PluginFields f = gridAnchorFields();
  std::unique_ptr<Plugin> ssd = make("GridAnchor_TRT", f);
  ASSERT_TRUE(ssd);
  // Layer 0: 3 priors; the others: 5 ratios + the interpolated one.
  EXPECT_EQ(outputs(*ssd, {}),
            (std::vector<std::vector<int64_t>>{{1, 2, 19 * 19 * 3 * 4, 1},
                                               {1, 2, 10 * 10 * 6 * 4, 1},
                                               {1, 2, 5 * 5 * 6 * 4, 1},
                                               {1, 2, 3 * 3 * 6 * 4, 1},
                                               {1, 2, 2 * 2 * 6 * 4, 1},
                                               {1, 2, 1 * 1 * 6 * 4, 1}}));
  EXPECT_THAT(outputsError(*ssd, {f32({1, 3, 300, 300})}),
              HasSubstr("takes no inputs"));
  // TensorRT's defaults: minSize 0.2, maxSize 0.95, 6 layers.
  std::unique_ptr<Plugin> defaults =
      make("GridAnchor_TRT",
           without(without(without(f, "minSize"), "maxSize"), "numLayers"));
  ASSERT_TRUE(defaults);
  EXPECT_TRUE(sameFields(defaults->getFields(), ssd->getFields()));

  EXPECT_THAT(createError("GridAnchor_TRT", without(f, "aspectRatios")),
              HasSubstr("GridAnchor_TRT: field 'aspectRatios' is missing"));
  EXPECT_THAT(
      createError("GridAnchor_TRT", with(f, floats("aspectRatios", {1, 2}))),
      HasSubstr("field 'aspectRatios' must have at least 3 floats"));
  EXPECT_THAT(createError("GridAnchor_TRT", with(f, ints("numLayers", {5}))),
              HasSubstr("field 'featureMapShapes' must have 5 integers, got "
                        "6"));
  EXPECT_THAT(createError("GridAnchor_TRT", with(f, ints("numLayers", {1}))),
              HasSubstr("field 'numLayers' must be in [2, 1024], got 1"));
  EXPECT_THAT(createError("GridAnchor_TRT", with(f, floats("minSize", {0.99}))),
              HasSubstr("fields 'minSize' and 'maxSize' must satisfy 0 < "
                        "minSize <= maxSize"));
  EXPECT_THAT(
      createError("GridAnchor_TRT",
                  with(f, ints("featureMapShapes", {19, 10, 0, 3, 2, 1}))),
      HasSubstr("field 'featureMapShapes' must be in [1, 32768], got 0"));
  EXPECT_THAT(
      createError("GridAnchor_TRT", with(f, floats("variance", {.1, .1, .2}))),
      HasSubstr("field 'variance' must have 4 floats, got 3"));
  expectRoundTrip("GridAnchor_TRT", f, {});
}

} // namespace
