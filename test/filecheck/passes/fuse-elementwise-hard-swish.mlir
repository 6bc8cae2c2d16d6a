// HardSwish written as x * HardSigmoid(x) is one cpu.elementwise: the hard sigmoid as a
// multiply-add clamped to [0, 1] (its NaN kept), then the product with x.
// RUN: mrvl-opt %s -p fuse-elementwise | filecheck %s

// CHECK-LABEL: func.func @hard_swish(
// CHECK-NEXT:    %a = cpu.call_mlip @sg0(%x)
// CHECK-NEXT:    %y = cpu.elementwise %a : (tensor<1x4x5x5xf32>) -> tensor<1x4x5x5xf32> {
// CHECK-NEXT:    ^bb0(%[[V:.*]]: f32):
// CHECK-NEXT:      %[[ALPHA:.*]] = arith.constant 0.166666672 : f32
// CHECK-NEXT:      %[[T:.*]] = arith.mulf %[[V]], %[[ALPHA]] : f32
// CHECK-NEXT:      %[[BETA:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT:      %[[U:.*]] = arith.addf %[[T]], %[[BETA]] : f32
// CHECK-NEXT:      %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[LOW:.*]] = arith.maximumf %[[U]], %[[ZERO]] : f32
// CHECK-NEXT:      %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:      %[[H:.*]] = arith.minimumf %[[LOW]], %[[ONE]] : f32
// CHECK-NEXT:      %[[Y:.*]] = arith.mulf %[[V]], %[[H]] : f32
// CHECK-NEXT:      cpu.yield %[[Y]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %y
func.func private @sg0(tensor<1x4x5x5xf32>) -> tensor<1x4x5x5xf32>
func.func @hard_swish(%x: tensor<1x4x5x5xf32>) -> tensor<1x4x5x5xf32> {
  %a = cpu.call_mlip @sg0(%x) : (tensor<1x4x5x5xf32>) -> tensor<1x4x5x5xf32>
  %h = cpu.hard_sigmoid %a {alpha = 0.166666672 : f32, beta = 0.5 : f32} : (tensor<1x4x5x5xf32>) -> tensor<1x4x5x5xf32>
  %y = cpu.binary mul %a, %h : (tensor<1x4x5x5xf32>, tensor<1x4x5x5xf32>) -> tensor<1x4x5x5xf32>
  func.return %y : tensor<1x4x5x5xf32>
}
