// mrvl.conv2d's type list holds one type per operand written, in order: a list that is
// too short or too long (a bias type with no bias operand) is a parse error saying how
// many types the operands need.
// RUN: mrvl-opt %s --split-input-file --parsing-diagnostics | filecheck %s

// CHECK: expected 3 operand types, got 2
func.func @bias_type_missing(%x: tensor<1x8x8x3xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x8x8x4xf32> {
  %y = mrvl.conv2d %x, %w bias %b {padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>) -> tensor<1x8x8x4xf32>
  func.return %y : tensor<1x8x8x4xf32>
}

// -----

// CHECK: expected 2 operand types, got 3
func.func @bias_type_extra(%x: tensor<1x8x8x3xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x8x8x4xf32> {
  %y = mrvl.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x8x8x4xf32>
  func.return %y : tensor<1x8x8x4xf32>
}
