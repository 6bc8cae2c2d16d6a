// Errors the cpu ops' parsers report, one per chunk; --parsing-diagnostics prints each
// and goes on with the next chunk.
// RUN: mrvl-opt %s --split-input-file --parsing-diagnostics | filecheck %s

// A kind that is not one of the op's kernels.
// CHECK: invalid-parse.mlir:[[# @LINE + 3]]:18
// CHECK: Expected `relu`, `sigmoid`, {{.*}}, `gelu_tanh`, or `mish`.
func.func @unknown_unary_kind(%a: tensor<4xf32>) -> tensor<4xf32> {
  %y = cpu.unary swish %a : (tensor<4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}

// -----

// tf_half_pixel_for_nn (ONNX Resize before opset 13) is not a cpu coordinate transformation.
// CHECK: invalid-parse.mlir:[[# @LINE + 3]]
// CHECK: Expected `half_pixel`, {{.*}}, or `tf_crop_and_resize`.
func.func @unknown_coordinate_mode(%x: tensor<2x8xf32>) -> tensor<2x16xf32> {
  %y = cpu.resize linear %x {scales = array<f32: 1.0, 2.0>, coordinate_transformation_mode = #cpu<coordinate_transformation_mode tf_half_pixel_for_nn>, nearest_mode = #cpu<nearest_mode floor>, cubic_coeff_a = -0.75 : f32, exclude_outside = false, extrapolation_value = 0.0 : f32, antialias = false} : (tensor<2x8xf32>) -> tensor<2x16xf32>
  func.return %y : tensor<2x16xf32>
}

