// SiLU written as Mul(x, Sigmoid(x)) of a conv's result x, whose only uses are the two, is
// the conv applying silu as it stores its output; the Sigmoid and the Mul go.
// RUN: mrvl-opt %s -p fuse-cpu-epilogues --print-debuginfo | filecheck %s

// CHECK-LABEL: func.func @net(
// CHECK-NEXT:    %y = cpu.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, activation = #cpu<epilogue_kind silu>}
// CHECK-SAME:        loc(fused["conv1"("Conv"), "mul"("Mul"), "sigmoid"("Sigmoid")])
// CHECK-NEXT:    func.return %y
// CHECK-NOT:     cpu.unary
func.func @net(%x: tensor<1x2x6x6xf32>, %w: tensor<3x2x1x1xf32>) -> tensor<1x3x6x6xf32> {
  %c = cpu.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64} : (tensor<1x2x6x6xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x6x6xf32> loc("conv1"("Conv"))
  %s = cpu.unary sigmoid %c : (tensor<1x3x6x6xf32>) -> tensor<1x3x6x6xf32> loc("sigmoid"("Sigmoid"))
  %y = cpu.binary mul %s, %c : (tensor<1x3x6x6xf32>, tensor<1x3x6x6xf32>) -> tensor<1x3x6x6xf32> loc("mul"("Mul"))
  func.return %y : tensor<1x3x6x6xf32>
}
