// -o writes the output to a file instead of stdout. A failed run leaves an existing
// output file as it was (the file is written only once the run succeeded).
// RUN: rm -f %t.mlir
// RUN: mrvl-opt %s -o %t.mlir | not grep .
// RUN: filecheck %s < %t.mlir
// RUN: echo 'func.func @broken(' | not mrvl-opt -o %t.mlir 2>&1 | filecheck %s --check-prefix=ERR
// RUN: filecheck %s < %t.mlir

// CHECK:      builtin.module {
// CHECK-NEXT:   func.func @output_file(%x: tensor<2xf32>) -> tensor<2xf32> {
// CHECK-NEXT:     %y = graph.Relu %x : (tensor<2xf32>) -> tensor<2xf32>

// ERR: error: <stdin>: 2:1: Expected argument or type
func.func @output_file(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = graph.Relu %x : (tensor<2xf32>) -> tensor<2xf32>
  func.return %y : tensor<2xf32>
}
