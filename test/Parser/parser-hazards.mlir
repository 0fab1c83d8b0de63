// Text that crashes the MLIR 22 parser is refused with an error at its line
// and column by every kiln reader (kiln/Parser/Parser.h): a dense array of
// index (llvm/llvm-project#179045), and a malformed integer list of
// linalg.transpose/broadcast/reduce. Comments and strings are not code.
// RUN: split-file %s %t
// RUN: not kiln-opt %t/index.mlir 2>&1 | FileCheck %s --check-prefix=OPT
// RUN: not kiln-compile %t/index.mlir --emit=kiln 2>&1 | FileCheck %s --check-prefix=COMPILE
// RUN: not kiln-opt %t/spaced.mlir 2>&1 | FileCheck %s --check-prefix=SPACED
// RUN: kiln-opt %t/quoted.mlir | FileCheck %s --check-prefix=QUOTED
// RUN: kiln-compile %t/quoted.mlir --emit=kiln | FileCheck %s --check-prefix=QUOTED

//--- index.mlir
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> attributes {a = array<index: 4>} {
  return %x : tensor<4xf32>
}
// OPT: index.mlir:1:72: error: a dense array of 'index' is not supported (the MLIR 22 parser crashes on it: llvm/llvm-project#179045); use i64
// COMPILE: error: {{.*}}index.mlir:1:72: a dense array of 'index' is not supported

//--- spaced.mlir
func.func @f() attributes {a = array < index>} {
  return
}
// SPACED: spaced.mlir:1:40: error: a dense array of 'index'

//--- quoted.mlir
// array<index: 4> in a comment
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> attributes {a = "array<index: 4>", b = array<i64: 4>} {
  return %x : tensor<4xf32>
}
// QUOTED: a = "array<index: 4>", b = array<i64: 4>

// An identifier that starts with "index" is not index, and is refused by the
// MLIR parser itself.
// RUN: not kiln-opt %t/indexed.mlir 2>&1 | FileCheck %s --check-prefix=INDEXED
//--- indexed.mlir
func.func @f() attributes {c = array<indexed: 4>} {
  return
}
// INDEXED: indexed.mlir:1:38: error: expected non-function type

// A linalg list that is not integers and commas, or is not closed; lists
// that are (hex, negative, empty, spaced) parse.
// RUN: not kiln-opt %t/list.mlir 2>&1 | FileCheck %s --check-prefix=LIST
// RUN: not kiln-compile %t/unclosed.mlir --emit=kiln 2>&1 | FileCheck %s --check-prefix=UNCLOSED
// RUN: not kiln-opt %t/nolist.mlir 2>&1 | FileCheck %s --check-prefix=NOLIST
// RUN: not kiln-opt %t/commented.mlir 2>&1 | FileCheck %s --check-prefix=COMMENTED
// RUN: kiln-opt %t/lists.mlir | FileCheck %s --check-prefix=LISTS
//--- list.mlir
func.func @f(%a: memref<4x4xf32>, %b: memref<4x4xf32>) {
  linalg.transpose ins(%a : memref<4x4xf32>) outs(%b : memref<4x4xf32>) permutation = [1 memref<4xf32>]
  return
}
// LIST: list.mlir:2:90: error: a malformed integer list (the MLIR 22 linalg parser crashes on it)
//--- unclosed.mlir
func.func @f(%a: memref<4x4xf32>, %b: memref<4x4xf32>) {
  linalg.transpose ins(%a : memref<4x4xf32>) outs(%b : memref<4x4xf32>) permutation = [1, 0
  return
}
// UNCLOSED: unclosed.mlir:3:3: a malformed integer list
//--- nolist.mlir
func.func @f(%a: memref<4xf32>, %b: memref<4x4xf32>) {
  linalg.broadcast ins(%a : memref<4xf32>) outs(%b : memref<4x4xf32>) dimensions = }
  return
}
// NOLIST: nolist.mlir:2:84: error: a malformed integer list
//--- commented.mlir
func.func @f(%a: memref<4x4xf32>, %b: memref<4x4xf32>) {
  linalg.transpose ins(%a : memref<4x4xf32>) outs(%b : memref<4x4xf32>) // a comment
      permutation // another
      = [1, 0 x]
  return
}
// COMMENTED: commented.mlir:4:15: error: a malformed integer list
//--- lists.mlir
func.func @f(%a: memref<4x4xf32>, %b: memref<4x4xf32>, %c: memref<4xf32>) {
  linalg.transpose ins(%a : memref<4x4xf32>) outs(%b : memref<4x4xf32>) permutation = [ 0x1 ,0 ]
  linalg.broadcast ins(%c : memref<4xf32>) outs(%b : memref<4x4xf32>) dimensions = [1]
  return
}
func.func @g() attributes {dimensions = [1 : i64], k = 0, permutation = ["x"]} {
  return
}
// LISTS: linalg.transpose ins(%{{.*}} : memref<4x4xf32>) outs(%{{.*}} : memref<4x4xf32>) permutation = [1, 0]
// LISTS: linalg.broadcast ins(%{{.*}} : memref<4xf32>) outs(%{{.*}} : memref<4x4xf32>) dimensions = [1]
// LISTS: func.func @g() attributes {dimensions = [1], k = 0 : i64, permutation = ["x"]}
