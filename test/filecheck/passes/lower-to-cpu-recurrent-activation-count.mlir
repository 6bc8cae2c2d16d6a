// A recurrent layer needs its activations per direction (an LSTM's f, g, h), or one
// direction's list for both; any other count is an error naming the node.
// RUN: %python %S/../frontend/errors/Inputs/expect_error.py mrvl-opt %s -p lower-to-cpu 2>&1 | filecheck %s
// CHECK: error: {{.*}}: node 'lstm1' (LSTM): 'activations' must name 6 functions (3 per direction), got 2{{$}}

func.func @f(%x: tensor<5x2x3xf32>) -> tensor<2x2x4xf32> {
  %w = graph.constant dense<0.1> : tensor<2x16x3xf32>
  %r = graph.constant dense<0.2> : tensor<2x16x4xf32>
  %y, %y_h, %y_c = graph.LSTM %x, %w, %r {operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0>, direction = "bidirectional", activations = ["Sigmoid", "Tanh"]} : (tensor<5x2x3xf32>, tensor<2x16x3xf32>, tensor<2x16x4xf32>) -> (tensor<5x2x2x4xf32>, tensor<2x2x4xf32>, tensor<2x2x4xf32>) loc("lstm1")
  func.return %y_h : tensor<2x2x4xf32>
}
