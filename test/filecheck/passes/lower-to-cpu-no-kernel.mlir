// A host op with no kernel is an error naming its ONNX node and operator.
// RUN: %python %S/../frontend/errors/Inputs/expect_error.py mrvl-opt %s -p lower-to-cpu 2>&1 | filecheck %s
// CHECK: error: {{.*}}lower-to-cpu-no-kernel.mlir: node 'topk1' (TopK): no host kernel for TopK{{$}}

func.func @f(%x: tensor<8xf32>) -> tensor<3xf32> {
  %k = graph.constant dense<3> : tensor<1xi64>
  %r = graph.Relu %x : (tensor<8xf32>) -> tensor<8xf32> loc("relu1")
  %v, %i = graph.TopK %r, %k : (tensor<8xf32>, tensor<1xi64>) -> (tensor<3xf32>, tensor<3xi64>) loc("topk1")
  func.return %v : tensor<3xf32>
}
