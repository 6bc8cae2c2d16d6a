// A used Indices output needs a storage_order ONNX defines (0 or 1).
// RUN: %python %S/../frontend/errors/Inputs/expect_error.py mrvl-opt %s -p lower-to-cpu 2>&1 | filecheck %s
// CHECK: error: {{.*}}: node 'pool1' (MaxPool): 'storage_order' must be 0 (row-major) or 1 (column-major), got 2{{$}}

func.func @bad_storage_order(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xi64> {
  %y, %indices = graph.MaxPool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, storage_order = 2 : i64} : (tensor<1x1x4x4xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>) loc("pool1")
  func.return %indices : tensor<1x1x2x2xi64>
}
