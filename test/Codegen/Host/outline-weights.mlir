// RUN: kiln-opt %s --split-input-file --verify-diagnostics --kiln-outline-weights | FileCheck %s

// Resource-blob weights become arguments after the inputs, in order, and the
// function lists the blobs; an inline constant stays in the code.
// CHECK-LABEL: func.func @net
// CHECK-SAME: (%[[X:.+]]: tensor<4xf32> {kiln.name = "x"}, %[[W0:.+]]: tensor<4xf32>, %[[W1:.+]]: tensor<2xi64>)
// CHECK-SAME: kiln.outlined_weights = [dense_resource<w0> : tensor<4xf32>, dense_resource<w1> : tensor<2xi64>]
// CHECK:      %[[C:.+]] = kiln.constant dense<2.000000e+00> : tensor<4xf32>
// CHECK:      kiln.binary add %[[X]], %[[W0]]
// CHECK:      kiln.binary mul %{{.+}}, %[[C]]
// CHECK:      return %{{.+}}, %[[W1]]
func.func @net(%x: tensor<4xf32> {kiln.name = "x"}) -> (tensor<4xf32>, tensor<2xi64>) {
  %w0 = kiln.constant dense_resource<w0> : tensor<4xf32>
  %w1 = kiln.constant dense_resource<w1> : tensor<2xi64>
  %c = kiln.constant dense<2.0> : tensor<4xf32>
  %a = kiln.binary add %x, %w0 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %m = kiln.binary mul %a, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %m, %w1 : tensor<4xf32>, tensor<2xi64>
}
{-#
  dialect_resources: {
    builtin: {
      w0: "0x040000000000803F0000004000004040000080C0",
      w1: "0x0800000001000000000000000200000000000000"
    }
  }
#-}

// -----

// Nothing to outline: no blob weights, and a function that is called keeps
// its blob (its callers would need the new argument).
// CHECK-LABEL: func.func @inline_only
// CHECK-SAME: (%{{.+}}: tensor<2xf32>) -> tensor<2xf32> {
// CHECK-NOT:  kiln.outlined_weights
// CHECK-LABEL: func.func @called
// CHECK:      kiln.constant dense_resource<w2>
func.func @inline_only(%x: tensor<2xf32>) -> tensor<2xf32> {
  %c = kiln.constant dense<1.0> : tensor<2xf32>
  %y = kiln.binary add %x, %c : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %z = call @called(%y) : (tensor<2xf32>) -> tensor<2xf32>
  return %z : tensor<2xf32>
}
func.func @called(%x: tensor<2xf32>) -> tensor<2xf32> {
  %w = kiln.constant dense_resource<w2> : tensor<2xf32>
  %y = kiln.binary add %x, %w : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}
{-#
  dialect_resources: {
    builtin: {
      w2: "0x040000000000803F00000040"
    }
  }
#-}

// -----

// A blob without data (the resource section is missing) cannot be passed.
func.func @no_data(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{kiln-outline-weights: weight blob 'missing' has no data}}
  %w = kiln.constant dense_resource<missing> : tensor<2xf32>
  %y = kiln.binary add %x, %w : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}
