//===- PriorBox.cu - PriorBox_TRT: SSD's prior boxes ----------------------===//
//
// TensorRT's PriorBox_TRT, Caffe SSD's PriorBox layer. Inputs: the feature
// map [N, C, H, W] and the image [N, C', imgH', imgW'] (f32; only their
// shapes are read). Output: [1, 2, H * W * numPriors * 4, 1] f32, the boxes
// (xmin, ymin, xmax, ymax, relative to the image) then as many variances.
//
// Per cell (h, w), row-major, centre ((w + offset) * stepW,
// (h + offset) * stepH); per minSize[i], in Caffe's order: the square of
// side minSize[i]; the square of side sqrt(minSize[i] * maxSize[i]) when
// maxSize is given; then a box of width minSize[i] * sqrt(ar) and height
// minSize[i] / sqrt(ar) for each aspect ratio ar other than the first 1.0
// of the list [1.0, aspectRatios... (each followed by 1 / ar when flip)],
// where a ratio within 1e-6 of one already listed is dropped. Coordinates
// are divided by imgW / imgH and clamped to [0, 1] when clip. So
// numPriors = minSize count * (ratios listed + (maxSize given ? 1 : 0)).
//
// Fields (TensorRT's names): minSize (floats > 0), maxSize (floats, none or
// one per minSize, each above it), aspectRatios (floats > 0, optional),
// flip and clip (0 or 1; 1 and 0 by default, Caffe's), variance (4 floats
// > 0), imgH and imgW (ints >= 0; 0, the default, takes the image input's),
// stepH and stepW (floats >= 0; when either is 0, the default, both are
// imgH / H and imgW / W), offset (float, 0.5 by default).
//
// One thread per prior box writes its box and its variances.
//
//===----------------------------------------------------------------------===//

#include "BuiltinPlugins.h"
#include "DetectionFields.h"
#include "KernelLaunch.h"

#include <cmath>

namespace kiln::rt::builtin {
namespace {

constexpr const char *kName = "PriorBox_TRT";
/// The most prior boxes per cell (their sizes ride in a kernel parameter).
constexpr int kMaxPriors = 256;

/// What the kernel needs: the boxes of one cell, the grid and the scales.
struct PriorBoxLayout {
  float widths[kMaxPriors], heights[kMaxPriors];
  float variance[4];
  int numPriors;
  int height, width;
  float stepH, stepW, offset, imgH, imgW;
  bool clip;
};

__global__ void priorBoxKernel(PriorBoxLayout layout, float *output) {
  int64_t n = int64_t(layout.height) * layout.width * layout.numPriors;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x) {
    int prior = int(i % layout.numPriors);
    int64_t cell = i / layout.numPriors;
    int w = int(cell % layout.width), h = int(cell / layout.width);
    float centerX = (float(w) + layout.offset) * layout.stepW;
    float centerY = (float(h) + layout.offset) * layout.stepH;
    float halfW = layout.widths[prior] / 2.0f;
    float halfH = layout.heights[prior] / 2.0f;
    float box[4] = {
        (centerX - halfW) / layout.imgW, (centerY - halfH) / layout.imgH,
        (centerX + halfW) / layout.imgW, (centerY + halfH) / layout.imgH};
    for (int k = 0; k < 4; ++k) {
      float v = box[k];
      if (layout.clip)
        v = fminf(fmaxf(v, 0.0f), 1.0f);
      output[i * 4 + k] = v;
      output[(n + i) * 4 + k] = layout.variance[k];
    }
  }
}

struct PriorBoxParams {
  std::vector<float> minSize, maxSize, aspectRatios, variance;
  bool flip = true, clip = false;
  int64_t imgH = 0, imgW = 0;
  float stepH = 0, stepW = 0, offset = 0.5f;
};

/// [1.0, aspectRatios... (each followed by 1 / ar when flip)], without
/// ratios within 1e-6 of one listed before (TensorRT's and Caffe's list).
std::vector<float> expandRatios(const PriorBoxParams &p) {
  std::vector<float> ratios{1.0f};
  for (float ar : p.aspectRatios) {
    bool listed = false;
    for (float r : ratios)
      listed |= std::fabs(ar - r) < 1e-6f;
    if (listed)
      continue;
    ratios.push_back(ar);
    if (p.flip)
      ratios.push_back(1.0f / ar);
  }
  return ratios;
}

class PriorBox : public Plugin {
public:
  explicit PriorBox(PriorBoxParams params) : p(std::move(params)) {
    std::vector<float> ratios = expandRatios(p);
    for (size_t s = 0; s < p.minSize.size(); ++s) {
      float size = p.minSize[s];
      widths.push_back(size);
      heights.push_back(size);
      if (!p.maxSize.empty()) {
        float side = std::sqrt(size * p.maxSize[s]);
        widths.push_back(side);
        heights.push_back(side);
      }
      for (size_t r = 1; r < ratios.size(); ++r) {
        float root = std::sqrt(ratios[r]);
        widths.push_back(size * root);
        heights.push_back(size / root);
      }
    }
  }

  /// Prior boxes per cell.
  int64_t numPriors() const { return int64_t(widths.size()); }

  StatusOr<std::vector<PluginTensor>>
  getOutputs(const std::vector<PluginTensor> &inputs) const override {
    if (Status s = checkInputs(kName, inputs, 2, 4); !s)
      return s;
    const std::vector<int64_t> &map = inputs[0].dims, &image = inputs[1].dims;
    if (map[2] > INT32_MAX || map[3] > INT32_MAX)
      return invalid(kName,
                     "the feature map (" + dimsString(map) + ") is too large");
    if ((p.imgH == 0 || p.imgW == 0) && (image[2] == 0 || image[3] == 0))
      return invalid(kName, "imgH and imgW are taken from the image input, "
                            "which is empty (" +
                                dimsString(image) + ")");
    if ((p.stepH == 0 || p.stepW == 0) && (map[2] == 0 || map[3] == 0))
      return invalid(kName, "stepH and stepW are computed from the feature "
                            "map, which is empty (" +
                                dimsString(map) + ")");
    return std::vector<PluginTensor>{
        {DataType::F32, {1, 2, map[2] * map[3] * numPriors() * 4, 1}}};
  }

  Status configure(const std::vector<PluginTensor> &inputs,
                   const std::vector<PluginTensor> &) override {
    const std::vector<int64_t> &map = inputs[0].dims, &image = inputs[1].dims;
    layout = {};
    for (int64_t i = 0; i < numPriors(); ++i) {
      layout.widths[i] = widths[i];
      layout.heights[i] = heights[i];
    }
    for (int k = 0; k < 4; ++k)
      layout.variance[k] = p.variance[k];
    layout.numPriors = int(numPriors());
    layout.height = int(map[2]);
    layout.width = int(map[3]);
    int64_t imgH = p.imgH, imgW = p.imgW;
    if (imgH == 0 || imgW == 0) {
      imgH = image[2];
      imgW = image[3];
    }
    layout.imgH = float(imgH);
    layout.imgW = float(imgW);
    layout.stepH = p.stepH;
    layout.stepW = p.stepW;
    if (p.stepH == 0 || p.stepW == 0) {
      layout.stepH = float(imgH) / float(map[2]);
      layout.stepW = float(imgW) / float(map[3]);
    }
    layout.offset = p.offset;
    layout.clip = p.clip;
    return Status::ok();
  }

  Status enqueue(const PluginBuffers &b) override {
    int64_t n = int64_t(layout.height) * layout.width * layout.numPriors;
    if (n == 0)
      return Status::ok();
    priorBoxKernel<<<gridFor(n), kBlockThreads, 0, streamOf(b)>>>(
        layout, reinterpret_cast<float *>(b.outputs[0]));
    return launchStatus(kName, "priorBoxKernel");
  }

  PluginFields getFields() const override {
    auto floats = [](const std::vector<float> &v) {
      return std::vector<double>(v.begin(), v.end());
    };
    PluginFields fields{
        PluginField::of("minSize", floats(p.minSize)),
        PluginField::of("flip", std::vector<int64_t>{p.flip ? 1 : 0}),
        PluginField::of("clip", std::vector<int64_t>{p.clip ? 1 : 0}),
        PluginField::of("variance", floats(p.variance)),
        PluginField::of("imgH", std::vector<int64_t>{p.imgH}),
        PluginField::of("imgW", std::vector<int64_t>{p.imgW}),
        PluginField::of("stepH", std::vector<double>{p.stepH}),
        PluginField::of("stepW", std::vector<double>{p.stepW}),
        PluginField::of("offset", std::vector<double>{p.offset})};
    if (!p.maxSize.empty())
      fields.push_back(PluginField::of("maxSize", floats(p.maxSize)));
    if (!p.aspectRatios.empty())
      fields.push_back(PluginField::of("aspectRatios", floats(p.aspectRatios)));
    return fields;
  }

private:
  PriorBoxParams p;
  std::vector<float> widths, heights;
  PriorBoxLayout layout = {};
};

class PriorBoxCreator : public PluginCreator {
public:
  std::string name() const override { return kName; }
  std::string version() const override { return "1"; }
  std::vector<std::pair<std::string, PluginField::Type>>
  fieldNames() const override {
    using T = PluginField::Type;
    return {{"minSize", T::Floats},      {"maxSize", T::Floats},
            {"aspectRatios", T::Floats}, {"flip", T::Ints},
            {"clip", T::Ints},           {"variance", T::Floats},
            {"imgH", T::Ints},           {"imgW", T::Ints},
            {"stepH", T::Floats},        {"stepW", T::Floats},
            {"offset", T::Floats}};
  }

  StatusOr<std::unique_ptr<Plugin>>
  create(const PluginFields &fields) const override {
    FieldReader r(kName, fields, fieldNames());
    if (Status s = r.checkNames(); !s)
      return s;
    PriorBoxParams p;
    if (Status s = r.getFloats("minSize", p.minSize, 0); !s)
      return s;
    for (float v : p.minSize)
      if (!(v > 0))
        return r.error("field 'minSize' must be positive, got " +
                       std::to_string(v));
    if (r.has("maxSize")) {
      if (Status s = r.getFloats("maxSize", p.maxSize, p.minSize.size()); !s)
        return s;
      for (size_t i = 0; i < p.maxSize.size(); ++i)
        if (!(p.maxSize[i] > p.minSize[i]))
          return r.error("field 'maxSize' must exceed minSize at index " +
                         std::to_string(i) + ", got " +
                         std::to_string(p.maxSize[i]) + " for minSize " +
                         std::to_string(p.minSize[i]));
    }
    if (r.has("aspectRatios")) {
      if (Status s = r.getFloats("aspectRatios", p.aspectRatios, 0); !s)
        return s;
      for (float v : p.aspectRatios)
        if (!(v > 0))
          return r.error("field 'aspectRatios' must be positive, got " +
                         std::to_string(v));
    }
    if (Status s = r.getBool("flip", p.flip, true); !s)
      return s;
    if (Status s = r.getBool("clip", p.clip, false); !s)
      return s;
    if (Status s = r.getFloats("variance", p.variance, 4); !s)
      return s;
    for (float v : p.variance)
      if (!(v > 0))
        return r.error("field 'variance' must be positive, got " +
                       std::to_string(v));
    if (Status s = r.getInt("imgH", p.imgH, 0, INT32_MAX, 0); !s)
      return s;
    if (Status s = r.getInt("imgW", p.imgW, 0, INT32_MAX, 0); !s)
      return s;
    for (auto [name, value] :
         {std::pair<const char *, float *>{"stepH", &p.stepH},
          {"stepW", &p.stepW}}) {
      if (!r.has(name))
        continue;
      if (Status s = r.getFloat(name, *value); !s)
        return s;
      if (!(*value >= 0))
        return r.error("field '" + std::string(name) +
                       "' must be >= 0 (0: computed), got " +
                       std::to_string(*value));
    }
    if (r.has("offset"))
      if (Status s = r.getFloat("offset", p.offset); !s)
        return s;
    auto plugin = std::make_unique<PriorBox>(p);
    if (plugin->numPriors() > kMaxPriors)
      return r.error("the fields give " + std::to_string(plugin->numPriors()) +
                     " prior boxes per cell, at most " +
                     std::to_string(kMaxPriors) + " are supported");
    return std::unique_ptr<Plugin>(std::move(plugin));
  }
};

} // namespace

std::shared_ptr<PluginCreator> makePriorBoxCreator() {
  return std::make_shared<PriorBoxCreator>();
}

} // namespace kiln::rt::builtin
