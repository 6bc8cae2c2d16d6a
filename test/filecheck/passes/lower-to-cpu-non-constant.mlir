// A parameter input (here Clip's max) must be a constant: the error names the node,
// the input and where its value comes from.
// RUN: %python %S/../frontend/errors/Inputs/expect_error.py mrvl-opt %s -p lower-to-cpu 2>&1 | filecheck %s
// CHECK: error: {{.*}}lower-to-cpu-non-constant.mlir: node 'clip1' (Clip): input 'max' must be a constant, got a graph input{{$}}

func.func @f(%x: tensor<8xf32>, %hi: tensor<f32>) -> tensor<8xf32> {
  %lo = graph.constant dense<0.0> : tensor<f32>
  %y = graph.Clip %x, %lo, %hi : (tensor<8xf32>, tensor<f32>, tensor<f32>) -> tensor<8xf32> loc("clip1")
  func.return %y : tensor<8xf32>
}
