// plan-host-memory, run-time weights: a direct or flat conv whose weights are not a constant
// packs them into the front of its scratch at run time; `packing_floats` is their packed size
// (4 output channels rounded up to 32, MRVL_CONV_CHANNEL_ALIGN, x 2 input channels x 3 x 3
// taps = 576), and the scratch holds them besides the kernel's own.
// RUN: mrvl-opt %s -p select-host-kernels,plan-host-memory | filecheck %s

// CHECK: %y = cpu.conv %x, %w {{.*}}kernel = #cpu<conv_kernel {{direct|flat}}>, packing_floats = 576 : i64, offsets = array<i64: -1>, scratch = #cpu.scratch<
func.func @runtime_weights(%x: tensor<1x2x8x8xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x4x8x8xf32> {
  %y = cpu.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1 : i64} : (tensor<1x2x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x8x8xf32>
  func.return %y : tensor<1x4x8x8xf32>
}
