// Max and Min join a chain as maxnumf and minnumf (the binary kernel's fmaxf and fminf: a NaN
// operand gives the other one), a PRelu as a comparison and a select with its slope input:
// v < 0 ? v slope : v.
// RUN: mrvl-opt %s -p fuse-elementwise | filecheck %s

// CHECK-LABEL: func.func @max_min_prelu(
// CHECK-NEXT:    %y = cpu.elementwise %a, %b, %s : (tensor<4x16xf32>, tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32> {
// CHECK-NEXT:    ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %[[S:.*]]: f32):
// CHECK-NEXT:      %[[MAX:.*]] = arith.maxnumf %[[A]], %[[B]] : f32
// CHECK-NEXT:      %[[MIN:.*]] = arith.minnumf %[[MAX]], %[[B]] : f32
// CHECK-NEXT:      %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[NEG:.*]] = arith.cmpf olt, %[[MIN]], %[[ZERO]] : f32
// CHECK-NEXT:      %[[M:.*]] = arith.mulf %[[MIN]], %[[S]] : f32
// CHECK-NEXT:      %[[R:.*]] = arith.select %[[NEG]], %[[M]], %[[MIN]] : f32
// CHECK-NEXT:      cpu.yield %[[R]] : f32
// CHECK-NEXT:    }
func.func @max_min_prelu(%a: tensor<4x16xf32>, %b: tensor<4x16xf32>, %s: tensor<16xf32>) -> tensor<4x16xf32> {
  %m = cpu.binary max %a, %b : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %n = cpu.binary min %m, %b : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %y = cpu.binary prelu %n, %s : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  func.return %y : tensor<4x16xf32>
}
