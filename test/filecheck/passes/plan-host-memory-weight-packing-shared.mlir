// plan-host-memory, weight packing of shared weights: one packed constant per group count
// the weights are read with, placed before the original; the original stays while another op
// reads it. A depthwise conv reads its weights as they are: they are not packed.
// RUN: mrvl-opt %s -p select-host-kernels,plan-host-memory | filecheck %s

// CHECK-LABEL: func.func @shared(
// CHECK-NEXT:    %w_packed = graph.constant dense_resource<w_packed> : tensor<1x2x2x1x2x16xf32>
// CHECK-NEXT:    %w_packed_1 = graph.constant dense_resource<w_packed_1> : tensor<2x2x2x1x2x16xf32>
// CHECK-NEXT:    %w = graph.constant dense<{{.*}}> : tensor<2x2x1x2xf32>
// CHECK-NEXT:    %dw = graph.constant dense<1.000000e+00> : tensor<4x1x1x2xf32>
// CHECK-NEXT:    %a = cpu.conv %x1, %w_packed {{{.*}}group = 1 : i64, kernel = #cpu<conv_kernel direct>, packed_weights,
// CHECK-NEXT:    %b = cpu.conv %x2, %w_packed_1 {{{.*}}group = 2 : i64, kernel = #cpu<conv_kernel direct>, packed_weights,
// CHECK-NEXT:    %d = cpu.conv %x2, %dw {{{.*}}group = 4 : i64, kernel = #cpu<conv_kernel depthwise_blocked>, offsets
// CHECK-NEXT:    %r = cpu.unary relu %w
func.func @shared(%x1: tensor<1x2x3x4xf32>, %x2: tensor<1x4x3x4xf32>)
    -> (tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>, tensor<1x4x3x3xf32>, tensor<2x2x1x2xf32>) {
  %w = graph.constant dense<[[[[1.0, 2.0]], [[3.0, 4.0]]], [[[5.0, 6.0]], [[7.0, 8.0]]]]> : tensor<2x2x1x2xf32>
  %dw = graph.constant dense<1.0> : tensor<4x1x1x2xf32>
  %a = cpu.conv %x1, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64} : (tensor<1x2x3x4xf32>, tensor<2x2x1x2xf32>) -> tensor<1x2x3x3xf32>
  %b = cpu.conv %x2, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 2 : i64} : (tensor<1x4x3x4xf32>, tensor<2x2x1x2xf32>) -> tensor<1x2x3x3xf32>
  %d = cpu.conv %x2, %dw {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 4 : i64} : (tensor<1x4x3x4xf32>, tensor<4x1x1x2xf32>) -> tensor<1x4x3x3xf32>
  %r = cpu.unary relu %w : (tensor<2x2x1x2xf32>) -> tensor<2x2x1x2xf32>
  func.return %a, %b, %d, %r : tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>, tensor<1x4x3x3xf32>, tensor<2x2x1x2xf32>
}
