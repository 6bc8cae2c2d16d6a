// fuse-host-qdq-convs: a group whose weights (1.1 for a scale of 0.25) or bias (1.6 for a
// grid of 0.5 * 1.0) are not integers times their scale stays float: its int8 kernel would not
// compute what the model's folded float values do.
// RUN: mrvl-opt %s -p fuse-host-qdq-convs | filecheck %s

// CHECK-LABEL: func.func @weights_off_grid(
// CHECK:         cpu.dequantize
// CHECK-NEXT:    cpu.conv
// CHECK-NEXT:    cpu.quantize
// CHECK-LABEL: func.func @bias_off_grid(
// CHECK:         cpu.dequantize
// CHECK-NEXT:    cpu.conv
// CHECK-NEXT:    cpu.quantize
// CHECK-NOT:     cpu.qlinear_conv

func.func @weights_off_grid(%xq: tensor<1x2x4x4xui8>) -> tensor<1x3x4x4xui8> {
  %sx = graph.constant dense<5.000000e-01> : tensor<f32>
  %zx = graph.constant dense<128> : tensor<ui8>
  %w = graph.constant dense<[[[[1.1]], [[-2.0]]], [[[1.5]], [[0.5]]], [[[-128.0]], [[127.0]]]]> : tensor<3x2x1x1xf32>
  %b = graph.constant dense<[1.0, -1.0, 1.5]> : tensor<3xf32>
  %sy = graph.constant dense<2.000000e+00> : tensor<f32>
  %zy = graph.constant dense<3> : tensor<ui8>
  %x = cpu.dequantize %xq, %sx, %zx {axis = 0 : i64, block_size = 0 : i64} : (tensor<1x2x4x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x4x4xf32>
  %c = cpu.conv %x, %w, %b {mrvl.quantized = #mrvl.quantized<input none, weight #mrvl.qparams<i8, scale [0.25, 0.5, 1], zero_point [0, 0, 0], axis 0>, output none>, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, min = 0.000000e+00 : f32} : (tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32>
  %y = cpu.quantize %c, %sy, %zy {axis = 0 : i64, block_size = 0 : i64} : (tensor<1x3x4x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x3x4x4xui8>
  func.return %y : tensor<1x3x4x4xui8>
}

func.func @bias_off_grid(%xq: tensor<1x2x4x4xui8>) -> tensor<1x3x4x4xui8> {
  %sx = graph.constant dense<5.000000e-01> : tensor<f32>
  %zx = graph.constant dense<128> : tensor<ui8>
  %w = graph.constant dense<[[[[1.0]], [[-2.0]]], [[[1.5]], [[0.5]]], [[[-128.0]], [[127.0]]]]> : tensor<3x2x1x1xf32>
  %b = graph.constant dense<[1.0, -1.0, 1.6]> : tensor<3xf32>
  %sy = graph.constant dense<2.000000e+00> : tensor<f32>
  %zy = graph.constant dense<3> : tensor<ui8>
  %x = cpu.dequantize %xq, %sx, %zx {axis = 0 : i64, block_size = 0 : i64} : (tensor<1x2x4x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x4x4xf32>
  %c = cpu.conv %x, %w, %b {mrvl.quantized = #mrvl.quantized<input none, weight #mrvl.qparams<i8, scale [0.25, 0.5, 1], zero_point [0, 0, 0], axis 0>, output none>, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, min = 0.000000e+00 : f32} : (tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32>
  %y = cpu.quantize %c, %sy, %zy {axis = 0 : i64, block_size = 0 : i64} : (tensor<1x3x4x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x3x4x4xui8>
  func.return %y : tensor<1x3x4x4xui8>
}
