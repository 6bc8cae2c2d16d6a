// Verifier errors of cpu ops, one per chunk: each names the property or operand, the
// rule and the observed value.
// RUN: mrvl-opt %s --split-input-file --verify-diagnostics | filecheck %s

// CHECK: Operation does not verify: 'callee' @missing is not defined in the enclosing symbol table
func.func @call_missing(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = cpu.call_mlip @missing(%x) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}

// -----

// CHECK: Operation does not verify: operand types of the call to @sg0 must be the callee's (tensor<4xf32>), got (tensor<4xi32>)
func.func private @sg0(tensor<4xf32>) -> tensor<4xf32>
func.func @call_wrong_operands(%x: tensor<4xi32>) -> tensor<4xf32> {
  %y = cpu.call_mlip @sg0(%x) : (tensor<4xi32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}

// -----

// CHECK: Operation does not verify: result types of the call to @sg0 must be the callee's (tensor<4xf32>), got (tensor<4xf32>, tensor<4xf32>)
func.func private @sg0(tensor<4xf32>) -> tensor<4xf32>
func.func @call_wrong_results(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y, %z = cpu.call_mlip @sg0(%x) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  func.return %y : tensor<4xf32>
}

// -----

// CHECK: Operation does not verify: operand types of the call to @sg8 must be the callee's (tensor<24x4xf32>), got (tensor<16x4xf32>)
func.func private @sg8(tensor<8x4xf32>) -> tensor<8x2xf32>
func.func @call_wrong_chunks(%x: tensor<16x4xf32>) -> tensor<24x2xf32> {
  %y = cpu.call_mlip @sg8(%x) {chunks = 3 : i64} : (tensor<16x4xf32>) -> tensor<24x2xf32>
  func.return %y : tensor<24x2xf32>
}

// -----

// CHECK: Operation does not verify: 'chunks' must be at least 2, got 1
func.func private @sg8(tensor<8x4xf32>) -> tensor<8x2xf32>
func.func @call_one_chunk(%x: tensor<8x4xf32>) -> tensor<8x2xf32> {
  %y = cpu.call_mlip @sg8(%x) {chunks = 1 : i64} : (tensor<8x4xf32>) -> tensor<8x2xf32>
  func.return %y : tensor<8x2xf32>
}

// -----

// CHECK: Operation does not verify: every tensor of a cpu op must have a static shape, got tensor<?x4xf32>
func.func @dynamic_shape(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %y = cpu.unary relu %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
  func.return %y : tensor<?x4xf32>
}

// -----

// CHECK: Operation does not verify: 'pads' must have 4 values (begin then end per spatial dim), got 2: [1, 1]
func.func @conv_pads_count(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32> {
  %y = cpu.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  func.return %y : tensor<1x4x8x8xf32>
}

// -----

// CHECK: Operation does not verify: 'R' must have the result's type tensor<1x4x8x8xf32>, got tensor<1x4x1x1xf32>
func.func @conv_residual_broadcast(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %r: tensor<1x4x1x1xf32>) -> tensor<1x4x8x8xf32> {
  %y = cpu.conv %x, %w residual %r {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) residual tensor<1x4x1x1xf32> -> tensor<1x4x8x8xf32>
  func.return %y : tensor<1x4x8x8xf32>
}

// -----

// CHECK: Operation does not verify: 'min' and 'max' must be numbers, got NaN
func.func @conv_clamp_nan(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32> {
  %y = cpu.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1 : i64, max = 0x7FC00000 : f32} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  func.return %y : tensor<1x4x8x8xf32>
}

// -----

// CHECK: Operation does not verify: 'strides' values must be >= 1, got [0, 1]
func.func @conv_zero_stride(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32> {
  %y = cpu.conv %x, %w {strides = array<i64: 0, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  func.return %y : tensor<1x4x8x8xf32>
}

// -----

// CHECK: Operation does not verify: 'W' dim 1 times 'group' must be the input channels 4, got 1 x 2
func.func @conv_group(%x: tensor<1x4x8x8xf32>, %w: tensor<4x1x3x3xf32>) -> tensor<1x4x8x8xf32> {
  %y = cpu.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 2 : i64} : (tensor<1x4x8x8xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x8x8xf32>
  func.return %y : tensor<1x4x8x8xf32>
}

// -----

// The result shape must follow from the parameters: with no padding, 8x8 gives 6x6.
// CHECK: Operation does not verify: the result must have shape [1, 4, 6, 6], got [1, 4, 8, 8]
func.func @conv_result_shape(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32> {
  %y = cpu.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  func.return %y : tensor<1x4x8x8xf32>
}

// -----

// CHECK: Operation does not verify: the result must have shape [1, 2, 9, 9], got [1, 2, 10, 10]
func.func @conv_transpose_result_shape(%x: tensor<1x4x4x4xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x2x10x10xf32> {
  %y = cpu.conv_transpose %x, %w {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 1, 1>, output_padding = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x4x4x4xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x10x10xf32>
  func.return %y : tensor<1x2x10x10xf32>
}

// -----

// CHECK: Operation does not verify: the inner dims of A' and B' must agree, got 8 and 3
func.func @gemm_inner_dims(%a: tensor<2x8xf32>, %b: tensor<3x8xf32>) -> tensor<2x8xf32> {
  %y = cpu.gemm %a, %b {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = false} : (tensor<2x8xf32>, tensor<3x8xf32>) -> tensor<2x8xf32>
  func.return %y : tensor<2x8xf32>
}

// -----

// CHECK: Operation does not verify: 'C' must have shape [3], got [8]
func.func @matmul_bias(%a: tensor<2x8xf32>, %b: tensor<8x3xf32>, %c: tensor<8xf32>) -> tensor<2x3xf32> {
  %y = cpu.matmul %a, %b bias %c : (tensor<2x8xf32>, tensor<8x3xf32>) bias tensor<8xf32> -> tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}

// -----

// CHECK: Operation does not verify: 'A' [2, 8] and 'B' [3, 8] do not fit numpy's matmul
func.func @matmul_shapes(%a: tensor<2x8xf32>, %b: tensor<3x8xf32>) -> tensor<2x8xf32> {
  %y = cpu.matmul %a, %b : (tensor<2x8xf32>, tensor<3x8xf32>) -> tensor<2x8xf32>
  func.return %y : tensor<2x8xf32>
}

// -----

// CHECK: Operation does not verify: 'less' must give i1 elements, got f32
func.func @comparison_result(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %y = cpu.binary less %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}

// -----

// CHECK: Operation does not verify: the operand shapes [[2, 4], [3, 1]] must broadcast to the result shape [2, 4]
func.func @binary_broadcast(%a: tensor<2x4xf32>, %b: tensor<3x1xf32>) -> tensor<2x4xf32> {
  %y = cpu.binary add %a, %b : (tensor<2x4xf32>, tensor<3x1xf32>) -> tensor<2x4xf32>
  func.return %y : tensor<2x4xf32>
}

// -----

// CHECK: Operation does not verify: 'not' takes i1 elements, got f32
func.func @not_on_floats(%a: tensor<4xf32>) -> tensor<4xf32> {
  %y = cpu.unary not %a : (tensor<4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}

// -----

// CHECK: Operation does not verify: 'axis' must be in [0, 2) for a rank-2 input, got -1
func.func @softmax_negative_axis(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %y = cpu.softmax %x {axis = -1 : i64} : (tensor<2x5xf32>) -> tensor<2x5xf32>
  func.return %y : tensor<2x5xf32>
}

// -----

// CHECK: Operation does not verify: 'Scale' must have shape [5], got [2, 5]
func.func @layer_norm_scale(%x: tensor<2x5xf32>, %s: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %y = cpu.layer_norm %x, %s {axis = 1 : i64, epsilon = 1.0e-05 : f32} : (tensor<2x5xf32>, tensor<2x5xf32>) -> tensor<2x5xf32>
  func.return %y : tensor<2x5xf32>
}

// -----

// CHECK: Operation does not verify: 'scale', 'B', 'mean' and 'var' must have shape [8], got [4]
func.func @batch_norm_channels(%x: tensor<1x8x2x2xf32>, %c: tensor<4xf32>) -> tensor<1x8x2x2xf32> {
  %y = cpu.batch_norm %x, %c, %c, %c, %c {epsilon = 1.0e-05 : f32} : (tensor<1x8x2x2xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x8x2x2xf32>
  func.return %y : tensor<1x8x2x2xf32>
}

// -----

// CHECK: Operation does not verify: spatial dim 0 of the result must be 3 (or 4 with ceil_mode), got 2
func.func @pool_result_shape(%x: tensor<1x8x7x7xf32>) -> tensor<1x8x2x3xf32> {
  %y = cpu.pool max %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, count_include_pad = false} : (tensor<1x8x7x7xf32>) -> tensor<1x8x2x3xf32>
  func.return %y : tensor<1x8x2x3xf32>
}

// -----

// CHECK: Operation does not verify: 'ratio' must be in [0, 1), got 1.0
func.func @dropout_ratio(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %y = cpu.dropout %x {ratio = 1.0 : f32, seed = 0 : i64} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  func.return %y : tensor<3x4xf32>
}

// -----

// CHECK: Operation does not verify: 'seed' must be in [0, 2^32), got -1
func.func @dropout_seed(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %y = cpu.dropout %x {ratio = 0.5 : f32, seed = -1 : i64} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  func.return %y : tensor<3x4xf32>
}

// -----

// CHECK: Operation does not verify: 'mask' must have shape [3, 4], got [4, 3]
func.func @dropout_mask(%x: tensor<3x4xf32>) -> tensor<4x3xi1> {
  %y, %m = cpu.dropout %x {ratio = 0.5 : f32, seed = 0 : i64} : (tensor<3x4xf32>) -> (tensor<3x4xf32>, tensor<4x3xi1>)
  func.return %m : tensor<4x3xi1>
}

// -----

// CHECK: Operation does not verify: only a max pool has an 'indices' result, got kind 'average'
func.func @pool_average_indices(%x: tensor<1x8x4x4xf32>) -> tensor<1x8x2x2xi64> {
  %y, %i = cpu.pool average %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, count_include_pad = false, storage_order = 0 : i64} : (tensor<1x8x4x4xf32>) -> (tensor<1x8x2x2xf32>, tensor<1x8x2x2xi64>)
  func.return %i : tensor<1x8x2x2xi64>
}

// -----

// CHECK: Operation does not verify: 'storage_order' must be given exactly when there is an 'indices' result
func.func @pool_storage_order_alone(%x: tensor<1x8x4x4xf32>) -> tensor<1x8x2x2xf32> {
  %y = cpu.pool max %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, count_include_pad = false, storage_order = 0 : i64} : (tensor<1x8x4x4xf32>) -> tensor<1x8x2x2xf32>
  func.return %y : tensor<1x8x2x2xf32>
}

// -----

// CHECK: Operation does not verify: 'indices' must have shape [1, 8, 2, 2], got [1, 8, 4]
func.func @pool_indices_shape(%x: tensor<1x8x4x4xf32>) -> tensor<1x8x4xi64> {
  %y, %i = cpu.pool max %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, count_include_pad = false, storage_order = 1 : i64} : (tensor<1x8x4x4xf32>) -> (tensor<1x8x2x2xf32>, tensor<1x8x4xi64>)
  func.return %i : tensor<1x8x4xi64>
}

// -----

// CHECK: Operation does not verify: the result must have shape [1, 8, 1, 1], got [1, 8]
func.func @global_pool_result(%x: tensor<1x8x7x7xf32>) -> tensor<1x8xf32> {
  %y = cpu.global_pool average %x : (tensor<1x8x7x7xf32>) -> tensor<1x8xf32>
  func.return %y : tensor<1x8xf32>
}

// -----

// CHECK: Operation does not verify: 'axes' must be distinct, increasing and in [0, 4), got [3, 2]
func.func @reduce_axes_order(%x: tensor<1x8x4x4xf32>) -> tensor<1x8x1x1xf32> {
  %y = cpu.reduce mean %x {axes = array<i64: 3, 2>, keepdims = true} : (tensor<1x8x4x4xf32>) -> tensor<1x8x1x1xf32>
  func.return %y : tensor<1x8x1x1xf32>
}

// -----

// CHECK: Operation does not verify: the inputs must agree on all dims but 'axis' (1), got [[1, 8, 2, 3], [1, 4, 3, 3]]
func.func @concat_dims(%x: tensor<1x8x2x3xf32>, %y: tensor<1x4x3x3xf32>) -> tensor<1x12x2x3xf32> {
  %z = cpu.concat %x, %y {axis = 1 : i64} : (tensor<1x8x2x3xf32>, tensor<1x4x3x3xf32>) -> tensor<1x12x2x3xf32>
  func.return %z : tensor<1x12x2x3xf32>
}

// -----

// CHECK: Operation does not verify: the result must have the input's element count 48, got 50 ([5, 10])
func.func @reshape_count(%x: tensor<1x8x2x3xf32>) -> tensor<5x10xf32> {
  %y = cpu.reshape %x : (tensor<1x8x2x3xf32>) -> tensor<5x10xf32>
  func.return %y : tensor<5x10xf32>
}

// -----

// CHECK: Operation does not verify: 'perm' must be a permutation of [0, 3), got [0, 1, 1]
func.func @transpose_perm(%x: tensor<2x3x4xf32>) -> tensor<2x3x3xf32> {
  %y = cpu.transpose %x {perm = array<i64: 0, 1, 1>} : (tensor<2x3x4xf32>) -> tensor<2x3x3xf32>
  func.return %y : tensor<2x3x3xf32>
}

// -----

// Slice parameters are clamped already: an end past the dim is a bug.
// CHECK: Operation does not verify: dim 1 (size 8, step 1) needs a start in [0, 8] and an end in [0, 8], got 0 and 100
func.func @slice_unclamped(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %y = cpu.slice %x {starts = array<i64: 0, 0>, ends = array<i64: 2, 100>, steps = array<i64: 1, 1>} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  func.return %y : tensor<2x8xf32>
}

// -----

// CHECK: Operation does not verify: 'starts' must have 2 values (one per input dim), got 1: [0]
func.func @slice_count(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %y = cpu.slice %x {starts = array<i64: 0>, ends = array<i64: 8>, steps = array<i64: 1>} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  func.return %y : tensor<2x8xf32>
}

// -----

// CHECK: Operation does not verify: 'sizes' must add up to dim 1 of the input (8), got [4, 3]
func.func @split_sizes(%x: tensor<2x8xf32>) -> (tensor<2x4xf32>, tensor<2x3xf32>) {
  %a, %b = cpu.split %x {axis = 1 : i64, sizes = array<i64: 4, 3>} : (tensor<2x8xf32>) -> (tensor<2x4xf32>, tensor<2x3xf32>)
  func.return %a, %b : tensor<2x4xf32>, tensor<2x3xf32>
}

// -----

// CHECK: Operation does not verify: the result must have shape [3, 8], got [2, 8]
func.func @gather_result(%x: tensor<2x8xf32>, %i: tensor<3xi64>) -> tensor<2x8xf32> {
  %y = cpu.gather %x, %i {axis = 0 : i64} : (tensor<2x8xf32>, tensor<3xi64>) -> tensor<2x8xf32>
  func.return %y : tensor<2x8xf32>
}

// -----

// CHECK: Operation does not verify: 'pads' must have 4 values (begin then end per input dim), got 2: [1, 1]
func.func @pad_count(%x: tensor<2x8xf32>) -> tensor<2x10xf32> {
  %y = cpu.pad constant %x {pads = array<i64: 1, 1>, value = 0.0 : f32} : (tensor<2x8xf32>) -> tensor<2x10xf32>
  func.return %y : tensor<2x10xf32>
}

// -----

// CHECK: Operation does not verify: 'antialias' needs mode linear or cubic, got nearest
func.func @resize_antialias_nearest(%x: tensor<2x8xf32>) -> tensor<2x4xf32> {
  %y = cpu.resize nearest %x {scales = array<f32: 1.0, 0.5>, coordinate_transformation_mode = #cpu<coordinate_transformation_mode asymmetric>, nearest_mode = #cpu<nearest_mode floor>, cubic_coeff_a = -0.75 : f32, exclude_outside = false, extrapolation_value = 0.0 : f32, antialias = true} : (tensor<2x8xf32>) -> tensor<2x4xf32>
  func.return %y : tensor<2x4xf32>
}

// -----

// CHECK: Operation does not verify: 'roi' must be given exactly with coordinate_transformation_mode tf_crop_and_resize
func.func @resize_crop_without_roi(%x: tensor<2x8xf32>) -> tensor<2x4xf32> {
  %y = cpu.resize linear %x {scales = array<f32: 1.0, 0.5>, coordinate_transformation_mode = #cpu<coordinate_transformation_mode tf_crop_and_resize>, nearest_mode = #cpu<nearest_mode floor>, cubic_coeff_a = -0.75 : f32, exclude_outside = false, extrapolation_value = 0.0 : f32, antialias = false} : (tensor<2x8xf32>) -> tensor<2x4xf32>
  func.return %y : tensor<2x4xf32>
}

// -----

// CHECK: Operation does not verify: 'roi' must be given exactly with coordinate_transformation_mode tf_crop_and_resize
func.func @resize_roi_without_crop(%x: tensor<2x8xf32>) -> tensor<2x4xf32> {
  %y = cpu.resize linear %x {scales = array<f32: 1.0, 0.5>, coordinate_transformation_mode = #cpu<coordinate_transformation_mode half_pixel>, nearest_mode = #cpu<nearest_mode floor>, cubic_coeff_a = -0.75 : f32, exclude_outside = false, extrapolation_value = 0.0 : f32, antialias = false, roi = array<f32: 0.0, 0.0, 1.0, 1.0>} : (tensor<2x8xf32>) -> tensor<2x4xf32>
  func.return %y : tensor<2x4xf32>
}

// -----

// CHECK: Operation does not verify: 'roi' must have 4 values (starts then ends, per input dim), got 2: [0.0, 1.0]
func.func @resize_roi_count(%x: tensor<2x8xf32>) -> tensor<2x4xf32> {
  %y = cpu.resize linear %x {scales = array<f32: 1.0, 0.5>, coordinate_transformation_mode = #cpu<coordinate_transformation_mode tf_crop_and_resize>, nearest_mode = #cpu<nearest_mode floor>, cubic_coeff_a = -0.75 : f32, exclude_outside = false, extrapolation_value = 0.0 : f32, antialias = false, roi = array<f32: 0.0, 1.0>} : (tensor<2x8xf32>) -> tensor<2x4xf32>
  func.return %y : tensor<2x4xf32>
}

// -----

// CHECK: Operation does not verify: 'scales' must be positive, got [1.0, 0.0]
func.func @resize_scales(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %y = cpu.resize nearest %x {scales = array<f32: 1.0, 0.0>, coordinate_transformation_mode = #cpu<coordinate_transformation_mode asymmetric>, nearest_mode = #cpu<nearest_mode floor>, cubic_coeff_a = -0.75 : f32, exclude_outside = false, extrapolation_value = 0.0 : f32, antialias = false} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  func.return %y : tensor<2x8xf32>
}

// -----

// CHECK: Operation does not verify: the input must be (N, C, H, W) with C a multiple of 4, got [1, 6, 2, 2]
func.func @depth_to_space_channels(%x: tensor<1x6x2x2xf32>) -> tensor<1x1x4x4xf32> {
  %y = cpu.depth_to_space DCR %x {blocksize = 2 : i64} : (tensor<1x6x2x2xf32>) -> tensor<1x1x4x4xf32>
  func.return %y : tensor<1x1x4x4xf32>
}

// -----

// CHECK: Operation does not verify: the input shape [[3, 2]] must broadcast to the result shape [3, 4]
func.func @expand_shape(%x: tensor<3x2xf32>) -> tensor<3x4xf32> {
  %y = cpu.expand %x : (tensor<3x2xf32>) -> tensor<3x4xf32>
  func.return %y : tensor<3x4xf32>
}

// -----

// CHECK: Operation does not verify: the result must have shape [2, 3], got [3, 2]
func.func @cast_shape(%x: tensor<2x3xi64>) -> tensor<3x2xf32> {
  %y = cpu.cast %x : (tensor<2x3xi64>) -> tensor<3x2xf32>
  func.return %y : tensor<3x2xf32>
}

// -----

// Every property is required: there are no defaults to fill in.
// CHECK: Operation does not verify: property 'group' expected in operation 'cpu.conv'
func.func @missing_property(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %y = cpu.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  func.return %y : tensor<1x4x6x6xf32>
}

// -----

// CHECK: Operation does not verify: the result must have shape [3, 1, 5], got [3, 5]
func.func @arg_reduce_keepdims(%x: tensor<3x4x5xf32>) -> tensor<3x5xi64> {
  %y = cpu.arg_reduce max %x {axis = 1 : i64, keepdims = true, select_last_index = false} : (tensor<3x4x5xf32>) -> tensor<3x5xi64>
  func.return %y : tensor<3x5xi64>
}

// -----

// CHECK: Operation does not verify: dim 0 of the input must not be empty: it has no extreme
func.func @arg_reduce_empty(%x: tensor<0x4xf32>) -> tensor<4xi64> {
  %y = cpu.arg_reduce min %x {axis = 0 : i64, keepdims = false, select_last_index = false} : (tensor<0x4xf32>) -> tensor<4xi64>
  func.return %y : tensor<4xi64>
}

// -----

// CHECK: Operation does not verify: 'axis' must be in [0, 2) for a rank-2 input, got 2
func.func @hardmax_axis(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %y = cpu.hardmax %x {axis = 2 : i64} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  func.return %y : tensor<3x4xf32>
}

// -----

// CHECK: Operation does not verify: 'axis' must be in [0, 1) for a rank-1 input, got -1
func.func @cumulative_axis(%x: tensor<5xf64>) -> tensor<5xf64> {
  %y = cpu.cumulative sum %x {axis = -1 : i64, exclusive = false, reverse = false} : (tensor<5xf64>) -> tensor<5xf64>
  func.return %y : tensor<5xf64>
}

// -----

// CHECK: Operation does not verify: 'k' must be in [0, 4] (dim 1 of the input), got 5
func.func @top_k_k(%x: tensor<3x4xf32>) -> (tensor<3x5xf32>, tensor<3x5xi64>) {
  %v, %i = cpu.top_k %x {axis = 1 : i64, k = 5 : i64, largest = true} : (tensor<3x4xf32>) -> (tensor<3x5xf32>, tensor<3x5xi64>)
  func.return %v, %i : tensor<3x5xf32>, tensor<3x5xi64>
}

// -----

// CHECK: Operation does not verify: 'indices' must have shape [3, 2], got [3, 3]
func.func @top_k_indices(%x: tensor<3x4xf32>) -> (tensor<3x2xf32>, tensor<3x3xi64>) {
  %v, %i = cpu.top_k %x {axis = 1 : i64, k = 2 : i64, largest = true} : (tensor<3x4xf32>) -> (tensor<3x2xf32>, tensor<3x3xi64>)
  func.return %v, %i : tensor<3x2xf32>, tensor<3x3xi64>
}

// -----

// CHECK: Operation does not verify: 'Scale' must have shape [3, 4], got [4]
func.func @rms_norm_scale(%x: tensor<2x3x4xf32>, %s: tensor<4xf32>) -> tensor<2x3x4xf32> {
  %y = cpu.rms_norm %x, %s {axis = 1 : i64, epsilon = 1.0e-05 : f32} : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  func.return %y : tensor<2x3x4xf32>
}

// -----

// CHECK: Operation does not verify: 'Scale' must have the element type of 'X' (f32), got f64
func.func @rms_norm_scale_type(%x: tensor<2x4xf32>, %s: tensor<4xf64>) -> tensor<2x4xf32> {
  %y = cpu.rms_norm %x, %s {axis = 1 : i64, epsilon = 1.0e-05 : f32} : (tensor<2x4xf32>, tensor<4xf64>) -> tensor<2x4xf32>
  func.return %y : tensor<2x4xf32>
}

// -----

// CHECK: Operation does not verify: 'indices' must have the rank of 'data' [3, 4] and no larger dim but 'axis' (1), got [4, 2]
func.func @gather_elements_indices(%x: tensor<3x4xf32>, %i: tensor<4x2xi64>) -> tensor<4x2xf32> {
  %y = cpu.gather_elements %x, %i {axis = 1 : i64} : (tensor<3x4xf32>, tensor<4x2xi64>) -> tensor<4x2xf32>
  func.return %y : tensor<4x2xf32>
}

// -----

// CHECK: Operation does not verify: the input must have a rank of at least 2, got [5]
func.func @trilu_rank(%x: tensor<5xi64>) -> tensor<5xi64> {
  %y = cpu.trilu %x {upper = true, k = 0 : i64} : (tensor<5xi64>) -> tensor<5xi64>
  func.return %y : tensor<5xi64>
}

// -----

// CHECK: Operation does not verify: 'delta' must be a scalar (rank 0), got shape [1]
func.func @range_delta(%start: tensor<f32>, %delta: tensor<1xf32>) -> tensor<5xf32> {
  %y = cpu.range %start, %delta : (tensor<f32>, tensor<1xf32>) -> tensor<5xf32>
  func.return %y : tensor<5xf32>
}

// -----

// CHECK: Operation does not verify: 'gamma' must be given exactly for kind selu
func.func @activation_gamma(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = cpu.activation elu %x {alpha = 1.0 : f32, gamma = 2.0 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}

// -----

// CHECK: Operation does not verify: 'alpha' of celu must not be 0: it divides by it
func.func @activation_celu_alpha(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = cpu.activation celu %x {alpha = 0.0 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}

// -----

// CHECK: Operation does not verify: 'updates' must have shape [2, 4], got [2, 3]
func.func @scatter_elements_updates(%x: tensor<3x4xf32>, %i: tensor<2x4xi64>, %u: tensor<2x3xf32>) -> tensor<3x4xf32> {
  %y = cpu.scatter_elements none %x, %i, %u {axis = 0 : i64} : (tensor<3x4xf32>, tensor<2x4xi64>, tensor<2x3xf32>) -> tensor<3x4xf32>
  func.return %y : tensor<3x4xf32>
}

// -----

// CHECK: Operation does not verify: 'indices' must have a last dim in [1, 2] (the rank of 'data'), got shape [2, 3]
func.func @scatter_nd_depth(%x: tensor<3x4xf32>, %i: tensor<2x3xi64>, %u: tensor<2xf32>) -> tensor<3x4xf32> {
  %y = cpu.scatter_nd add %x, %i, %u : (tensor<3x4xf32>, tensor<2x3xi64>, tensor<2xf32>) -> tensor<3x4xf32>
  func.return %y : tensor<3x4xf32>
}

// -----

// CHECK: Operation does not verify: 'updates' must have shape [2, 4], got [2]
func.func @scatter_nd_updates(%x: tensor<3x4xf32>, %i: tensor<2x1xi64>, %u: tensor<2xf32>) -> tensor<3x4xf32> {
  %y = cpu.scatter_nd mul %x, %i, %u : (tensor<3x4xf32>, tensor<2x1xi64>, tensor<2xf32>) -> tensor<3x4xf32>
  func.return %y : tensor<3x4xf32>
}

// -----

// CHECK: Operation does not verify: 'offsets' must have one value per result (2), got 1
func.func @offsets_count(%x: tensor<3x4x5xf32>) -> tensor<3x4x2xf32> {
  %v, %i = cpu.top_k %x {axis = 2 : i64, k = 2 : i64, largest = true, offsets = array<i64: 0>} : (tensor<3x4x5xf32>) -> (tensor<3x4x2xf32>, tensor<3x4x2xi64>)
  func.return %v : tensor<3x4x2xf32>
}

// -----

// CHECK: Operation does not verify: packed 'W' must be (group, panels, C/group, kernel..., panel) with room for 40 output channels per group, got shape [1, 2, 2, 1, 2, 16]
func.func @packed_too_small(%x: tensor<1x2x3x4xf32>, %w: tensor<1x2x2x1x2x16xf32>) -> tensor<1x40x3x3xf32> {
  %y = cpu.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, packed_weights} : (tensor<1x2x3x4xf32>, tensor<1x2x2x1x2x16xf32>) -> tensor<1x40x3x3xf32>
  func.return %y : tensor<1x40x3x3xf32>
}

// -----

// CHECK: Operation does not verify: packed 'B' must be (panels, K, panel) with room for 40 columns, got shape [1, 8, 32]
func.func @packed_b_too_small(%x: tensor<2x8xf32>, %b: tensor<1x8x32xf32>) -> tensor<2x40xf32> {
  %y = cpu.matmul %x, %b {packed_b} : (tensor<2x8xf32>, tensor<1x8x32xf32>) -> tensor<2x40xf32>
  func.return %y : tensor<2x40xf32>
}

// -----

// CHECK: Operation does not verify: a transposed 'B' must be one matrix, not packed
func.func @transposed_b_batched(%x: tensor<2x1x8xf32>, %b: tensor<2x4x8xf32>) -> tensor<2x1x4xf32> {
  %y = cpu.matmul %x, %b {transposed_b} : (tensor<2x1x8xf32>, tensor<2x4x8xf32>) -> tensor<2x1x4xf32>
  func.return %y : tensor<2x1x4xf32>
}

// -----

// CHECK: Operation does not verify: 'activations' must have 2 values (1 per direction), got 1: ['tanh']
func.func @recurrent_activations(%x: tensor<5x2x3xf32>, %w: tensor<2x4x3xf32>, %r: tensor<2x4x4xf32>) -> tensor<2x2x4xf32> {
  %yh = cpu.recurrent rnn %x, %w, %r {direction = #cpu<recurrent_direction bidirectional>, layout = 0 : i64, activations = [#cpu<recurrent_activation tanh>], alphas = array<f32: 0.0>, betas = array<f32: 0.0>} : (tensor<5x2x3xf32>, tensor<2x4x3xf32>, tensor<2x4x4xf32>) -> Y_h tensor<2x2x4xf32>
  func.return %yh : tensor<2x2x4xf32>
}

// -----

// CHECK: Operation does not verify: 'R' (hidden size 3: its last dim) must have shape [1, 9, 3], got [1, 12, 3]
func.func @recurrent_weights(%x: tensor<5x2x3xf32>, %w: tensor<1x12x3xf32>, %r: tensor<1x12x3xf32>, %y: tensor<1x2x4xf32>) -> tensor<1x2x4xf32> {
  %yh = cpu.recurrent gru %x, %w, %r initial_h %y {direction = #cpu<recurrent_direction forward>, layout = 0 : i64, activations = [#cpu<recurrent_activation sigmoid>, #cpu<recurrent_activation tanh>], alphas = array<f32: 0.0, 0.0>, betas = array<f32: 0.0, 0.0>} : (tensor<5x2x3xf32>, tensor<1x12x3xf32>, tensor<1x12x3xf32>) initial_h tensor<1x2x4xf32> -> Y_h tensor<1x2x3xf32>
  func.return %y : tensor<1x2x4xf32>
}

// -----

// CHECK: Operation does not verify: 'initial_c', 'P', 'Y_c', 'input_forget' and 'quantized_hidden' are for kind lstm only
func.func @recurrent_input_forget(%x: tensor<5x2x3xf32>, %w: tensor<1x4x3xf32>, %r: tensor<1x4x4xf32>) -> tensor<1x2x4xf32> {
  %yh = cpu.recurrent rnn %x, %w, %r {direction = #cpu<recurrent_direction forward>, layout = 0 : i64, activations = [#cpu<recurrent_activation tanh>], alphas = array<f32: 0.0>, betas = array<f32: 0.0>, input_forget} : (tensor<5x2x3xf32>, tensor<1x4x3xf32>, tensor<1x4x4xf32>) -> Y_h tensor<1x2x4xf32>
  func.return %yh : tensor<1x2x4xf32>
}

// -----

// CHECK: Operation does not verify: 'Y' must have shape [2, 5, 1, 4], got [5, 1, 2, 4]
func.func @recurrent_layout(%x: tensor<2x5x3xf32>, %w: tensor<1x4x3xf32>, %r: tensor<1x4x4xf32>) -> tensor<5x1x2x4xf32> {
  %y = cpu.recurrent rnn %x, %w, %r {direction = #cpu<recurrent_direction forward>, layout = 1 : i64, activations = [#cpu<recurrent_activation tanh>], alphas = array<f32: 0.0>, betas = array<f32: 0.0>} : (tensor<2x5x3xf32>, tensor<1x4x3xf32>, tensor<1x4x4xf32>) -> Y tensor<5x1x2x4xf32>
  func.return %y : tensor<5x1x2x4xf32>
}

// -----

// CHECK: Operation does not verify: activation leaky_relu takes alpha, got none
func.func @conv_activation_without_alpha(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %y = cpu.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, activation = #cpu<epilogue_kind leaky_relu>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  func.return %y : tensor<1x4x6x6xf32>
}

// -----

// CHECK: Operation does not verify: a 'slope' goes with activation prelu, and activation prelu takes one
func.func @conv_prelu_without_slope(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %y = cpu.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, activation = #cpu<epilogue_kind prelu>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  func.return %y : tensor<1x4x6x6xf32>
}

// -----

// CHECK: Operation does not verify: 'slope' must have shape [4], got [1]
func.func @matmul_slope_per_column(%x: tensor<2x3xf32>, %w: tensor<3x4xf32>, %a: tensor<1xf32>) -> tensor<2x4xf32> {
  %y = cpu.matmul %x, %w slope %a {activation = #cpu<epilogue_kind prelu>} : (tensor<2x3xf32>, tensor<3x4xf32>) slope tensor<1xf32> -> tensor<2x4xf32>
  func.return %y : tensor<2x4xf32>
}

// -----

// CHECK: Operation does not verify: the result must be (N, C, spatial...) of 'X' [1, 8, 4, 4], got [1, 4, 2, 2]
func.func @pool_channels_last_channels_change(%x: tensor<1x4x4x8xf32>) -> tensor<1x2x2x4xf32> {
  %y = cpu.pool max %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, count_include_pad = false, channels_last} : (tensor<1x4x4x8xf32>) -> tensor<1x2x2x4xf32>
  func.return %y : tensor<1x2x2x4xf32>
}

// -----

// CHECK: Operation does not verify: a channels_last pool has no 'indices' result
func.func @pool_channels_last_indices(%x: tensor<1x4x4x8xf32>) -> tensor<1x2x2x8xi64> {
  %y, %i = cpu.pool max %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, count_include_pad = false, storage_order = 0 : i64, channels_last} : (tensor<1x4x4x8xf32>) -> (tensor<1x2x2x8xf32>, tensor<1x2x2x8xi64>)
  func.return %i : tensor<1x2x2x8xi64>
}

// -----

// CHECK: Operation does not verify: 'W' dim 0 must be the input channels 8, a multiple of 'group' (1), got 4
func.func @conv_transpose_channels_last_input(%x: tensor<1x4x4x8xf32>, %w: tensor<4x2x2x2xf32>) -> tensor<1x8x8x2xf32> {
  %y = cpu.conv_transpose %x, %w {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, output_padding = array<i64: 0, 0>, group = 1 : i64, channels_last} : (tensor<1x4x4x8xf32>, tensor<4x2x2x2xf32>) -> tensor<1x8x8x2xf32>
  func.return %y : tensor<1x8x8x2xf32>
}

// -----

// CHECK: Operation does not verify: the result must have shape [1, 8, 8, 2], got [1, 8, 2, 8]
func.func @conv_transpose_channels_last_result(%x: tensor<1x4x4x8xf32>, %w: tensor<8x2x2x2xf32>) -> tensor<1x8x8x2xf32> {
  %y = cpu.conv_transpose %x, %w {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, output_padding = array<i64: 0, 0>, group = 1 : i64, channels_last} : (tensor<1x4x4x8xf32>, tensor<8x2x2x2xf32>) -> tensor<1x8x2x8xf32>
  func.return %y : tensor<1x8x2x8xf32>
}

// -----

// CHECK: Operation does not verify: 'slope' must have shape [2], got [8]
func.func @conv_transpose_channels_last_slope(%x: tensor<1x4x4x8xf32>, %w: tensor<8x2x2x2xf32>, %a: tensor<8xf32>) -> tensor<1x8x8x2xf32> {
  %y = cpu.conv_transpose %x, %w slope %a {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, output_padding = array<i64: 0, 0>, group = 1 : i64, channels_last, activation = #cpu<epilogue_kind prelu>} : (tensor<1x4x4x8xf32>, tensor<8x2x2x2xf32>) slope tensor<8xf32> -> tensor<1x8x8x2xf32>
  func.return %y : tensor<1x8x8x2xf32>
}

// -----

// CHECK: Operation does not verify: 'scale', 'B', 'mean' and 'var' must have shape [2], got [8]
func.func @batch_norm_channels_last(%x: tensor<1x8x8x2xf32>, %s: tensor<8xf32>) -> tensor<1x8x8x2xf32> {
  %y = cpu.batch_norm %x, %s, %s, %s, %s {epsilon = 1.0e-05 : f32, channels_last} : (tensor<1x8x8x2xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x8x2xf32>
  func.return %y : tensor<1x8x8x2xf32>
}

// -----

// CHECK: Operation does not verify: the result must have shape [1, 1, 1, 8], got [1, 8, 1, 1]
func.func @global_pool_channels_last_result(%x: tensor<1x4x4x8xf32>) -> tensor<1x1x1x8xf32> {
  %y = cpu.global_pool average %x {channels_last} : (tensor<1x4x4x8xf32>) -> tensor<1x8x1x1xf32>
  func.return %y : tensor<1x8x1x1xf32>
}

// -----

// CHECK: Operation does not verify: 'in_strides' must have 2 values (one per input dim), got 1: [1]
func.func @split_in_strides(%x: tensor<2x8xf32>) -> tensor<2x4xf32> {
  %a, %b = cpu.split %x {axis = 1 : i64, sizes = array<i64: 4, 4>, in_strides = array<i64: 1>} : (tensor<2x8xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>)
  func.return %a : tensor<2x4xf32>
}

// -----

// CHECK: Operation does not verify: 'in_place' must name an operand of the result's type, got 0
func.func @binary_in_place_over_other_type(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xi1> {
  %y = cpu.binary greater %a, %b {in_place = 0 : i64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  func.return %y : tensor<4xi1>
}

// -----

// CHECK: Operation does not verify: 'in_place' must name the input (0), got 1
func.func @unary_in_place_not_the_input(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = cpu.unary relu %x {in_place = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}

// -----

// CHECK: Operation does not verify: the scale must have shape [], got [1]
func.func @dynamic_quantize_scale_not_a_scalar(%x: tensor<4xf32>) -> tensor<4xui8> {
  %y, %s, %z = cpu.dynamic_quantize %x : (tensor<4xf32>) -> (tensor<4xui8>, tensor<1xf32>, tensor<ui8>)
  func.return %y : tensor<4xui8>
}

// -----

// CHECK: Operation does not verify: 'B' must be int8 or uint8, got i16
func.func @matmul_integer_of_int16(%a: tensor<2x3xi8>, %b: tensor<3x4xi16>) -> tensor<2x4xi32> {
  %y = cpu.matmul_integer %a, %b : (tensor<2x3xi8>, tensor<3x4xi16>) -> tensor<2x4xi32>
  func.return %y : tensor<2x4xi32>
}

// -----

// CHECK: Operation does not verify: 'b_zero_point' must be one value or 4 (a vector), got [3]
func.func @matmul_integer_zero_points_per_row_of_b(%a: tensor<2x3xi8>, %b: tensor<3x4xi8>, %z: tensor<3xi8>) -> tensor<2x4xi32> {
  %y = cpu.matmul_integer %a, %b b_zero_point %z : (tensor<2x3xi8>, tensor<3x4xi8>) b_zero_point tensor<3xi8> -> tensor<2x4xi32>
  func.return %y : tensor<2x4xi32>
}

// -----

// CHECK: Operation does not verify: 'column_scale' must be one value or 4, got [3]
func.func @requantize_column_scale_per_row(%s: tensor<2x4xi32>, %a: tensor<f32>, %b: tensor<3xf32>, %z: tensor<ui8>) -> tensor<2x4xui8> {
  %y = cpu.requantize %s, %a, %b, %a, %z : (tensor<2x4xi32>, tensor<f32>, tensor<3xf32>, tensor<f32>, tensor<ui8>) -> tensor<2x4xui8>
  func.return %y : tensor<2x4xui8>
}

// -----

// CHECK: Operation does not verify: the result must have shape [1, 4, 3, 3], got [1, 4, 4, 4]
func.func @conv_integer_result_of_other_window(%x: tensor<1x2x5x5xui8>, %w: tensor<4x2x3x3xi8>) -> tensor<1x4x4x4xi32> {
  %y = cpu.conv_integer %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64} : (tensor<1x2x5x5xui8>, tensor<4x2x3x3xi8>) -> tensor<1x4x4x4xi32>
  func.return %y : tensor<1x4x4x4xi32>
}

// -----

// CHECK: Operation does not verify: packed 'w' must be int8 and the op must have 'weights_shape'
func.func @qlinear_conv_packed_without_shape(%x: tensor<1x4x5x5xui8>, %s: tensor<f32>, %zx: tensor<ui8>, %w: tensor<1x320xi8>, %zw: tensor<i8>) -> tensor<1x6x5x5xui8> {
  %y = cpu.qlinear_conv %x, %s, %zx, %w, %s, %zw, %s, %zx {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1 : i64, packed_weights} : (tensor<1x4x5x5xui8>, tensor<f32>, tensor<ui8>, tensor<1x320xi8>, tensor<f32>, tensor<i8>, tensor<f32>, tensor<ui8>) -> tensor<1x6x5x5xui8>
  func.return %y : tensor<1x6x5x5xui8>
}

// -----

// CHECK: Operation does not verify: the result must have the input's element type
func.func @qlinear_softmax_mixed_types(%x: tensor<4x8xui8>, %s: tensor<f32>, %z: tensor<i8>) -> tensor<4x8xi8> {
  %y = cpu.qlinear_softmax %x, %s, %s, %z {axis = 1 : i64} : (tensor<4x8xui8>, tensor<f32>, tensor<f32>, tensor<i8>) -> tensor<4x8xi8>
  func.return %y : tensor<4x8xi8>
}

// -----

// CHECK: Operation does not verify: 'b' and its zero point must have the result's element type ui8
func.func @qlinear_add_mixed_types(%a: tensor<4xui8>, %b: tensor<4xi8>, %s: tensor<f32>, %z: tensor<ui8>, %zi: tensor<i8>) -> tensor<4xui8> {
  %y = cpu.qlinear_add %a, %s, %z, %b, %s, %zi, %s, %z : (tensor<4xui8>, tensor<f32>, tensor<ui8>, tensor<4xi8>, tensor<f32>, tensor<i8>, tensor<f32>, tensor<ui8>) -> tensor<4xui8>
  func.return %y : tensor<4xui8>
}

// -----

// CHECK: Operation does not verify: 'b' must have shape [4], got [1]
func.func @qlinear_add_broadcast(%a: tensor<4xui8>, %b: tensor<1xui8>, %s: tensor<f32>, %z: tensor<ui8>) -> tensor<4xui8> {
  %y = cpu.qlinear_add %a, %s, %z, %b, %s, %z, %s, %z : (tensor<4xui8>, tensor<f32>, tensor<ui8>, tensor<1xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<4xui8>
  func.return %y : tensor<4xui8>
}
