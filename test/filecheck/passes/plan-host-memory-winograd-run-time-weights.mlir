// plan-host-memory refuses a conv recorded on the winograd kernel whose weights it cannot
// transform (not a constant with data): one error naming the op, no traceback.
// RUN: not mrvl-opt %s -p plan-host-memory 2>&1 | filecheck %s

// CHECK: {{^}}error: {{.*}}plan-host-memory-winograd-run-time-weights.mlir: {{.*}}cpu.conv{{.*}}: the winograd kernel needs constant weights with data, transformed at compile time: choose its kernel again (select-host-kernels){{$}}
// CHECK-NOT: Traceback
func.func @conv(%x: tensor<1x1x6x6xf32>, %w: tensor<1x1x3x3xf32>) -> tensor<1x1x6x6xf32> attributes {cpu.kernels_selected} {
  %y = cpu.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1 : i64, kernel = #cpu<conv_kernel winograd>} : (tensor<1x1x6x6xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x6x6xf32>
  func.return %y : tensor<1x1x6x6xf32>
}
