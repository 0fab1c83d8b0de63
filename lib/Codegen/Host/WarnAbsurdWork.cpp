//===- WarnAbsurdWork.cpp - warn about a layer of absurd work ---*- C++ -*-===//
//
// kiln-warn-absurd-work: on the GPU path, a warning for a linalg op whose
// work (countIterations, as kiln-check-work counts it) is absurd for the
// elements it reads and writes (isAbsurdWork; see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "kiln/Codegen/Host/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <limits>

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNWARNABSURDWORKPASS
#include "kiln/Codegen/Host/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;

namespace {

struct WarnAbsurdWork : kiln::impl::KilnWarnAbsurdWorkPassBase<WarnAbsurdWork> {
  void runOnOperation() override {
    // One warning a layer (an average pool is two ops: sums and divisors).
    DenseSet<Location> warned;
    getOperation().walk([&](linalg::LinalgOp op) {
      std::optional<uint64_t> work = countIterations(op);
      uint64_t elements = countElementsAccessed(op);
      if (!isAbsurdWork(work, elements) || !warned.insert(op->getLoc()).second)
        return;
      InFlightDiagnostic diag =
          emitWorkDiagnostic(op, work, DiagnosticSeverity::Warning);
      diag << " is absurd for the ";
      if (elements == std::numeric_limits<uint64_t>::max())
        diag << "more than 2^64";
      else
        diag << elements;
      diag << " elements it reads and writes (more than 2^20 operations an "
              "element and 2^32 in all): check the attributes that size its "
              "loops (window, pads, strides, dilations)";
    });
  }
};

} // namespace
