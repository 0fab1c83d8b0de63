// RUN: kiln-opt %s --split-input-file --kiln-check-allocations | FileCheck %s

// A null allocation returns at once; a call to a function that allocates is
// followed by a check of the executor's failure flag.
// CHECK-LABEL: llvm.func @kiln_reference_allocation_failed() -> i1
// CHECK-LABEL: llvm.func @layer
// CHECK:       %[[P:.+]] = llvm.call @_mlir_memref_to_llvm_alloc(%{{.+}})
// CHECK:       %[[NULL:.+]] = llvm.mlir.zero : !llvm.ptr
// CHECK:       %[[FAILED:.+]] = llvm.icmp "eq" %[[P]], %[[NULL]] : !llvm.ptr
// CHECK:       llvm.cond_br %[[FAILED]], ^[[EXIT:.+]], ^[[REST:.+]]
// CHECK:     ^[[REST]]:
// CHECK:       llvm.store %{{.+}}, %[[P]]
// CHECK:     ^[[EXIT]]:
// CHECK-NEXT:  llvm.return
// CHECK-LABEL: llvm.func @net
// CHECK:       llvm.call @layer()
// CHECK:       %[[FLAG:.+]] = llvm.call @kiln_reference_allocation_failed() : () -> i1
// CHECK:       llvm.cond_br %[[FLAG]], ^[[EXIT2:.+]], ^[[REST2:.+]]
// CHECK:     ^[[REST2]]:
// CHECK:       llvm.call @pure()
// CHECK-NOT:   kiln_reference_allocation_failed
// CHECK:       llvm.return
llvm.func @_mlir_memref_to_llvm_alloc(i64) -> !llvm.ptr
llvm.func @layer() {
  %n = llvm.mlir.constant(4 : i64) : i64
  %v = llvm.mlir.constant(1.0 : f32) : f32
  %p = llvm.call @_mlir_memref_to_llvm_alloc(%n) : (i64) -> !llvm.ptr
  llvm.store %v, %p : f32, !llvm.ptr
  llvm.return
}
llvm.func @pure() {
  llvm.return
}
llvm.func @net() {
  llvm.call @layer() : () -> ()
  llvm.call @pure() : () -> ()
  llvm.return
}

// -----

// A function with a result returns zero.
// CHECK-LABEL: llvm.func @value
// CHECK:       llvm.cond_br
// CHECK:       %[[ZERO:.+]] = llvm.mlir.zero : i32
// CHECK-NEXT:  llvm.return %[[ZERO]] : i32
llvm.func @malloc(i64) -> !llvm.ptr
llvm.func @value() -> i32 {
  %n = llvm.mlir.constant(4 : i64) : i64
  %p = llvm.call @malloc(%n) : (i64) -> !llvm.ptr
  %v = llvm.load %p : !llvm.ptr -> i32
  llvm.return %v : i32
}
