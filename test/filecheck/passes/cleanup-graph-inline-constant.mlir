// Folding an op of inline `dense` constants into a weight (a `dense_resource`) prints,
// also when the input IR had no `dense_resource` of its own (no crash in the printer).
// RUN: mrvl-opt %s -p cleanup-graph | filecheck %s

// CHECK-LABEL: func.func @fold_inline(
// CHECK-NEXT:    %[[T:[^ ]+]] = graph.constant dense_resource<t> : tensor<3x2xf32>
// CHECK-NEXT:    func.return %[[T]]
func.func @fold_inline() -> tensor<3x2xf32> {
  %k = graph.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %t = graph.Transpose %k {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  func.return %t : tensor<3x2xf32>
}
