// fuse-host-qdq-convs: a conv whose float result something else reads too (here a Relu)
// stays float; a DequantizeLinear that other ops read stays for them, and a second conv of
// the same input and weights still becomes a cpu.qlinear_conv, with its own integer weights.
// RUN: mrvl-opt %s -p fuse-host-qdq-convs | filecheck %s

// CHECK-LABEL: func.func @net(
// CHECK:         %x = cpu.dequantize %xq, %sx, %zx
// CHECK-NEXT:    %c = cpu.conv %x, %w, %b
// CHECK-NEXT:    %y = cpu.quantize %c, %sy, %zy
// CHECK-NEXT:    %z = cpu.unary relu %c
// CHECK:         %y2 = cpu.qlinear_conv %xq, %sx, %zx, %w_quantized, %w_scale, %w_zero_point, %sy, %zy bias %b_quantized
// CHECK-NOT:     min =
// CHECK:         func.return %y2, %z, %x

func.func @net(%xq: tensor<1x2x4x4xui8>) -> (tensor<1x3x4x4xui8>, tensor<1x3x4x4xf32>, tensor<1x2x4x4xf32>) {
  %sx = graph.constant dense<5.000000e-01> : tensor<f32>
  %zx = graph.constant dense<128> : tensor<ui8>
  %w = graph.constant dense<[[[[1.0]], [[-2.0]]], [[[1.5]], [[0.5]]], [[[-128.0]], [[127.0]]]]> : tensor<3x2x1x1xf32>
  %b = graph.constant dense<[1.0, -1.0, 1.5]> : tensor<3xf32>
  %sy = graph.constant dense<2.000000e+00> : tensor<f32>
  %zy = graph.constant dense<3> : tensor<ui8>
  %x = cpu.dequantize %xq, %sx, %zx {axis = 0 : i64, block_size = 0 : i64} : (tensor<1x2x4x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x4x4xf32>
  %c = cpu.conv %x, %w, %b {mrvl.quantized = #mrvl.quantized<input none, weight #mrvl.qparams<i8, scale [0.25, 0.5, 1], zero_point [0, 0, 0], axis 0>, output none>, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, min = 0.000000e+00 : f32} : (tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32>
  %y = cpu.quantize %c, %sy, %zy {axis = 0 : i64, block_size = 0 : i64} : (tensor<1x3x4x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x3x4x4xui8>
  %z = cpu.unary relu %c : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  %c2 = cpu.conv %x, %w, %b {mrvl.quantized = #mrvl.quantized<input none, weight #mrvl.qparams<i8, scale [0.25, 0.5, 1], zero_point [0, 0, 0], axis 0>, output none>, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64} : (tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32>
  %y2 = cpu.quantize %c2, %sy, %zy {axis = 0 : i64, block_size = 0 : i64} : (tensor<1x3x4x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x3x4x4xui8>
  func.return %y2, %z, %x : tensor<1x3x4x4xui8>, tensor<1x3x4x4xf32>, tensor<1x2x4x4xf32>
}
