// The Add of two MLIP outputs followed by an activation (a Clip) is one cpu.elementwise
// reading both outputs; a bound at infinity is no op of the body.
// RUN: mrvl-opt %s -p fuse-elementwise | filecheck %s

// CHECK-LABEL: func.func @add_clip(
// CHECK-NEXT:    %a = cpu.call_mlip @sg0(%x)
// CHECK-NEXT:    %b = cpu.call_mlip @sg1(%x)
// CHECK-NEXT:    %y = cpu.elementwise %a, %b : (tensor<1x8x8x4xf32>, tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32> {
// CHECK-NEXT:    ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32):
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[A]], %[[B]] : f32
// CHECK-NEXT:      %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[C:.*]] = arith.maximumf %[[S]], %[[ZERO]] : f32
// CHECK-NEXT:      cpu.yield %[[C]] : f32
// CHECK-NEXT:    }
func.func private @sg0(tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
func.func private @sg1(tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
func.func @add_clip(%x: tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32> {
  %a = cpu.call_mlip @sg0(%x) : (tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  %b = cpu.call_mlip @sg1(%x) : (tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  %s = cpu.binary add %a, %b : (tensor<1x8x8x4xf32>, tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  %y = cpu.clip %s {min = 0.0 : f32, max = 0x7F800000 : f32} : (tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  func.return %y : tensor<1x8x8x4xf32>
}
