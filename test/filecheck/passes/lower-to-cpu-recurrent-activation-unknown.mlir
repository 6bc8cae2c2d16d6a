// An activation ONNX's recurrent ops do not list has no host kernel; the error names the
// node and the activation.
// RUN: %python %S/../frontend/errors/Inputs/expect_error.py mrvl-opt %s -p lower-to-cpu 2>&1 | filecheck %s
// CHECK: error: {{.*}}: node 'rnn1' (RNN): no host kernel for RNN with the activation 'Gelu'{{$}}

func.func @f(%x: tensor<5x2x3xf32>) -> tensor<1x2x4xf32> {
  %w = graph.constant dense<0.1> : tensor<1x4x3xf32>
  %r = graph.constant dense<0.2> : tensor<1x4x4xf32>
  %y, %y_h = graph.RNN %x, %w, %r {operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0>, activations = ["Gelu"]} : (tensor<5x2x3xf32>, tensor<1x4x3xf32>, tensor<1x4x4xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>) loc("rnn1")
  func.return %y_h : tensor<1x2x4xf32>
}
