// RUN: kiln-opt %s --split-input-file --verify-diagnostics --kiln-destination-passing | FileCheck %s
// RUN: kiln-opt %s --split-input-file --verify-diagnostics --kiln-destination-passing=keep-names=false | FileCheck %s --check-prefix=NONAMES

// Inputs become buffers read through to_tensor, results are written into
// one output buffer each; the names stay and kiln.num_inputs says where the
// outputs start.
// CHECK-LABEL: func.func @net
// CHECK-SAME: (%[[X:.+]]: memref<2x4xf32> {kiln.name = "x"}, %[[Y:.+]]: memref<2x4xf32> {kiln.name = "y"}, %[[Z:.+]]: memref<4xi32> {kiln.name = "z"})
// CHECK-SAME: attributes {kiln.num_inputs = 1 : i64}
// CHECK:      %[[T:.+]] = bufferization.to_tensor %[[X]] restrict : memref<2x4xf32> to tensor<2x4xf32>
// CHECK:      %[[E:.+]] = tensor.empty() : tensor<4xi32>
// CHECK:      bufferization.materialize_in_destination %[[T]] in restrict writable %[[Y]]
// CHECK:      bufferization.materialize_in_destination %[[E]] in restrict writable %[[Z]]
// CHECK:      return{{$}}
// NONAMES-LABEL: func.func @net
// NONAMES-SAME: (%{{.+}}: memref<2x4xf32>, %{{.+}}: memref<2x4xf32>, %{{.+}}: memref<4xi32>)
// NONAMES-SAME: attributes {kiln.num_inputs = 1 : i64} {
func.func @net(%x: tensor<2x4xf32> {kiln.name = "x"})
    -> (tensor<2x4xf32> {kiln.name = "y"}, tensor<4xi32> {kiln.name = "z"}) {
  %e = tensor.empty() : tensor<4xi32>
  return %x, %e : tensor<2x4xf32>, tensor<4xi32>
}

// -----

// Declarations are not network functions: nothing changes.
// CHECK-LABEL: func.func private @declaration
// CHECK-SAME: (tensor<4xf32>) -> tensor<4xf32>
func.func private @declaration(tensor<4xf32>) -> tensor<4xf32>

// -----

// A dynamically shaped input cannot be a buffer of the plan.
// expected-error @+1 {{kiln-destination-passing: inputs and outputs must be statically shaped tensors, got 'tensor<?x4xf32>'}}
func.func @dynamic(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  return %x : tensor<?x4xf32>
}

// -----

// A function that is called keeps its signature.
// expected-error @+1 {{kiln-destination-passing: the function is called}}
func.func @callee(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func @caller(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = call @callee(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
