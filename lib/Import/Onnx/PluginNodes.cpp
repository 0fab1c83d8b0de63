//===- PluginNodes.cpp - ONNX nodes that registered plugins implement -----===//
//
// A node of a custom domain, or of an op the importer does not know, becomes
// a kiln.plugin when a registered creator (kiln/runtime/Plugin.h) has the
// op's name, as TensorRT's ONNX parser falls back to plugins:
// - the namespace is the `plugin_namespace` attribute when given, else the
//   node's domain, else "" (a creator in the domain's namespace first);
// - the version is the `plugin_version` attribute, else the highest one;
// - the other attributes are the fields: INT(S) become integers, FLOAT(S)
//   floats (integers too, where the creator takes floats), STRING text, and
//   a TENSOR of numbers its values; an attribute that is not one of the
//   creator's fields is an error naming the fields.
//
//===----------------------------------------------------------------------===//

#include "ImportContext.h"

#include "kiln/Import/PluginLayer.h"

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::onnx_import;
namespace rt = ::kiln::rt;

std::shared_ptr<rt::PluginCreator>
mlir::kiln::onnx_import::findNodePlugin(const onnx::NodeProto &node,
                                        const std::string &domain) {
  for (const auto &attr : node.attribute())
    if (attr.name() == "plugin_namespace")
      return findPluginCreatorByName(node.op_type(), attr.s());
  if (!domain.empty())
    if (auto creator = findPluginCreatorByName(node.op_type(), domain))
      return creator;
  return findPluginCreatorByName(node.op_type(), "");
}

/// The field `attr` gives, of the type `type` the creator takes.
static FailureOr<rt::PluginField> toField(NodeContext &nc,
                                          const onnx::AttributeProto &attr,
                                          rt::PluginField::Type type) {
  using Type = rt::PluginField::Type;
  using onnx::AttributeProto;
  std::vector<int64_t> ints;
  std::vector<double> floats;
  bool integral = true;
  switch (attr.type()) {
  case AttributeProto::INT:
    ints = {attr.i()};
    break;
  case AttributeProto::INTS:
    ints.assign(attr.ints().begin(), attr.ints().end());
    break;
  case AttributeProto::FLOAT:
    floats = {attr.f()};
    integral = false;
    break;
  case AttributeProto::FLOATS:
    floats.assign(attr.floats().begin(), attr.floats().end());
    integral = false;
    break;
  case AttributeProto::STRING:
    if (type != Type::Text)
      break;
    return rt::PluginField::of(attr.name(), attr.s());
  case AttributeProto::TENSOR: {
    onnx::TensorProto tensor = attr.t();
    std::string error;
    FailureOr<ElementsAttr> values = convertTensor(
        nc.b.getContext(), tensor, nc.modelDir(), attr.name(), error);
    if (failed(values)) {
      (void)nc.fail("attribute '" + attr.name() + "': " + error);
      return failure();
    }
    if (isa<FloatType>(values->getElementType())) {
      integral = false;
      for (APFloat v : values->getValues<APFloat>())
        floats.push_back(v.convertToDouble());
    } else if (values->getElementType().isInteger()) {
      for (APInt v : values->getValues<APInt>())
        ints.push_back(v.getSExtValue());
    } else {
      (void)nc.fail("attribute '" + attr.name() +
                    "' is a tensor of neither numbers nor integers");
      return failure();
    }
    break;
  }
  default:
    break;
  }
  if (type == Type::Ints && integral)
    return rt::PluginField::of(attr.name(), ints);
  if (type == Type::Floats) {
    if (integral)
      floats.assign(ints.begin(), ints.end());
    return rt::PluginField::of(attr.name(), floats);
  }
  static const char *names[] = {"integers", "floats", "text"};
  (void)nc.fail("attribute '" + attr.name() + "' cannot be the plugin's " +
                names[int(type)] + " field");
  return failure();
}

LogicalResult
mlir::kiln::onnx_import::importPluginNode(NodeContext &nc,
                                          const rt::PluginCreator &creator) {
  PluginLayerSpec spec;
  spec.name = creator.name();
  spec.version = creator.version();
  spec.pluginNamespace = creator.pluginNamespace();
  auto fieldNames = creator.fieldNames();
  for (const auto &attr : nc.node.attribute()) {
    if (attr.name() == "plugin_namespace")
      continue;
    if (attr.name() == "plugin_version") {
      spec.version = attr.s();
      continue;
    }
    auto it = llvm::find_if(
        fieldNames, [&](const auto &f) { return f.first == attr.name(); });
    if (it == fieldNames.end()) {
      std::string known;
      for (const auto &f : fieldNames)
        known += (known.empty() ? "" : ", ") + f.first;
      return nc.fail(
          "attribute '" + attr.name() + "' is not a field of plugin " +
          rt::pluginKey(spec.name, spec.version, spec.pluginNamespace) +
          " (its fields: " + (known.empty() ? "none" : known) + ")");
    }
    FailureOr<rt::PluginField> field = toField(nc, attr, it->second);
    if (failed(field))
      return failure();
    spec.fields.push_back(std::move(*field));
  }
  SmallVector<Value> inputs;
  for (unsigned i = 0; i < nc.numInputs(); ++i) {
    if (!nc.hasInput(i))
      return nc.fail("input " + Twine(i) +
                     " is empty; a plugin takes every input it is given");
    inputs.push_back(nc.input(i));
  }
  std::string error;
  FailureOr<SmallVector<Value>> outputs =
      buildPluginLayer(nc.b, nc.loc, spec, inputs, error);
  if (failed(outputs))
    return nc.fail(error);
  if (nc.numOutputs() > outputs->size())
    return nc.fail("the node has " + Twine(nc.numOutputs()) +
                   " outputs, the plugin gives " + Twine(outputs->size()));
  for (unsigned i = 0; i < nc.numOutputs(); ++i)
    if (nc.hasOutput(i))
      nc.setOutput(i, (*outputs)[i]);
  return success();
}
