// plan-host-memory, weight packing: the constant weights of a conv on the direct kernel
// become a constant in the kernel's packed layout (group, panels, C/group, kernel..., 16):
// each group's output channels rounded up to 32 with zeros, in panels of 16, each panel a
// row of 16 channels per (input channel, tap). The conv is marked `packed_weights`, and the
// constant it replaced goes when nothing else reads it.
// RUN: mrvl-opt %s -p select-host-kernels,plan-host-memory --print-weights | filecheck %s

// COM: w (2 output channels, 1 input channel, 1x2 taps) = [[1, 2], [3, 4]]: panel 0 is the
// COM: row [1, 3, 0 x 14] for tap 0, [2, 4, 0 x 14] for tap 1; panel 1 is zeros.
// CHECK-LABEL: func.func @conv(
// CHECK-NEXT:    %w_packed = graph.constant dense_resource<w_packed> : tensor<1x2x1x1x2x16xf32>
// CHECK-NEXT:    %y = cpu.conv %x, %w_packed {{{.*}}, packed_weights, offsets = array<i64: -1>, scratch = #cpu.scratch<{{.*}}>} : (tensor<1x1x3x4xf32>, tensor<1x2x1x1x2x16xf32>) -> tensor<1x2x3x3xf32>
// CHECK-NEXT:    func.return %y
// CHECK:         w_packed: "0x04000000{{0000803F00004040(00000000){14}0000004000008040(00000000){14}(00000000){32}"}}
func.func @conv(%x: tensor<1x1x3x4xf32>) -> tensor<1x2x3x3xf32> {
  %w = graph.constant dense<[[[[1.0, 2.0]]], [[[3.0, 4.0]]]]> : tensor<2x1x1x2xf32>
  %y = cpu.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64} : (tensor<1x1x3x4xf32>, tensor<2x1x1x2xf32>) -> tensor<1x2x3x3xf32>
  func.return %y : tensor<1x2x3x3xf32>
}
