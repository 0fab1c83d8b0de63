//===- PluginLayer.cpp - importers' layers that become plugins --*- C++ -*-===//
//
// buildPluginLayer asks the registered creator for the plugin, the plugin for
// its outputs and workspace, and builds a kiln.plugin op with those types.
//
//===----------------------------------------------------------------------===//

#include "kiln/Import/PluginLayer.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Support/DataType.h"
#include "kiln/Support/PluginFields.h"

using namespace mlir;
using namespace mlir::kiln;
namespace rt = ::kiln::rt;

namespace {
/// The element type of `type` in kiln IR, or null for one kiln has none of.
Type getElementType(MLIRContext *context, rt::DataType type) {
  Builder b(context);
  switch (type) {
  case rt::DataType::F32:
    return b.getF32Type();
  case rt::DataType::F16:
    return b.getF16Type();
  case rt::DataType::BF16:
    return b.getBF16Type();
  case rt::DataType::F64:
    return b.getF64Type();
  case rt::DataType::I8:
    return b.getI8Type();
  case rt::DataType::I16:
    return b.getI16Type();
  case rt::DataType::I32:
    return b.getI32Type();
  case rt::DataType::I64:
    return b.getI64Type();
  case rt::DataType::Bool:
    return b.getI1Type();
  default:
    return nullptr;
  }
}

std::string describe(const std::vector<rt::PluginTensor> &tensors) {
  std::string text;
  for (const rt::PluginTensor &t : tensors) {
    text += text.empty() ? "" : ", ";
    for (int64_t d : t.dims)
      text += std::to_string(d) + "x";
    text += rt::dataTypeName(t.type);
  }
  return "(" + text + ")";
}
} // namespace

std::shared_ptr<rt::PluginCreator>
mlir::kiln::findPluginCreatorByName(const std::string &name,
                                    const std::string &pluginNamespace) {
  std::shared_ptr<rt::PluginCreator> best;
  for (std::shared_ptr<rt::PluginCreator> &creator :
       rt::registeredPluginCreators()) {
    if (creator->name() != name ||
        creator->pluginNamespace() != pluginNamespace)
      continue;
    // The highest version: longer numbers are higher, then by text.
    std::string version = creator->version();
    if (!best || version.size() > best->version().size() ||
        (version.size() == best->version().size() && version > best->version()))
      best = creator;
  }
  return best;
}

rt::PluginFields
mlir::kiln::coercePluginFields(const rt::PluginCreator &creator,
                               rt::PluginFields fields) {
  for (const auto &[name, type] : creator.fieldNames())
    for (rt::PluginField &field : fields)
      if (field.name == name && type == rt::PluginField::Type::Floats &&
          field.type == rt::PluginField::Type::Ints) {
        field.floats.assign(field.ints.begin(), field.ints.end());
        field.ints.clear();
        field.type = rt::PluginField::Type::Floats;
      }
  return fields;
}

FailureOr<SmallVector<Value>>
mlir::kiln::buildPluginLayer(OpBuilder &builder, Location loc,
                             const PluginLayerSpec &spec, ValueRange inputs,
                             std::string &error) {
  std::string key =
      rt::pluginKey(spec.name, spec.version, spec.pluginNamespace);
  std::shared_ptr<rt::PluginCreator> creator =
      rt::findPluginCreator(spec.name, spec.version, spec.pluginNamespace);
  if (!creator) {
    std::string known;
    for (const std::string &k : rt::registeredPlugins())
      known += (known.empty() ? "" : ", ") + k;
    error = "plugin " + key +
            " is not registered (load its library with --plugin-lib; "
            "registered: " +
            (known.empty() ? "none" : known) + ")";
    return failure();
  }
  std::vector<rt::PluginTensor> tensors;
  for (auto [i, input] : llvm::enumerate(inputs)) {
    auto type = dyn_cast<RankedTensorType>(input.getType());
    std::optional<rt::DataType> element =
        type ? getRuntimeDataType(type.getElementType()) : std::nullopt;
    if (!type || !type.hasStaticShape() || !element) {
      error = "plugin " + key + ": input " + std::to_string(i) +
              " is not a tensor of static shape and a plan type";
      return failure();
    }
    tensors.push_back({*element, std::vector<int64_t>(type.getShape().begin(),
                                                      type.getShape().end())});
  }
  rt::StatusOr<std::unique_ptr<rt::Plugin>> plugin =
      creator->create(coercePluginFields(*creator, spec.fields));
  if (!plugin) {
    error =
        "plugin " + key + " refuses its fields: " + plugin.status().message();
    return failure();
  }
  rt::StatusOr<std::vector<rt::PluginTensor>> outputs =
      (*plugin)->getOutputs(tensors);
  if (!outputs) {
    error = "plugin " + key + " refuses the inputs " + describe(tensors) +
            ": " + outputs.status().message();
    return failure();
  }
  if (outputs->empty()) {
    error = "plugin " + key + " gives no outputs";
    return failure();
  }
  SmallVector<Type> resultTypes;
  for (const rt::PluginTensor &output : *outputs) {
    Type element = getElementType(builder.getContext(), output.type);
    bool valid = element != nullptr;
    for (int64_t d : output.dims)
      valid &= d >= 0;
    if (!valid) {
      error = "plugin " + key + " gives an output kiln cannot hold " +
              describe({output});
      return failure();
    }
    resultTypes.push_back(RankedTensorType::get(output.dims, element));
  }
  uint64_t workspace = (*plugin)->getWorkspaceBytes(tensors);
  if (workspace > (uint64_t(1) << 40)) {
    error = "plugin " + key + " asks for " + std::to_string(workspace) +
            " bytes of workspace";
    return failure();
  }
  // The fields the plugin makes itself again from (its own view of them).
  DictionaryAttr fields =
      getPluginFieldsAttr(builder.getContext(), (*plugin)->getFields());
  auto op = PluginOp::create(
      builder, loc, resultTypes, inputs, builder.getStringAttr(spec.name),
      builder.getStringAttr(spec.version),
      builder.getStringAttr(spec.pluginNamespace), fields,
      builder.getI64IntegerAttr(int64_t(workspace)));
  return SmallVector<Value>(op->getResults());
}
