// An op whose result is smaller than the chain's (it is broadcast into it) stays an op of its
// own: in the chain it would be computed once per element of the larger result.
// RUN: mrvl-opt %s -p fuse-elementwise | filecheck %s

// CHECK-LABEL: func.func @smaller(
// CHECK-NEXT:    %s = cpu.unary sigmoid %c : (tensor<4x1xf32>) -> tensor<4x1xf32>
// CHECK-NEXT:    %y = cpu.elementwise %x, %s : (tensor<4x64xf32>, tensor<4x1xf32>) -> tensor<4x64xf32> {
// CHECK:           arith.mulf
// CHECK-NEXT:      arith.constant 0.0
// CHECK-NEXT:      arith.maxnumf
// CHECK-NEXT:      cpu.yield
func.func @smaller(%x: tensor<4x64xf32>, %c: tensor<4x1xf32>) -> tensor<4x64xf32> {
  %s = cpu.unary sigmoid %c : (tensor<4x1xf32>) -> tensor<4x1xf32>
  %m = cpu.binary mul %x, %s : (tensor<4x64xf32>, tensor<4x1xf32>) -> tensor<4x64xf32>
  %y = cpu.unary relu %m : (tensor<4x64xf32>) -> tensor<4x64xf32>
  func.return %y : tensor<4x64xf32>
}
