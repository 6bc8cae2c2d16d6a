// A bidirectional GRU's activations: activation_alpha and activation_beta are consumed in
// order by the activations that take them (hard_sigmoid alpha 0.3 and beta 0.9, leaky_relu
// alpha 0.7), the rest keep onnxruntime's defaults (affine 0 and 0); clip and
// linear_before_reset become properties. Only Y_h is read.
// RUN: mrvl-opt %s -p lower-to-cpu | filecheck %s

// CHECK-LABEL: func.func @gru(
// CHECK:         %y_h = cpu.recurrent gru %x, %w, %r {direction = #cpu<recurrent_direction bidirectional>, layout = 0 : i64, activations = [#cpu<recurrent_activation hard_sigmoid>, #cpu<recurrent_activation leaky_relu>, #cpu<recurrent_activation affine>, #cpu<recurrent_activation tanh>], alphas = array<f32: 3.000000e-01, 7.000000e-01, 0.000000e+00, 0.000000e+00>, betas = array<f32: 9.000000e-01, 0.000000e+00, 0.000000e+00, 0.000000e+00>, clip = 2.500000e+00 : f32, linear_before_reset} : (tensor<4x1x3xf32>, tensor<2x6x3xf32>, tensor<2x6x2xf32>) -> Y_h tensor<2x1x2xf32>
// CHECK-NEXT:    func.return %y_h
func.func @gru(%x: tensor<4x1x3xf32>) -> tensor<2x1x2xf32> {
  %w = graph.constant dense<0.1> : tensor<2x6x3xf32>
  %r = graph.constant dense<0.2> : tensor<2x6x2xf32>
  %y, %y_h = graph.GRU %x, %w, %r {operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0>, direction = "bidirectional", activations = ["HardSigmoid", "leakyrelu", "Affine", "Tanh"], activation_alpha = array<f32: 0.3, 0.7>, activation_beta = array<f32: 0.9>, clip = 2.5 : f32, linear_before_reset = 1 : i64} : (tensor<4x1x3xf32>, tensor<2x6x3xf32>, tensor<2x6x2xf32>) -> (tensor<4x2x1x2xf32>, tensor<2x1x2xf32>)
  func.return %y_h : tensor<2x1x2xf32>
}
