//===- GridAnchor.cu - GridAnchor_TRT: TensorFlow's SSD anchors -----------===//
//
// TensorRT's GridAnchor_TRT, the anchors of TensorFlow's object detection
// API for SSD (create_ssd_anchors with reduce_boxes_in_lowest_layer and an
// interpolated scale, tiled on square grids).
//
// kiln's form: no inputs (the anchors depend on the fields only; TensorRT
// ignores its input's data too) and one output per layer l < numLayers,
// [1, 2, F * F * numPriors_l * 4, 1] f32 for the feature map of
// featureMapShapes[l] = F cells a side: the boxes (xmin, ymin, xmax, ymax,
// relative to the image) of every cell (row-major) and prior, then as many
// variances.
//
// Layer l has the scale s_l = minSize + (maxSize - minSize) * l /
// (numLayers - 1). Layer 0 has 3 priors: (scale, ratio) = (0.1,
// aspectRatios[0]), (s_0, aspectRatios[1]), (s_0, aspectRatios[2]) (TF's
// (0.1, 1.0), (s_0, 2.0), (s_0, 0.5) with the usual ratios). Every other
// layer has (s_l, ar) for each ar of aspectRatios, then (sqrt(s_l *
// s_{l+1}), 1.0) with s_numLayers = 1. A prior is scale * sqrt(ratio) wide
// and scale / sqrt(ratio) high, centred on ((w + 0.5) / F, (h + 0.5) / F).
//
// Fields (TensorRT's names and defaults): minSize and maxSize (one float
// each; 0.2 and 0.95 by default, 0 < minSize <= maxSize), aspectRatios
// (floats > 0, at least 3), variance (4 floats > 0), featureMapShapes
// (numLayers integers >= 1), numLayers (an integer >= 2; 6 by default).
//
// One thread per prior box writes its box and its variances, a launch per
// layer.
//
//===----------------------------------------------------------------------===//

#include "BuiltinPlugins.h"
#include "DetectionFields.h"
#include "KernelLaunch.h"

#include <cmath>

namespace kiln::rt::builtin {
namespace {

constexpr const char *kName = "GridAnchor_TRT";
/// The most priors per cell (their sizes ride in a kernel parameter).
constexpr int kMaxPriors = 256;
/// The largest feature map side.
constexpr int64_t kMaxSide = 1 << 15;

/// One layer's anchors, for the kernel.
struct AnchorLayer {
  float widths[kMaxPriors], heights[kMaxPriors];
  float variance[4];
  int numPriors;
  int side;
};

__global__ void gridAnchorKernel(AnchorLayer layer, float *output) {
  int64_t n = int64_t(layer.side) * layer.side * layer.numPriors;
  float stride = 1.0f / float(layer.side);
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x) {
    int prior = int(i % layer.numPriors);
    int64_t cell = i / layer.numPriors;
    int w = int(cell % layer.side), h = int(cell / layer.side);
    float centerX = float(w) * stride + 0.5f * stride;
    float centerY = float(h) * stride + 0.5f * stride;
    float halfW = 0.5f * layer.widths[prior];
    float halfH = 0.5f * layer.heights[prior];
    float box[4] = {centerX - halfW, centerY - halfH, centerX + halfW,
                    centerY + halfH};
    for (int k = 0; k < 4; ++k) {
      output[i * 4 + k] = box[k];
      output[(n + i) * 4 + k] = layer.variance[k];
    }
  }
}

struct GridAnchorParams {
  float minSize = 0.2f, maxSize = 0.95f;
  std::vector<float> aspectRatios, variance;
  std::vector<int64_t> featureMapShapes;
  int64_t numLayers = 6;
};

class GridAnchor : public Plugin {
public:
  explicit GridAnchor(GridAnchorParams params) : p(std::move(params)) {
    auto scaleOf = [&](int64_t l) -> double {
      if (l >= p.numLayers)
        return 1.0;
      return double(p.minSize) + (double(p.maxSize) - double(p.minSize)) *
                                     double(l) / double(p.numLayers - 1);
    };
    for (int64_t l = 0; l < p.numLayers; ++l) {
      AnchorLayer layer = {};
      std::vector<std::pair<double, double>> priors; // (scale, ratio)
      if (l == 0) {
        priors = {{0.1, p.aspectRatios[0]},
                  {scaleOf(0), p.aspectRatios[1]},
                  {scaleOf(0), p.aspectRatios[2]}};
      } else {
        for (float ar : p.aspectRatios)
          priors.push_back({scaleOf(l), ar});
        priors.push_back({std::sqrt(scaleOf(l) * scaleOf(l + 1)), 1.0});
      }
      for (size_t i = 0; i < priors.size() && i < size_t(kMaxPriors); ++i) {
        double root = std::sqrt(priors[i].second);
        layer.widths[i] = float(priors[i].first * root);
        layer.heights[i] = float(priors[i].first / root);
      }
      for (int k = 0; k < 4; ++k)
        layer.variance[k] = p.variance[k];
      layer.numPriors = int(priors.size());
      layer.side = int(p.featureMapShapes[l]);
      layers.push_back(layer);
    }
  }

  StatusOr<std::vector<PluginTensor>>
  getOutputs(const std::vector<PluginTensor> &inputs) const override {
    if (!inputs.empty())
      return invalid(kName, "takes no inputs (in kiln the anchors depend on "
                            "the fields only), got " +
                                std::to_string(inputs.size()));
    std::vector<PluginTensor> outputs;
    for (const AnchorLayer &layer : layers)
      outputs.push_back(
          {DataType::F32,
           {1, 2, int64_t(layer.side) * layer.side * layer.numPriors * 4, 1}});
    return outputs;
  }

  Status enqueue(const PluginBuffers &b) override {
    for (size_t l = 0; l < layers.size(); ++l) {
      int64_t n =
          int64_t(layers[l].side) * layers[l].side * layers[l].numPriors;
      gridAnchorKernel<<<gridFor(n), kBlockThreads, 0, streamOf(b)>>>(
          layers[l], reinterpret_cast<float *>(b.outputs[l]));
      if (Status s = launchStatus(kName, "gridAnchorKernel"); !s)
        return s;
    }
    return Status::ok();
  }

  PluginFields getFields() const override {
    auto floats = [](const std::vector<float> &v) {
      return std::vector<double>(v.begin(), v.end());
    };
    return {PluginField::of("minSize", std::vector<double>{p.minSize}),
            PluginField::of("maxSize", std::vector<double>{p.maxSize}),
            PluginField::of("aspectRatios", floats(p.aspectRatios)),
            PluginField::of("variance", floats(p.variance)),
            PluginField::of("featureMapShapes", p.featureMapShapes),
            PluginField::of("numLayers", std::vector<int64_t>{p.numLayers})};
  }

private:
  GridAnchorParams p;
  std::vector<AnchorLayer> layers;
};

class GridAnchorCreator : public PluginCreator {
public:
  std::string name() const override { return kName; }
  std::string version() const override { return "1"; }
  std::vector<std::pair<std::string, PluginField::Type>>
  fieldNames() const override {
    using T = PluginField::Type;
    return {{"minSize", T::Floats},        {"maxSize", T::Floats},
            {"aspectRatios", T::Floats},   {"variance", T::Floats},
            {"featureMapShapes", T::Ints}, {"numLayers", T::Ints}};
  }

  StatusOr<std::unique_ptr<Plugin>>
  create(const PluginFields &fields) const override {
    FieldReader r(kName, fields, fieldNames());
    if (Status s = r.checkNames(); !s)
      return s;
    GridAnchorParams p;
    if (r.has("minSize"))
      if (Status s = r.getFloat("minSize", p.minSize); !s)
        return s;
    if (r.has("maxSize"))
      if (Status s = r.getFloat("maxSize", p.maxSize); !s)
        return s;
    if (!(p.minSize > 0 && p.minSize <= p.maxSize))
      return r.error("fields 'minSize' and 'maxSize' must satisfy 0 < minSize "
                     "<= maxSize, got " +
                     std::to_string(p.minSize) + " and " +
                     std::to_string(p.maxSize));
    if (Status s = r.getInt("numLayers", p.numLayers, 2, 1024, 6); !s)
      return s;
    if (Status s = r.getFloats("aspectRatios", p.aspectRatios, 0); !s)
      return s;
    if (p.aspectRatios.size() < 3)
      return r.error("field 'aspectRatios' must have at least 3 floats (the "
                     "first layer's priors use the first 3), got " +
                     std::to_string(p.aspectRatios.size()));
    if (p.aspectRatios.size() >= size_t(kMaxPriors))
      return r.error("field 'aspectRatios' must have fewer than " +
                     std::to_string(kMaxPriors) + " floats, got " +
                     std::to_string(p.aspectRatios.size()));
    for (float v : p.aspectRatios)
      if (!(v > 0))
        return r.error("field 'aspectRatios' must be positive, got " +
                       std::to_string(v));
    if (Status s = r.getFloats("variance", p.variance, 4); !s)
      return s;
    for (float v : p.variance)
      if (!(v > 0))
        return r.error("field 'variance' must be positive, got " +
                       std::to_string(v));
    if (Status s = r.getInts("featureMapShapes", p.featureMapShapes,
                             size_t(p.numLayers));
        !s)
      return s;
    for (int64_t side : p.featureMapShapes)
      if (side < 1 || side > kMaxSide)
        return r.error("field 'featureMapShapes' must be in [1, " +
                       std::to_string(kMaxSide) + "], got " +
                       std::to_string(side));
    return std::unique_ptr<Plugin>(new GridAnchor(std::move(p)));
  }
};

} // namespace

std::shared_ptr<PluginCreator> makeGridAnchorCreator() {
  return std::make_shared<GridAnchorCreator>();
}

} // namespace kiln::rt::builtin
