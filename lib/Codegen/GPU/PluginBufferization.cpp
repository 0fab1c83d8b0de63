//===- PluginBufferization.cpp - kiln.plugin on buffers ---------*- C++ -*-===//
//
// kiln.plugin bufferizes to a library call the runtime's plugin handler runs
// (runtime/src/plugin/PluginStep.cpp): its buffers are the inputs, the
// outputs (new buffers, which kiln-plan-memory places) and, when the plugin
// asked for one, a workspace. The params keep the plugin's name, version,
// namespace, fields and workspace for the plan's payload.
//
//   %y = kiln.plugin "LReLU_TRT" (%x) {fields = {negSlope = ...}}
//        : (tensor<8xf32>) -> tensor<8xf32>
// becomes
//   %y = memref.alloc() : memref<8xf32>
//   kiln_gpu.library_call "kiln.plugin"(%x, %y) {access = ["read", "write"],
//       params = {plugin = "LReLU_TRT", version = "1", namespace = "",
//                 fields = {negSlope = ...}, workspace = 0 : i64}}
//
//===----------------------------------------------------------------------===//

#include "kiln/Codegen/GPU/PluginBufferization.h"

#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/KilnGPU/IR/KilnGPUDialect.h"
#include "kiln/runtime/Plugin.h"
#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::bufferization;
using namespace mlir::kiln;

namespace {
struct PluginOpBufferization
    : public BufferizableOpInterface::ExternalModel<PluginOpBufferization,
                                                    PluginOp> {
  bool bufferizesToMemoryRead(Operation *, OpOperand &,
                              const AnalysisState &) const {
    return true;
  }
  bool bufferizesToMemoryWrite(Operation *, OpOperand &,
                               const AnalysisState &) const {
    return false;
  }
  AliasingValueList getAliasingValues(Operation *, OpOperand &,
                                      const AnalysisState &) const {
    return {};
  }
  bool bufferizesToAllocation(Operation *, Value) const { return true; }

  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    auto plugin = cast<PluginOp>(op);
    Location loc = plugin.getLoc();
    rewriter.setInsertionPoint(plugin);
    SmallVector<Value> buffers;
    SmallVector<StringRef> access;
    for (Value input : plugin.getInputs()) {
      FailureOr<Value> buffer = getBuffer(rewriter, input, options, state);
      if (failed(buffer))
        return failure();
      buffers.push_back(*buffer);
      access.push_back("read");
    }
    SmallVector<Value> results;
    for (Value output : plugin.getOutputs()) {
      auto type = cast<RankedTensorType>(output.getType());
      Value buffer = memref::AllocOp::create(
          rewriter, loc,
          MemRefType::get(type.getShape(), type.getElementType()));
      buffers.push_back(buffer);
      access.push_back("write");
      results.push_back(buffer);
    }
    if (int64_t workspace = plugin.getWorkspaceAttr().getInt()) {
      buffers.push_back(memref::AllocOp::create(
          rewriter, loc, MemRefType::get({workspace}, rewriter.getI8Type())));
      access.push_back("readwrite");
    }
    NamedAttrList params;
    params.append("plugin", plugin.getPluginAttr());
    params.append("version", plugin.getVersionAttr());
    params.append("namespace", plugin.getPluginNamespaceAttr());
    params.append("fields", plugin.getFields());
    params.append("workspace", plugin.getWorkspaceAttr());
    LibraryCallOp::create(rewriter, loc, ::kiln::rt::kPluginCallee, buffers,
                          rewriter.getStrArrayAttr(access),
                          params.getDictionary(op->getContext()));
    replaceOpWithBufferizedValues(rewriter, op, results);
    return success();
  }
};
} // namespace

void mlir::kiln::registerPluginBufferizationModel(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, KilnDialect *) {
    PluginOp::attachInterface<PluginOpBufferization>(*context);
    context->loadDialect<KilnGPUDialect, memref::MemRefDialect>();
  });
}
