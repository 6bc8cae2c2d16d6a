// An elementwise op with no fusible neighbour stays as it is: its own kernel also reads its
// input once and writes its result once. Ops of other types (float64) are not taken.
// RUN: mrvl-opt %s -p fuse-elementwise | filecheck %s

// CHECK-LABEL: func.func @lone(
// CHECK-NEXT:    %s = cpu.unary sigmoid %x
// CHECK-NEXT:    %t = cpu.transpose %s
// CHECK-NEXT:    %d = cpu.unary relu %w
// CHECK-NEXT:    %e = cpu.unary exp %d
// CHECK-NOT:     cpu.elementwise
func.func @lone(%x: tensor<2x3xf32>, %w: tensor<4xf64>) -> (tensor<3x2xf32>, tensor<4xf64>) {
  %s = cpu.unary sigmoid %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %t = cpu.transpose %s {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %d = cpu.unary relu %w : (tensor<4xf64>) -> tensor<4xf64>
  %e = cpu.unary exp %d : (tensor<4xf64>) -> tensor<4xf64>
  func.return %t, %e : tensor<3x2xf32>, tensor<4xf64>
}
