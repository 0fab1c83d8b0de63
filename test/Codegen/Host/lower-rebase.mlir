// RUN: kiln-opt %s --finalize-memref-to-llvm --kiln-lower-rebase --convert-func-to-llvm --reconcile-unrealized-casts | FileCheck %s

// A rebased part on the host (the CPU reference): its source's descriptor
// with the aligned pointer moved by offset 6 - 2 = 4 floats and the offset
// 2; the allocated pointer, sizes and strides stay.
// CHECK-LABEL: llvm.func @rebase
// CHECK:         %[[ALIGNED:.*]] = llvm.extractvalue %[[SRC:.*]][1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
// CHECK:         %[[DELTA:.*]] = llvm.mlir.constant(4 : i64) : i64
// CHECK:         %[[MOVED:.*]] = llvm.getelementptr %[[ALIGNED]][%[[DELTA]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK:         %[[D1:.*]] = llvm.insertvalue %[[MOVED]], %[[SRC]][1]
// CHECK:         %[[OFF:.*]] = llvm.mlir.constant(2 : index) : i64
// CHECK:         %[[D2:.*]] = llvm.insertvalue %[[OFF]], %[[D1]][2]
// CHECK:         llvm.return %[[D2]]
func.func @rebase(%a: memref<1x3xf32, strided<[3, 1], offset: 6>>) -> memref<1x3xf32, strided<[3, 1], offset: 2>> {
  %r = kiln_gpu.rebase %a : memref<1x3xf32, strided<[3, 1], offset: 6>> to memref<1x3xf32, strided<[3, 1], offset: 2>>
  return %r : memref<1x3xf32, strided<[3, 1], offset: 2>>
}
