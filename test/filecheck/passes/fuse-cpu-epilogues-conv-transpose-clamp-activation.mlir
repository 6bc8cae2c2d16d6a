// A Relu, and a Clip then a Sigmoid, of a transposed conv's result (its only use) fold into
// it: a clamp (min, max), then an activation, applied as it stores its output.
// RUN: mrvl-opt %s -p fuse-cpu-epilogues --print-debuginfo | filecheck %s

// CHECK-LABEL: func.func @net(
// CHECK-NEXT:    %r = cpu.conv_transpose %x, %w {{{.*}}, min = 0.000000e+00 : f32}
// CHECK-SAME:        loc(fused["up1"("ConvTranspose"), "relu1"("Relu")])
// CHECK-NEXT:    %s = cpu.conv_transpose %x, %w {{{.*}}, min = -1.000000e+00 : f32, max = 1.000000e+00 : f32, activation = #cpu<epilogue_kind sigmoid>}
// CHECK-SAME:        loc(fused["up2"("ConvTranspose"), "clip2"("Clip"), "sig2"("Sigmoid")])
// CHECK-NEXT:    func.return %r, %s
// CHECK-NOT:     cpu.unary
func.func @net(%x: tensor<1x2x3x3xf32>, %w: tensor<2x2x2x2xf32>) -> (tensor<1x2x6x6xf32>, tensor<1x2x6x6xf32>) {
  %a = cpu.conv_transpose %x, %w {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, output_padding = array<i64: 0, 0>} : (tensor<1x2x3x3xf32>, tensor<2x2x2x2xf32>) -> tensor<1x2x6x6xf32> loc("up1"("ConvTranspose"))
  %r = cpu.unary relu %a : (tensor<1x2x6x6xf32>) -> tensor<1x2x6x6xf32> loc("relu1"("Relu"))
  %b = cpu.conv_transpose %x, %w {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, output_padding = array<i64: 0, 0>} : (tensor<1x2x3x3xf32>, tensor<2x2x2x2xf32>) -> tensor<1x2x6x6xf32> loc("up2"("ConvTranspose"))
  %c = cpu.clip %b {min = -1.000000e+00 : f32, max = 1.000000e+00 : f32} : (tensor<1x2x6x6xf32>) -> tensor<1x2x6x6xf32> loc("clip2"("Clip"))
  %s = cpu.unary sigmoid %c : (tensor<1x2x6x6xf32>) -> tensor<1x2x6x6xf32> loc("sig2"("Sigmoid"))
  func.return %r, %s : tensor<1x2x6x6xf32>, tensor<1x2x6x6xf32>
}
