// graph.If's branches must yield one value per result of the If, of the result types,
// and graph.yield belongs in the region of a control-flow op (If, Loop, Scan).
// RUN: mrvl-opt %s --split-input-file --verify-diagnostics | filecheck %s

// CHECK:      sym_name = "branch_yields_too_many"
// CHECK-NOT:  {{// -{5}}}
// CHECK:      Operation does not verify
func.func @branch_yields_too_many(%c: tensor<i1>, %x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %y = graph.If %c ({
    graph.yield %x, %x : tensor<1x4xf32>, tensor<1x4xf32>
  }, {
    graph.yield %x : tensor<1x4xf32>
  }) : (tensor<i1>) -> tensor<1x4xf32>
  func.return %y : tensor<1x4xf32>
}

// -----

// CHECK:      sym_name = "branch_yields_wrong_type"
// CHECK-NOT:  {{// -{5}}}
// CHECK:      Operation does not verify
func.func @branch_yields_wrong_type(%c: tensor<i1>, %x: tensor<1x4xf32>, %i: tensor<1x4xi64>) -> tensor<1x4xf32> {
  %y = graph.If %c ({
    graph.yield %x : tensor<1x4xf32>
  }, {
    graph.yield %i : tensor<1x4xi64>
  }) : (tensor<i1>) -> tensor<1x4xf32>
  func.return %y : tensor<1x4xf32>
}

// -----

// CHECK:      sym_name = "yield_outside_control_flow"
// CHECK-NOT:  {{// -{5}}}
// CHECK:      Operation does not verify
func.func @yield_outside_control_flow(%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  graph.yield %x : tensor<1x4xf32>
}
