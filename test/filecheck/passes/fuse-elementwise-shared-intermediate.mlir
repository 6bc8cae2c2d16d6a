// An intermediate result read outside the chain (%s, also returned) is computed once into
// memory, not again in the chain: the chain after it reads it as an input, and the ops before
// it form a group of their own.
// RUN: mrvl-opt %s -p fuse-elementwise | filecheck %s

// CHECK-LABEL: func.func @shared(
// CHECK-NEXT:    %s = cpu.elementwise %x, %z : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32> {
// CHECK:           arith.addf
// CHECK-NEXT:      cpu.sigmoid
// CHECK-NEXT:      cpu.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %y = cpu.elementwise %s : (tensor<16xf32>) -> tensor<16xf32> {
// CHECK:           math.tanh
// CHECK-NEXT:      math.exp
// CHECK-NEXT:      cpu.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %y, %s
func.func @shared(%x: tensor<16xf32>, %z: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  %a = cpu.binary add %x, %z : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %s = cpu.unary sigmoid %a : (tensor<16xf32>) -> tensor<16xf32>
  %t = cpu.unary tanh %s : (tensor<16xf32>) -> tensor<16xf32>
  %y = cpu.unary exp %t : (tensor<16xf32>) -> tensor<16xf32>
  func.return %y, %s : tensor<16xf32>, tensor<16xf32>
}
