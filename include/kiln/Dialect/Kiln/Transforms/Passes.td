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
