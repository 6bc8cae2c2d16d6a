// A Conv whose weight is an inline `dense` constant: the OHWI weight fuse-mrvl makes is
// a `dense_resource`, and it prints also when the input IR had none (no crash).
// RUN: mrvl-opt %s -p fuse-mrvl | filecheck %s

// CHECK-LABEL: func.func @inline_weight(
// CHECK:         %[[W:[^ ]+]] = graph.constant dense_resource<y.weight_ohwi> : tensor<2x1x1x2xf32>
// CHECK-NEXT:    %{{[^ ]+}} = mrvl.conv2d %{{[^ ]+}}, %[[W]]
func.func @inline_weight(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = graph.constant dense<1.0> : tensor<2x2x1x1xf32>
  %y = graph.Conv %x, %w : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  func.return %y : tensor<1x2x4x4xf32>
}
