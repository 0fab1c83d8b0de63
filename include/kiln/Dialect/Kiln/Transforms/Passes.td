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
    and count as roots. With `kiln-remove-unused-inputs`, inputs that no live
    layer reads are dropped from the signature too (only for functions nothing
    calls).

    Before:
    ```mlir
    func.func @net(%x: tensor<1x8xf32>, %unused: tensor<2xf32>) -> tensor<1x8xf32> {
      %a = kiln.activation relu %x : tensor<1x8xf32> -> tensor<1x8xf32>
      %dead = kiln.activation sigmoid %x : tensor<1x8xf32> -> tensor<1x8xf32>
      return %a : tensor<1x8xf32>
    }
    ```
    After (`--kiln-eliminate-dead-layers=kiln-remove-unused-inputs`):
    ```mlir
    func.func @net(%x: tensor<1x8xf32>) -> tensor<1x8xf32> {
      %a = kiln.activation relu %x : tensor<1x8xf32> -> tensor<1x8xf32>
      return %a : tensor<1x8xf32>
    }
    ```
  }];
  let options = [
    Option<"removeUnusedInputs", "kiln-remove-unused-inputs", "bool",
           /*default=*/"false",
           "Also drop network inputs that no live layer reads">
  ];
  let statistics = [
    Statistic<"numLayersRemoved", "layers-removed", "Number of dead layers removed">,
    Statistic<"numInputsRemoved", "inputs-removed", "Number of unused inputs removed">
  ];
  let dependentDialects = ["::mlir::kiln::KilnDialect"];
}

#endif // KILN_DIALECT_KILN_TRANSFORMS_PASSES_TD
