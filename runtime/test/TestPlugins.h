//===- TestPlugins.h - a plugin for the tests ------------------*- C++ -*-===//
//
// kiln.test::TestClip@1: out = min(max(x, lower), upper) over one f32
// tensor, through a workspace (x is copied there first). It computes on the
// host, which is right on the stand-in driver only (its device memory is
// host memory). The creator refuses lower > upper: fields that contradict
// each other.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_RUNTIME_TEST_TESTPLUGINS_H
#define KILN_RUNTIME_TEST_TESTPLUGINS_H

#include "kiln/runtime/Plugin.h"

#include <algorithm>
#include <cstring>

namespace kiln::rt::test {

class ClipPlugin : public Plugin {
public:
  ClipPlugin(double lower, double upper) : lower(lower), upper(upper) {}

  StatusOr<std::vector<PluginTensor>>
  getOutputs(const std::vector<PluginTensor> &inputs) const override {
    if (inputs.size() != 1 || inputs[0].type != DataType::F32)
      return Status(StatusCode::InvalidArgument,
                    "TestClip takes one f32 tensor");
    return inputs;
  }
  uint64_t
  getWorkspaceBytes(const std::vector<PluginTensor> &inputs) const override {
    return uint64_t(count(inputs[0])) * 4;
  }
  Status configure(const std::vector<PluginTensor> &inputs,
                   const std::vector<PluginTensor> &) override {
    elements = count(inputs[0]);
    return Status::ok();
  }
  Status enqueue(const PluginBuffers &b) override {
    auto *workspace = reinterpret_cast<float *>(uintptr_t(b.workspace));
    std::memcpy(workspace, reinterpret_cast<const void *>(b.inputs[0]),
                size_t(elements) * 4);
    auto *out = reinterpret_cast<float *>(uintptr_t(b.outputs[0]));
    for (int64_t i = 0; i < elements; ++i)
      out[i] = std::min(std::max(workspace[i], float(lower)), float(upper));
    return Status::ok();
  }
  PluginFields getFields() const override {
    return {PluginField::of("lower", std::vector<double>{lower}),
            PluginField::of("upper", std::vector<double>{upper})};
  }

private:
  static int64_t count(const PluginTensor &t) {
    int64_t n = 1;
    for (int64_t d : t.dims)
      n *= d;
    return n;
  }
  double lower, upper;
  int64_t elements = 0;
};

class ClipCreator : public PluginCreator {
public:
  std::string name() const override { return "TestClip"; }
  std::string version() const override { return "1"; }
  std::string pluginNamespace() const override { return "kiln.test"; }
  std::vector<std::pair<std::string, PluginField::Type>>
  fieldNames() const override {
    return {{"lower", PluginField::Type::Floats},
            {"upper", PluginField::Type::Floats}};
  }
  StatusOr<std::unique_ptr<Plugin>>
  create(const PluginFields &fields) const override {
    const PluginField *lower = findField(fields, "lower");
    const PluginField *upper = findField(fields, "upper");
    for (const PluginField *f : {lower, upper})
      if (!f || f->type != PluginField::Type::Floats || f->floats.size() != 1)
        return Status(StatusCode::InvalidArgument,
                      "TestClip needs one float each for lower and upper");
    if (lower->floats[0] > upper->floats[0])
      return Status(StatusCode::InvalidArgument,
                    "lower " + std::to_string(lower->floats[0]) + " > upper " +
                        std::to_string(upper->floats[0]));
    return std::unique_ptr<Plugin>(
        new ClipPlugin(lower->floats[0], upper->floats[0]));
  }
};

} // namespace kiln::rt::test

#endif // KILN_RUNTIME_TEST_TESTPLUGINS_H
