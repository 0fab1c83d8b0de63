// RUN: kiln-opt %s --split-input-file --kiln-assign-precision | FileCheck %s
// RUN: kiln-opt %s --split-input-file --kiln-assign-precision=precision=bf16 | FileCheck %s --check-prefix=BF16
// RUN: not kiln-opt %s --split-input-file --kiln-assign-precision=precision=fp8 2>&1 | FileCheck %s --check-prefix=BAD
// The numbers of networks run in fp16 are checked against f32 on the GPU
// (scripts/gpu-check.sh, benchmarks/networks.py).

// A fully connected layer in fp16 between f32 edges: the input is cast once,
// the weights are rounded on the host, the softmax stays f32 behind one cast
// back, and the function keeps its f32 signature.
// CHECK-LABEL: func.func @fc_softmax(%arg0: tensor<1x8xf32>) -> tensor<1x4xf32>
// CHECK-DAG: %[[W:.+]] = kiln.constant dense<{{.+}}> : tensor<4x8xf16>
// CHECK-DAG: %[[X:.+]] = kiln.cast %arg0 : tensor<1x8xf32> to tensor<1x8xf16>
// CHECK: %[[Y:.+]] = kiln.fully_connected %[[X]], %[[W]] {{.*}}: (tensor<1x8xf16>, tensor<4x8xf16>) -> tensor<1x4xf16>
// CHECK: %[[R:.+]] = kiln.activation relu %[[Y]] : tensor<1x4xf16> -> tensor<1x4xf16>
// CHECK: %[[U:.+]] = kiln.cast %[[R]] : tensor<1x4xf16> to tensor<1x4xf32>
// CHECK: %[[S:.+]] = kiln.softmax %[[U]] {{.*}}: tensor<1x4xf32> -> tensor<1x4xf32>
// CHECK: return %[[S]] : tensor<1x4xf32>
// BF16-LABEL: func.func @fc_softmax
// BF16: kiln.fully_connected {{.*}} -> tensor<1x4xbf16>
// BAD: Cannot find option named 'fp8'
func.func @fc_softmax(%x: tensor<1x8xf32>) -> tensor<1x4xf32> {
  %w = kiln.constant dense<[[0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8],
                            [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0],
                            [-1.0, -2.0, -3.0, -4.0, -5.0, -6.0, -7.0, -8.0],
                            [0.0, 0.5, 0.0, 0.5, 0.0, 0.5, 0.0, 0.5]]> : tensor<4x8xf32>
  %y = kiln.fully_connected %x, %w : (tensor<1x8xf32>, tensor<4x8xf32>) -> tensor<1x4xf32> loc("fc")
  %r = kiln.activation relu %y : tensor<1x4xf32> -> tensor<1x4xf32> loc("relu")
  %s = kiln.softmax %r {axis = 1 : i64} : tensor<1x4xf32> -> tensor<1x4xf32> loc("softmax")
  return %s : tensor<1x4xf32>
}

// -----

// A value read by two f32 layers is cast up once; a residual add of two
// 16-bit values stays 16-bit; the splat weight is rounded in place; the
// integer shape tensor of the reshape is left alone.
// CHECK-LABEL: func.func @regions
// CHECK: kiln.constant dense<5.000000e-01> : tensor<4x4xf16>
// CHECK-NOT: tensor<4x4xf32>
// CHECK: %[[M:.+]] = kiln.matmul {{.*}} -> tensor<2x4xf16>
// CHECK: %[[UP:.+]] = kiln.cast %[[M]] : tensor<2x4xf16> to tensor<2x4xf32>
// CHECK-NOT: kiln.cast %[[M]]
// CHECK: kiln.unary exp %[[UP]]
// CHECK: kiln.unary erf %[[UP]]
// CHECK: kiln.binary add %[[M]], %[[M]] : (tensor<2x4xf16>, tensor<2x4xf16>) -> tensor<2x4xf16>
func.func @regions(%a: tensor<2x4xf32>, %i: tensor<2xi64>) -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) {
  %h = kiln.constant dense<0.5> : tensor<4x4xf32>
  %m = kiln.matmul %a, %h : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %e = kiln.unary exp %m : tensor<2x4xf32> -> tensor<2x4xf32>
  %f = kiln.unary erf %m : tensor<2x4xf32> -> tensor<2x4xf32>
  %r = kiln.binary add %m, %m : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %q = kiln.matmul %r, %h : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  return %e, %f, %r, %q : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>
}

// -----

// An fp16 model is left as it is: only f32 tensors change.
// CHECK-LABEL: func.func @native_fp16
// CHECK-NOT: kiln.cast
// CHECK: kiln.matmul %arg0, %arg1 : (tensor<2x4xf16>, tensor<4x4xf16>) -> tensor<2x4xf16>
func.func @native_fp16(%a: tensor<2x4xf16>, %b: tensor<4x4xf16>) -> tensor<2x4xf16> {
  %m = kiln.matmul %a, %b : (tensor<2x4xf16>, tensor<4x4xf16>) -> tensor<2x4xf16>
  return %m : tensor<2x4xf16>
}

// -----

// Whether an activation or a binary op runs in 16 bits depends on its kind
// (PrecisionOpInterface): leaky_relu and max do; sigmoid and pow stay f32
// behind one cast back.
// CHECK-LABEL: func.func @by_kind
// CHECK: %[[M:.+]] = kiln.matmul {{.*}} -> tensor<2x4xf16>
// CHECK: %[[L:.+]] = kiln.activation  leaky_relu %[[M]] {{.*}}: tensor<2x4xf16> -> tensor<2x4xf16>
// CHECK: %[[X:.+]] = kiln.binary  max %[[L]], %[[M]] : (tensor<2x4xf16>, tensor<2x4xf16>) -> tensor<2x4xf16>
// CHECK: %[[UP:.+]] = kiln.cast %[[X]] : tensor<2x4xf16> to tensor<2x4xf32>
// CHECK: %[[S:.+]] = kiln.activation  sigmoid %[[UP]] : tensor<2x4xf32> -> tensor<2x4xf32>
// CHECK: %[[P:.+]] = kiln.binary  pow %[[UP]], %[[UP]] : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK: return %[[S]], %[[P]]
func.func @by_kind(%a: tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %h = kiln.constant dense<0.5> : tensor<4x4xf32>
  %m = kiln.matmul %a, %h : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %l = kiln.activation leaky_relu %m {alpha = 0.1 : f32} : tensor<2x4xf32> -> tensor<2x4xf32>
  %x = kiln.binary max %l, %m : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %s = kiln.activation sigmoid %x : tensor<2x4xf32> -> tensor<2x4xf32>
  %p = kiln.binary pow %x, %x : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return %s, %p : tensor<2x4xf32>, tensor<2x4xf32>
}

// -----

// Large weights (resource blobs) are rounded into a new blob named after
// theirs; the f32 blob goes when nothing else reads it. The weights are
// -10, -9.75, ..., 9.75: f16 0xC900, 0xC8E0, ... (little endian).
// CHECK-LABEL: func.func @blob
// CHECK: %[[W:.+]] = kiln.constant dense_resource<fc.weight.f16> : tensor<2x40xf16>
// CHECK: kiln.fully_connected %{{.+}}, %[[W]]
// CHECK-NOT: tensor<2x40xf32>
// CHECK: fc.weight.f16: "0x{{[0-9A-F]+}}00C9E0C8C0C8{{.*}}C048E048"
func.func @blob(%x: tensor<1x40xf32>) -> tensor<1x2xf32> {
  %w = kiln.constant dense_resource<fc.weight> : tensor<2x40xf32>
  %y = kiln.fully_connected %x, %w : (tensor<1x40xf32>, tensor<2x40xf32>) -> tensor<1x2xf32>
  return %y : tensor<1x2xf32>
}

{-#
  dialect_resources: {
    builtin: {
      fc.weight: "0x04000000000020C100001CC1000018C1000014C1000010C100000CC1000008C1000004C1000000C10000F8C00000F0C00000E8C00000E0C00000D8C00000D0C00000C8C00000C0C00000B8C00000B0C00000A8C00000A0C0000098C0000090C0000088C0000080C0000070C0000060C0000050C0000040C0000030C0000020C0000010C0000000C00000E0BF0000C0BF0000A0BF000080BF000040BF000000BF000080BE000000000000803E0000003F0000403F0000803F0000A03F0000C03F0000E03F0000004000001040000020400000304000004040000050400000604000007040000080400000884000009040000098400000A0400000A8400000B0400000B8400000C0400000C8400000D0400000D8400000E0400000E8400000F0400000F84000000041000004410000084100000C4100001041000014410000184100001C41"
    }
  }
#-}
