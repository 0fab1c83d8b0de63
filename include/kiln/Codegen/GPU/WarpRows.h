//===- WarpRows.h - fusion groups run one warp per row ----------*- C++ -*-===//
//
// A fusion group whose iteration works on one row (softmax, LayerNorm, a
// reduction along the last axis, and the elementwise ops fused into them)
// runs one warp per iteration: lane l handles the row's elements l, l + 32,
// ..., so that the warp reads and writes consecutive elements, and a
// reduction over the row is combined across the warp with shuffles. A
// thread per row, as before, reads elements a row apart and leaves the GPU
// mostly idle when there are few rows.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_CODEGEN_GPU_WARPROWS_H
#define KILN_CODEGEN_GPU_WARPROWS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

#include <optional>

namespace mlir::kiln {

/// Lanes of a warp.
constexpr int64_t kWarpLanes = 32;

/// The length R of the group's row when it can run one warp per iteration:
/// every linalg op in `loop` has at most one loop of more than one
/// iteration, all of R >= `minRow` iterations, reads and writes through
/// projected permutations (so that every op puts element i of a row at loop
/// value i, and lane i % 32 owns it in all of them), has one output when it
/// reduces over R, and combines that reduction with an op the warp can
/// combine too (add, mul, max, min on 32-bit values). None otherwise.
std::optional<int64_t> getWarpRowLength(scf::ForallOp loop, int64_t minRow);

/// Replaces `op`, in a kernel whose warps each run one iteration of a group
/// with row length `row`, with loops in which lane `lane` computes the
/// elements lane, lane + 32, ... of its row loop; a reduction over the row
/// is combined across the warp (shuffles) and added to the output once.
LogicalResult lowerToWarpLoops(RewriterBase &rewriter, linalg::LinalgOp op,
                               Value lane, int64_t row);

/// Shrinks each per-lane temporary of `region` (a memref.alloca read and
/// written only by loads and stores) that spans a row of `row` elements to
/// the ceil(row / 32) elements its lane owns: element i is at i / 32.
void compactRowTemporaries(Region &region, int64_t row);

} // namespace mlir::kiln

#endif // KILN_CODEGEN_GPU_WARPROWS_H
