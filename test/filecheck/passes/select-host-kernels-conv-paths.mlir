// select-host-kernels records the C kernel of each conv as its `kernel`: depthwise (one input
// channel per group) on flat planes, or channel-blocked on small planes and with 25 taps or
// more; of pointwise (1x1, stride 1, no padding), direct and flat the cheapest by the conv
// kernel costs of the host the target description names (flat for a wide plane with little
// depth, direct for a small deep one); transpose for cpu.conv_transpose. The function is
// marked cpu.kernels_selected.
// RUN: mrvl-opt %s -p select-host-kernels | filecheck %s

// CHECK-LABEL: func.func @convs(
// CHECK-SAME:    attributes {cpu.kernels_selected}
// CHECK:         %dw = cpu.conv {{.*}}kernel = #cpu<conv_kernel depthwise>
// CHECK:         %dw5 = cpu.conv {{.*}}kernel = #cpu<conv_kernel depthwise_blocked>
// CHECK:         %pw = cpu.conv {{.*}}kernel = #cpu<conv_kernel pointwise>
// CHECK:         %stem = cpu.conv {{.*}}kernel = #cpu<conv_kernel flat>
// CHECK:         %deep = cpu.conv {{.*}}kernel = #cpu<conv_kernel direct>
// CHECK:         %up = cpu.conv_transpose {{.*}}kernel = #cpu<conv_kernel transpose>
func.func @convs(%x: tensor<1x16x28x28xf32>, %img: tensor<1x3x64x64xf32>, %small: tensor<1x256x7x7xf32>, %narrow: tensor<1x16x4x4xf32>) -> (tensor<1x16x28x28xf32>, tensor<1x16x28x28xf32>, tensor<1x128x4x4xf32>, tensor<1x16x32x32xf32>, tensor<1x256x7x7xf32>, tensor<1x8x56x56xf32>) {
  %w3 = graph.constant dense<0.5> : tensor<16x1x3x3xf32>
  %w5 = graph.constant dense<0.5> : tensor<16x1x5x5xf32>
  %w1 = graph.constant dense<0.5> : tensor<128x16x1x1xf32>
  %ws = graph.constant dense<0.5> : tensor<16x3x3x3xf32>
  %wd = graph.constant dense<0.5> : tensor<256x256x3x3xf32>
  %wt = graph.constant dense<0.5> : tensor<16x8x2x2xf32>
  %dw = cpu.conv %x, %w3 {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 16 : i64} : (tensor<1x16x28x28xf32>, tensor<16x1x3x3xf32>) -> tensor<1x16x28x28xf32>
  %dw5 = cpu.conv %x, %w5 {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 2, 2, 2, 2>, group = 16 : i64} : (tensor<1x16x28x28xf32>, tensor<16x1x5x5xf32>) -> tensor<1x16x28x28xf32>
  %pw = cpu.conv %narrow, %w1 {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64} : (tensor<1x16x4x4xf32>, tensor<128x16x1x1xf32>) -> tensor<1x128x4x4xf32>
  %stem = cpu.conv %img, %ws {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1 : i64} : (tensor<1x3x64x64xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x32x32xf32>
  %deep = cpu.conv %small, %wd {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1 : i64} : (tensor<1x256x7x7xf32>, tensor<256x256x3x3xf32>) -> tensor<1x256x7x7xf32>
  %up = cpu.conv_transpose %x, %wt {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, output_padding = array<i64: 0, 0>} : (tensor<1x16x28x28xf32>, tensor<16x8x2x2xf32>) -> tensor<1x8x56x56xf32>
  func.return %dw, %dw5, %pw, %stem, %deep, %up : tensor<1x16x28x28xf32>, tensor<1x16x28x28xf32>, tensor<1x128x4x4xf32>, tensor<1x16x32x32xf32>, tensor<1x256x7x7xf32>, tensor<1x8x56x56xf32>
}
