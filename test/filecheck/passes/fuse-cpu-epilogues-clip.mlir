// A Clip (here Relu6) of a conv's result, its only use, is the conv clamping its output to
// [min, max].
// RUN: mrvl-opt %s -p fuse-cpu-epilogues --print-debuginfo | filecheck %s

// CHECK-LABEL: func.func @net(
// CHECK-NEXT:    %y = cpu.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, min = 0.000000e+00 : f32, max = 6.000000e+00 : f32}
// CHECK-SAME:        loc(fused["conv1"("Conv"), "relu6"("Clip")])
// CHECK-NEXT:    func.return %y
func.func @net(%x: tensor<1x2x6x6xf32>, %w: tensor<3x2x1x1xf32>) -> tensor<1x3x6x6xf32> {
  %c = cpu.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64} : (tensor<1x2x6x6xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x6x6xf32> loc("conv1"("Conv"))
  %y = cpu.clip %c {min = 0.000000e+00 : f32, max = 6.000000e+00 : f32} : (tensor<1x3x6x6xf32>) -> tensor<1x3x6x6xf32> loc("relu6"("Clip"))
  func.return %y : tensor<1x3x6x6xf32>
}
