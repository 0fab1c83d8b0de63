// RUN: kiln-opt %s --split-input-file --verify-diagnostics --kiln-check-memory="max-memory=2000" | FileCheck %s

// Within the budget: the arguments (512 bytes) and at most two buffers of
// 1024 bytes... here one at a time (the first is freed before the second).
// CHECK-LABEL: func.func @within
func.func @within(%x: memref<64xf32> loc("x"), %y: memref<64xf32> loc("y"))
    attributes {kiln.num_inputs = 1 : i64} {
  %a = memref.alloc() : memref<256xf32>
  memref.dealloc %a : memref<256xf32>
  %b = memref.alloc() : memref<256xf32>
  memref.dealloc %b : memref<256xf32>
  return
}

// -----

// Two buffers live at once, and an aligned one asks for its alignment more.
// expected-error @+1 {{the CPU reference would hold 2624 bytes at once, more than the memory budget of 2000 bytes (raise it with --max-memory); the largest: layer 'fc2' (1088 bytes), layer 'fc1' (1024 bytes), input 'x' (256 bytes), output 'y' (256 bytes)}}
func.func @over(%x: memref<64xf32> loc("x"), %y: memref<64xf32> loc("y"))
    attributes {kiln.num_inputs = 1 : i64} {
  %a = memref.alloc() : memref<256xf32> loc("fc1")
  %b = memref.alloc() {alignment = 64 : i64} : memref<256xf32> loc("fc2")
  memref.dealloc %a : memref<256xf32>
  memref.dealloc %b : memref<256xf32>
  return
}

// -----

// A callee's buffers count while it runs.
// expected-error @+1 {{the CPU reference would hold 2560 bytes at once, more than the memory budget of 2000 bytes (raise it with --max-memory); the largest: the buffers of 'layer' (2048 bytes), input 'x' (256 bytes), output 'y' (256 bytes)}}
func.func @calls(%x: memref<64xf32> loc("x"), %y: memref<64xf32> loc("y"))
    attributes {kiln.num_inputs = 1 : i64} {
  call @layer() : () -> ()
  return
}
func.func private @layer() {
  %a = memref.alloc() : memref<512xf32>
  memref.dealloc %a : memref<512xf32>
  return
}
