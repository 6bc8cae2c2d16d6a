// select-host-kernels runs a 3x3 conv of stride and dilation 1, one group and constant weights
// on the Winograd kernel where the cost model finds it cheapest (ResNet's 64 -> 64 at 56 x 56);
// not with weights known only at run time (its weights are transformed at compile time), nor
// dilated, nor where reading the transformed weights once a block of tiles costs more than
// the multiply-adds it saves (512 -> 512 at 7 x 7).
// RUN: mrvl-opt %s -p select-host-kernels | filecheck %s

// CHECK-LABEL: func.func @convs(
// CHECK:         %wide = cpu.conv {{.*}}kernel = #cpu<conv_kernel winograd>
// CHECK:         %run_time = cpu.conv {{.*}}kernel = #cpu<conv_kernel {{direct|flat}}>
// CHECK:         %dilated = cpu.conv {{.*}}kernel = #cpu<conv_kernel {{direct|flat}}>
// CHECK:         %deep = cpu.conv {{.*}}kernel = #cpu<conv_kernel direct>
func.func @convs(%x: tensor<1x64x56x56xf32>, %w: tensor<64x64x3x3xf32>, %small: tensor<1x512x7x7xf32>) -> (tensor<1x64x56x56xf32>, tensor<1x64x56x56xf32>, tensor<1x64x56x56xf32>, tensor<1x512x7x7xf32>) {
  %w64 = graph.constant dense<0.5> : tensor<64x64x3x3xf32>
  %w512 = graph.constant dense<0.5> : tensor<512x512x3x3xf32>
  %wide = cpu.conv %x, %w64 {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1 : i64} : (tensor<1x64x56x56xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x56x56xf32>
  %run_time = cpu.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1 : i64} : (tensor<1x64x56x56xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x56x56xf32>
  %dilated = cpu.conv %x, %w64 {strides = array<i64: 1, 1>, dilations = array<i64: 2, 2>, pads = array<i64: 2, 2, 2, 2>, group = 1 : i64} : (tensor<1x64x56x56xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x56x56xf32>
  %deep = cpu.conv %small, %w512 {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1 : i64} : (tensor<1x512x7x7xf32>, tensor<512x512x3x3xf32>) -> tensor<1x512x7x7xf32>
  func.return %wide, %run_time, %dilated, %deep : tensor<1x64x56x56xf32>, tensor<1x64x56x56xf32>, tensor<1x64x56x56xf32>, tensor<1x512x7x7xf32>
}
