// The transpose of an inline `dense` constant folds into a weight, and the result
// prints also when the input IR had no `dense_resource` of its own (no crash).
// RUN: mrvl-opt %s -p convert-layout --print-weights | filecheck %s

// CHECK-LABEL: func.func @fold_inline(
// CHECK-NEXT:    %[[T:[^ ]+]] = graph.constant dense_resource<constant.t> : tensor<3x2xf32>
// CHECK-NEXT:    func.return %[[T]]
// CHECK:         constant.t: "0x040000000000803F00008040000000400000A040000040400000C040"
func.func @fold_inline() -> tensor<3x2xf32> {
  %k = graph.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %t = graph.Transpose %k : (tensor<2x3xf32>) -> tensor<3x2xf32>
  func.return %t : tensor<3x2xf32>
}
