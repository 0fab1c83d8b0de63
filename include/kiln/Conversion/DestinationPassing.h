//===- DestinationPassing.h - network functions on buffers ------*- C++ -*-===//
//
// Both executors (the CPU reference and GPU plans) run the network function
// in destination-passing style: it takes one buffer per input and one per
// output and returns nothing.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_CONVERSION_DESTINATIONPASSING_H
#define KILN_CONVERSION_DESTINATIONPASSING_H

namespace mlir {
namespace func {
class FuncOp;
} // namespace func
namespace kiln {

/// Rewrites `func` (tensors in, tensors out) to take identity-layout memrefs:
/// its inputs, then one output buffer per result, with no results. The body
/// reads the inputs through `bufferization.to_tensor` (restrict) and writes
/// each result with `bufferization.materialize_in_destination`, so one-shot
/// bufferization computes results in place in the output buffers. With
/// `keepNames`, the output buffers take the results' `kiln.name` attributes
/// and the function gets a `kiln.num_inputs` attribute; otherwise all
/// argument and result attributes are dropped.
void convertToDestinationPassing(func::FuncOp func, bool keepNames);

/// Name of the function attribute convertToDestinationPassing sets.
inline constexpr const char *kNumInputsAttrName = "kiln.num_inputs";

} // namespace kiln
} // namespace mlir

#endif // KILN_CONVERSION_DESTINATIONPASSING_H
