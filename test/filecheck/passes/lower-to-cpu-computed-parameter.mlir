// A parameter input computed by another node (here Slice's starts) is an error naming
// both nodes.
// RUN: %python %S/../frontend/errors/Inputs/expect_error.py mrvl-opt %s -p lower-to-cpu 2>&1 | filecheck %s
// CHECK: error: {{.*}}: node 'slice1' (Slice): input 'starts' must be a constant, got the output of node 'abs1'{{$}}

func.func @f(%x: tensor<8xf32>, %s: tensor<1xi64>) -> tensor<4xf32> {
  %e = graph.constant dense<6> : tensor<1xi64>
  %start = graph.Abs %s : (tensor<1xi64>) -> tensor<1xi64> loc("abs1")
  %y = graph.Slice %x, %start, %e : (tensor<8xf32>, tensor<1xi64>, tensor<1xi64>) -> tensor<4xf32> loc("slice1")
  func.return %y : tensor<4xf32>
}
