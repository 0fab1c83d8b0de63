// RUN: kiln-opt %s --split-input-file --kiln-remove-unused-inputs 2>&1 | FileCheck %s

// The remark about @called (last case) comes first, on stderr.
// CHECK: remark: kept unused inputs: the function has callers

// An input nothing reads is dropped from the signature; the others keep
// their order and names.
// CHECK-LABEL: func.func @unused_input
// CHECK-SAME: (%[[X:.+]]: tensor<1x8xf32> {kiln.name = "x"}, %[[Z:.+]]: tensor<8xf32> {kiln.name = "z"}) -> tensor<1x8xf32>
// CHECK-NEXT: kiln.binary add %[[X]], %[[Z]]
func.func @unused_input(%x: tensor<1x8xf32> {kiln.name = "x"}, %unused: tensor<2xf32> {kiln.name = "u"},
                        %z: tensor<8xf32> {kiln.name = "z"}) -> tensor<1x8xf32> {
  %a = kiln.binary add %x, %z : (tensor<1x8xf32>, tensor<8xf32>) -> tensor<1x8xf32>
  return %a : tensor<1x8xf32>
}

// -----

// Every input is read: nothing changes. A dead layer still reads its input
// (kiln-eliminate-dead-layers removes it first).
// CHECK-LABEL: func.func @all_used
// CHECK-SAME: (%{{.+}}: tensor<4xf32>, %{{.+}}: tensor<4xf32>) -> tensor<4xf32>
func.func @all_used(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %dead = kiln.activation relu %y : tensor<4xf32> -> tensor<4xf32>
  return %x : tensor<4xf32>
}

// -----

// A function that is called keeps its inputs (its callers pass them), with a
// remark (on stderr, printed first: checked at the top); its caller loses
// none either.
// CHECK-LABEL: func.func @called
// CHECK-SAME: (%{{.+}}: tensor<4xf32>, %{{.+}}: tensor<4xf32>)
// CHECK-LABEL: func.func @caller
// CHECK-SAME: (%{{.+}}: tensor<4xf32>) -> tensor<4xf32>
func.func @called(%x: tensor<4xf32>, %unused: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func @caller(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = call @called(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
