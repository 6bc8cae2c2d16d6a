// Round trips of the mrvl dialect's syntax: print -> parse -> print, and through the
// generic form (--print-op-generic) back to the custom form.
// RUN: MRVL_ROUNDTRIP
// RUN: mrvl-opt %s --print-op-generic --split-input-file | mrvl-opt --split-input-file | filecheck %s
// RUN: mrvl-opt %s --print-op-generic --split-input-file | filecheck %s --check-prefix=GENERIC

// mrvl.conv2d without bias, with a bias, with batch norm only, and with bias, batch norm
// and relu. Properties at their default (dilations 1x1, groups 1, activation none) are
// not printed, the others print in the order written; the generic form has them all, and
// the operand segment sizes.
// CHECK-LABEL: func.func @conv2d(
// CHECK-NEXT:    %plain = mrvl.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>}
// CHECK-SAME:        : (tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>) -> tensor<1x8x8x4xf32>
// CHECK-NEXT:    %biased = mrvl.conv2d %x, %w bias %b {strides = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>}
// CHECK-SAME:        : (tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x3x3x4xf32>
// CHECK-NEXT:    %normed = mrvl.conv2d %x, %w bn(%g, %beta, %m, %v) {strides = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>, bn_epsilon = 1.000000e-05 : f32}
// CHECK-SAME:        : (tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x8x8x4xf32>
// CHECK-NEXT:    %all = mrvl.conv2d %x, %w bias %b bn(%g, %beta, %m, %v) {strides = array<i64: 1, 1>, padding = array<i64: 2, 2, 2, 2>, dilations = array<i64: 2, 2>, bn_epsilon = 1.000000e-03 : f32, activation = #mrvl<activation relu>}
// CHECK-SAME:        : (tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x8x8x4xf32>
// CHECK-NEXT:    func.return %plain, %biased, %normed, %all
// GENERIC-LABEL: "func.func"() <{sym_name = "conv2d"
// GENERIC:         "mrvl.conv2d"(%x, %w) <{
// GENERIC-SAME:        dilations = array<i64: 1, 1>, groups = 1 : i64, activation = #mrvl<activation none>
// GENERIC-SAME:        operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0>
// GENERIC:         "mrvl.conv2d"(%x, %w, %b) <{
// GENERIC-SAME:        operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>
// GENERIC-SAME:        dilations = array<i64: 1, 1>, groups = 1 : i64, activation = #mrvl<activation none>
// GENERIC:         "mrvl.conv2d"(%x, %w, %g, %beta, %m, %v) <{
// GENERIC-SAME:        operandSegmentSizes = array<i32: 1, 1, 0, 1, 1, 1, 1>
// GENERIC:         "mrvl.conv2d"(%x, %w, %b, %g, %beta, %m, %v) <{
// GENERIC-SAME:        activation = #mrvl<activation relu>
// GENERIC-SAME:        operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1>
func.func @conv2d(%x: tensor<1x8x8x3xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>, %g: tensor<4xf32>, %beta: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>) -> (tensor<1x8x8x4xf32>, tensor<1x3x3x4xf32>, tensor<1x8x8x4xf32>, tensor<1x8x8x4xf32>) {
  %plain = mrvl.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64, activation = #mrvl<activation none>} : (tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>) -> tensor<1x8x8x4xf32>
  %biased = mrvl.conv2d %x, %w bias %b {strides = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>} : (tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x3x3x4xf32>
  %normed = mrvl.conv2d %x, %w bn(%g, %beta, %m, %v) {strides = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>, bn_epsilon = 1.0e-05 : f32} : (tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x8x8x4xf32>
  %all = mrvl.conv2d %x, %w bias %b bn(%g, %beta, %m, %v) {strides = array<i64: 1, 1>, padding = array<i64: 2, 2, 2, 2>, dilations = array<i64: 2, 2>, bn_epsilon = 1.0e-03 : f32, activation = #mrvl<activation relu>} : (tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x8x8x4xf32>
  func.return %plain, %biased, %normed, %all : tensor<1x8x8x4xf32>, tensor<1x3x3x4xf32>, tensor<1x8x8x4xf32>, tensor<1x8x8x4xf32>
}

// -----

// A depthwise conv2d: groups = input channels = output channels, weight [O, KH, KW, 1].
// CHECK-LABEL: func.func @conv2d_depthwise(
// CHECK-NEXT:    %y = mrvl.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 1, 0, 1, 0>, groups = 8 : i64}
// CHECK-SAME:        : (tensor<1x6x6x8xf32>, tensor<8x3x1x1xf32>) -> tensor<1x6x6x8xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "conv2d_depthwise"
// GENERIC:         "mrvl.conv2d"(%x, %w) <{{.*}}groups = 8 : i64
func.func @conv2d_depthwise(%x: tensor<1x6x6x8xf32>, %w: tensor<8x3x1x1xf32>) -> tensor<1x6x6x8xf32> {
  %y = mrvl.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 1, 0, 1, 0>, groups = 8 : i64} : (tensor<1x6x6x8xf32>, tensor<8x3x1x1xf32>) -> tensor<1x6x6x8xf32>
  func.return %y : tensor<1x6x6x8xf32>
}

// -----

// mrvl.fc on a rank-2 input with bias and relu, and on an NHWC rank-4 input, which needs
// weights_need_transform (the weight follows the model's NCHW flatten).
// CHECK-LABEL: func.func @fc(
// CHECK-NEXT:    %y = mrvl.fc %x, %w bias %b {activation = #mrvl<activation relu>} : (tensor<2x16xf32>, tensor<10x16xf32>, tensor<10xf32>) -> tensor<2x10xf32>
// CHECK-NEXT:    %z = mrvl.fc %t, %w {weights_need_transform} : (tensor<2x2x2x4xf32>, tensor<10x16xf32>) -> tensor<2x10xf32>
// CHECK-NEXT:    func.return %y, %z
// GENERIC-LABEL: "func.func"() <{sym_name = "fc"
// GENERIC:         "mrvl.fc"(%x, %w, %b) <{
// GENERIC-SAME:        activation = #mrvl<activation relu>
// GENERIC:         "mrvl.fc"(%t, %w) <{
// GENERIC-SAME:        weights_need_transform
func.func @fc(%x: tensor<2x16xf32>, %t: tensor<2x2x2x4xf32>, %w: tensor<10x16xf32>, %b: tensor<10xf32>) -> (tensor<2x10xf32>, tensor<2x10xf32>) {
  %y = mrvl.fc %x, %w bias %b {activation = #mrvl<activation relu>} : (tensor<2x16xf32>, tensor<10x16xf32>, tensor<10xf32>) -> tensor<2x10xf32>
  %z = mrvl.fc %t, %w {weights_need_transform} : (tensor<2x2x2x4xf32>, tensor<10x16xf32>) -> tensor<2x10xf32>
  func.return %y, %z : tensor<2x10xf32>, tensor<2x10xf32>
}

// -----

// Pools: windowed (kernel, strides, padding; avgpool with or without count_include_pad)
// and global.
// CHECK-LABEL: func.func @pools(
// CHECK-NEXT:    %max = mrvl.maxpool2d %x {kernel_shape = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x8x8x4xf32>) -> tensor<2x4x4x4xf32>
// CHECK-NEXT:    %avg = mrvl.avgpool2d %y {kernel_shape = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x8x8x4xf32>) -> tensor<1x4x4x4xf32>
// CHECK-NEXT:    %avg_pad = mrvl.avgpool2d %y {count_include_pad, kernel_shape = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
// CHECK-NEXT:    %gmax = mrvl.global_maxpool2d %x : (tensor<2x8x8x4xf32>) -> tensor<2x1x1x4xf32>
// CHECK-NEXT:    %gavg = mrvl.global_avgpool2d %y : (tensor<1x8x8x4xf32>) -> tensor<1x1x1x4xf32>
// CHECK-NEXT:    func.return
// GENERIC-LABEL: "func.func"() <{sym_name = "pools"
// GENERIC:         "mrvl.maxpool2d"(%x) <{kernel_shape = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}>
// GENERIC:         "mrvl.avgpool2d"(%y) <{kernel_shape = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>}>
// GENERIC:         "mrvl.avgpool2d"(%y) <{count_include_pad, kernel_shape
// GENERIC:         "mrvl.global_maxpool2d"(%x) : (tensor<2x8x8x4xf32>) -> tensor<2x1x1x4xf32>
// GENERIC:         "mrvl.global_avgpool2d"(%y) : (tensor<1x8x8x4xf32>) -> tensor<1x1x1x4xf32>
func.func @pools(%x: tensor<2x8x8x4xf32>, %y: tensor<1x8x8x4xf32>) -> (tensor<2x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x8x8x4xf32>, tensor<2x1x1x4xf32>, tensor<1x1x1x4xf32>) {
  %max = mrvl.maxpool2d %x {kernel_shape = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x8x8x4xf32>) -> tensor<2x4x4x4xf32>
  %avg = mrvl.avgpool2d %y {kernel_shape = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x8x8x4xf32>) -> tensor<1x4x4x4xf32>
  %avg_pad = mrvl.avgpool2d %y {count_include_pad, kernel_shape = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  %gmax = mrvl.global_maxpool2d %x : (tensor<2x8x8x4xf32>) -> tensor<2x1x1x4xf32>
  %gavg = mrvl.global_avgpool2d %y : (tensor<1x8x8x4xf32>) -> tensor<1x1x1x4xf32>
  func.return %max, %avg, %avg_pad, %gmax, %gavg : tensor<2x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x8x8x4xf32>, tensor<2x1x1x4xf32>, tensor<1x1x1x4xf32>
}

// -----

// mrvl.sum of rank-4 and rank-3 tensors, relu fused; mrvl.concat on channels.
// CHECK-LABEL: func.func @sum_and_concat(
// CHECK-NEXT:    %s = mrvl.sum %a, %b {activation = #mrvl<activation relu>} : (tensor<1x4x4x8xf32>, tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
// CHECK-NEXT:    %s3 = mrvl.sum %p, %q : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
// CHECK-NEXT:    %c = mrvl.concat %a, %b, %e : (tensor<1x4x4x8xf32>, tensor<1x4x4x8xf32>, tensor<1x4x4x2xf32>) -> tensor<1x4x4x18xf32>
// CHECK-NEXT:    func.return %s, %s3, %c
// GENERIC-LABEL: "func.func"() <{sym_name = "sum_and_concat"
// GENERIC:         "mrvl.sum"(%a, %b) <{activation = #mrvl<activation relu>}>
// GENERIC:         "mrvl.sum"(%p, %q) <{activation = #mrvl<activation none>}>
// GENERIC:         "mrvl.concat"(%a, %b, %e) : (
func.func @sum_and_concat(%a: tensor<1x4x4x8xf32>, %b: tensor<1x4x4x8xf32>, %e: tensor<1x4x4x2xf32>, %p: tensor<2x4x8xf32>, %q: tensor<2x4x8xf32>) -> (tensor<1x4x4x8xf32>, tensor<2x4x8xf32>, tensor<1x4x4x18xf32>) {
  %s = mrvl.sum %a, %b {activation = #mrvl<activation relu>} : (tensor<1x4x4x8xf32>, tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  %s3 = mrvl.sum %p, %q : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %c = mrvl.concat %a, %b, %e : (tensor<1x4x4x8xf32>, tensor<1x4x4x8xf32>, tensor<1x4x4x2xf32>) -> tensor<1x4x4x18xf32>
  func.return %s, %s3, %c : tensor<1x4x4x8xf32>, tensor<2x4x8xf32>, tensor<1x4x4x18xf32>
}

// -----

// The reshape-like layers: reshape (rank 4 <-> 2), batch_flatten, squeeze with axes.
// CHECK-LABEL: func.func @reshapes(
// CHECK-NEXT:    %r = mrvl.reshape %x : (tensor<1x1x1x8xf32>) -> tensor<1x8xf32>
// CHECK-NEXT:    %u = mrvl.reshape %r : (tensor<1x8xf32>) -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    %f = mrvl.batch_flatten %u : (tensor<1x2x2x2xf32>) -> tensor<1x8xf32>
// CHECK-NEXT:    %s = mrvl.squeeze %x {axes = array<i64: 1, 2>} : (tensor<1x1x1x8xf32>) -> tensor<1x8xf32>
// CHECK-NEXT:    func.return
// GENERIC-LABEL: "func.func"() <{sym_name = "reshapes"
// GENERIC:         "mrvl.reshape"(%x) : (tensor<1x1x1x8xf32>) -> tensor<1x8xf32>
// GENERIC:         "mrvl.batch_flatten"(%u) : (tensor<1x2x2x2xf32>) -> tensor<1x8xf32>
// GENERIC:         "mrvl.squeeze"(%x) <{axes = array<i64: 1, 2>}> : (tensor<1x1x1x8xf32>) -> tensor<1x8xf32>
func.func @reshapes(%x: tensor<1x1x1x8xf32>) -> (tensor<1x8xf32>, tensor<1x8xf32>, tensor<1x8xf32>) {
  %r = mrvl.reshape %x : (tensor<1x1x1x8xf32>) -> tensor<1x8xf32>
  %u = mrvl.reshape %r : (tensor<1x8xf32>) -> tensor<1x2x2x2xf32>
  %f = mrvl.batch_flatten %u : (tensor<1x2x2x2xf32>) -> tensor<1x8xf32>
  %s = mrvl.squeeze %x {axes = array<i64: 1, 2>} : (tensor<1x1x1x8xf32>) -> tensor<1x8xf32>
  func.return %r, %f, %s : tensor<1x8xf32>, tensor<1x8xf32>, tensor<1x8xf32>
}

// -----

// A subgraph with its target options, a layout_transform of its input (the NCHW -> NHWC
// defaults are not printed) and two results through mrvl.yield; the host calls it.
// CHECK-LABEL: mrvl.subgraph @mrvl_sg0(%x: tensor<1x3x8x8xf32>) -> (tensor<1x8x8x3xf32>, tensor<1x1x1x3xf32>)
// CHECK-SAME:      attributes {mcpu = "cn10ka", num_tiles = 8 : i64, quantize = "fp16", wb_pin_ocm = 0 : i64, run_mode = "sim"} {
// CHECK-NEXT:    %t = mrvl.layout_transform %x : (tensor<1x3x8x8xf32>) -> tensor<1x8x8x3xf32>
// CHECK-NEXT:    %g = mrvl.global_maxpool2d %t : (tensor<1x8x8x3xf32>) -> tensor<1x1x1x3xf32>
// CHECK-NEXT:    mrvl.yield %t, %g : tensor<1x8x8x3xf32>, tensor<1x1x1x3xf32>
// CHECK-NEXT:  }
// CHECK-LABEL: func.func @host(
// CHECK-NEXT:    %a, %b = cpu.call_mlip @mrvl_sg0(%x) : (tensor<1x3x8x8xf32>) -> (tensor<1x8x8x3xf32>, tensor<1x1x1x3xf32>)
// GENERIC:       "mrvl.subgraph"() <{sym_name = "mrvl_sg0", function_type = (tensor<1x3x8x8xf32>) -> (tensor<1x8x8x3xf32>, tensor<1x1x1x3xf32>), mcpu = "cn10ka", num_tiles = 8 : i64, quantize = "fp16", wb_pin_ocm = 0 : i64, run_mode = "sim"}> ({
// GENERIC-NEXT:  ^{{.*}}(%x: tensor<1x3x8x8xf32>):
// GENERIC-NEXT:    %t = "mrvl.layout_transform"(%x) <{src_layout = "NCHW", dst_layout = "NHWC"}>
// GENERIC:         "mrvl.yield"(%t, %g) : (tensor<1x8x8x3xf32>, tensor<1x1x1x3xf32>) -> ()
mrvl.subgraph @mrvl_sg0(%x: tensor<1x3x8x8xf32>) -> (tensor<1x8x8x3xf32>, tensor<1x1x1x3xf32>) attributes {mcpu = "cn10ka", num_tiles = 8 : i64, quantize = "fp16", wb_pin_ocm = 0 : i64, run_mode = "sim"} {
  %t = mrvl.layout_transform %x {src_layout = "NCHW", dst_layout = "NHWC"} : (tensor<1x3x8x8xf32>) -> tensor<1x8x8x3xf32>
  %g = mrvl.global_maxpool2d %t : (tensor<1x8x8x3xf32>) -> tensor<1x1x1x3xf32>
  mrvl.yield %t, %g : tensor<1x8x8x3xf32>, tensor<1x1x1x3xf32>
}
func.func @host(%x: tensor<1x3x8x8xf32>) -> (tensor<1x8x8x3xf32>, tensor<1x1x1x3xf32>) {
  %a, %b = cpu.call_mlip @mrvl_sg0(%x) : (tensor<1x3x8x8xf32>) -> (tensor<1x8x8x3xf32>, tensor<1x1x1x3xf32>)
  func.return %a, %b : tensor<1x8x8x3xf32>, tensor<1x1x1x3xf32>
}

// -----

// A subgraph without results ends with an empty mrvl.yield.
// CHECK-LABEL: mrvl.subgraph @no_results(%x: tensor<1x8x8x3xf32>) attributes {mcpu = "cn10kb", num_tiles = 1 : i64, quantize = "int8", wb_pin_ocm = 1 : i64, run_mode = "hw"} {
// CHECK-NEXT:    mrvl.yield
// CHECK-NEXT:  }
// GENERIC:       "mrvl.yield"() : () -> ()
mrvl.subgraph @no_results(%x: tensor<1x8x8x3xf32>) attributes {mcpu = "cn10kb", num_tiles = 1 : i64, quantize = "int8", wb_pin_ocm = 1 : i64, run_mode = "hw"} {
  mrvl.yield
}
