// An ONNX Mish (cpu.unary mish) of a conv's result, its only use, is the conv applying it as
// it stores its output.
// RUN: mrvl-opt %s -p fuse-cpu-epilogues | filecheck %s

// CHECK-LABEL: func.func @net(
// CHECK-NEXT:    %y = cpu.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, activation = #cpu<epilogue_kind mish>}
// CHECK-NEXT:    func.return %y
func.func @net(%x: tensor<1x2x6x6xf32>, %w: tensor<3x2x1x1xf32>) -> tensor<1x3x6x6xf32> {
  %c = cpu.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64} : (tensor<1x2x6x6xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x6x6xf32>
  %y = cpu.unary mish %c : (tensor<1x3x6x6xf32>) -> tensor<1x3x6x6xf32>
  func.return %y : tensor<1x3x6x6xf32>
}
