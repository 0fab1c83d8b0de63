// The plan of a small network: its I/O tensors, the weights, one launch per
// kernel with its buffers placed in the weights, the arena or the bound
// tensors (each with the bytes the kernel may touch and how: the runtime
// checks them), a device copy for an output that is a weight, and the arena
// sized by liveness (the second intermediate reuses the first one's bytes).
// RUN: kiln-compile %s -o %t.kplan --no-cubin --no-optimize
// RUN: kiln-plan-info %t.kplan --steps | FileCheck %s
// RUN: kiln-compile %s --emit=gpu --no-optimize | FileCheck %s --check-prefix=GPU

// CHECK:      format 1.4
// CHECK:      archs: 90
// CHECK:      ptx isa: 8.0
// CHECK:      tensors: 4
// CHECK-NEXT:   tensor 0: input  x f32 [2,1024] (8192 bytes)
// CHECK-NEXT:   tensor 1: output y f32 [2,1024] (8192 bytes)
// CHECK-NEXT:   tensor 2: output z f32 [2,1024] (8192 bytes)
// CHECK-NEXT:   tensor 3: output w f32 [1024] (4096 bytes)
// CHECK:      kernels: 3
// CHECK-NEXT:   kernel 0: k0_{{.*}} #kiln_gpu.tile_config<tile = [256], threads = [256], stages = 1>
// CHECK-NEXT:     params: ptr, ptr, ptr
// CHECK:      images: 1
// CHECK-NEXT:   image 0: PTX compute_90
// CHECK:      weights: 4096 bytes
// CHECK:      arena: 8192 bytes
// CHECK:      steps: 4 (3 launch, 1 copy, 0 fill)
// Steps 0 and 1 move 4 floats per thread through the arena and the weights
// (gpu-form-kernels-vectors.mlir); step 2 only touches the user's tensors.
// CHECK-NEXT:   step 0: launch k0_{{.*}} grid=(2,1,1) block=(256,1,1) args=3 (tensor0+0[8192,r], weights+0[4096,r], arena+0[8192,w])
// CHECK-NEXT:   step 1: launch k1_{{.*}} grid=(2,1,1) block=(256,1,1) args=2 (arena+0[8192,r], tensor1+0[8192,w])
// CHECK-NEXT:   step 2: launch k2_{{.*}} grid=(8,1,1) block=(256,1,1) args=2 (tensor1+0[8192,r], tensor2+0[8192,w])
// CHECK-NEXT:   step 3: copy weights+0 -> tensor3+0 (4096 bytes)

// GPU:      func.func @net(%[[X:.*]]: memref<2x1024xf32> {kiln.name = "x"}, %[[Y:.*]]: memref<2x1024xf32> {kiln.name = "y"}, %[[Z:.*]]: memref<2x1024xf32> {kiln.name = "z"}, %[[W:.*]]: memref<1024xf32> {kiln.name = "w"}) attributes {kiln.num_inputs = 1 : i64}
// GPU:        %[[BIAS:.*]] = memref.get_global
// GPU:        %[[T:.*]] = memref.alloc() {{.*}} : memref<2x1024xf32>
// GPU:        gpu.launch_func @kiln_kernels::@k0_{{.*}} args(%[[X]] : memref<2x1024xf32>, %[[BIAS]] : memref<1024xf32>, %[[T]] : memref<2x1024xf32>) {kiln_gpu.arg_access = ["read", "read", "write"]
// GPU:        gpu.launch_func @kiln_kernels::@k1_{{.*}} args(%[[T]] : memref<2x1024xf32>, %[[Y]] : memref<2x1024xf32>)
// GPU:        gpu.launch_func @kiln_kernels::@k2_{{.*}} args(%[[Y]] : memref<2x1024xf32>, %[[Z]] : memref<2x1024xf32>)
// GPU:        memref.copy %[[BIAS]], %[[W]]
// GPU:      gpu.module @kiln_kernels
func.func @net(%x: tensor<2x1024xf32> {kiln.name = "x"})
    -> (tensor<2x1024xf32> {kiln.name = "y"}, tensor<2x1024xf32> {kiln.name = "z"},
        tensor<1024xf32> {kiln.name = "w"}) {
  %b = kiln.constant dense<0.5> : tensor<1024xf32>
  %s = kiln.binary add %x, %b : (tensor<2x1024xf32>, tensor<1024xf32>) -> tensor<2x1024xf32>
  %y = kiln.activation relu %s : tensor<2x1024xf32> -> tensor<2x1024xf32>
  %z = kiln.activation sigmoid %y : tensor<2x1024xf32> -> tensor<2x1024xf32>
  return %y, %z, %b : tensor<2x1024xf32>, tensor<2x1024xf32>, tensor<1024xf32>
}
