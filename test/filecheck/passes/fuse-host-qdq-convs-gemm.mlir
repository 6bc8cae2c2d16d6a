// fuse-host-qdq-convs: DequantizeLinear -> Gemm (constant B on its recorded grid, here
// transposed with a scale per output channel) -> QuantizeLinear, as onnxruntime's QGemm runs
// it: a 1x1 cpu.qlinear_conv of the integers viewed as (N, K, 1, 1), its result viewed back.
// RUN: mrvl-opt %s -p fuse-host-qdq-convs | filecheck %s

// CHECK-LABEL: func.func @net(
// CHECK:         %{{.*}} = cpu.reshape %xq : (tensor<2x2xui8>) -> tensor<2x2x1x1xui8>
// CHECK:         %w_quantized = graph.constant dense_resource<w_quantized> : tensor<3x2x1x1xi8>
// CHECK:         %b_quantized = graph.constant dense_resource<b_quantized> : tensor<3xi32>
// CHECK-NEXT:    %y_planes = cpu.qlinear_conv %{{.*}}, %sx, %zx, %w_quantized, %w_scale, %w_zero_point, %sy, %zy bias %b_quantized {{.*}}strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64}
// CHECK-SAME:    -> tensor<2x3x1x1xui8>
// CHECK-NEXT:    %y = cpu.reshape %y_planes : (tensor<2x3x1x1xui8>) -> tensor<2x3xui8>
// CHECK-NOT:     cpu.gemm
// CHECK:         func.return %y

func.func @net(%xq: tensor<2x2xui8>) -> tensor<2x3xui8> {
  %sx = graph.constant dense<5.000000e-01> : tensor<f32>
  %zx = graph.constant dense<128> : tensor<ui8>
  %w = graph.constant dense<[[1.0, -2.0], [1.5, 0.5], [-128.0, 127.0]]> : tensor<3x2xf32>
  %b = graph.constant dense<[1.0, -1.0, 1.5]> : tensor<3xf32>
  %sy = graph.constant dense<2.000000e+00> : tensor<f32>
  %zy = graph.constant dense<3> : tensor<ui8>
  %x = cpu.dequantize %xq, %sx, %zx {axis = 0 : i64, block_size = 0 : i64} : (tensor<2x2xui8>, tensor<f32>, tensor<ui8>) -> tensor<2x2xf32>
  %g = cpu.gemm %x, %w, %b {mrvl.quantized = #mrvl.quantized<input none, weight #mrvl.qparams<i8, scale [0.25, 0.5, 1], zero_point [0, 0, 0], axis 0>, output none>, alpha = 1.000000e+00 : f32, beta = 1.000000e+00 : f32, trans_a = false, trans_b = true} : (tensor<2x2xf32>, tensor<3x2xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %y = cpu.quantize %g, %sy, %zy {axis = 0 : i64, block_size = 0 : i64} : (tensor<2x3xf32>, tensor<f32>, tensor<ui8>) -> tensor<2x3xui8>
  func.return %y : tensor<2x3xui8>
}
