// COM: place-ops decides for graph ops only: layers fuse-mrvl already built (here by an
// COM: earlier place-ops,fuse-mrvl) run on MLIP and get no host placement, nor the reason
// COM: "MLIP has no layer for mrvl.fc". The graph op between them is still placed.
// RUN: mrvl-opt %s -p place-ops | filecheck %s

// CHECK-LABEL: func.func @layers(
// CHECK-NEXT:    %[[A:[^ ]+]] = mrvl.fc %x, %w : (tensor<1x4xf32>, tensor<4x4xf32>) -> tensor<1x4xf32>
// CHECK-NEXT:    %[[S:[^ ]+]] = graph.Sigmoid %[[A]] {mrvl.place = "host", mrvl.reasons = ["unsupported: MLIP has no layer for Sigmoid"]}
// CHECK-NEXT:    %[[B:[^ ]+]] = mrvl.maxpool2d %t {kernel_shape = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x4x4x2xf32>) -> tensor<1x2x2x2xf32>
func.func @layers(%x: tensor<1x4xf32>, %w: tensor<4x4xf32>, %t: tensor<1x4x4x2xf32>) -> (tensor<1x4xf32>, tensor<1x2x2x2xf32>) {
  %a = mrvl.fc %x, %w : (tensor<1x4xf32>, tensor<4x4xf32>) -> tensor<1x4xf32>
  %s = graph.Sigmoid %a : (tensor<1x4xf32>) -> tensor<1x4xf32>
  %b = mrvl.maxpool2d %t {kernel_shape = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x4x4x2xf32>) -> tensor<1x2x2x2xf32>
  func.return %s, %b : tensor<1x4xf32>, tensor<1x2x2x2xf32>
}
