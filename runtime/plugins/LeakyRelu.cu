//===- LeakyRelu.cu - LReLU_TRT: leaky ReLU -------------------------------===//
//
// TensorRT's LReLU_TRT: y = x >= 0 ? x : negSlope * x, elementwise over one
// f32 tensor of any shape (the output has its shape). Field: negSlope (one
// float, any finite value, as TensorRT). One thread per element in a
// grid-stride loop.
//
//===----------------------------------------------------------------------===//

#include "BuiltinPlugins.h"
#include "DetectionFields.h"
#include "KernelLaunch.h"

namespace kiln::rt::builtin {
namespace {

constexpr const char *kName = "LReLU_TRT";

__global__ void leakyReluKernel(const float *x, float *y, float slope,
                                int64_t n) {
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x) {
    float v = x[i];
    y[i] = v >= 0.0f ? v : slope * v;
  }
}

class LeakyRelu : public ElementwisePlugin {
public:
  explicit LeakyRelu(float slope) : ElementwisePlugin(kName), slope(slope) {}

  Status enqueue(const PluginBuffers &b) override {
    if (elements == 0)
      return Status::ok();
    leakyReluKernel<<<gridFor(elements), kBlockThreads, 0, streamOf(b)>>>(
        reinterpret_cast<const float *>(b.inputs[0]),
        reinterpret_cast<float *>(b.outputs[0]), slope, elements);
    return launchStatus(kName, "leakyReluKernel");
  }

  PluginFields getFields() const override {
    return {PluginField::of("negSlope", std::vector<double>{slope})};
  }

private:
  float slope;
};

class LeakyReluCreator : public PluginCreator {
public:
  std::string name() const override { return kName; }
  std::string version() const override { return "1"; }
  std::vector<std::pair<std::string, PluginField::Type>>
  fieldNames() const override {
    return {{"negSlope", PluginField::Type::Floats}};
  }
  StatusOr<std::unique_ptr<Plugin>>
  create(const PluginFields &fields) const override {
    FieldReader r(kName, fields, fieldNames());
    if (Status s = r.checkNames(); !s)
      return s;
    float slope = 0;
    if (Status s = r.getFloat("negSlope", slope); !s)
      return s;
    return std::unique_ptr<Plugin>(new LeakyRelu(slope));
  }
};

} // namespace

std::shared_ptr<PluginCreator> makeLeakyReluCreator() {
  return std::make_shared<LeakyReluCreator>();
}

} // namespace kiln::rt::builtin
