//===- Reorg.cu - Reorg_TRT: YOLOv2's reorg layer -------------------------===//
//
// TensorRT's Reorg_TRT, Darknet's reorg layer (reorg_cpu with forward = 0,
// which TensorRT reproduces): an f32 input [N, C, H, W] becomes
// [N, C*s*s, H/s, W/s] for the stride s (field `stride`, one integer >= 1).
// The mapping is Darknet's, not a plain space-to-depth: output element i,
// read as (b, k, j, w) over the *input's* dimensions [N, C, H, W], is the
// input element at (b, k % C', j*s + (k / C') / s, w*s + (k / C') % s) of
// the input's memory viewed as [N, C', H*s, W*s], where C' = C / (s*s).
// So H and W must divide by s (the output's shape) and C by s*s (the view).
// Pure data movement: one thread per element, a grid-stride loop.
//
//===----------------------------------------------------------------------===//

#include "BuiltinPlugins.h"
#include "DetectionFields.h"
#include "KernelLaunch.h"

namespace kiln::rt::builtin {
namespace {

constexpr const char *kName = "Reorg_TRT";

__global__ void reorgKernel(const float *input, float *output, int64_t batch,
                            int64_t channels, int64_t height, int64_t width,
                            int64_t stride) {
  int64_t n = batch * channels * height * width;
  int64_t viewChannels = channels / (stride * stride);
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x) {
    int64_t w = i % width;
    int64_t j = (i / width) % height;
    int64_t k = (i / (width * height)) % channels;
    int64_t b = i / (width * height * channels);
    int64_t viewC = k % viewChannels;
    int64_t offset = k / viewChannels;
    int64_t viewH = j * stride + offset / stride;
    int64_t viewW = w * stride + offset % stride;
    output[i] = input[viewW + width * stride *
                                  (viewH + height * stride *
                                               (viewC + viewChannels * b))];
  }
}

class Reorg : public Plugin {
public:
  explicit Reorg(int64_t stride) : stride(stride) {}

  StatusOr<std::vector<PluginTensor>>
  getOutputs(const std::vector<PluginTensor> &inputs) const override {
    if (Status s = checkInputs(kName, inputs, 1, 4); !s)
      return s;
    const std::vector<int64_t> &d = inputs[0].dims;
    if (d[2] % stride || d[3] % stride)
      return invalid(
          kName, "the input's height and width (" + dimsString(inputs[0].dims) +
                     ") must divide by stride " + std::to_string(stride));
    if (d[1] % (stride * stride))
      return invalid(kName, "the input's channels (" + std::to_string(d[1]) +
                                ") must divide by stride * stride (" +
                                std::to_string(stride * stride) +
                                ": Darknet's reorg views the input as [N, C / "
                                "(stride * stride), H * stride, W * stride])");
    return std::vector<PluginTensor>{
        {DataType::F32,
         {d[0], d[1] * stride * stride, d[2] / stride, d[3] / stride}}};
  }

  Status configure(const std::vector<PluginTensor> &inputs,
                   const std::vector<PluginTensor> &) override {
    dims = inputs[0].dims;
    return Status::ok();
  }

  Status enqueue(const PluginBuffers &b) override {
    int64_t n = elementCount(dims);
    if (n == 0)
      return Status::ok();
    reorgKernel<<<gridFor(n), kBlockThreads, 0, streamOf(b)>>>(
        reinterpret_cast<const float *>(b.inputs[0]),
        reinterpret_cast<float *>(b.outputs[0]), dims[0], dims[1], dims[2],
        dims[3], stride);
    return launchStatus(kName, "reorgKernel");
  }

  PluginFields getFields() const override {
    return {PluginField::of("stride", std::vector<int64_t>{stride})};
  }

private:
  int64_t stride;
  std::vector<int64_t> dims;
};

class ReorgCreator : public PluginCreator {
public:
  std::string name() const override { return kName; }
  std::string version() const override { return "1"; }
  std::vector<std::pair<std::string, PluginField::Type>>
  fieldNames() const override {
    return {{"stride", PluginField::Type::Ints}};
  }
  StatusOr<std::unique_ptr<Plugin>>
  create(const PluginFields &fields) const override {
    FieldReader r(kName, fields, fieldNames());
    if (Status s = r.checkNames(); !s)
      return s;
    int64_t stride = 0;
    if (Status s = r.getInt("stride", stride, 1, 1 << 15); !s)
      return s;
    return std::unique_ptr<Plugin>(new Reorg(stride));
  }
};

} // namespace

std::shared_ptr<PluginCreator> makeReorgCreator() {
  return std::make_shared<ReorgCreator>();
}

} // namespace kiln::rt::builtin
