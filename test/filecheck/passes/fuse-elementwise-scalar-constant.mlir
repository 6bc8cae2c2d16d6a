// A single-element constant a chain reads becomes an arith.constant in the body (not an
// input), and goes when nothing else reads it; one read elsewhere too stays.
// RUN: mrvl-opt %s -p fuse-elementwise | filecheck %s

// CHECK-LABEL: func.func @scalars(
// CHECK-NEXT:    %kept = graph.constant dense<3.000000e+00> : tensor<f32>
// CHECK-NEXT:    %y = cpu.elementwise %x : (tensor<2x8xf32>) -> tensor<2x8xf32> {
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f32):
// CHECK-NEXT:      %[[TWO:.*]] = arith.constant 2.000000e+00 : f32
// CHECK-NEXT:      %[[THREE:.*]] = arith.constant 3.000000e+00 : f32
// CHECK-NEXT:      %[[M:.*]] = arith.mulf %[[X]], %[[TWO]] : f32
// CHECK-NEXT:      %[[A:.*]] = arith.addf %[[M]], %[[THREE]] : f32
// CHECK-NEXT:      cpu.yield %[[A]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    %z = cpu.binary add %x, %kept
// CHECK-NOT:     dense<2.0
func.func @scalars(%x: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>) {
  %two = graph.constant dense<2.0> : tensor<1xf32>
  %kept = graph.constant dense<3.0> : tensor<f32>
  %m = cpu.binary mul %x, %two : (tensor<2x8xf32>, tensor<1xf32>) -> tensor<2x8xf32>
  %y = cpu.binary add %m, %kept : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %z = cpu.binary add %x, %kept : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  func.return %y, %z : tensor<2x8xf32>, tensor<2x8xf32>
}
