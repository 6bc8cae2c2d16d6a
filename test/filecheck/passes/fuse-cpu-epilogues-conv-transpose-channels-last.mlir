// A channels-last batch norm of a channels-last transposed conv's result folds into it as in
// NCHW (W keeps ONNX's layout: scaled along dim 1), and the Relu after it becomes its clamp: one
// kernel. A channels-last batch norm of an NCHW transposed conv reads another dim as its
// channels: it stays.
// RUN: mrvl-opt %s -p fuse-cpu-epilogues --split-input-file --print-weights | filecheck %s

// CHECK-LABEL: func.func @nhwc(
// CHECK:         %w_bn = graph.constant dense_resource<w_bn> : tensor<2x2x1x1xf32>
// CHECK-NEXT:    %b_bn = graph.constant dense_resource<b_bn> : tensor<2xf32>
// CHECK-NEXT:    %r = cpu.conv_transpose %x, %w_bn, %b_bn {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, output_padding = array<i64: 0, 0>, channels_last, min = 0.000000e+00 : f32} : (tensor<1x3x3x2xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x5x5x2xf32>
// CHECK-NEXT:    func.return %r
// CHECK:       w_bn: "0x040000000000803F000000410000404000008041"
// CHECK-NEXT:  b_bn: "0x040000000000003F0000A0C0"
func.func @nhwc(%x: tensor<1x3x3x2xf32>) -> tensor<1x5x5x2xf32> {
  %w = graph.constant dense_resource<w> : tensor<2x2x1x1xf32>
  %s = graph.constant dense_resource<s> : tensor<2xf32>
  %b = graph.constant dense_resource<b> : tensor<2xf32>
  %m = graph.constant dense_resource<m> : tensor<2xf32>
  %v = graph.constant dense_resource<v> : tensor<2xf32>
  %c = cpu.conv_transpose %x, %w {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, output_padding = array<i64: 0, 0>, channels_last} : (tensor<1x3x3x2xf32>, tensor<2x2x1x1xf32>) -> tensor<1x5x5x2xf32>
  %n = cpu.batch_norm %c, %s, %b, %m, %v {epsilon = 0.000000e+00 : f32, channels_last} : (tensor<1x5x5x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x5x5x2xf32>
  %r = cpu.unary relu %n : (tensor<1x5x5x2xf32>) -> tensor<1x5x5x2xf32>
  func.return %r : tensor<1x5x5x2xf32>
}
{-#
  dialect_resources: {
    builtin: {
      w: "0x040000000000803F000000400000404000008040",
      s: "0x040000000000803F00000040",
      b: "0x040000000000003F000080BF",
      m: "0x04000000000000000000803F",
      v: "0x040000000000803F0000803E"
    }
  }
#-}

// -----

// CHECK-LABEL: func.func @mixed(
// CHECK:         %c = cpu.conv_transpose %x, %w
// CHECK-NEXT:    %n = cpu.batch_norm %c, %s, %s, %s, %s {epsilon = 0.000000e+00 : f32, channels_last}
func.func @mixed(%x: tensor<1x2x2x2xf32>) -> tensor<1x2x4x4xf32> {
  %w = graph.constant dense_resource<w> : tensor<2x2x2x2xf32>
  %s = graph.constant dense_resource<s> : tensor<4xf32>
  %c = cpu.conv_transpose %x, %w {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, output_padding = array<i64: 0, 0>} : (tensor<1x2x2x2xf32>, tensor<2x2x2x2xf32>) -> tensor<1x2x4x4xf32>
  %n = cpu.batch_norm %c, %s, %s, %s, %s {epsilon = 0.000000e+00 : f32, channels_last} : (tensor<1x2x4x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x2x4x4xf32>
  func.return %n : tensor<1x2x4x4xf32>
}
{-#
  dialect_resources: {
    builtin: {
      w: "0x040000000000803F000000400000404000008040000080400000404000000040000080BF000080400000404000000040000080BF000080400000404000000040000080BF",
      s: "0x040000000000803F0000803F0000803F0000803F"
    }
  }
#-}
