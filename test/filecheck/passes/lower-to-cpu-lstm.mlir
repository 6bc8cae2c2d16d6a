// An LSTM becomes cpu.recurrent lstm: its optional inputs follow keywords (sequence_lens and
// initial_c absent here), the default activations (sigmoid, tanh, tanh) are spelled out with
// an alpha and beta each, and only the outputs the model reads are results (not Y_c).
// RUN: mrvl-opt %s -p lower-to-cpu | filecheck %s

// CHECK-LABEL: func.func @lstm(
// CHECK:         %y, %y_h = cpu.recurrent lstm %x, %w, %r bias %b initial_h %h0 peepholes %p {direction = #cpu<recurrent_direction forward>, layout = 0 : i64, activations = [#cpu<recurrent_activation sigmoid>, #cpu<recurrent_activation tanh>, #cpu<recurrent_activation tanh>], alphas = array<f32: 0.000000e+00, 0.000000e+00, 0.000000e+00>, betas = array<f32: 0.000000e+00, 0.000000e+00, 0.000000e+00>} : (tensor<5x2x3xf32>, tensor<1x16x3xf32>, tensor<1x16x4xf32>) bias tensor<1x32xf32> initial_h tensor<1x2x4xf32> peepholes tensor<1x12xf32> -> Y tensor<5x1x2x4xf32> Y_h tensor<1x2x4xf32>
// CHECK-NEXT:    func.return %y, %y_h
// CHECK-NOT:     graph.LSTM
func.func @lstm(%x: tensor<5x2x3xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>) {
  %w = graph.constant dense<0.1> : tensor<1x16x3xf32>
  %r = graph.constant dense<0.2> : tensor<1x16x4xf32>
  %b = graph.constant dense<0.3> : tensor<1x32xf32>
  %h0 = graph.constant dense<0.4> : tensor<1x2x4xf32>
  %p = graph.constant dense<0.5> : tensor<1x12xf32>
  %y, %y_h, %y_c = graph.LSTM %x, %w, %r, %b, %h0, %p {operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 1, 0, 1>, hidden_size = 4 : i64} : (tensor<5x2x3xf32>, tensor<1x16x3xf32>, tensor<1x16x4xf32>, tensor<1x32xf32>, tensor<1x2x4xf32>, tensor<1x12xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>) loc("lstm1")
  func.return %y, %y_h : tensor<5x1x2x4xf32>, tensor<1x2x4xf32>
}
