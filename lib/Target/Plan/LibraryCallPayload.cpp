//===- LibraryCallPayload.cpp - library-call parameters as bytes ---------===//

#include "LibraryCallPayload.h"

#include "kiln/Support/DataType.h"
#include "kiln/Support/PluginFields.h"
#include "kiln/runtime/CublasLtMatmul.h"
#include "kiln/runtime/Plugin.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::kiln;

namespace rt = ::kiln::rt;

static FailureOr<std::string> encodeCublasLtMatmul(LibraryCallOp call) {
  DictionaryAttr params = call.getParams();
  bool ok = true;
  auto fail = [&](StringRef name, StringRef expected) {
    if (ok)
      call.emitError("plan: cublaslt.matmul parameter '")
          << name << "' must be " << expected << ", got " << params.get(name);
    ok = false;
  };
  auto integer = [&](StringRef name, int64_t &out) {
    auto a = params.getAs<IntegerAttr>(name);
    if (!a || a.getInt() < 0)
      return fail(name, "a non-negative integer");
    out = a.getInt();
  };
  auto flag = [&](StringRef name, bool &out) {
    auto a = params.getAs<BoolAttr>(name);
    if (!a)
      return fail(name, "true or false");
    out = a.getValue();
  };
  auto choice = [&](StringRef name, ArrayRef<StringRef> values) -> StringRef {
    auto a = params.getAs<StringAttr>(name);
    if (!a || !llvm::is_contained(values, a.getValue())) {
      fail(name, "one of " + llvm::join(values, ", "));
      return "";
    }
    return a.getValue();
  };
  rt::CublasLtMatmulParams p;
  auto dataType = [&](StringRef name) {
    StringRef type = choice(name, {"f32", "f16", "bf16"});
    return type == "f16"    ? rt::DataType::F16
           : type == "bf16" ? rt::DataType::BF16
                            : rt::DataType::F32;
  };
  p.type = dataType("type");
  // D's type: the inputs' unless given (an f32 accumulator of f16 inputs).
  p.outType = params.get("out_type") ? dataType("out_type") : p.type;
  p.tf32 = choice("compute", {"f32", "tf32"}) == "tf32";
  integer("m", p.m);
  integer("n", p.n);
  integer("k", p.k);
  integer("batch", p.batch);
  flag("trans_a", p.transA);
  flag("trans_b", p.transB);
  integer("lda", p.lda);
  integer("ldb", p.ldb);
  integer("ldd", p.ldd);
  integer("stride_a", p.strideA);
  integer("stride_b", p.strideB);
  integer("stride_d", p.strideD);
  if (params.get("epilogue")) {
    StringRef e = choice("epilogue", {"none", "bias", "relu_bias"});
    using Epilogue = rt::CublasLtMatmulParams::Epilogue;
    p.epilogue = e == "bias"        ? Epilogue::Bias
                 : e == "relu_bias" ? Epilogue::ReluBias
                                    : Epilogue::None;
  }
  if (params.get("residual"))
    flag("residual", p.residual);
  if (!ok)
    return failure();
  if (call.getBuffers().size() != p.numBuffers())
    return call.emitError("plan: cublaslt.matmul takes ")
           << p.numBuffers()
           << " buffers (A, B, D, workspace, a bias with an epilogue, C with "
              "a residual), got "
           << call.getBuffers().size();
  auto ws = cast<MemRefType>(call.getBuffers()[3].getType());
  if (!ws.hasStaticShape() || ws.getRank() != 1 ||
      !ws.getElementType().isInteger(8))
    return call.emitError("plan: cublaslt.matmul's workspace must be a "
                          "static memref of i8, got ")
           << ws;
  p.workspaceBytes = ws.getNumElements();
  std::string payload = rt::encodeCublasLtMatmul(p);
  // What the runtime will refuse is refused here too.
  auto checked = rt::decodeCublasLtMatmul(payload);
  if (!checked.isOk())
    return call.emitError("plan: ") << checked.status().message();
  return payload;
}

/// A plugin step's payload (runtime/src/plugin/PluginStep.cpp): the
/// plugin's name, version, namespace and fields from the params, its tensors
/// from the buffers ("read" ones are inputs, "write" ones outputs, a last
/// "readwrite" one the workspace), each a contiguous memref.
static FailureOr<std::string> encodePlugin(LibraryCallOp call) {
  DictionaryAttr params = call.getParams();
  rt::PluginCall p;
  auto text = [&](StringRef name, std::string &out) {
    auto a = params.getAs<StringAttr>(name);
    if (a)
      out = a.str();
    return a != nullptr;
  };
  auto fields = params.getAs<DictionaryAttr>("fields");
  auto workspace = params.getAs<IntegerAttr>("workspace");
  if (!text("plugin", p.name) || !text("version", p.version) ||
      !text("namespace", p.pluginNamespace) || !fields || !workspace ||
      workspace.getInt() < 0)
    return call.emitError("plan: kiln.plugin's params must be plugin, "
                          "version, namespace (strings), fields (a "
                          "dictionary) and workspace (bytes), got ")
           << params;
  p.fields = getPluginFields(fields);
  p.workspaceBytes = uint64_t(workspace.getInt());
  for (auto [i, buffer, access] :
       llvm::enumerate(call.getBuffers(), call.getAccess())) {
    auto type = cast<MemRefType>(buffer.getType());
    StringRef a = cast<StringAttr>(access).getValue();
    if (a == "readwrite") {
      if (i + 1 != call.getBuffers().size() || !p.workspaceBytes)
        return call.emitError("plan: kiln.plugin's buffer ")
               << i << " is read and written, which only a workspace (the "
               << "last buffer) may be";
      continue;
    }
    std::optional<rt::DataType> element =
        getRuntimeDataType(type.getElementType());
    if (!type.hasStaticShape() ||
        !type.areTrailingDimsContiguous(type.getRank()) || !element)
      return call.emitError("plan: kiln.plugin's buffer ")
             << i << " must be a contiguous memref of static shape and a "
             << "plan type, got " << type;
    rt::PluginTensor tensor{
        *element,
        std::vector<int64_t>(type.getShape().begin(), type.getShape().end())};
    if (a == "read" && p.outputs.empty())
      p.inputs.push_back(tensor);
    else if (a == "write")
      p.outputs.push_back(tensor);
    else
      return call.emitError("plan: kiln.plugin's buffer ")
             << i << " is an input after an output";
  }
  if (p.workspaceBytes &&
      cast<StringAttr>(call.getAccess().getValue().back()).getValue() !=
          "readwrite")
    return call.emitError("plan: kiln.plugin has a workspace of ")
           << p.workspaceBytes << " bytes but no workspace buffer";
  // A plugin this compiler has registered is asked again, as the runtime
  // will ask it at load.
  if (auto creator =
          rt::findPluginCreator(p.name, p.version, p.pluginNamespace)) {
    auto plugin = creator->create(p.fields);
    auto outputs =
        plugin ? (*plugin)->getOutputs(p.inputs)
               : rt::StatusOr<std::vector<rt::PluginTensor>>(plugin.status());
    if (!outputs)
      return call.emitError("plan: plugin ")
             << rt::pluginKey(p.name, p.version, p.pluginNamespace) << ": "
             << outputs.status().message();
    if (*outputs != p.outputs)
      return call.emitError("plan: plugin ")
             << rt::pluginKey(p.name, p.version, p.pluginNamespace)
             << " gives other outputs than its buffers hold";
  }
  return rt::encodePluginCall(p);
}

FailureOr<std::string>
mlir::kiln::encodeLibraryCallPayload(LibraryCallOp call) {
  if (call.getCallee() == rt::CublasLtMatmulParams::kCallee)
    return encodeCublasLtMatmul(call);
  if (call.getCallee() == rt::kPluginCallee)
    return encodePlugin(call);
  return call.emitError("plan: no payload encoding for library call '")
         << call.getCallee() << "'";
}
