// --print-op-generic prints graph ops in MLIR's generic form: operands in parentheses,
// every property (defaults included) in <{...}>, regions, and the function type.
// RUN: mrvl-opt %s --print-op-generic | filecheck %s

// CHECK:      "builtin.module"() ({
// CHECK-NEXT:   "func.func"() <{sym_name = "generic", function_type = (tensor<i1>, tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>}> ({
// CHECK-NEXT:   ^bb0(%c: tensor<i1>, %x: tensor<1x3x8x8xf32>):
// CHECK-NEXT:     %k = "graph.constant"() <{value = dense<2.000000e+00> : tensor<f32>}> : () -> tensor<f32>
// CHECK-NEXT:     %p = "graph.MaxPool"(%x) <{kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>,
// CHECK-SAME:         auto_pad = "NOTSET", ceil_mode = 0 : i64, storage_order = 0 : i64}> : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
// CHECK-NEXT:     %y = "graph.If"(%c) ({
// CHECK-NEXT:       "graph.yield"(%p) : (tensor<1x3x4x4xf32>) -> ()
// CHECK-NEXT:     }, {
// CHECK-NEXT:       %m = "graph.Mul"(%p, %k) : (tensor<1x3x4x4xf32>, tensor<f32>) -> tensor<1x3x4x4xf32>
// CHECK-NEXT:       "graph.yield"(%m) : (tensor<1x3x4x4xf32>) -> ()
// CHECK-NEXT:     }) : (tensor<i1>) -> tensor<1x3x4x4xf32>
// CHECK-NEXT:     "func.return"(%y) : (tensor<1x3x4x4xf32>) -> ()
// CHECK-NEXT:   }) : () -> ()
// CHECK-NEXT: }) : () -> ()
func.func @generic(%c: tensor<i1>, %x: tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32> {
  %k = graph.constant dense<2.0> : tensor<f32>
  %p = graph.MaxPool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  %y = graph.If %c ({
    graph.yield %p : tensor<1x3x4x4xf32>
  }, {
    %m = graph.Mul %p, %k : (tensor<1x3x4x4xf32>, tensor<f32>) -> tensor<1x3x4x4xf32>
    graph.yield %m : tensor<1x3x4x4xf32>
  }) : (tensor<i1>) -> tensor<1x3x4x4xf32>
  func.return %y : tensor<1x3x4x4xf32>
}
