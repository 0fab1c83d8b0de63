//===- DedupKernels.cpp - kiln-gpu-dedup-kernels ----------------*- C++ -*-===//
//
// Keeps one gpu.func of each set of identical kernels and points the
// launches of the others at it.
//
//===----------------------------------------------------------------------===//

#include "kiln/Codegen/GPU/Passes.h"

#include "kiln/Codegen/Host/StructuralHash.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNGPUDEDUPKERNELSPASS
#include "kiln/Codegen/GPU/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;

namespace {

/// A kernel's attributes (inherent ones included), but for its name.
DictionaryAttr getAttributesButName(gpu::GPUFuncOp func) {
  NamedAttrList attrs(func->getAttrDictionary());
  attrs.erase(SymbolTable::getSymbolAttrName());
  return attrs.getDictionary(func.getContext());
}

/// A hash that equal kernels share: attributes, and each op of the body with
/// its types and attributes, but not its values or locations.
llvm::hash_code hashKernel(gpu::GPUFuncOp func, DictionaryAttr attrs) {
  return hashStructure(func.getBody(), hash_value(attrs));
}

/// Dedups the kernels of one gpu.module of `module`.
void dedup(ModuleOp module, gpu::GPUModuleOp kernels) {
  struct Kept {
    gpu::GPUFuncOp func;
    DictionaryAttr attrs;
  };
  DenseMap<llvm::hash_code, SmallVector<Kept, 1>> byHash;
  DenseMap<StringAttr, StringAttr> replacement;
  SmallVector<gpu::GPUFuncOp> duplicates;
  for (auto func : kernels.getOps<gpu::GPUFuncOp>()) {
    if (!func.isKernel())
      continue;
    DictionaryAttr attrs = getAttributesButName(func);
    SmallVector<Kept, 1> &same = byHash[hashKernel(func, attrs)];
    auto it = llvm::find_if(same, [&](Kept &kept) {
      return kept.attrs == attrs && OperationEquivalence::isRegionEquivalentTo(
                                        &kept.func.getBody(), &func.getBody(),
                                        OperationEquivalence::IgnoreLocations);
    });
    if (it == same.end()) {
      same.push_back({func, attrs});
      continue;
    }
    replacement[func.getNameAttr()] = it->func.getNameAttr();
    duplicates.push_back(func);
  }
  if (duplicates.empty())
    return;
  StringAttr moduleName = kernels.getNameAttr();
  module.walk([&](gpu::LaunchFuncOp launch) {
    if (launch.getKernelModuleName() != moduleName)
      return;
    auto it = replacement.find(launch.getKernelName());
    if (it != replacement.end())
      launch.setKernelAttr(
          SymbolRefAttr::get(moduleName, {FlatSymbolRefAttr::get(it->second)}));
  });
  for (gpu::GPUFuncOp func : duplicates)
    func.erase();
}

struct DedupKernels
    : public kiln::impl::KilnGpuDedupKernelsPassBase<DedupKernels> {
  void runOnOperation() override { deduplicateKernels(getOperation()); }
};

} // namespace

void mlir::kiln::deduplicateKernels(ModuleOp module) {
  for (auto kernels : module.getOps<gpu::GPUModuleOp>())
    dedup(module, kernels);
}
