// RUN: kiln-opt %s --split-input-file --kiln-shared-reads=max-readers=2 | FileCheck %s

// A result with more than two readers is written into a buffer of its own
// after its producer; each reader reads it through its own to_tensor.
// CHECK-LABEL: func.func @result(
// CHECK:         %[[T:.*]] = linalg.generic
// CHECK:         %[[BUF:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
// CHECK:         bufferization.materialize_in_destination %[[T]] in restrict writable %[[BUF]]
// CHECK:         %[[R0:.*]] = bufferization.to_tensor %[[BUF]] restrict : memref<4xf32> to tensor<4xf32>
// CHECK-NEXT:    tensor.extract_slice %[[R0]]
// CHECK:         %[[R1:.*]] = bufferization.to_tensor %[[BUF]] restrict
// CHECK-NEXT:    tensor.extract_slice %[[R1]]
// CHECK:         %[[R2:.*]] = bufferization.to_tensor %[[BUF]] restrict
// CHECK-NEXT:    return %[[R2]],
#id = affine_map<(d0) -> (d0)>
func.func @result(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<2xf32>, tensor<2xf32>) {
  %e = tensor.empty() : tensor<4xf32>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<4xf32>
  %a = tensor.extract_slice %t[0] [2] [1] : tensor<4xf32> to tensor<2xf32>
  %b = tensor.extract_slice %t[2] [2] [1] : tensor<4xf32> to tensor<2xf32>
  return %t, %a, %b : tensor<4xf32>, tensor<2xf32>, tensor<2xf32>
}

// -----

// A to_tensor (a network input) read three times is cloned for each
// reader; one read twice stays.
// CHECK-LABEL: func.func @input(
// CHECK-NOT:     memref.alloc
// CHECK:         %[[Y:.*]] = bufferization.to_tensor %arg1 restrict
// CHECK-NOT:     bufferization.to_tensor %arg0
// CHECK:         %[[R0:.*]] = bufferization.to_tensor %arg0 restrict
// CHECK-NEXT:    tensor.extract_slice %[[R0]]
// CHECK:         %[[R1:.*]] = bufferization.to_tensor %arg0 restrict
// CHECK-NEXT:    tensor.extract_slice %[[R1]]
// CHECK:         %[[R2:.*]] = bufferization.to_tensor %arg0 restrict
// CHECK-NEXT:    tensor.extract_slice %[[R2]]
// CHECK-NEXT:    tensor.extract_slice %[[Y]]
// CHECK-NEXT:    tensor.extract_slice %[[Y]]
func.func @input(%m: memref<4xf32>, %n: memref<4xf32>) -> (tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) {
  %x = bufferization.to_tensor %m restrict : memref<4xf32> to tensor<4xf32>
  %y = bufferization.to_tensor %n restrict : memref<4xf32> to tensor<4xf32>
  %a = tensor.extract_slice %x[0] [1] [1] : tensor<4xf32> to tensor<1xf32>
  %b = tensor.extract_slice %x[1] [1] [1] : tensor<4xf32> to tensor<1xf32>
  %c = tensor.extract_slice %x[2] [1] [1] : tensor<4xf32> to tensor<1xf32>
  %d = tensor.extract_slice %y[0] [1] [1] : tensor<4xf32> to tensor<1xf32>
  %f = tensor.extract_slice %y[1] [1] [1] : tensor<4xf32> to tensor<1xf32>
  return %a, %b, %c, %d, %f : tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>
}
