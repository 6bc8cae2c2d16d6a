// ONNX schemas bind inputs and outputs to one type variable (Relu: X: T, Y: T; Add:
// A: T, B: T, C: T). The verifier must reject ops whose operands/results disagree.
// RUN: mrvl-opt %s --split-input-file --verify-diagnostics | filecheck %s

// CHECK:      sym_name = "result_type_differs"
// CHECK-NOT:  {{// -{5}}}
// CHECK:      Operation does not verify
func.func @result_type_differs(%x: tensor<2x5xf32>) -> tensor<2x5xi32> {
  %y = graph.Relu %x : (tensor<2x5xf32>) -> tensor<2x5xi32>
  func.return %y : tensor<2x5xi32>
}

// -----

// CHECK:      sym_name = "operand_types_differ"
// CHECK-NOT:  {{// -{5}}}
// CHECK:      Operation does not verify
func.func @operand_types_differ(%a: tensor<2xf32>, %b: tensor<2xi64>) -> tensor<2xf32> {
  %y = graph.Add %a, %b : (tensor<2xf32>, tensor<2xi64>) -> tensor<2xf32>
  func.return %y : tensor<2xf32>
}
