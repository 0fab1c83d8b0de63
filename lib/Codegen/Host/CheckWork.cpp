//===- CheckWork.cpp - bound the work of each linalg op ---------*- C++ -*-===//
//
// kiln-check-work: a linalg op whose iteration space has more points than
// the work budget is refused at its location, before the CPU reference
// compiles or runs anything (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "kiln/Codegen/Host/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "llvm/Support/MathExtras.h"

#include <optional>
#include <string>

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNCHECKWORKPASS
#include "kiln/Codegen/Host/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;

namespace {

/// The points of `op`'s iteration space; nullopt when they overflow 64
/// bits. Dynamic ranges count as 1 (they are bounded elsewhere).
std::optional<uint64_t> countIterations(linalg::LinalgOp op) {
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

struct CheckWork : kiln::impl::KilnCheckWorkPassBase<CheckWork> {
  using Base::Base;
  void runOnOperation() override {
    WalkResult result = getOperation().walk([&](linalg::LinalgOp op) {
      std::optional<uint64_t> points = countIterations(op);
      if (points && *points <= static_cast<uint64_t>(maxWork))
        return WalkResult::advance();
      std::string name = getLayerName(op->getLoc());
      InFlightDiagnostic diag = op->emitError("layer ");
      if (!name.empty())
        diag << "'" << name << "' ";
      diag << "work of ";
      if (points)
        diag << *points;
      else
        diag << "more than 2^64";
      diag << " operations is more than the work budget of "
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
