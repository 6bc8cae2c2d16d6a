// An affine chain (x - a) * b + c with a, b and c constants per channel is one
// cpu.elementwise whose inputs are x and the three constants, each broadcast over the result.
// RUN: mrvl-opt %s -p fuse-elementwise | filecheck %s

// CHECK-LABEL: func.func @affine(
// CHECK:         %y = cpu.elementwise %x, %a, %b, %c : (tensor<1x3x4x4xf32>, tensor<3x1x1xf32>, tensor<3x1x1xf32>, tensor<3x1x1xf32>) -> tensor<1x3x4x4xf32> {
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f32, %[[A:.*]]: f32, %[[B:.*]]: f32, %[[C:.*]]: f32):
// CHECK-NEXT:      %[[S:.*]] = arith.subf %[[X]], %[[A]] : f32
// CHECK-NEXT:      %[[M:.*]] = arith.mulf %[[S]], %[[B]] : f32
// CHECK-NEXT:      %[[R:.*]] = arith.addf %[[M]], %[[C]] : f32
// CHECK-NEXT:      cpu.yield %[[R]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %y
func.func @affine(%x: tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32> {
  %a = graph.constant dense<[[[0.5]], [[1.0]], [[1.5]]]> : tensor<3x1x1xf32>
  %b = graph.constant dense<[[[2.0]], [[3.0]], [[4.0]]]> : tensor<3x1x1xf32>
  %c = graph.constant dense<[[[-1.0]], [[0.0]], [[1.0]]]> : tensor<3x1x1xf32>
  %s = cpu.binary sub %x, %a : (tensor<1x3x4x4xf32>, tensor<3x1x1xf32>) -> tensor<1x3x4x4xf32>
  %m = cpu.binary mul %s, %b : (tensor<1x3x4x4xf32>, tensor<3x1x1xf32>) -> tensor<1x3x4x4xf32>
  %y = cpu.binary add %m, %c : (tensor<1x3x4x4xf32>, tensor<3x1x1xf32>) -> tensor<1x3x4x4xf32>
  func.return %y : tensor<1x3x4x4xf32>
}
