// RUN: kiln-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect | FileCheck %s

// The kiln_gpu attributes round-trip where they belong.
// CHECK-LABEL: func.func @host
// CHECK-SAME: attributes {kiln_gpu.arena_bytes = 1024 : i64}
// CHECK: memref.alloc() {kiln_gpu.arena_offset = 256 : i64} : memref<4xf32>
// CHECK: linalg.fill {kiln_gpu.tile_config = #kiln_gpu.tile_config<tile = [512], threads = [128], stages = 2>}
func.func @host(%x: memref<4xf32>) attributes {kiln_gpu.arena_bytes = 1024 : i64} {
  %a = memref.alloc() {kiln_gpu.arena_offset = 256 : i64} : memref<4xf32>
  %zero = arith.constant 0.0 : f32
  linalg.fill {kiln_gpu.tile_config = #kiln_gpu.tile_config<tile = [512], threads = [128], stages = 2>}
      ins(%zero : f32) outs(%a : memref<4xf32>)
  return
}

// -----

func.func @two_dimensions() {
  // expected-error @+1 {{tile_config: tile and threads must have one entry each}}
  "test.op"() {kiln_gpu.tile_config = #kiln_gpu.tile_config<tile = [16, 16], threads = [16, 16], stages = 1>} : () -> ()
  return
}

// -----

func.func @too_many_threads() {
  // expected-error @+1 {{tile_config: threads must be in [1, 1024], got 2048}}
  "test.op"() {kiln_gpu.tile_config = #kiln_gpu.tile_config<tile = [2048], threads = [2048], stages = 1>} : () -> ()
  return
}

// -----

func.func @tile_not_a_multiple() {
  // expected-error @+1 {{tile_config: tile (100) must be a positive multiple of threads (64)}}
  "test.op"() {kiln_gpu.tile_config = #kiln_gpu.tile_config<tile = [100], threads = [64], stages = 1>} : () -> ()
  return
}

// -----

func.func @no_stages() {
  // expected-error @+1 {{tile_config: stages must be >= 1, got 0}}
  "test.op"() {kiln_gpu.tile_config = #kiln_gpu.tile_config<tile = [64], threads = [64], stages = 0>} : () -> ()
  return
}

// -----

func.func @not_a_tile_config() {
  // expected-error @+1 {{'kiln_gpu.tile_config' must be a #kiln_gpu.tile_config, got 256 : i64}}
  "test.op"() {kiln_gpu.tile_config = 256} : () -> ()
  return
}

// -----

func.func @offset_on_a_fill(%a: memref<4xf32>) {
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{'kiln_gpu.arena_offset' belongs on a memref.alloc or memref.alloca}}
  linalg.fill {kiln_gpu.arena_offset = 0 : i64} ins(%zero : f32) outs(%a : memref<4xf32>)
  return
}

// -----

func.func @negative_offset() {
  // expected-error @+1 {{'kiln_gpu.arena_offset' must be a non-negative i64 integer, got -256 : i64}}
  %a = memref.alloc() {kiln_gpu.arena_offset = -256 : i64} : memref<4xf32>
  return
}

// -----

// expected-error @+1 {{'kiln_gpu.arena_bytes' must be a non-negative i64 integer, got 1.000000e+00 : f32}}
func.func @float_size() attributes {kiln_gpu.arena_bytes = 1.0 : f32} {
  return
}

// -----

func.func @unknown() {
  // expected-error @+1 {{unknown kiln_gpu attribute 'kiln_gpu.stages'}}
  "test.op"() {kiln_gpu.stages = 2} : () -> ()
  return
}

// -----

func.func @bad_access() {
  // expected-error @+1 {{'kiln_gpu.arg_access' must be a list of "read", "write" or "readwrite", got ["read", "append"]}}
  "test.op"() {kiln_gpu.arg_access = ["read", "append"]} : () -> ()
  return
}

// -----

func.func @in_place_not_on_a_launch() {
  // expected-error @+1 {{'kiln_gpu.in_place' belongs on a gpu.launch_func}}
  "test.op"() {kiln_gpu.in_place = array<i64: 0, 1>} : () -> ()
  return
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kiln_kernels {
    gpu.func @k(%a: memref<4xf32>, %b: memref<4xf32>) kernel {
      gpu.return
    }
  }
  func.func @in_place_bad_index(%a: memref<4xf32>, %b: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{'kiln_gpu.in_place' must be pairs of the launch's argument indices (array<i64: in, out, ...>), got array<i64: 0, 2>}}
    gpu.launch_func @kiln_kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<4xf32>, %b : memref<4xf32>) {kiln_gpu.in_place = array<i64: 0, 2>}
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kiln_kernels {
    gpu.func @k(%a: memref<4xf32>, %b: memref<4xf32>) kernel {
      gpu.return
    }
  }
  func.func @in_place_odd(%a: memref<4xf32>, %b: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{'kiln_gpu.in_place' must be pairs of the launch's argument indices (array<i64: in, out, ...>), got array<i64: 0, 1, 1>}}
    gpu.launch_func @kiln_kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<4xf32>, %b : memref<4xf32>) {kiln_gpu.in_place = array<i64: 0, 1, 1>}
    return
  }
}

// -----

func.func @flops_not_on_a_launch() {
  // expected-error @+1 {{'kiln_gpu.flops' belongs on a gpu.launch_func}}
  "test.op"() {kiln_gpu.flops = 12 : i64} : () -> ()
  return
}
