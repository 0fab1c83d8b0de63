//===- KernelLaunch.h - what the built-in plugins' enqueues share -*- C++ -*-=//
//
// Helpers of the built-in plugins written here (LeakyRelu.cu ...
// GridAnchor.cu): grid sizes for grid-stride loops, the DriverError a failed
// launch becomes, element counts, and the checks every getOutputs makes (input
// count, f32 type, rank). CUDA code: included by .cu files only.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_RUNTIME_PLUGINS_KERNELLAUNCH_H
#define KILN_RUNTIME_PLUGINS_KERNELLAUNCH_H

#include "kiln/runtime/Plugin.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace kiln::rt::builtin {

/// Threads per block of the plugins' kernels.
constexpr int kBlockThreads = 256;

/// Blocks for a grid-stride loop over `n` items (at least 1, at most 2^20:
/// larger counts loop).
inline unsigned gridFor(int64_t n, int threads = kBlockThreads) {
  int64_t blocks = (n + threads - 1) / threads;
  return unsigned(std::clamp<int64_t>(blocks, 1, int64_t(1) << 20));
}

/// The stream enqueue got, for the CUDA runtime (the runtime's CUstream).
inline cudaStream_t streamOf(const PluginBuffers &buffers) {
  return static_cast<cudaStream_t>(buffers.stream);
}

/// OK, or DriverError "<plugin>: launching <kernel>: <CUDA's words>" when
/// the last launch failed.
inline Status launchStatus(const std::string &plugin, const char *kernel) {
  cudaError_t error = cudaGetLastError();
  if (error == cudaSuccess)
    return Status::ok();
  return Status(StatusCode::DriverError, plugin + ": launching " + kernel +
                                             ": " + cudaGetErrorString(error));
}

/// The number of elements of `dims` (1 for a scalar).
inline int64_t elementCount(const std::vector<int64_t> &dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

/// "2x3x4" ("scalar" for no dimensions), for messages.
inline std::string dimsString(const std::vector<int64_t> &dims) {
  std::string text;
  for (int64_t d : dims)
    text += (text.empty() ? "" : "x") + std::to_string(d);
  return text.empty() ? "scalar" : text;
}

/// InvalidArgument "<plugin>: <why>".
inline Status invalid(const std::string &plugin, const std::string &why) {
  return Status(StatusCode::InvalidArgument, plugin + ": " + why);
}

/// Refuses anything but `count` f32 inputs, each of rank `rank` (any rank
/// when negative).
inline Status checkInputs(const std::string &plugin,
                          const std::vector<PluginTensor> &inputs, size_t count,
                          int rank) {
  if (inputs.size() != count)
    return invalid(plugin, "takes " + std::to_string(count) + " input" +
                               (count == 1 ? "" : "s") + ", got " +
                               std::to_string(inputs.size()));
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].type != DataType::F32)
      return invalid(plugin, "input " + std::to_string(i) +
                                 " must be f32 (its kernels are f32 only)");
    if (rank >= 0 && inputs[i].dims.size() != size_t(rank))
      return invalid(plugin, "input " + std::to_string(i) + " must have " +
                                 std::to_string(rank) + " dimensions" +
                                 (rank == 4 ? " (NCHW)" : "") + ", got " +
                                 dimsString(inputs[i].dims));
  }
  return Status::ok();
}

/// A plugin of one f32 input of any shape and one output of that shape,
/// computed element by element (LReLU_TRT, Clip_TRT): subclasses launch
/// their kernel over `elements` and give their fields.
class ElementwisePlugin : public Plugin {
public:
  explicit ElementwisePlugin(const char *name) : name(name) {}

  StatusOr<std::vector<PluginTensor>>
  getOutputs(const std::vector<PluginTensor> &inputs) const override {
    if (Status s = checkInputs(name, inputs, 1, -1); !s)
      return s;
    return inputs;
  }

  Status configure(const std::vector<PluginTensor> &inputs,
                   const std::vector<PluginTensor> &) override {
    elements = elementCount(inputs[0].dims);
    return Status::ok();
  }

protected:
  const char *name;
  int64_t elements = 0;
};

} // namespace kiln::rt::builtin

#endif // KILN_RUNTIME_PLUGINS_KERNELLAUNCH_H
