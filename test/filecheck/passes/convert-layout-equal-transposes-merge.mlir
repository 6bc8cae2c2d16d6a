// convert-layout keeps one of the equal transposes of a value (fuse-mrvl transposes a value
// once per layer that reads it); a transpose by another perm stays.
// RUN: mrvl-opt %s -p convert-layout | filecheck %s

// CHECK-LABEL: func.func @equal_transposes_merge(
// CHECK-SAME:      %[[X:[^:]+]]: tensor<1x2x3x4xf32>
// CHECK-NEXT:    %[[A:[^ ]+]] = graph.Transpose %[[X]] {{.*}}perm = array<i64: 0, 2, 3, 1>}
// CHECK-NEXT:    %[[C:[^ ]+]] = graph.Transpose %[[X]] {{.*}}perm = array<i64: 0, 3, 1, 2>}
// CHECK-NEXT:    func.return %[[A]], %[[A]], %[[C]]
func.func @equal_transposes_merge(%x: tensor<1x2x3x4xf32>) -> (tensor<1x3x4x2xf32>, tensor<1x3x4x2xf32>, tensor<1x4x2x3xf32>) {
  %a = graph.Transpose %x {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x2x3x4xf32>) -> tensor<1x3x4x2xf32>
  %b = graph.Transpose %x {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x2x3x4xf32>) -> tensor<1x3x4x2xf32>
  %c = graph.Transpose %x {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x2x3x4xf32>) -> tensor<1x4x2x3xf32>
  func.return %a, %b, %c : tensor<1x3x4x2xf32>, tensor<1x3x4x2xf32>, tensor<1x4x2x3xf32>
}
