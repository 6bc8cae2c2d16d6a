// plan-host-memory, Winograd weights: the constant 3x3 weights of a conv on the winograd kernel
// become the constant U = G g G' of each output and input channel, in the kernel's layout
// (16 elements, panels, C, 8): output channels in panels of 8, zeros past the last. The conv
// is marked `packed_weights` and still reads as a 3x3 conv.
// RUN: mrvl-opt %s -p plan-host-memory --print-weights | filecheck %s

// COM: g all ones: G g G' = s s' with s = G's row sums [1, 1.5, 0.5, 1]: elements 1 1.5 0.5 1,
// COM: 1.5 2.25 0.75 1.5, 0.5 0.75 0.25 0.5, 1 1.5 0.5 1; each followed by 7 zeros.
// CHECK-LABEL: func.func @conv(
// CHECK-NEXT:    %w_packed = graph.constant dense_resource<w_packed> : tensor<16x1x1x8xf32>
// CHECK-NEXT:    %y = cpu.conv %x, %w_packed {{{.*}}kernel = #cpu<conv_kernel winograd>, packed_weights{{.*}}} : (tensor<1x1x6x6xf32>, tensor<16x1x1x8xf32>) -> tensor<1x1x6x6xf32>
// CHECK:         w_packed: "0x04000000{{0000803F(00000000){7}0000C03F(00000000){7}0000003F(00000000){7}0000803F(00000000){7}0000C03F(00000000){7}00001040(00000000){7}0000403F(00000000){7}0000C03F(00000000){7}0000003F(00000000){7}0000403F(00000000){7}0000803E(00000000){7}0000003F(00000000){7}0000803F(00000000){7}0000C03F(00000000){7}0000003F(00000000){7}0000803F(00000000){7}"}}
func.func @conv(%x: tensor<1x1x6x6xf32>) -> tensor<1x1x6x6xf32> attributes {cpu.kernels_selected} {
  %w = graph.constant dense<1.0> : tensor<1x1x3x3xf32>
  %y = cpu.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1 : i64, kernel = #cpu<conv_kernel winograd>} : (tensor<1x1x6x6xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x6x6xf32>
  func.return %y : tensor<1x1x6x6xf32>
}
