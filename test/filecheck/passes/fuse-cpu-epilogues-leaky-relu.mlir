// A LeakyRelu of a conv's result, its only use, is the conv applying it as it stores its
// output: activation leaky_relu with the node's alpha.
// RUN: mrvl-opt %s -p fuse-cpu-epilogues --print-debuginfo | filecheck %s

// CHECK-LABEL: func.func @net(
// CHECK-NEXT:    %y = cpu.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, activation = #cpu<epilogue_kind leaky_relu>, alpha = 1.000000e-01 : f32}
// CHECK-SAME:        loc(fused["conv1"("Conv"), "leaky"("LeakyRelu")])
// CHECK-NEXT:    func.return %y
func.func @net(%x: tensor<1x2x6x6xf32>, %w: tensor<3x2x1x1xf32>) -> tensor<1x3x6x6xf32> {
  %c = cpu.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64} : (tensor<1x2x6x6xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x6x6xf32> loc("conv1"("Conv"))
  %y = cpu.leaky_relu %c {alpha = 1.000000e-01 : f32} : (tensor<1x3x6x6xf32>) -> tensor<1x3x6x6xf32> loc("leaky"("LeakyRelu"))
  func.return %y : tensor<1x3x6x6xf32>
}
