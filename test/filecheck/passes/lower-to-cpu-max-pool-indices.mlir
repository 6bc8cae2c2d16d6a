// A MaxPool whose Indices are used computes them: cpu.pool max gets the `indices` result
// and ONNX's storage_order (1: the spatial dims column-major). Unused, they are not computed
// (lower-to-cpu-unused-outputs.mlir).
// RUN: mrvl-opt %s -p lower-to-cpu | filecheck %s

// CHECK-LABEL: func.func @used_indices(
// CHECK-NEXT:    %y, %indices = cpu.pool max %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, count_include_pad = false, storage_order = 1 : i64} : (tensor<1x1x4x4xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>)
// CHECK-NEXT:    func.return %indices : tensor<1x1x2x2xi64>
func.func @used_indices(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xi64> {
  %y, %indices = graph.MaxPool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, storage_order = 1 : i64} : (tensor<1x1x4x4xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>) loc("pool1")
  func.return %indices : tensor<1x1x2x2xi64>
}
