// RUN: kiln-opt %s --split-input-file --kiln-check-work="max-work=262144" --verify-diagnostics | FileCheck %s

// A product of exactly the budget's points (64 x 64 x 64) passes.
// CHECK-LABEL: func.func @at_the_budget
// CHECK: linalg.matmul
func.func @at_the_budget(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>,
                         %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>)
                     outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// -----

// One more row is over it: the error is at the op (its layer's location).
func.func @over_the_budget(%a: tensor<65x64xf32>, %b: tensor<64x64xf32>,
                           %c: tensor<65x64xf32>) -> tensor<65x64xf32> {
  // expected-error @+1 {{layer work of 266240 operations is more than the work budget of 262144 (raise it with --max-work)}}
  %0 = linalg.matmul ins(%a, %b : tensor<65x64xf32>, tensor<64x64xf32>)
                     outs(%c : tensor<65x64xf32>) -> tensor<65x64xf32>
  return %0 : tensor<65x64xf32>
}

// -----

// A window's reads count: a pool's iteration space includes the window.
func.func @pool_window(%x: tensor<1x1x72x72xf32>, %w: tensor<64x64xf32>,
                       %o: tensor<1x1x9x9xf32>) -> tensor<1x1x9x9xf32> {
  // expected-error @+1 {{layer work of 331776 operations is more than the work budget of 262144}}
  %0 = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
       ins(%x, %w : tensor<1x1x72x72xf32>, tensor<64x64xf32>)
       outs(%o : tensor<1x1x9x9xf32>) -> tensor<1x1x9x9xf32>
  return %0 : tensor<1x1x9x9xf32>
}
