// A host op with no kernel is an error naming its ONNX node and operator.
// RUN: %python %S/../frontend/errors/Inputs/expect_error.py mrvl-opt %s -p lower-to-cpu 2>&1 | filecheck %s
// CHECK: error: {{.*}}lower-to-cpu-no-kernel.mlir: node 'det1' (Det): no host kernel for Det{{$}}

func.func @f(%x: tensor<2x3x3xf32>) -> tensor<2xf32> {
  %r = graph.Relu %x : (tensor<2x3x3xf32>) -> tensor<2x3x3xf32> loc("relu1")
  %d = graph.Det %r : (tensor<2x3x3xf32>) -> tensor<2xf32> loc("det1")
  func.return %d : tensor<2xf32>
}
