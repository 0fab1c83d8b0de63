//===- CheckWork.cpp - bound the work of each linalg op ---------*- C++ -*-===//
//
// kiln-check-work: a linalg op whose iteration space has more points than
// the work budget is refused at its location, before the CPU reference
// compiles or runs anything. The work is counted here (countIterations) for
// kiln-warn-absurd-work too (WarnAbsurdWork.cpp; see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "kiln/Codegen/Host/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/Support/MathExtras.h"

#include <optional>
#include <string>

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNCHECKWORKPASS
#include "kiln/Codegen/Host/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;

std::optional<uint64_t> mlir::kiln::countIterations(linalg::LinalgOp op) {
  uint64_t points = 1;
  for (int64_t range : op.getStaticLoopRanges()) {
    if (ShapedType::isDynamic(range) || range < 0)
      continue;
    bool overflow = false;
    points = llvm::SaturatingMultiply(points, uint64_t(range), &overflow);
    if (overflow)
      return std::nullopt;
  }
  return points;
}

/// The elements of `value`: 1 for a scalar, a dynamic dimension as 1.
static uint64_t countElements(Value value) {
  auto type = dyn_cast<ShapedType>(value.getType());
  if (!type || !type.hasRank())
    return 1;
  uint64_t count = 1;
  for (int64_t d : type.getShape())
    if (!ShapedType::isDynamic(d) && d >= 0)
      count = llvm::SaturatingMultiply(count, uint64_t(d));
  return count;
}

uint64_t mlir::kiln::countElementsAccessed(linalg::LinalgOp op) {
  uint64_t elements = 0;
  for (OpOperand &operand : op->getOpOperands())
    if (op.isDpsInit(&operand) || op.payloadUsesValueFromOperand(&operand))
      elements = llvm::SaturatingAdd(elements, countElements(operand.get()));
  llvm::SetVector<Value> above;
  getUsedValuesDefinedAbove(op->getRegions(), above);
  for (Value value : above)
    if (isa<ShapedType>(value.getType()))
      elements = llvm::SaturatingAdd(elements, countElements(value));
  return elements;
}

bool mlir::kiln::isAbsurdWork(std::optional<uint64_t> work, uint64_t elements) {
  if (!work)
    return true;
  return *work > kAbsurdWorkTotal &&
         *work > llvm::SaturatingMultiply(std::max<uint64_t>(elements, 1),
                                          kAbsurdWorkPerElement);
}

InFlightDiagnostic mlir::kiln::emitWorkDiagnostic(linalg::LinalgOp op,
                                                  std::optional<uint64_t> work,
                                                  DiagnosticSeverity severity) {
  std::string name = getLayerName(op->getLoc());
  InFlightDiagnostic diag = severity == DiagnosticSeverity::Error
                                ? op->emitError("layer ")
                                : op->emitWarning("layer ");
  if (!name.empty())
    diag << "'" << name << "' ";
  diag << "work of ";
  if (work)
    diag << *work;
  else
    diag << "more than 2^64";
  diag << " operations";
  return diag;
}

namespace {

struct CheckWork : kiln::impl::KilnCheckWorkPassBase<CheckWork> {
  using Base::Base;
  void runOnOperation() override {
    WalkResult result = getOperation().walk([&](linalg::LinalgOp op) {
      std::optional<uint64_t> points = countIterations(op);
      if (points && *points <= static_cast<uint64_t>(maxWork))
        return WalkResult::advance();
      emitWorkDiagnostic(op, points, DiagnosticSeverity::Error)
          << " is more than the work budget of "
          << static_cast<uint64_t>(maxWork) << " (raise it with --max-work)";
      return WalkResult::interrupt();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace

std::string mlir::kiln::getLayerName(Location loc) {
  if (auto name = dyn_cast<NameLoc>(loc))
    return name.getName().str();
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations())
      if (std::string name = getLayerName(inner); !name.empty())
        return name;
  if (auto site = dyn_cast<CallSiteLoc>(loc))
    return getLayerName(site.getCallee());
  return "";
}
