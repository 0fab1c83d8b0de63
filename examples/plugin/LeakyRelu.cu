//===- LeakyRelu.cu - a plugin library outside kiln's tree ----------------===//
//
// TensorRT's LReLU_TRT as a kiln plugin: y = x >= 0 ? x : slope * x over one
// f32 tensor of any shape, one CUDA thread per element. Built by nvcc into
// libkiln_leaky_relu.so (CMakeLists.txt), it needs only kiln's runtime
// headers: KILN_PLUGIN_LIBRARY names its creator, and a program loads it
// with kiln-run-plan --plugin-lib=, loadPluginLibrary or
// kiln.load_plugin_library. See README.md.
//
//===----------------------------------------------------------------------===//

#include "kiln/runtime/Plugin.h"

#include <cuda_runtime.h>

#include <string>

using namespace kiln::rt;

namespace {

__global__ void leakyRelu(const float *x, float *y, float slope, int64_t n) {
  int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = x[i] >= 0.0f ? x[i] : slope * x[i];
}

class LeakyRelu : public Plugin {
public:
  explicit LeakyRelu(double slope) : slope(slope) {}

  StatusOr<std::vector<PluginTensor>>
  getOutputs(const std::vector<PluginTensor> &inputs) const override {
    if (inputs.size() != 1 || inputs[0].type != DataType::F32)
      return Status(StatusCode::InvalidArgument,
                    "LeakyRelu takes one f32 tensor");
    return inputs; // the same type and shape
  }

  Status configure(const std::vector<PluginTensor> &inputs,
                   const std::vector<PluginTensor> &) override {
    elements = 1;
    for (int64_t d : inputs[0].dims)
      elements *= d;
    return Status::ok();
  }

  Status enqueue(const PluginBuffers &b) override {
    if (elements == 0)
      return Status::ok();
    int threads = 256;
    int64_t blocks = (elements + threads - 1) / threads;
    // The stream is the runtime's CUstream; the CUDA runtime API takes it as
    // a cudaStream_t (both use the device's primary context).
    leakyRelu<<<unsigned(blocks), threads, 0,
                static_cast<cudaStream_t>(b.stream)>>>(
        reinterpret_cast<const float *>(b.inputs[0]),
        reinterpret_cast<float *>(b.outputs[0]), float(slope), elements);
    cudaError_t error = cudaGetLastError();
    if (error != cudaSuccess)
      return Status(StatusCode::DriverError, std::string("LeakyRelu launch: ") +
                                                 cudaGetErrorString(error));
    return Status::ok();
  }

  PluginFields getFields() const override {
    return {PluginField::of("negative_slope", std::vector<double>{slope})};
  }

private:
  double slope;
  int64_t elements = 0;
};

class LeakyReluCreator : public PluginCreator {
public:
  std::string name() const override { return "LeakyRelu"; }
  std::string version() const override { return "1"; }
  std::string pluginNamespace() const override { return "example"; }
  std::vector<std::pair<std::string, PluginField::Type>>
  fieldNames() const override {
    return {{"negative_slope", PluginField::Type::Floats}};
  }
  StatusOr<std::unique_ptr<Plugin>>
  create(const PluginFields &fields) const override {
    const PluginField *slope = findField(fields, "negative_slope");
    if (!slope || slope->type != PluginField::Type::Floats ||
        slope->floats.size() != 1)
      return Status(StatusCode::InvalidArgument,
                    "LeakyRelu needs one float negative_slope");
    if (!(slope->floats[0] >= 0.0 && slope->floats[0] < 1.0))
      return Status(StatusCode::InvalidArgument,
                    "LeakyRelu's negative_slope must be in [0, 1), got " +
                        std::to_string(slope->floats[0]));
    return std::unique_ptr<Plugin>(new LeakyRelu(slope->floats[0]));
  }
};

} // namespace

KILN_PLUGIN_LIBRARY(LeakyReluCreator)
