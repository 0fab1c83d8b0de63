//===- Clip.cu - Clip_TRT: clamp to [clipMin, clipMax] --------------------===//
//
// TensorRT's Clip_TRT: y = min(max(x, clipMin), clipMax), elementwise over
// one f32 tensor of any shape (the output has its shape). Fields: clipMin
// and clipMax (one float each); clipMin > clipMax is refused. One thread per
// element in a grid-stride loop.
//
//===----------------------------------------------------------------------===//

#include "BuiltinPlugins.h"
#include "DetectionFields.h"
#include "KernelLaunch.h"

namespace kiln::rt::builtin {
namespace {

constexpr const char *kName = "Clip_TRT";

__global__ void clipKernel(const float *x, float *y, float lo, float hi,
                           int64_t n) {
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x)
    y[i] = fminf(fmaxf(x[i], lo), hi);
}

class Clip : public ElementwisePlugin {
public:
  Clip(float lo, float hi) : ElementwisePlugin(kName), lo(lo), hi(hi) {}

  Status enqueue(const PluginBuffers &b) override {
    if (elements == 0)
      return Status::ok();
    clipKernel<<<gridFor(elements), kBlockThreads, 0, streamOf(b)>>>(
        reinterpret_cast<const float *>(b.inputs[0]),
        reinterpret_cast<float *>(b.outputs[0]), lo, hi, elements);
    return launchStatus(kName, "clipKernel");
  }

  PluginFields getFields() const override {
    return {PluginField::of("clipMin", std::vector<double>{lo}),
            PluginField::of("clipMax", std::vector<double>{hi})};
  }

private:
  float lo, hi;
};

class ClipCreator : public PluginCreator {
public:
  std::string name() const override { return kName; }
  std::string version() const override { return "1"; }
  std::vector<std::pair<std::string, PluginField::Type>>
  fieldNames() const override {
    return {{"clipMin", PluginField::Type::Floats},
            {"clipMax", PluginField::Type::Floats}};
  }
  StatusOr<std::unique_ptr<Plugin>>
  create(const PluginFields &fields) const override {
    FieldReader r(kName, fields, fieldNames());
    if (Status s = r.checkNames(); !s)
      return s;
    float lo = 0, hi = 0;
    if (Status s = r.getFloat("clipMin", lo); !s)
      return s;
    if (Status s = r.getFloat("clipMax", hi); !s)
      return s;
    if (lo > hi)
      return r.error("field 'clipMin' (" + std::to_string(lo) +
                     ") must not exceed field 'clipMax' (" +
                     std::to_string(hi) + ")");
    return std::unique_ptr<Plugin>(new Clip(lo, hi));
  }
};

} // namespace

std::shared_ptr<PluginCreator> makeClipCreator() {
  return std::make_shared<ClipCreator>();
}

} // namespace kiln::rt::builtin
