// The report needs place-ops' attributes, and knows three formats.
// RUN: not mrvl-opt %s -t placement-report 2>&1 | filecheck %s --check-prefix=UNPLACED
// RUN: not mrvl-opt %s -t 'placement-report{format=xml}' 2>&1 | filecheck %s --check-prefix=FORMAT

// UNPLACED: error: {{.*}}placement-report-errors.mlir: node 'relu1': has no placement ('mrvl.place'); run place-ops first
// UNPLACED-NOT: Traceback

// FORMAT: error: {{.*}}placement-report-errors.mlir: -t placement-report: format must be text, json, csv or html, got 'xml'
func.func @unplaced(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = graph.Relu %x : (tensor<2xf32>) -> tensor<2xf32> loc("relu1")
  func.return %y : tensor<2xf32>
}
