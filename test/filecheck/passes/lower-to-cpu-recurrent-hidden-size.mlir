// hidden_size must agree with R's columns; the error names the node and both sizes.
// RUN: %python %S/../frontend/errors/Inputs/expect_error.py mrvl-opt %s -p lower-to-cpu 2>&1 | filecheck %s
// CHECK: error: {{.*}}: node 'gru1' (GRU): 'hidden_size' is 5, but 'R' has 4 columns{{$}}

func.func @f(%x: tensor<5x2x3xf32>) -> tensor<1x2x4xf32> {
  %w = graph.constant dense<0.1> : tensor<1x12x3xf32>
  %r = graph.constant dense<0.2> : tensor<1x12x4xf32>
  %y, %y_h = graph.GRU %x, %w, %r {operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0>, hidden_size = 5 : i64} : (tensor<5x2x3xf32>, tensor<1x12x3xf32>, tensor<1x12x4xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>) loc("gru1")
  func.return %y_h : tensor<1x2x4xf32>
}
