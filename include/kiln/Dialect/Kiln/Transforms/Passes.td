//===- Passes.td - kiln graph passes -----------------------*- tablegen -*-===//
//
// The graph passes of the kiln dialect. Every pass is registered once and is
// available both in kiln-opt and in the pipelines kiln-compile builds.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_TRANSFORMS_PASSES_TD
#define KILN_DIALECT_KILN_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def KilnEliminateDeadLayersPass
    : Pass<"kiln-eliminate-dead-layers", "func::FuncOp"> {
  let summary = "Remove every layer that does not reach a network output";
  let description = [{
    The network outputs are the values the function returns (the outputs the
    TensorRT builder calls *marked*). This pass walks back from them and
    erases every layer and weight whose result cannot reach one of them, as
    the builder's dead-layer elimination does. Ops with side effects are kept
    and count as roots. Inputs stay; `kiln-remove-unused-inputs` drops those
    nothing reads.

    Before:
    ```mlir
    func.func @net(%x: tensor<1x8xf32>, %unused: tensor<2xf32>) -> tensor<1x8xf32> {
      %a = kiln.activation relu %x : tensor<1x8xf32> -> tensor<1x8xf32>
      %dead = kiln.activation sigmoid %x : tensor<1x8xf32> -> tensor<1x8xf32>
      return %a : tensor<1x8xf32>
    }
    ```
    After:
    ```mlir
    func.func @net(%x: tensor<1x8xf32>, %unused: tensor<2xf32>) -> tensor<1x8xf32> {
      %a = kiln.activation relu %x : tensor<1x8xf32> -> tensor<1x8xf32>
      return %a : tensor<1x8xf32>
    }
    ```
  }];
  let statistics = [
    Statistic<"numLayersRemoved", "layers-removed", "Number of dead layers removed">
  ];
  let dependentDialects = ["::mlir::kiln::KilnDialect"];
}

def KilnFoldConstantsPass : Pass<"kiln-fold-constants", "func::FuncOp"> {
  let summary = "Compute on the host every layer whose inputs are all constants";
  let description = [{
    Replaces each kiln op whose operands are all `kiln.constant`s with a
    `kiln.constant` holding its value, in program order, so a chain of such
    ops (an exported network's shape arithmetic: Shape, Gather, Unsqueeze,
    Concat, Where, Equal, ...) folds in one walk. The importer folds the same
    way as it goes, where a node needs a constant input; this pass folds what
    later graph passes expose. Constants left without users are erased.

    Elementwise math, casts, select, concat, slice, transpose, gather,
    reductions, constant padding and the reshape family are computed; other
    ops stay. A result with more than `max-elements` elements stays a layer
    (it costs less to compute on the GPU than to store in the plan), and so
    does one that generated code defines differently (integer division by
    zero, an out-of-range index or float-to-integer cast). Weights held in
    resource blobs fold only into results of at most 65,536 elements (a mask
    sliced out of a buffer), and a reshape of them stays (it is free).

    Before:
    ```mlir
    %s = kiln.constant dense<[1, 128, 768]> : tensor<3xi64>
    %i = kiln.constant dense<1> : tensor<1xi64>
    %d = kiln.gather %s, %i {axis = 0 : i64} : (tensor<3xi64>, tensor<1xi64>) -> tensor<1xi64>
    ```
    After:
    ```mlir
    %d = kiln.constant dense<128> : tensor<1xi64>
    ```
  }];
  let options = [
    Option<"maxElements", "max-elements", "int64_t",
           /*default=*/"::mlir::kiln::kDefaultMaxFoldedElements",
           "The most elements a folded result may have">
  ];
  let statistics = [
    Statistic<"numFolded", "layers-folded", "Number of layers folded to constants">
  ];
  let dependentDialects = ["::mlir::kiln::KilnDialect"];
}

def KilnRemoveUnusedInputsPass
    : Pass<"kiln-remove-unused-inputs", "ModuleOp"> {
  let summary = "Drop network inputs that nothing reads";
  let description = [{
    Removes from the signature of every network function the inputs that no
    op reads (run `kiln-eliminate-dead-layers` first, so that dead layers do
    not keep them). A module pass, because whether a signature may change
    depends on the other functions: a function that is called keeps its
    inputs, with a remark.

    Before:
    ```mlir
    func.func @net(%x: tensor<1x8xf32>, %unused: tensor<2xf32>) -> tensor<1x8xf32> {
      %a = kiln.activation relu %x : tensor<1x8xf32> -> tensor<1x8xf32>
      return %a : tensor<1x8xf32>
    }
    ```
    After:
    ```mlir
    func.func @net(%x: tensor<1x8xf32>) -> tensor<1x8xf32> {
      %a = kiln.activation relu %x : tensor<1x8xf32> -> tensor<1x8xf32>
      return %a : tensor<1x8xf32>
    }
    ```
  }];
  let statistics = [
    Statistic<"numInputsRemoved", "inputs-removed", "Number of unused inputs removed">
  ];
}

#endif // KILN_DIALECT_KILN_TRANSFORMS_PASSES_TD
