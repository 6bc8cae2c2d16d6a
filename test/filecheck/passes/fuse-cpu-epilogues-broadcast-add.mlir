// An Add that broadcasts (here a per-channel [3, 1, 1] tensor) is no residual: the residual
// operand must have the conv result's type.
// RUN: mrvl-opt %s -p fuse-cpu-epilogues | filecheck %s

// CHECK-LABEL: func.func @net(
// CHECK-NEXT:    %e = cpu.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64} :
// CHECK-NEXT:    %f = cpu.binary add %e, %bias
// CHECK-NEXT:    func.return %f
func.func @net(%x: tensor<1x3x6x6xf32>, %w: tensor<3x3x1x1xf32>, %bias: tensor<3x1x1xf32>) -> tensor<1x3x6x6xf32> {
  %e = cpu.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64} : (tensor<1x3x6x6xf32>, tensor<3x3x1x1xf32>) -> tensor<1x3x6x6xf32>
  %f = cpu.binary add %e, %bias : (tensor<1x3x6x6xf32>, tensor<3x1x1xf32>) -> tensor<1x3x6x6xf32>
  func.return %f : tensor<1x3x6x6xf32>
}
