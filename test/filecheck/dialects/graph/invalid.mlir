// Verifier errors of graph ops, one per chunk; --verify-diagnostics prints each and goes on.
// RUN: mrvl-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Conv is defined on float tensors only.
// CHECK: Operation does not verify: operand 'X' at position 0 does not verify:
// CHECK-NEXT: Expected one of bf16, f16, f32, f64, but got i32
func.func @wrong_element_type(%x: tensor<1x3x8x8xi32>, %w: tensor<4x3x3x3xi32>) -> tensor<1x4x6x6xi32> {
  %y = graph.Conv %x, %w : (tensor<1x3x8x8xi32>, tensor<4x3x3x3xi32>) -> tensor<1x4x6x6xi32>
  func.return %y : tensor<1x4x6x6xi32>
}

// -----

// Cast's `to` has no default.
// CHECK: Operation does not verify: property 'to' expected in operation 'graph.Cast'
func.func @missing_property(%x: tensor<2xf32>) -> tensor<2xf16> {
  %y = graph.Cast %x : (tensor<2xf32>) -> tensor<2xf16>
  func.return %y : tensor<2xf16>
}

// -----

// INTS attributes are i64 dense arrays, not array attributes.
// CHECK: Operation does not verify: [2 : i64, 2 : i64] should be of base attribute array
func.func @wrong_property_type(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32> {
  %y = graph.MaxPool %x {kernel_shape = [2, 2]} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  func.return %y : tensor<1x3x4x4xf32>
}

// -----

// INT attributes are integers, not floats.
// CHECK: Operation does not verify: 1.000000e+00 : f32 should be of base attribute integer
func.func @wrong_property_kind(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %y = graph.Softmax %x {axis = 1.0 : f32} : (tensor<2x5xf32>) -> tensor<2x5xf32>
  func.return %y : tensor<2x5xf32>
}

// -----

// CHECK: Operation does not verify: Expected 1 operand, but got 2
func.func @too_many_operands(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = graph.Relu %x, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %y : tensor<2xf32>
}

// -----

// CHECK: Operation does not verify: Expected 2 or 3 operands, but got 1
func.func @too_few_operands(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32> {
  %y = graph.Conv %x : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  func.return %y : tensor<1x3x8x8xf32>
}

// -----

// Segment sizes that do not add up to the operand count.
// CHECK: Operation does not verify: operand count (2) does not match with the total size (3) specified in attribute 'operandSegmentSizes'
func.func @bad_segment_sizes(%x: tensor<2xf32>, %a: tensor<f32>) -> tensor<2xf32> {
  %y = graph.Clip %x, %a {operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  func.return %y : tensor<2xf32>
}

// -----

// Without segment sizes, two Resize operands are X and roi; an i64 `sizes` tensor in
// roi's place is rejected rather than silently taken as sizes.
// CHECK: Operation does not verify: operand 'roi' at position 1 does not verify:
// CHECK-NEXT: Expected one of f16, f32, f64, but got i64
func.func @implied_segments(%x: tensor<1x3x8x8xf32>, %sizes: tensor<4xi64>) -> tensor<1x3x16x16xf32> {
  %y = graph.Resize %x, %sizes : (tensor<1x3x8x8xf32>, tensor<4xi64>) -> tensor<1x3x16x16xf32>
  func.return %y : tensor<1x3x16x16xf32>
}

// -----

// graph.constant's result type is its value's type.
// CHECK: Operation does not verify: attribute tensor<3xi64> expected from variable 'T', but got tensor<2xi64>
func.func @constant_type(%x: tensor<2xf32>) -> tensor<3xi64> {
  %c = "graph.constant"() <{value = dense<1> : tensor<2xi64>}> : () -> tensor<3xi64>
  func.return %c : tensor<3xi64>
}

// -----

// Tensors must be ranked.
// CHECK: Operation does not verify: operand 'X' at position 0 does not verify:
// CHECK-NEXT: tensor<*xf32> should be of base attribute tensor
func.func @unranked(%x: tensor<*xf32>) -> tensor<*xf32> {
  %y = graph.Relu %x : (tensor<*xf32>) -> tensor<*xf32>
  func.return %y : tensor<*xf32>
}

// -----

// A region must end in a terminator.
// CHECK: Operation graph.Relu terminates block in single-block region but is not a terminator
func.func @if_without_yield(%c: tensor<i1>, %x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %y = graph.If %c ({
    %t = graph.Relu %x : (tensor<1x4xf32>) -> tensor<1x4xf32>
  }, {
    graph.yield %x : tensor<1x4xf32>
  }) : (tensor<i1>) -> tensor<1x4xf32>
  func.return %y : tensor<1x4xf32>
}
