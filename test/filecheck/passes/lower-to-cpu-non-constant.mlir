// A parameter input (here Slice's starts) must be a constant: the error names the node,
// the input and where its value comes from.
// RUN: %python %S/../frontend/errors/Inputs/expect_error.py mrvl-opt %s -p lower-to-cpu 2>&1 | filecheck %s
// CHECK: error: {{.*}}lower-to-cpu-non-constant.mlir: node 'slice1' (Slice): input 'starts' must be a constant, got a graph input{{$}}

func.func @f(%x: tensor<8xf32>, %starts: tensor<1xi64>) -> tensor<4xf32> {
  %ends = graph.constant dense<8> : tensor<1xi64>
  %y = graph.Slice %x, %starts, %ends : (tensor<8xf32>, tensor<1xi64>, tensor<1xi64>) -> tensor<4xf32> loc("slice1")
  func.return %y : tensor<4xf32>
}
