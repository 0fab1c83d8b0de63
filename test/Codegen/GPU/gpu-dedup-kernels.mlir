// RUN: kiln-opt %s --split-input-file --kiln-gpu-dedup-kernels | FileCheck %s

// The same kernel three times (only the names and locations differ): the
// first is kept and launched three times; a kernel of another shape stays.
// CHECK-LABEL: func.func @repeated
// CHECK:         gpu.launch_func @kiln_kernels::@k0_relu0 {{.*}} args(%arg0 : memref<64xf32>, %arg1 : memref<64xf32>)
// CHECK:         gpu.launch_func @kiln_kernels::@k0_relu0 {{.*}} args(%arg1 : memref<64xf32>, %arg2 : memref<64xf32>)
// CHECK:         gpu.launch_func @kiln_kernels::@k0_relu0 {{.*}} args(%arg2 : memref<64xf32>, %arg0 : memref<64xf32>)
// CHECK:         gpu.launch_func @kiln_kernels::@k3_relu3 {{.*}} args(%arg3 : memref<32xf32>, %arg4 : memref<32xf32>)
// CHECK:       gpu.module @kiln_kernels
// CHECK:         gpu.func @k0_relu0(
// CHECK-NOT:     gpu.func @k1_relu1
// CHECK-NOT:     gpu.func @k2_relu2
// CHECK:         gpu.func @k3_relu3(
module attributes {gpu.container_module} {
  func.func @repeated(%a: memref<64xf32>, %b: memref<64xf32>, %c: memref<64xf32>, %d: memref<32xf32>, %e: memref<32xf32>) {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    gpu.launch_func @kiln_kernels::@k0_relu0 blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%a : memref<64xf32>, %b : memref<64xf32>)
    gpu.launch_func @kiln_kernels::@k1_relu1 blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%b : memref<64xf32>, %c : memref<64xf32>)
    gpu.launch_func @kiln_kernels::@k2_relu2 blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%c : memref<64xf32>, %a : memref<64xf32>)
    gpu.launch_func @kiln_kernels::@k3_relu3 blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%d : memref<32xf32>, %e : memref<32xf32>)
    return
  }
  gpu.module @kiln_kernels {
    gpu.func @k0_relu0(%x: memref<64xf32>, %y: memref<64xf32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %cst = arith.constant 0.0 : f32
      %t = gpu.thread_id x
      %v = memref.load %x[%t] : memref<64xf32>
      %r = arith.maximumf %v, %cst : f32
      memref.store %r, %y[%t] : memref<64xf32>
      gpu.return
    }
    gpu.func @k1_relu1(%x: memref<64xf32>, %y: memref<64xf32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %cst = arith.constant 0.0 : f32
      %t = gpu.thread_id x loc("relu1")
      %v = memref.load %x[%t] : memref<64xf32>
      %r = arith.maximumf %v, %cst : f32 loc("relu1")
      memref.store %r, %y[%t] : memref<64xf32>
      gpu.return
    }
    gpu.func @k2_relu2(%x: memref<64xf32>, %y: memref<64xf32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %cst = arith.constant 0.0 : f32
      %t = gpu.thread_id x
      %v = memref.load %x[%t] : memref<64xf32>
      %r = arith.maximumf %v, %cst : f32
      memref.store %r, %y[%t] : memref<64xf32>
      gpu.return
    }
    gpu.func @k3_relu3(%x: memref<32xf32>, %y: memref<32xf32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %cst = arith.constant 0.0 : f32
      %t = gpu.thread_id x
      %v = memref.load %x[%t] : memref<32xf32>
      %r = arith.maximumf %v, %cst : f32
      memref.store %r, %y[%t] : memref<32xf32>
      gpu.return
    }
  }
}

// -----

// Kernels that must stay apart: another constant, another op order, another
// block size, another tile config. Nothing changes.
// CHECK-LABEL: func.func @different
// CHECK:         gpu.launch_func @kiln_kernels::@k0
// CHECK:         gpu.launch_func @kiln_kernels::@k1
// CHECK:         gpu.launch_func @kiln_kernels::@k2
// CHECK:         gpu.launch_func @kiln_kernels::@k3
// CHECK:         gpu.launch_func @kiln_kernels::@k4
// CHECK:       gpu.func @k0(
// CHECK:       gpu.func @k1(
// CHECK:       gpu.func @k2(
// CHECK:       gpu.func @k3(
// CHECK:       gpu.func @k4(
module attributes {gpu.container_module} {
  func.func @different(%a: memref<64xf32>, %b: memref<64xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kiln_kernels::@k0 blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<64xf32>, %b : memref<64xf32>)
    gpu.launch_func @kiln_kernels::@k1 blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<64xf32>, %b : memref<64xf32>)
    gpu.launch_func @kiln_kernels::@k2 blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<64xf32>, %b : memref<64xf32>)
    gpu.launch_func @kiln_kernels::@k3 blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<64xf32>, %b : memref<64xf32>)
    gpu.launch_func @kiln_kernels::@k4 blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<64xf32>, %b : memref<64xf32>)
    return
  }
  gpu.module @kiln_kernels {
    gpu.func @k0(%x: memref<64xf32>, %y: memref<64xf32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %cst = arith.constant 0.0 : f32
      %t = gpu.thread_id x
      %v = memref.load %x[%t] : memref<64xf32>
      %r = arith.maximumf %v, %cst : f32
      memref.store %r, %y[%t] : memref<64xf32>
      gpu.return
    }
    gpu.func @k1(%x: memref<64xf32>, %y: memref<64xf32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %cst = arith.constant 1.0 : f32
      %t = gpu.thread_id x
      %v = memref.load %x[%t] : memref<64xf32>
      %r = arith.maximumf %v, %cst : f32
      memref.store %r, %y[%t] : memref<64xf32>
      gpu.return
    }
    gpu.func @k2(%x: memref<64xf32>, %y: memref<64xf32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %cst = arith.constant 0.0 : f32
      %t = gpu.thread_id x
      %v = memref.load %x[%t] : memref<64xf32>
      %r = arith.maximumf %cst, %v : f32
      memref.store %r, %y[%t] : memref<64xf32>
      gpu.return
    }
    gpu.func @k3(%x: memref<64xf32>, %y: memref<64xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
      %cst = arith.constant 0.0 : f32
      %t = gpu.thread_id x
      %v = memref.load %x[%t] : memref<64xf32>
      %r = arith.maximumf %v, %cst : f32
      memref.store %r, %y[%t] : memref<64xf32>
      gpu.return
    }
    gpu.func @k4(%x: memref<64xf32>, %y: memref<64xf32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>, kiln_gpu.tile_config = #kiln_gpu.tile_config<tile = [128], threads = [64], stages = 1>} {
      %cst = arith.constant 0.0 : f32
      %t = gpu.thread_id x
      %v = memref.load %x[%t] : memref<64xf32>
      %r = arith.maximumf %v, %cst : f32
      memref.store %r, %y[%t] : memref<64xf32>
      gpu.return
    }
  }
}

// -----

// A function of the gpu.module that is not a kernel is left alone, and so is
// a module without kernels.
// CHECK-LABEL: gpu.module @helpers
// CHECK:         gpu.func @f(
// CHECK:         gpu.func @g(
module attributes {gpu.container_module} {
  gpu.module @helpers {
    gpu.func @f(%x: memref<4xf32>) {
      gpu.return
    }
    gpu.func @g(%x: memref<4xf32>) {
      gpu.return
    }
  }
}
