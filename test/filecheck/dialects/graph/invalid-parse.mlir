// Errors the graph ops' custom parser reports, one per chunk; --parsing-diagnostics
// prints each and goes on with the next chunk.
// RUN: mrvl-opt %s --split-input-file --parsing-diagnostics | filecheck %s

// Four operands cannot fill Clip's input, min and max.
// CHECK: invalid-parse.mlir:[[# @LINE + 3]]:19
// CHECK: 'graph.Clip' cannot take 4 operands
func.func @clip_too_many_operands(%x: tensor<2xf32>, %a: tensor<f32>) -> tensor<2xf32> {
  %y = graph.Clip %x, %a, %a, %a : (tensor<2xf32>, tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<2xf32>
  func.return %y : tensor<2xf32>
}

// -----

// BatchNormalization has at most three results.
// CHECK: invalid-parse.mlir:[[# @LINE + 3]]:45
// CHECK: 'graph.BatchNormalization' cannot take 4 results
func.func @batchnorm_too_many_results(%x: tensor<2x3xf32>, %s: tensor<3xf32>) -> tensor<2x3xf32> {
  %y, %m, %v, %w = graph.BatchNormalization %x, %s, %s, %s, %s : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
  func.return %y : tensor<2x3xf32>
}

// -----

// The function type must list one type per operand.
// CHECK: invalid-parse.mlir:[[# @LINE + 3]]:19
// CHECK: expected 2 operand types but had 1
func.func @operand_type_count(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = graph.Relu %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}

// -----

// Only ONNX default-domain operators are graph ops; others are graph.custom.
// CHECK: invalid-parse.mlir:[[# @LINE + 3]]:{{[0-9]+}}
// CHECK: Operation graph.BiasGelu is not registered
func.func @unknown_op(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = graph.BiasGelu %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}
