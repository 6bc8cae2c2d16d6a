// plan-host-memory, concat in place at batch > 1: each conv writing its images into its slice of
// the concat's images gets `y_batch`, the concat's image size in floats (2 x 3 x 3 + 3 x 3 x 3 = 45),
// so its images go that far apart.
// RUN: mrvl-opt %s -p select-host-kernels,plan-host-memory | filecheck %s

// CHECK: %a = cpu.conv {{.*}}kernel = #cpu<conv_kernel {{direct|flat|pointwise}}>, {{.*}}y_batch = 45 : i64
// CHECK: %b = cpu.conv {{.*}}kernel = #cpu<conv_kernel {{direct|flat|pointwise}}>, {{.*}}y_batch = 45 : i64
// CHECK: %c = cpu.concat %a, %b {axis = 1 : i64, in_place
func.func @fire(%x: tensor<2x4x3x3xf32>) -> tensor<2x5x3x3xf32> {
  %w1 = graph.constant dense<0.5> : tensor<2x4x1x1xf32>
  %w2 = graph.constant dense<0.5> : tensor<3x4x3x3xf32>
  %a = cpu.conv %x, %w1 {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64} : (tensor<2x4x3x3xf32>, tensor<2x4x1x1xf32>) -> tensor<2x2x3x3xf32>
  %b = cpu.conv %x, %w2 {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1 : i64} : (tensor<2x4x3x3xf32>, tensor<3x4x3x3xf32>) -> tensor<2x3x3x3xf32>
  %c = cpu.concat %a, %b {axis = 1 : i64} : (tensor<2x2x3x3xf32>, tensor<2x3x3x3xf32>) -> tensor<2x5x3x3xf32>
  %y = cpu.unary relu %c : (tensor<2x5x3x3xf32>) -> tensor<2x5x3x3xf32>
  func.return %y : tensor<2x5x3x3xf32>
}
