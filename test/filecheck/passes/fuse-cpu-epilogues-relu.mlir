// A Relu of a conv's result, its only use, is the conv clamping its output at 0 below.
// RUN: mrvl-opt %s -p fuse-cpu-epilogues --print-debuginfo | filecheck %s

// CHECK-LABEL: func.func @net(
// CHECK-NEXT:    %y = cpu.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, min = 0.000000e+00 : f32}
// CHECK-SAME:        loc(fused["conv1"("Conv"), "relu1"("Relu")])
// CHECK-NEXT:    func.return %y
func.func @net(%x: tensor<1x2x6x6xf32>, %w: tensor<3x2x1x1xf32>) -> tensor<1x3x6x6xf32> {
  %c = cpu.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64} : (tensor<1x2x6x6xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x6x6xf32> loc("conv1"("Conv"))
  %y = cpu.unary relu %c : (tensor<1x3x6x6xf32>) -> tensor<1x3x6x6xf32> loc("relu1"("Relu"))
  func.return %y : tensor<1x3x6x6xf32>
}
