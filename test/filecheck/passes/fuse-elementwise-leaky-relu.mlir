// A LeakyRelu joins a chain as a comparison and a select: v < 0 ? alpha v : v (a NaN, for
// which the comparison is false, stays NaN).
// RUN: mrvl-opt %s -p fuse-elementwise | filecheck %s

// CHECK-LABEL: func.func @add_leaky(
// CHECK-NEXT:    %y = cpu.elementwise %a, %b : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32> {
// CHECK-NEXT:    ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32):
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[A]], %[[B]] : f32
// CHECK-NEXT:      %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[NEG:.*]] = arith.cmpf olt, %[[S]], %[[ZERO]] : f32
// CHECK-NEXT:      %[[ALPHA:.*]] = arith.constant 1.000000e-01 : f32
// CHECK-NEXT:      %[[M:.*]] = arith.mulf %[[S]], %[[ALPHA]] : f32
// CHECK-NEXT:      %[[R:.*]] = arith.select %[[NEG]], %[[M]], %[[S]] : f32
// CHECK-NEXT:      cpu.yield %[[R]] : f32
// CHECK-NEXT:    }
func.func @add_leaky(%a: tensor<64xf32>, %b: tensor<64xf32>) -> tensor<64xf32> {
  %s = cpu.binary add %a, %b : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  %y = cpu.leaky_relu %s {alpha = 0.1 : f32} : (tensor<64xf32>) -> tensor<64xf32>
  func.return %y : tensor<64xf32>
}
