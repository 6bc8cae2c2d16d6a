// cleanup-graph: Identity, inference Dropout and a Cast to its own type are their input;
// ops of constants are computed now.
// RUN: mrvl-opt %s -p cleanup-graph --split-input-file --print-weights | filecheck %s
// RUN: mrvl-opt %s -p 'cleanup-graph{fold_constants=false}' --split-input-file | filecheck %s --check-prefix=NOFOLD

// CHECK-LABEL: func.func @identity(
// CHECK-SAME:      %[[X:[^:]+]]: tensor<1x4xf32>
// CHECK-NEXT:    %[[R:[^ ]+]] = graph.Relu %[[X]]
// CHECK-NEXT:    func.return %[[R]]
func.func @identity(%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %y = graph.Identity %x : (tensor<1x4xf32>) -> tensor<1x4xf32>
  %z = graph.Relu %y : (tensor<1x4xf32>) -> tensor<1x4xf32>
  func.return %z : tensor<1x4xf32>
}

// -----

// A Dropout without training_mode, whose mask nothing reads.
// CHECK-LABEL: func.func @dropout_unused_mask(
// CHECK-SAME:      %[[X:[^:]+]]: tensor<1x4xf32>
// CHECK-NEXT:    func.return %[[X]]
func.func @dropout_unused_mask(%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %y, %mask = graph.Dropout %x : (tensor<1x4xf32>) -> (tensor<1x4xf32>, tensor<1x4xi1>)
  func.return %y : tensor<1x4xf32>
}

// -----

// training_mode false (a constant) is inference too.
// CHECK-LABEL: func.func @dropout_training_false(
// CHECK-SAME:      %[[X:[^:]+]]: tensor<1x4xf32>
// CHECK-NEXT:    func.return %[[X]]
func.func @dropout_training_false(%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %r = graph.constant dense<5.000000e-01> : tensor<f32>
  %t = graph.constant dense<false> : tensor<i1>
  %y = graph.Dropout %x, %r, %t : (tensor<1x4xf32>, tensor<f32>, tensor<i1>) -> tensor<1x4xf32>
  func.return %y : tensor<1x4xf32>
}

// -----

// COM: In training mode a Dropout drops values: it stays.
// CHECK-LABEL: func.func @dropout_training_stays(
// CHECK-SAME:      %[[X:[^:]+]]: tensor<1x4xf32>
// CHECK:         %[[Y:[^ ]+]] = graph.Dropout %[[X]], %{{[^ ]+}}, %{{[^ ]+}} : (tensor<1x4xf32>, tensor<f32>, tensor<i1>) -> tensor<1x4xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @dropout_training_stays(%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %r = graph.constant dense<5.000000e-01> : tensor<f32>
  %t = graph.constant dense<true> : tensor<i1>
  %y = graph.Dropout %x, %r, %t : (tensor<1x4xf32>, tensor<f32>, tensor<i1>) -> tensor<1x4xf32>
  func.return %y : tensor<1x4xf32>
}

// -----

// COM: A Dropout whose mask is read stays (the mask is not all ones in general).
// CHECK-LABEL: func.func @dropout_mask_used(
// CHECK-NEXT:    %[[Y:[^ ]+]], %[[M:[^ ]+]] = graph.Dropout
// CHECK-NEXT:    func.return %[[Y]], %[[M]]
func.func @dropout_mask_used(%x: tensor<1x4xf32>) -> (tensor<1x4xf32>, tensor<1x4xi1>) {
  %y, %mask = graph.Dropout %x : (tensor<1x4xf32>) -> (tensor<1x4xf32>, tensor<1x4xi1>)
  func.return %y, %mask : tensor<1x4xf32>, tensor<1x4xi1>
}

// -----

// CHECK-LABEL: func.func @cast_to_own_type(
// CHECK-SAME:      %[[X:[^:]+]]: tensor<1x4xf32>
// CHECK-NEXT:    func.return %[[X]]
func.func @cast_to_own_type(%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %y = graph.Cast %x {to = 1 : i64} : (tensor<1x4xf32>) -> tensor<1x4xf32>
  func.return %y : tensor<1x4xf32>
}

// -----

// COM: A Cast to another type converts: it stays.
// CHECK-LABEL: func.func @cast_to_other_type(
// CHECK-SAME:      %[[X:[^:]+]]: tensor<1x4xf32>
// CHECK-NEXT:    %[[Y:[^ ]+]] = graph.Cast %[[X]] {to = 10 : i64} : (tensor<1x4xf32>) -> tensor<1x4xf16>
// CHECK-NEXT:    func.return %[[Y]]
func.func @cast_to_other_type(%x: tensor<1x4xf32>) -> tensor<1x4xf16> {
  %y = graph.Cast %x {to = 10 : i64} : (tensor<1x4xf32>) -> tensor<1x4xf16>
  func.return %y : tensor<1x4xf16>
}

// -----

// A Transpose and a Reshape of a weight are computed into new weights, named after their
// results: [[1, 2, 3], [4, 5, 6]] transposed, and reshaped to [6] (same data).
// CHECK-LABEL: func.func @fold_weight_transforms(
// CHECK-NEXT:    %[[T:[^ ]+]] = graph.constant dense_resource<t> : tensor<3x2xf32>
// CHECK-NEXT:    %[[R:[^ ]+]] = graph.constant dense_resource<r> : tensor<6xf32>
// CHECK-NEXT:    func.return %[[T]], %[[R]]
// CHECK:         t: "0x040000000000803F00008040000000400000A040000040400000C040"
// CHECK-NEXT:    r: "0x040000000000803F0000004000004040000080400000A0400000C040"
// NOFOLD-LABEL: func.func @fold_weight_transforms(
// NOFOLD:         graph.Transpose
// NOFOLD:         graph.Reshape
func.func @fold_weight_transforms() -> (tensor<3x2xf32>, tensor<6xf32>) {
  %k = graph.constant dense_resource<k> : tensor<2x3xf32>
  %s = graph.constant dense<6> : tensor<1xi64>
  %t = graph.Transpose %k {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %r = graph.Reshape %k, %s : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<6xf32>
  func.return %t, %r : tensor<3x2xf32>, tensor<6xf32>
}
{-#
  dialect_resources: {
    builtin: {
      k: "0x040000000000803F0000004000004040000080400000A0400000C040"
    }
  }
#-}

// -----

// A small integer result (a shape computation) is folded into an inline constant.
// CHECK-LABEL: func.func @fold_shape_arithmetic(
// CHECK-NEXT:    %[[C:[^ ]+]] = graph.constant dense<[4, 6]> : tensor<2xi64>
// CHECK-NEXT:    func.return %[[C]]
func.func @fold_shape_arithmetic() -> tensor<2xi64> {
  %a = graph.constant dense<[1, 2]> : tensor<2xi64>
  %b = graph.constant dense<[3, 4]> : tensor<2xi64>
  %c = graph.Add %a, %b : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  func.return %c : tensor<2xi64>
}

// -----

// COM: An operand computed at run time: nothing to fold.
// CHECK-LABEL: func.func @fold_skipped_non_constant(
// CHECK-SAME:      %[[X:[^:]+]]: tensor<2x3xf32>
// CHECK-NEXT:    %[[K:[^ ]+]] = graph.constant dense_resource<k> : tensor<2x3xf32>
// CHECK-NEXT:    %[[A:[^ ]+]] = graph.Add %[[X]], %[[K]]
// CHECK-NEXT:    func.return %[[A]]
func.func @fold_skipped_non_constant(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %k = graph.constant dense_resource<k> : tensor<2x3xf32>
  %a = graph.Add %x, %k : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %a : tensor<2x3xf32>
}
{-#
  dialect_resources: {
    builtin: {
      k: "0x040000000000803F0000004000004040000080400000A0400000C040"
    }
  }
#-}

// -----

// COM: A constant read without its data (IR printed without weights) cannot be folded.
// CHECK-LABEL: func.func @fold_skipped_no_data(
// CHECK-NEXT:    %[[K:[^ ]+]] = graph.constant dense_resource<absent> : tensor<2x3xf32>
// CHECK-NEXT:    %[[T:[^ ]+]] = graph.Transpose %[[K]]
// CHECK-NEXT:    func.return %[[T]]
func.func @fold_skipped_no_data() -> tensor<3x2xf32> {
  %k = graph.constant dense_resource<absent> : tensor<2x3xf32>
  %t = graph.Transpose %k {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  func.return %t : tensor<3x2xf32>
}
