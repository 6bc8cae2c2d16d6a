// Verifier errors of mrvl layers, one rule per chunk; --verify-diagnostics prints each and
// goes on. These are MLIP's limits (TVM's legality checks): a layer that breaks one must
// not be built, so placement keeps such ops on the host.
// RUN: mrvl-opt %s --split-input-file --verify-diagnostics | filecheck %s

// CHECK: Operation does not verify: conv2d input must have rank 4, got 3
func.func @conv2d_input_rank(%x: tensor<8x8x3xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x8x8x4xf32> {
  %y = mrvl.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<8x8x3xf32>, tensor<4x3x3x3xf32>) -> tensor<1x8x8x4xf32>
  func.return %y : tensor<1x8x8x4xf32>
}

// -----

// CHECK: Operation does not verify: conv2d input must be a float32 tensor, got tensor<1x8x8x3xf16>
func.func @conv2d_not_f32(%x: tensor<1x8x8x3xf16>, %w: tensor<4x3x3x3xf32>) -> tensor<1x8x8x4xf32> {
  %y = mrvl.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x8x8x3xf16>, tensor<4x3x3x3xf32>) -> tensor<1x8x8x4xf32>
  func.return %y : tensor<1x8x8x4xf32>
}

// -----

// CHECK: Operation does not verify: conv2d weight must be a float32 tensor, got tensor<4x3x3x3xi8>
func.func @conv2d_weight_not_f32(%x: tensor<1x8x8x3xf32>, %w: tensor<4x3x3x3xi8>) -> tensor<1x8x8x4xf32> {
  %y = mrvl.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x8x8x3xf32>, tensor<4x3x3x3xi8>) -> tensor<1x8x8x4xf32>
  func.return %y : tensor<1x8x8x4xf32>
}

// -----

// MLIP runs at most 8 images at once.
// CHECK: Operation does not verify: conv2d input batch must be in [1, 8], got 9
func.func @conv2d_batch_9(%x: tensor<9x8x8x3xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<9x8x8x4xf32> {
  %y = mrvl.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<9x8x8x3xf32>, tensor<4x3x3x3xf32>) -> tensor<9x8x8x4xf32>
  func.return %y : tensor<9x8x8x4xf32>
}

// -----

// CHECK: Operation does not verify: conv2d weight must be OHWI (rank 4), got rank 2
func.func @conv2d_weight_rank(%x: tensor<1x8x8x3xf32>, %w: tensor<4x3xf32>) -> tensor<1x8x8x4xf32> {
  %y = mrvl.conv2d %x, %w {padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x8x3xf32>, tensor<4x3xf32>) -> tensor<1x8x8x4xf32>
  func.return %y : tensor<1x8x8x4xf32>
}

// -----

// The output is NHWC [1, 8, 8, 4]: 3x3 kernel, stride 1, padding 1 on every side; an NCHW
// result type is wrong.
// CHECK: Operation does not verify: conv2d output must be [1, 8, 8, 4], got [1, 4, 8, 8]
func.func @conv2d_output_shape(%x: tensor<1x8x8x3xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32> {
  %y = mrvl.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  func.return %y : tensor<1x4x8x8xf32>
}

// -----

// Padding is (top, left, bottom, right): with (0, 0, 2, 2) and stride 2, an 8x7 input
// gives 4x4 ([1, 3, 5, 4] would read it as top, bottom, left, right).
// CHECK: Operation does not verify: conv2d output must be [1, 4, 4, 4], got [1, 3, 5, 4]
func.func @conv2d_padding_order(%x: tensor<1x8x7x3xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x3x5x4xf32> {
  %y = mrvl.conv2d %x, %w {padding = array<i64: 0, 0, 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x8x7x3xf32>, tensor<4x3x3x3xf32>) -> tensor<1x3x5x4xf32>
  func.return %y : tensor<1x3x5x4xf32>
}

// -----

// Grouped convolution (2 groups of 4 channels) is not a MLIP layer.
// CHECK: Operation does not verify: conv2d groups must be 1 or depthwise (groups = channels = 8), got 2
func.func @conv2d_grouped(%x: tensor<1x8x8x8xf32>, %w: tensor<8x3x3x4xf32>) -> tensor<1x8x8x8xf32> {
  %y = mrvl.conv2d %x, %w {groups = 2 : i64, padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x8x8x8xf32>, tensor<8x3x3x4xf32>) -> tensor<1x8x8x8xf32>
  func.return %y : tensor<1x8x8x8xf32>
}

// -----

// groups = channels, but a channel multiplier of 2 (16 outputs): not depthwise for MLIP.
// CHECK: Operation does not verify: conv2d groups must be 1 or depthwise (groups = channels = 8), got 8
func.func @conv2d_channel_multiplier(%x: tensor<1x8x8x8xf32>, %w: tensor<16x3x3x1xf32>) -> tensor<1x8x8x16xf32> {
  %y = mrvl.conv2d %x, %w {groups = 8 : i64, padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x8x8x8xf32>, tensor<16x3x3x1xf32>) -> tensor<1x8x8x16xf32>
  func.return %y : tensor<1x8x8x16xf32>
}

// -----

// An OIHW weight given where OHWI is expected: its last dim is not the input channels.
// CHECK: Operation does not verify: conv2d weight takes 3 input channels, the input has 8
func.func @conv2d_weight_channels(%x: tensor<1x8x8x8xf32>, %w: tensor<4x8x3x3xf32>) -> tensor<1x6x6x4xf32> {
  %y = mrvl.conv2d %x, %w {padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x8x8xf32>, tensor<4x8x3x3xf32>) -> tensor<1x6x6x4xf32>
  func.return %y : tensor<1x6x6x4xf32>
}

// -----

// CHECK: Operation does not verify: 'padding' must be 4 values >= 0, got [1, 1]
func.func @conv2d_padding_count(%x: tensor<1x8x8x3xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x8x8x4xf32> {
  %y = mrvl.conv2d %x, %w {padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>) -> tensor<1x8x8x4xf32>
  func.return %y : tensor<1x8x8x4xf32>
}

// -----

// CHECK: Operation does not verify: 'strides' must be 2 values >= 1, got [0, 1]
func.func @conv2d_stride_zero(%x: tensor<1x8x8x3xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x8x8x4xf32> {
  %y = mrvl.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 0, 1>} : (tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>) -> tensor<1x8x8x4xf32>
  func.return %y : tensor<1x8x8x4xf32>
}

// -----

// CHECK: Operation does not verify: conv2d bias must be [4], got [1, 4]
func.func @conv2d_bias_shape(%x: tensor<1x8x8x3xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<1x4xf32>) -> tensor<1x8x8x4xf32> {
  %y = mrvl.conv2d %x, %w bias %b {padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>, tensor<1x4xf32>) -> tensor<1x8x8x4xf32>
  func.return %y : tensor<1x8x8x4xf32>
}

// -----

// CHECK: Operation does not verify: conv2d bn_var must be [4], got [8]
func.func @conv2d_bn_shape(%x: tensor<1x8x8x3xf32>, %w: tensor<4x3x3x3xf32>, %p: tensor<4xf32>, %v: tensor<8xf32>) -> tensor<1x8x8x4xf32> {
  %y = mrvl.conv2d %x, %w bn(%p, %p, %p, %v) {bn_epsilon = 1.0e-05 : f32, padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<8xf32>) -> tensor<1x8x8x4xf32>
  func.return %y : tensor<1x8x8x4xf32>
}

// -----

// CHECK: Operation does not verify: conv2d 'bn_epsilon' must be given exactly with the batch-norm operands
func.func @conv2d_bn_without_epsilon(%x: tensor<1x8x8x3xf32>, %w: tensor<4x3x3x3xf32>, %p: tensor<4xf32>) -> tensor<1x8x8x4xf32> {
  %y = mrvl.conv2d %x, %w bn(%p, %p, %p, %p) {padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x8x8x4xf32>
  func.return %y : tensor<1x8x8x4xf32>
}

// -----

// CHECK: Operation does not verify: conv2d 'bn_epsilon' must be given exactly with the batch-norm operands
func.func @conv2d_epsilon_without_bn(%x: tensor<1x8x8x3xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x8x8x4xf32> {
  %y = mrvl.conv2d %x, %w {bn_epsilon = 1.0e-05 : f32, padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>) -> tensor<1x8x8x4xf32>
  func.return %y : tensor<1x8x8x4xf32>
}

// -----

// CHECK: Operation does not verify: fc weight must be [out, 16], got [10, 12]
func.func @fc_weight_shape(%x: tensor<1x16xf32>, %w: tensor<10x12xf32>) -> tensor<1x10xf32> {
  %y = mrvl.fc %x, %w : (tensor<1x16xf32>, tensor<10x12xf32>) -> tensor<1x10xf32>
  func.return %y : tensor<1x10xf32>
}

// -----

// CHECK: Operation does not verify: fc bias must be [10], got [16]
func.func @fc_bias_shape(%x: tensor<1x16xf32>, %w: tensor<10x16xf32>, %b: tensor<16xf32>) -> tensor<1x10xf32> {
  %y = mrvl.fc %x, %w bias %b : (tensor<1x16xf32>, tensor<10x16xf32>, tensor<16xf32>) -> tensor<1x10xf32>
  func.return %y : tensor<1x10xf32>
}

// -----

// CHECK: Operation does not verify: fc output must be [1, 10]
func.func @fc_output_shape(%x: tensor<1x16xf32>, %w: tensor<10x16xf32>) -> tensor<1x16xf32> {
  %y = mrvl.fc %x, %w : (tensor<1x16xf32>, tensor<10x16xf32>) -> tensor<1x16xf32>
  func.return %y : tensor<1x16xf32>
}

// -----

// CHECK: Operation does not verify: fc input must have rank 2 or 4, got 3
func.func @fc_input_rank(%x: tensor<1x4x4xf32>, %w: tensor<10x16xf32>) -> tensor<1x10xf32> {
  %y = mrvl.fc %x, %w : (tensor<1x4x4xf32>, tensor<10x16xf32>) -> tensor<1x10xf32>
  func.return %y : tensor<1x10xf32>
}

// -----

// A rank-4 (NHWC) input is flattened in NCHW order, which mrvl-tmlc must be told.
// CHECK: Operation does not verify: fc takes a rank-4 input exactly when 'weights_need_transform' is set
func.func @fc_rank4_without_weights_need_transform(%x: tensor<1x2x2x4xf32>, %w: tensor<10x16xf32>) -> tensor<1x10xf32> {
  %y = mrvl.fc %x, %w : (tensor<1x2x2x4xf32>, tensor<10x16xf32>) -> tensor<1x10xf32>
  func.return %y : tensor<1x10xf32>
}

// -----

// CHECK: Operation does not verify: fc takes a rank-4 input exactly when 'weights_need_transform' is set
func.func @fc_rank2_with_weights_need_transform(%x: tensor<1x16xf32>, %w: tensor<10x16xf32>) -> tensor<1x10xf32> {
  %y = mrvl.fc %x, %w {weights_need_transform} : (tensor<1x16xf32>, tensor<10x16xf32>) -> tensor<1x10xf32>
  func.return %y : tensor<1x10xf32>
}

// -----

// CHECK: Operation does not verify: fc input batch must be in [1, 8], got 16
func.func @fc_batch_16(%x: tensor<16x4xf32>, %w: tensor<10x4xf32>) -> tensor<16x10xf32> {
  %y = mrvl.fc %x, %w : (tensor<16x4xf32>, tensor<10x4xf32>) -> tensor<16x10xf32>
  func.return %y : tensor<16x10xf32>
}

// -----

// Average pooling runs on one image at a time.
// CHECK: Operation does not verify: mrvl.avgpool2d batch must be at most 1, got 2
func.func @avgpool_batch_2(%x: tensor<2x8x8x4xf32>) -> tensor<2x4x4x4xf32> {
  %y = mrvl.avgpool2d %x {kernel_shape = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<2x8x8x4xf32>) -> tensor<2x4x4x4xf32>
  func.return %y : tensor<2x4x4x4xf32>
}

// -----

// CHECK: Operation does not verify: mrvl.global_avgpool2d batch must be at most 1, got 2
func.func @global_avgpool_batch_2(%x: tensor<2x8x8x4xf32>) -> tensor<2x1x1x4xf32> {
  %y = mrvl.global_avgpool2d %x : (tensor<2x8x8x4xf32>) -> tensor<2x1x1x4xf32>
  func.return %y : tensor<2x1x1x4xf32>
}

// -----

// Max pooling takes the general batch limit.
// CHECK: Operation does not verify: mrvl.maxpool2d input batch must be in [1, 8], got 9
func.func @maxpool_batch_9(%x: tensor<9x8x8x4xf32>) -> tensor<9x4x4x4xf32> {
  %y = mrvl.maxpool2d %x {kernel_shape = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<9x8x8x4xf32>) -> tensor<9x4x4x4xf32>
  func.return %y : tensor<9x4x4x4xf32>
}

// -----

// CHECK: Operation does not verify: mrvl.maxpool2d output must be [1, 4, 4, 4]
func.func @maxpool_output_shape(%x: tensor<1x8x8x4xf32>) -> tensor<1x7x7x4xf32> {
  %y = mrvl.maxpool2d %x {kernel_shape = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x8x8x4xf32>) -> tensor<1x7x7x4xf32>
  func.return %y : tensor<1x7x7x4xf32>
}

// -----

// CHECK: Operation does not verify: 'kernel_shape' must be 2 values >= 1, got [2, 2, 2]
func.func @maxpool_kernel_3d(%x: tensor<1x8x8x4xf32>) -> tensor<1x4x4x4xf32> {
  %y = mrvl.maxpool2d %x {kernel_shape = array<i64: 2, 2, 2>, padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x8x8x4xf32>) -> tensor<1x4x4x4xf32>
  func.return %y : tensor<1x4x4x4xf32>
}

// -----

// CHECK: Operation does not verify: mrvl.global_maxpool2d output must be [1, 1, 1, 4]
func.func @global_maxpool_nchw_output(%x: tensor<1x8x8x4xf32>) -> tensor<1x4x1x1xf32> {
  %y = mrvl.global_maxpool2d %x : (tensor<1x8x8x4xf32>) -> tensor<1x4x1x1xf32>
  func.return %y : tensor<1x4x1x1xf32>
}

// -----

// No broadcasting: both operands and the result have one shape.
// CHECK: Operation does not verify: sum operands and result must all be [1, 4, 4, 8]
func.func @sum_broadcast(%a: tensor<1x4x4x8xf32>, %b: tensor<1x1x1x8xf32>) -> tensor<1x4x4x8xf32> {
  %y = mrvl.sum %a, %b : (tensor<1x4x4x8xf32>, tensor<1x1x1x8xf32>) -> tensor<1x4x4x8xf32>
  func.return %y : tensor<1x4x4x8xf32>
}

// -----

// CHECK: Operation does not verify: sum lhs must have rank 3 or 4, got 2
func.func @sum_rank_2(%a: tensor<1x8xf32>) -> tensor<1x8xf32> {
  %y = mrvl.sum %a, %a : (tensor<1x8xf32>, tensor<1x8xf32>) -> tensor<1x8xf32>
  func.return %y : tensor<1x8xf32>
}

// -----

// Concatenation is on channels (NHWC axis 3): N, H and W must agree.
// CHECK: Operation does not verify: concat inputs must agree in N, H and W (concatenation is on channels)
func.func @concat_mismatched_h(%a: tensor<1x4x4x8xf32>, %b: tensor<1x2x4x8xf32>) -> tensor<1x6x4x8xf32> {
  %y = mrvl.concat %a, %b : (tensor<1x4x4x8xf32>, tensor<1x2x4x8xf32>) -> tensor<1x6x4x8xf32>
  func.return %y : tensor<1x6x4x8xf32>
}

// -----

// CHECK: Operation does not verify: concat inputs must have batch 1
func.func @concat_batch_2(%a: tensor<2x4x4x8xf32>) -> tensor<2x4x4x16xf32> {
  %y = mrvl.concat %a, %a : (tensor<2x4x4x8xf32>, tensor<2x4x4x8xf32>) -> tensor<2x4x4x16xf32>
  func.return %y : tensor<2x4x4x16xf32>
}

// -----

// CHECK: Operation does not verify: concat needs at least 2 inputs, got 1
func.func @concat_one_input(%a: tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32> {
  %y = mrvl.concat %a : (tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  func.return %y : tensor<1x4x4x8xf32>
}

// -----

// CHECK: Operation does not verify: concat output must be [1, 4, 4, 16]
func.func @concat_output_shape(%a: tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32> {
  %y = mrvl.concat %a, %a : (tensor<1x4x4x8xf32>, tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  func.return %y : tensor<1x4x4x8xf32>
}

// -----

// CHECK: Operation does not verify: mrvl.reshape cannot turn [1, 8] into [1, 4]
func.func @reshape_count(%x: tensor<1x8xf32>) -> tensor<1x4xf32> {
  %y = mrvl.reshape %x : (tensor<1x8xf32>) -> tensor<1x4xf32>
  func.return %y : tensor<1x4xf32>
}

// -----

// CHECK: Operation does not verify: reshape goes between ranks 2 and 4, got 2 -> 3
func.func @reshape_rank_3(%x: tensor<1x8xf32>) -> tensor<1x2x4xf32> {
  %y = mrvl.reshape %x : (tensor<1x8xf32>) -> tensor<1x2x4xf32>
  func.return %y : tensor<1x2x4xf32>
}

// -----

// CHECK: Operation does not verify: batch_flatten turns [N, ...] into [N, rest], got [2, 2, 2, 2] -> [1, 16]
func.func @batch_flatten_batch(%x: tensor<2x2x2x2xf32>) -> tensor<1x16xf32> {
  %y = mrvl.batch_flatten %x : (tensor<2x2x2x2xf32>) -> tensor<1x16xf32>
  func.return %y : tensor<1x16xf32>
}

// -----

// CHECK: Operation does not verify: squeeze axes [3] must name size-1 dims of [1, 1, 1, 8]
func.func @squeeze_not_size_1(%x: tensor<1x1x1x8xf32>) -> tensor<1x1x8xf32> {
  %y = mrvl.squeeze %x {axes = array<i64: 3>} : (tensor<1x1x1x8xf32>) -> tensor<1x1x8xf32>
  func.return %y : tensor<1x1x8xf32>
}

// -----

// CHECK: Operation does not verify: squeeze of [1, 1, 1, 8] on [1] is not [1, 8]
func.func @squeeze_wrong_result(%x: tensor<1x1x1x8xf32>) -> tensor<1x8xf32> {
  %y = mrvl.squeeze %x {axes = array<i64: 1>} : (tensor<1x1x1x8xf32>) -> tensor<1x8xf32>
  func.return %y : tensor<1x8xf32>
}

// -----

// MLIP has no NHWC -> NCHW layer: that transpose runs on the host.
// CHECK: Operation does not verify: MLIP transforms NCHW to NHWC only, got NHWC to NCHW
func.func @layout_transform_to_nchw(%x: tensor<1x8x8x3xf32>) -> tensor<1x3x8x8xf32> {
  %y = mrvl.layout_transform %x {src_layout = "NHWC", dst_layout = "NCHW"} : (tensor<1x8x8x3xf32>) -> tensor<1x3x8x8xf32>
  func.return %y : tensor<1x3x8x8xf32>
}

// -----

// CHECK: Operation does not verify: layout_transform output must be [1, 8, 8, 3]
func.func @layout_transform_output(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32> {
  %y = mrvl.layout_transform %x : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  func.return %y : tensor<1x3x8x8xf32>
}

// -----

// CHECK: Operation does not verify: mrvl.subgraph must end with mrvl.yield
mrvl.subgraph @no_yield(%x: tensor<1x3x8x8xf32>) attributes {mcpu = "cn10ka", num_tiles = 8 : i64, quantize = "fp16", wb_pin_ocm = 0 : i64, run_mode = "sim"} {
  "test.termop"() : () -> ()
}

// -----

// CHECK: Operation does not verify: mrvl.yield types must match the subgraph's results
mrvl.subgraph @yield_types(%x: tensor<1x3x8x8xf32>) -> tensor<1x8x8x3xf32> attributes {mcpu = "cn10ka", num_tiles = 8 : i64, quantize = "fp16", wb_pin_ocm = 0 : i64, run_mode = "sim"} {
  mrvl.yield %x : tensor<1x3x8x8xf32>
}

// -----

// CHECK: Operation does not verify: mrvl.subgraph block arguments must match its function type
"mrvl.subgraph"() <{sym_name = "block_arguments", function_type = (tensor<1x3x8x8xf32>) -> (), mcpu = "cn10ka", num_tiles = 8 : i64, quantize = "fp16", wb_pin_ocm = 0 : i64, run_mode = "sim"}> ({
^bb0(%x: tensor<1x8x8x3xf32>):
  "mrvl.yield"() : () -> ()
}) : () -> ()

// -----

// Every target option is required.
// CHECK: Operation does not verify: property 'run_mode' expected in operation 'mrvl.subgraph'
mrvl.subgraph @missing_option(%x: tensor<1x3x8x8xf32>) attributes {mcpu = "cn10ka", num_tiles = 8 : i64, quantize = "fp16", wb_pin_ocm = 0 : i64} {
  mrvl.yield
}

// -----

// CHECK: Operation does not verify: 'mrvl.yield' expects parent op 'mrvl.subgraph'
func.func @yield_outside_subgraph() {
  mrvl.yield
}

// -----

// ceil_mode rounds the window count up: 10 wide, kernel 3, stride 2 is 5 windows, not 4.
// CHECK: Operation does not verify: mrvl.maxpool2d output must be [1, 5, 5, 4]
func.func @maxpool_ceil_output(%x: tensor<1x10x10x4xf32>) -> tensor<1x4x4x4xf32> {
  %y = mrvl.maxpool2d %x {ceil_mode, kernel_shape = array<i64: 3, 3>, padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x10x10x4xf32>) -> tensor<1x4x4x4xf32>
  func.return %y : tensor<1x4x4x4xf32>
}
