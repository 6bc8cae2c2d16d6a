// RNN's schema default activations are [Tanh, Tanh]: a forward RNN takes the first; one
// direction's list serves both directions of a bidirectional layer. Layout 1 and
// sequence_lens pass through.
// RUN: mrvl-opt %s --split-input-file -p lower-to-cpu | filecheck %s

// CHECK-LABEL: func.func @forward(
// CHECK:         %y = cpu.recurrent rnn %x, %w, %r sequence_lens %lens {direction = #cpu<recurrent_direction forward>, layout = 1 : i64, activations = [#cpu<recurrent_activation tanh>], alphas = array<f32: 0.000000e+00>, betas = array<f32: 0.000000e+00>} : (tensor<2x5x3xf32>, tensor<1x4x3xf32>, tensor<1x4x4xf32>) sequence_lens tensor<2xi32> -> Y tensor<2x5x1x4xf32>
func.func @forward(%x: tensor<2x5x3xf32>) -> tensor<2x5x1x4xf32> {
  %w = graph.constant dense<0.1> : tensor<1x4x3xf32>
  %r = graph.constant dense<0.2> : tensor<1x4x4xf32>
  %lens = graph.constant dense<[5, 3]> : tensor<2xi32>
  %y, %y_h = graph.RNN %x, %w, %r, %lens {operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>, layout = 1 : i64} : (tensor<2x5x3xf32>, tensor<1x4x3xf32>, tensor<1x4x4xf32>, tensor<2xi32>) -> (tensor<2x5x1x4xf32>, tensor<2x1x4xf32>)
  func.return %y : tensor<2x5x1x4xf32>
}

// -----

// CHECK-LABEL: func.func @both_ways(
// CHECK:         %y_h = cpu.recurrent rnn %x, %w, %r {direction = #cpu<recurrent_direction bidirectional>, layout = 0 : i64, activations = [#cpu<recurrent_activation relu>, #cpu<recurrent_activation relu>], alphas = array<f32: 0.000000e+00, 0.000000e+00>, betas = array<f32: 0.000000e+00, 0.000000e+00>} : (tensor<5x2x3xf32>, tensor<2x4x3xf32>, tensor<2x4x4xf32>) -> Y_h tensor<2x2x4xf32>
func.func @both_ways(%x: tensor<5x2x3xf32>) -> tensor<2x2x4xf32> {
  %w = graph.constant dense<0.1> : tensor<2x4x3xf32>
  %r = graph.constant dense<0.2> : tensor<2x4x4xf32>
  %y, %y_h = graph.RNN %x, %w, %r {operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0>, direction = "bidirectional", activations = ["Relu"]} : (tensor<5x2x3xf32>, tensor<2x4x3xf32>, tensor<2x4x4xf32>) -> (tensor<5x2x2x4xf32>, tensor<2x2x4xf32>)
  func.return %y_h : tensor<2x2x4xf32>
}
