// fuse-host-qdq-convs: DequantizeLinear -> Conv (weights on their recorded grid, int8 per
// output channel; bias on the grid of x_scale * w_scale) -> Relu -> QuantizeLinear becomes one
// cpu.qlinear_conv: the integer weights (4, -8, 3, 1, -128, 127), their scales and zero
// points, the int32 bias (8, -4, 3) and the Relu as the quantized clamp min = Q(0) = 3; the
// float weights, bias and DequantizeLinear go.
// RUN: mrvl-opt %s -p fuse-host-qdq-convs --print-weights | filecheck %s

// CHECK-LABEL: func.func @net(
// CHECK-NOT:     cpu.dequantize
// CHECK:         %w_quantized = graph.constant dense_resource<w_quantized> : tensor<3x2x1x1xi8>
// CHECK-NEXT:    %w_scale = graph.constant dense_resource<w_scale> : tensor<3xf32>
// CHECK-NEXT:    %w_zero_point = graph.constant dense_resource<w_zero_point> : tensor<3xi8>
// CHECK-NEXT:    %b_quantized = graph.constant dense_resource<b_quantized> : tensor<3xi32>
// CHECK-NEXT:    %y = cpu.qlinear_conv %xq, %sx, %zx, %w_quantized, %w_scale, %w_zero_point, %sy, %zy bias %b_quantized {{{.*}}strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, min = 3 : i64} : (tensor<1x2x4x4xui8>, tensor<f32>, tensor<ui8>, tensor<3x2x1x1xi8>, tensor<3xf32>, tensor<3xi8>, tensor<f32>, tensor<ui8>) bias tensor<3xi32> -> tensor<1x3x4x4xui8>
// CHECK-NEXT:    func.return %y
// CHECK:       w_quantized: "0x0100000004F80301807F",
// CHECK-NEXT:  w_scale: "0x040000000000803E0000003F0000803F",
// CHECK-NEXT:  w_zero_point: "0x01000000000000",
// CHECK-NEXT:  b_quantized: "0x0400000008000000FCFFFFFF03000000"

func.func @net(%xq: tensor<1x2x4x4xui8>) -> tensor<1x3x4x4xui8> {
  %sx = graph.constant dense<5.000000e-01> : tensor<f32>
  %zx = graph.constant dense<128> : tensor<ui8>
  %w = graph.constant dense<[[[[1.0]], [[-2.0]]], [[[1.5]], [[0.5]]], [[[-128.0]], [[127.0]]]]> : tensor<3x2x1x1xf32>
  %b = graph.constant dense<[1.0, -1.0, 1.5]> : tensor<3xf32>
  %sy = graph.constant dense<2.000000e+00> : tensor<f32>
  %zy = graph.constant dense<3> : tensor<ui8>
  %x = cpu.dequantize %xq, %sx, %zx {axis = 0 : i64, block_size = 0 : i64} : (tensor<1x2x4x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x4x4xf32>
  %c = cpu.conv %x, %w, %b {mrvl.quantized = #mrvl.quantized<input none, weight #mrvl.qparams<i8, scale [0.25, 0.5, 1], zero_point [0, 0, 0], axis 0>, output none>, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, min = 0.000000e+00 : f32} : (tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32>
  %y = cpu.quantize %c, %sy, %zy {axis = 0 : i64, block_size = 0 : i64} : (tensor<1x3x4x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x3x4x4xui8>
  func.return %y : tensor<1x3x4x4xui8>
}
