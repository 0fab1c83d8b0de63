//===- Normalize.cu - Normalize_TRT: SSD's L2 normalization ---------------===//
//
// TensorRT's Normalize_TRT, Caffe SSD's Normalize layer, on an f32 input
// [N, C, H, W] (the output has its shape):
// - acrossSpatial = 0: each position (n, h, w) is divided by
//   sqrt(sum over c of x^2 + eps);
// - acrossSpatial = 1: each image n is divided by
//   sqrt(sum over c, h, w of x^2 + eps);
// then multiplied by weights[0] (channelShared = 1) or weights[c]
// (channelShared = 0). Fields: weights (floats), nbWeights (their count),
// acrossSpatial and channelShared (0 or 1), eps (a float >= 0). nbWeights
// must be the number of weights, 1 when channelShared, else C (checked
// against the input). eps sits inside the square root, as in Caffe and
// TensorRT. One difference from TensorRT: with acrossSpatial = 1 and
// per-channel weights, TensorRT's kernel divides by weights[c]; kiln
// multiplies, as Caffe and TensorRT's other three cases do.
//
// Kernels: across channels, one thread per position sums its C squares (in
// double) and scales them. Across space, three steps over the workspace:
// blocks of each image sum slices of it into partial sums, one block per
// image adds those up into 1 / norm, and one thread per element scales.
//
//===----------------------------------------------------------------------===//

#include "BuiltinPlugins.h"
#include "DetectionFields.h"
#include "KernelLaunch.h"

#include <cmath>

namespace kiln::rt::builtin {
namespace {

constexpr const char *kName = "Normalize_TRT";
/// Partial sums per image when normalizing across space (at most).
constexpr int64_t kMaxSlices = 256;
/// The most weights: they ride in a kernel parameter (8 KiB; CUDA 12.1 and
/// later take up to 32 KiB of parameters on sm_70 and newer).
constexpr int64_t kMaxWeights = 2048;

struct Weights {
  float values[kMaxWeights];
};

/// Sums `values` of the threads of a block (blockDim.x == kBlockThreads);
/// thread 0 gets the total.
__device__ double blockSum(double value) {
  __shared__ double partial[kBlockThreads];
  partial[threadIdx.x] = value;
  __syncthreads();
  for (int half = kBlockThreads / 2; half > 0; half /= 2) {
    if (int(threadIdx.x) < half)
      partial[threadIdx.x] += partial[threadIdx.x + half];
    __syncthreads();
  }
  return partial[0];
}

/// acrossSpatial = 0: one thread per (image, position).
__global__ void normalizeChannelsKernel(const float *x, float *y, int64_t batch,
                                        int64_t channels, int64_t spatial,
                                        float eps, bool channelShared,
                                        Weights weights) {
  int64_t n = batch * spatial;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x) {
    int64_t image = i / spatial, position = i % spatial;
    const float *in = x + image * channels * spatial + position;
    float *out = y + image * channels * spatial + position;
    double sum = 0.0;
    for (int64_t c = 0; c < channels; ++c) {
      double v = in[c * spatial];
      sum += v * v;
    }
    double inverse = 1.0 / sqrt(sum + double(eps));
    for (int64_t c = 0; c < channels; ++c)
      out[c * spatial] = float(in[c * spatial] * inverse *
                               weights.values[channelShared ? 0 : c]);
  }
}

/// acrossSpatial = 1, step 1: block (s, image) sums the squares of slice s
/// of the image into partial[image * slices + s].
__global__ void sumSquaresKernel(const float *x, double *partial,
                                 int64_t imageElements, int64_t slices) {
  int64_t image = blockIdx.y, slice = blockIdx.x;
  int64_t per = (imageElements + slices - 1) / slices;
  int64_t begin = slice * per;
  int64_t end = begin + per < imageElements ? begin + per : imageElements;
  const float *in = x + image * imageElements;
  double sum = 0.0;
  for (int64_t i = begin + threadIdx.x; i < end; i += blockDim.x) {
    double v = in[i];
    sum += v * v;
  }
  double total = blockSum(sum);
  if (threadIdx.x == 0)
    partial[image * slices + slice] = total;
}

/// acrossSpatial = 1, step 2: block `image` adds its partial sums up into
/// inverse[image] = 1 / sqrt(sum + eps).
__global__ void inverseNormKernel(const double *partial, double *inverse,
                                  int64_t slices, float eps) {
  int64_t image = blockIdx.x;
  double sum = 0.0;
  for (int64_t s = threadIdx.x; s < slices; s += blockDim.x)
    sum += partial[image * slices + s];
  double total = blockSum(sum);
  if (threadIdx.x == 0)
    inverse[image] = 1.0 / sqrt(total + double(eps));
}

/// acrossSpatial = 1, step 3: one thread per element.
__global__ void scaleKernel(const float *x, float *y, const double *inverse,
                            int64_t n, int64_t channels, int64_t spatial,
                            bool channelShared, Weights weights) {
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x) {
    int64_t c = (i / spatial) % channels;
    int64_t image = i / (spatial * channels);
    y[i] = float(x[i] * inverse[image] * weights.values[channelShared ? 0 : c]);
  }
}

class Normalize : public Plugin {
public:
  Normalize(std::vector<float> weights, bool acrossSpatial, bool channelShared,
            float eps)
      : weights(std::move(weights)), acrossSpatial(acrossSpatial),
        channelShared(channelShared), eps(eps) {}

  StatusOr<std::vector<PluginTensor>>
  getOutputs(const std::vector<PluginTensor> &inputs) const override {
    if (Status s = checkInputs(kName, inputs, 1, 4); !s)
      return s;
    if (!channelShared && int64_t(weights.size()) != inputs[0].dims[1])
      return invalid(kName, "with channelShared = 0, nbWeights (" +
                                std::to_string(weights.size()) +
                                ") must be the input's channels (input " +
                                dimsString(inputs[0].dims) + ")");
    return inputs;
  }

  uint64_t
  getWorkspaceBytes(const std::vector<PluginTensor> &inputs) const override {
    if (!acrossSpatial || inputs.empty() || inputs[0].dims.size() != 4)
      return 0;
    int64_t batch = inputs[0].dims[0];
    return uint64_t(batch) * (slicesFor(inputs[0].dims) + 1) * sizeof(double);
  }

  Status configure(const std::vector<PluginTensor> &inputs,
                   const std::vector<PluginTensor> &) override {
    dims = inputs[0].dims;
    for (size_t i = 0; i < weights.size(); ++i)
      table.values[i] = weights[i];
    return Status::ok();
  }

  Status enqueue(const PluginBuffers &b) override {
    int64_t batch = dims[0], channels = dims[1], spatial = dims[2] * dims[3];
    int64_t n = batch * channels * spatial;
    if (n == 0)
      return Status::ok();
    auto x = reinterpret_cast<const float *>(b.inputs[0]);
    auto y = reinterpret_cast<float *>(b.outputs[0]);
    if (!acrossSpatial) {
      normalizeChannelsKernel<<<gridFor(batch * spatial), kBlockThreads, 0,
                                streamOf(b)>>>(x, y, batch, channels, spatial,
                                               eps, channelShared, table);
      return launchStatus(kName, "normalizeChannelsKernel");
    }
    int64_t slices = slicesFor(dims);
    auto partial = reinterpret_cast<double *>(b.workspace);
    double *inverse = partial + batch * slices;
    // Each image is a row of the grid (gridDim.y <= 65535).
    for (int64_t first = 0; first < batch; first += 65535) {
      int64_t images = std::min<int64_t>(65535, batch - first);
      sumSquaresKernel<<<dim3(unsigned(slices), unsigned(images)),
                         kBlockThreads, 0, streamOf(b)>>>(
          x + first * channels * spatial, partial + first * slices,
          channels * spatial, slices);
      if (Status s = launchStatus(kName, "sumSquaresKernel"); !s)
        return s;
    }
    inverseNormKernel<<<unsigned(batch), kBlockThreads, 0, streamOf(b)>>>(
        partial, inverse, slices, eps);
    if (Status s = launchStatus(kName, "inverseNormKernel"); !s)
      return s;
    scaleKernel<<<gridFor(n), kBlockThreads, 0, streamOf(b)>>>(
        x, y, inverse, n, channels, spatial, channelShared, table);
    return launchStatus(kName, "scaleKernel");
  }

  PluginFields getFields() const override {
    return {PluginField::of(
                "weights", std::vector<double>(weights.begin(), weights.end())),
            PluginField::of("nbWeights",
                            std::vector<int64_t>{int64_t(weights.size())}),
            PluginField::of("acrossSpatial",
                            std::vector<int64_t>{acrossSpatial ? 1 : 0}),
            PluginField::of("channelShared",
                            std::vector<int64_t>{channelShared ? 1 : 0}),
            PluginField::of("eps", std::vector<double>{eps})};
  }

private:
  /// Partial sums per image: one per 8 blocks' worth of elements, at most
  /// kMaxSlices.
  static int64_t slicesFor(const std::vector<int64_t> &dims) {
    int64_t elements = dims[1] * dims[2] * dims[3];
    int64_t slices = (elements + 8 * kBlockThreads - 1) / (8 * kBlockThreads);
    return std::clamp<int64_t>(slices, 1, kMaxSlices);
  }

  std::vector<float> weights;
  bool acrossSpatial, channelShared;
  float eps;
  std::vector<int64_t> dims;
  Weights table = {};
};

class NormalizeCreator : public PluginCreator {
public:
  std::string name() const override { return kName; }
  std::string version() const override { return "1"; }
  std::vector<std::pair<std::string, PluginField::Type>>
  fieldNames() const override {
    return {{"weights", PluginField::Type::Floats},
            {"acrossSpatial", PluginField::Type::Ints},
            {"channelShared", PluginField::Type::Ints},
            {"eps", PluginField::Type::Floats},
            {"nbWeights", PluginField::Type::Ints}};
  }
  StatusOr<std::unique_ptr<Plugin>>
  create(const PluginFields &fields) const override {
    FieldReader r(kName, fields, fieldNames());
    if (Status s = r.checkNames(); !s)
      return s;
    std::vector<float> weights;
    if (Status s = r.getFloats("weights", weights, 0); !s)
      return s;
    int64_t count = 0;
    if (Status s = r.getInt("nbWeights", count, 1, kMaxWeights); !s)
      return s;
    if (count != int64_t(weights.size()))
      return r.error("field 'nbWeights' (" + std::to_string(count) +
                     ") must be the number of weights (" +
                     std::to_string(weights.size()) + ")");
    bool acrossSpatial = false, channelShared = false;
    if (Status s = r.getBool("acrossSpatial", acrossSpatial); !s)
      return s;
    if (Status s = r.getBool("channelShared", channelShared); !s)
      return s;
    if (channelShared && count != 1)
      return r.error(
          "field 'nbWeights' must be 1 with channelShared = 1, got " +
          std::to_string(count));
    float eps = 0;
    if (Status s = r.getFloat("eps", eps); !s)
      return s;
    if (!(eps >= 0.0f))
      return r.error("field 'eps' must be >= 0, got " + std::to_string(eps));
    return std::unique_ptr<Plugin>(
        new Normalize(std::move(weights), acrossSpatial, channelShared, eps));
  }
};

} // namespace

std::shared_ptr<PluginCreator> makeNormalizeCreator() {
  return std::make_shared<NormalizeCreator>();
}

} // namespace kiln::rt::builtin
