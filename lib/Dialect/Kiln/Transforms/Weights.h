//===- Weights.h - weights rewritten on the host by graph passes -*- C++
//-*-===//
//
// What the graph passes that build new weights share (batch-norm folding,
// horizontal merge, channels-last filters): a constant's bytes, and a new
// kiln.constant from bytes, dense when small (as the importer) and a
// resource blob named after the weights it came from when large.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_DIALECT_KILN_TRANSFORMS_WEIGHTS_H
#define KILN_LIB_DIALECT_KILN_TRANSFORMS_WEIGHTS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::kiln::weights {

/// Tensors with at most this many elements stay dense attributes (as the
/// importer's); larger ones become resource blobs.
constexpr int64_t kDenseLimit = 64;

/// The most bytes a pass expands a splat weight to (to fold batch norm into
/// it, merge it with another layer's): a splat takes a few
/// bytes in the IR and a model file, and must not become gigabytes of host
/// memory. A layer with a larger one is left as it is.
constexpr uint64_t kMaxExpandedSplatBytes = uint64_t(64) << 20;

/// True when getConstantBytes(v) has a value (checked without a copy).
bool hasConstantBytes(Value v);

/// The row-major bytes of `v` when it is a kiln.constant of some elements
/// of whole bytes each (a splat expanded, up to kMaxExpandedSplatBytes);
/// none otherwise.
std::optional<std::vector<char>> getConstantBytes(Value v);

/// The resource key of the kiln.constant `v` (its weights' name), or
/// `fallback` when it is dense.
std::string getWeightName(Value v, StringRef fallback);

/// A kiln.constant of `type` holding `bytes` (row-major): dense when small,
/// else a resource blob named `name`.
Value createConstant(OpBuilder &b, Location loc, RankedTensorType type,
                     ArrayRef<char> bytes, StringRef name);

/// The kiln.constant `v`, viewed with `shape` (as many elements; empty: its
/// own), with its dimensions permuted (result dimension i is dimension
/// perm[i]), built on the host and named after `v`'s weights plus `suffix`
/// (a splat stays a splat); null when `v` is not a constant of whole-byte
/// elements.
Value transposeConstant(OpBuilder &b, Location loc, Value v,
                        ArrayRef<int64_t> perm, StringRef suffix,
                        ArrayRef<int64_t> shape = {});

} // namespace mlir::kiln::weights

#endif // KILN_LIB_DIALECT_KILN_TRANSFORMS_WEIGHTS_H
