// RUN: kiln-opt %s --kiln-assign-precision="layer-precision=fc=fp32" | FileCheck %s
// RUN: kiln-opt %s --kiln-assign-precision="precision=fp32 layer-precision=softmax=bf16" | FileCheck %s --check-prefix=FORCE
// RUN: not kiln-opt %s --kiln-assign-precision="layer-precision=nosuch=fp32" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not kiln-opt %s --kiln-assign-precision="layer-precision=fc" 2>&1 | FileCheck %s --check-prefix=SYNTAX
// kiln-assign-precision's layer-precision option: layers chosen by name.

// fc stays f32 and its weights too; the ReLU after it runs in fp16 behind a
// cast, and comes back to f32 for the softmax.
// CHECK-LABEL: func.func @net
// CHECK: %[[Y:.+]] = kiln.fully_connected %arg0, %{{.+}} : (tensor<1x8xf32>, tensor<4x8xf32>) -> tensor<1x4xf32>
// CHECK: %[[D:.+]] = kiln.cast %[[Y]] : tensor<1x4xf32> to tensor<1x4xf16>
// CHECK: %[[R:.+]] = kiln.activation relu %[[D]] : tensor<1x4xf16> -> tensor<1x4xf16>
// CHECK: %[[U:.+]] = kiln.cast %[[R]] : tensor<1x4xf16> to tensor<1x4xf32>
// CHECK: kiln.softmax %[[U]]
// With nothing reduced but one layer forced: only the softmax is bf16.
// FORCE-LABEL: func.func @net
// FORCE: kiln.fully_connected {{.*}} -> tensor<1x4xf32>
// FORCE: kiln.activation relu {{.*}} -> tensor<1x4xf32>
// FORCE: %[[D:.+]] = kiln.cast %{{.+}} : tensor<1x4xf32> to tensor<1x4xbf16>
// FORCE: %[[S:.+]] = kiln.softmax %[[D]] {{.*}} : tensor<1x4xbf16> -> tensor<1x4xbf16>
// FORCE: %[[U:.+]] = kiln.cast %[[S]] : tensor<1x4xbf16> to tensor<1x4xf32>
// FORCE: return %[[U]]
// UNKNOWN: error: kiln-assign-precision: layer-precision names 'nosuch', which is no layer of @net
// SYNTAX: error: kiln-assign-precision: layer-precision expects NAME=fp32|fp16|bf16, got 'fc'
func.func @net(%x: tensor<1x8xf32>) -> tensor<1x4xf32> {
  %w = kiln.constant dense<0.25> : tensor<4x8xf32>
  %y = kiln.fully_connected %x, %w : (tensor<1x8xf32>, tensor<4x8xf32>) -> tensor<1x4xf32> loc("fc")
  %r = kiln.activation relu %y : tensor<1x4xf32> -> tensor<1x4xf32> loc("relu")
  %s = kiln.softmax %r {axis = 1 : i64} : tensor<1x4xf32> -> tensor<1x4xf32> loc("softmax")
  return %s : tensor<1x4xf32>
}
