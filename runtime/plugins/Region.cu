//===- Region.cu - Region_TRT: YOLOv2's region activations ----------------===//
//
// TensorRT's Region_TRT without a softmax tree (Darknet's region layer as
// inference runs it): the f32 input [N, C, H, W] holds, per anchor
// a < num, coords + 1 + classes channels (C = num * (coords + 1 + classes)):
// the box (x, y, w, h, ... coords of them), the objectness, then the class
// scores. The output has the input's shape: x and y (the anchor's channels
// 0 and 1) and the objectness (channel coords) go through the logistic
// sigmoid, the other box channels are copied, and the class scores are
// replaced by their softmax over the classes (per anchor and position).
// Fields: num, coords (>= 2), classes (>= 1), one integer each.
//
// One thread per (image, anchor, position): it reads the anchor's channels
// at its position (consecutive threads, consecutive positions) and writes
// them once.
//
//===----------------------------------------------------------------------===//

#include "BuiltinPlugins.h"
#include "DetectionFields.h"
#include "KernelLaunch.h"

namespace kiln::rt::builtin {
namespace {

constexpr const char *kName = "Region_TRT";

__device__ float logistic(float x) { return 1.0f / (1.0f + expf(-x)); }

__global__ void regionKernel(const float *input, float *output, int64_t batch,
                             int num, int coords, int classes,
                             int64_t spatial) {
  int64_t entries = coords + 1 + classes;
  int64_t n = batch * num * spatial;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x) {
    int64_t position = i % spatial;
    int64_t anchor = i / spatial; // image * num + anchor of the image
    int64_t base = anchor * entries * spatial + position;
    const float *x = input + base;
    float *y = output + base;
    for (int c = 0; c < coords; ++c) {
      float v = x[c * spatial];
      y[c * spatial] = c < 2 ? logistic(v) : v;
    }
    y[coords * spatial] = logistic(x[coords * spatial]);
    const float *scores = x + (coords + 1) * spatial;
    float *probabilities = y + (coords + 1) * spatial;
    float largest = scores[0];
    for (int c = 1; c < classes; ++c)
      largest = fmaxf(largest, scores[c * spatial]);
    float sum = 0.0f;
    for (int c = 0; c < classes; ++c)
      sum += expf(scores[c * spatial] - largest);
    for (int c = 0; c < classes; ++c)
      probabilities[c * spatial] = expf(scores[c * spatial] - largest) / sum;
  }
}

class Region : public Plugin {
public:
  Region(int num, int coords, int classes)
      : num(num), coords(coords), classes(classes) {}

  StatusOr<std::vector<PluginTensor>>
  getOutputs(const std::vector<PluginTensor> &inputs) const override {
    if (Status s = checkInputs(kName, inputs, 1, 4); !s)
      return s;
    int64_t want = int64_t(num) * (coords + 1 + classes);
    if (inputs[0].dims[1] != want)
      return invalid(kName, "the input (" + dimsString(inputs[0].dims) +
                                ") must have num * (coords + 1 + classes) = " +
                                std::to_string(want) + " channels");
    return inputs;
  }

  Status configure(const std::vector<PluginTensor> &inputs,
                   const std::vector<PluginTensor> &) override {
    batch = inputs[0].dims[0];
    spatial = inputs[0].dims[2] * inputs[0].dims[3];
    return Status::ok();
  }

  Status enqueue(const PluginBuffers &b) override {
    int64_t n = batch * num * spatial;
    if (n == 0)
      return Status::ok();
    regionKernel<<<gridFor(n), kBlockThreads, 0, streamOf(b)>>>(
        reinterpret_cast<const float *>(b.inputs[0]),
        reinterpret_cast<float *>(b.outputs[0]), batch, num, coords, classes,
        spatial);
    return launchStatus(kName, "regionKernel");
  }

  PluginFields getFields() const override {
    return {PluginField::of("num", std::vector<int64_t>{num}),
            PluginField::of("coords", std::vector<int64_t>{coords}),
            PluginField::of("classes", std::vector<int64_t>{classes})};
  }

private:
  int num, coords, classes;
  int64_t batch = 0, spatial = 0;
};

class RegionCreator : public PluginCreator {
public:
  std::string name() const override { return kName; }
  std::string version() const override { return "1"; }
  std::vector<std::pair<std::string, PluginField::Type>>
  fieldNames() const override {
    return {{"num", PluginField::Type::Ints},
            {"coords", PluginField::Type::Ints},
            {"classes", PluginField::Type::Ints}};
  }
  StatusOr<std::unique_ptr<Plugin>>
  create(const PluginFields &fields) const override {
    FieldReader r(kName, fields, fieldNames());
    if (Status s = r.checkNames(); !s)
      return s;
    int64_t num = 0, coords = 0, classes = 0;
    if (Status s = r.getInt("num", num, 1, 1 << 16); !s)
      return s;
    if (Status s = r.getInt("coords", coords, 2, 1 << 16); !s)
      return s;
    if (Status s = r.getInt("classes", classes, 1, 1 << 16); !s)
      return s;
    return std::unique_ptr<Plugin>(
        new Region(int(num), int(coords), int(classes)));
  }
};

} // namespace

std::shared_ptr<PluginCreator> makeRegionCreator() {
  return std::make_shared<RegionCreator>();
}

} // namespace kiln::rt::builtin
