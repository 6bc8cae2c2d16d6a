// Epilogues fold in ONNX's order: a residual Add, a Clip, then a HardSigmoid (alpha and
// beta kept) all go into one conv; a Relu after the activation does not fold (the conv's
// clamp comes before its activation).
// RUN: mrvl-opt %s -p fuse-cpu-epilogues | filecheck %s

// CHECK-LABEL: func.func @net(
// CHECK-NEXT:    %h = cpu.conv %x, %w residual %r {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, min = -1.000000e+00 : f32, max = 2.000000e+00 : f32, activation = #cpu<epilogue_kind hard_sigmoid>, alpha = 2.000000e-01 : f32, beta = 5.000000e-01 : f32}
// CHECK-NEXT:    %y = cpu.unary relu %h
// CHECK-NEXT:    func.return %y
func.func @net(%x: tensor<1x2x6x6xf32>, %w: tensor<3x2x1x1xf32>, %r: tensor<1x3x6x6xf32>) -> tensor<1x3x6x6xf32> {
  %c = cpu.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64} : (tensor<1x2x6x6xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x6x6xf32>
  %a = cpu.binary add %c, %r : (tensor<1x3x6x6xf32>, tensor<1x3x6x6xf32>) -> tensor<1x3x6x6xf32>
  %k = cpu.clip %a {min = -1.000000e+00 : f32, max = 2.000000e+00 : f32} : (tensor<1x3x6x6xf32>) -> tensor<1x3x6x6xf32>
  %h = cpu.hard_sigmoid %k {alpha = 2.000000e-01 : f32, beta = 5.000000e-01 : f32} : (tensor<1x3x6x6xf32>) -> tensor<1x3x6x6xf32>
  %y = cpu.unary relu %h : (tensor<1x3x6x6xf32>) -> tensor<1x3x6x6xf32>
  func.return %y : tensor<1x3x6x6xf32>
}
