// TopK's k must be one value within the axis; the error names the node and the value.
// RUN: %python %S/../frontend/errors/Inputs/expect_error.py mrvl-opt %s -p lower-to-cpu 2>&1 | filecheck %s
// CHECK: error: {{.*}}: node 'top' (TopK): 'K' must be one value in [0, 8] (dim 1 of the input), got [9]{{$}}

func.func @f(%x: tensor<3x8xf32>) -> tensor<3x9xf32> {
  %k = graph.constant dense<9> : tensor<1xi64>
  %v, %i = graph.TopK %x, %k : (tensor<3x8xf32>, tensor<1xi64>) -> (tensor<3x9xf32>, tensor<3x9xi64>) loc("top")
  func.return %v : tensor<3x9xf32>
}
