// After place-ops, fuse-mrvl fuses exactly the groups placed on MLIP: a match is fused
// when all its ops, and no others, carry one mrvl.group. Without placement attributes it
// fuses every chain the patterns and rules accept.
// RUN: mrvl-opt %s -p fuse-mrvl --split-input-file | filecheck %s

// The whole placed group Conv + Relu is one layer.
// CHECK-LABEL: func.func @group_fused(
// CHECK:         %[[Y:[^ ]+]] = mrvl.conv2d %{{[^ ]+}}, %{{[^ ]+}} {activation = #mrvl<activation relu>
// CHECK-NEXT:    %[[OUT:[^ ]+]] = graph.Transpose %[[Y]]
// CHECK-NEXT:    func.return %[[OUT]]
func.func @group_fused(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = graph.constant dense_resource<w> : tensor<2x2x1x1xf32>
  %c = graph.Conv %x, %w {mrvl.group = 0 : i64, mrvl.pattern = "conv2d", mrvl.place = "mlip"} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %y = graph.Relu %c {mrvl.group = 0 : i64, mrvl.pattern = "conv2d", mrvl.place = "mlip"} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  func.return %y : tensor<1x2x4x4xf32>
}
{-#
  dialect_resources: {
    builtin: {
      w: "0x040000000000803F000000400000404000008040"
    }
  }
#-}

// -----

// COM: The Relu was placed on the host: it is not fused into the conv, which is one
// COM: layer without activation.
// CHECK-LABEL: func.func @host_relu_not_fused(
// CHECK:         %[[C:[^ ]+]] = mrvl.conv2d %{{[^ ]+}}, %{{[^ ]+}} {padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
// CHECK-NEXT:    %[[T:[^ ]+]] = graph.Transpose %[[C]]
// CHECK-NEXT:    %[[Y:[^ ]+]] = graph.Relu %[[T]] {mrvl.place = "host"}
// CHECK-NEXT:    func.return %[[Y]]
func.func @host_relu_not_fused(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = graph.constant dense_resource<w> : tensor<2x2x1x1xf32>
  %c = graph.Conv %x, %w {mrvl.group = 0 : i64, mrvl.pattern = "conv2d", mrvl.place = "mlip"} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %y = graph.Relu %c {mrvl.place = "host"} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  func.return %y : tensor<1x2x4x4xf32>
}
{-#
  dialect_resources: {
    builtin: {
      w: "0x040000000000803F000000400000404000008040"
    }
  }
#-}

// -----

// COM: A Conv placed on the host (by a placement file, say) stays a graph op although
// COM: every rule allows it.
// CHECK-LABEL: func.func @host_conv_not_fused(
// CHECK-NEXT:    %[[W:[^ ]+]] = graph.constant dense_resource<w>
// CHECK-NEXT:    %[[Y:[^ ]+]] = graph.Conv %{{[^ ]+}}, %[[W]] {mrvl.place = "host"}
// CHECK-NEXT:    func.return %[[Y]]
func.func @host_conv_not_fused(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = graph.constant dense_resource<w> : tensor<2x2x1x1xf32>
  %y = graph.Conv %x, %w {mrvl.place = "host"} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  func.return %y : tensor<1x2x4x4xf32>
}
{-#
  dialect_resources: {
    builtin: {
      w: "0x040000000000803F000000400000404000008040"
    }
  }
#-}

// -----

// COM: Two groups, Conv in 0 and Relu in 1: the Relu's group has no pattern of its own
// COM: (Relu alone is no layer), so only the Conv is fused and the Relu is left as is.
// CHECK-LABEL: func.func @split_groups(
// CHECK:         %[[C:[^ ]+]] = mrvl.conv2d %{{[^ ]+}}, %{{[^ ]+}} {padding
// CHECK-NEXT:    %[[T:[^ ]+]] = graph.Transpose %[[C]]
// CHECK-NEXT:    %[[Y:[^ ]+]] = graph.Relu %[[T]] {mrvl.group = 1 : i64
// CHECK-NEXT:    func.return %[[Y]]
func.func @split_groups(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = graph.constant dense_resource<w> : tensor<2x2x1x1xf32>
  %c = graph.Conv %x, %w {mrvl.group = 0 : i64, mrvl.pattern = "conv2d", mrvl.place = "mlip"} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %y = graph.Relu %c {mrvl.group = 1 : i64, mrvl.pattern = "conv2d", mrvl.place = "mlip"} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  func.return %y : tensor<1x2x4x4xf32>
}
{-#
  dialect_resources: {
    builtin: {
      w: "0x040000000000803F000000400000404000008040"
    }
  }
#-}

// -----

// Without placement attributes, Conv + Relu is fused; a grouped Conv (2 groups of 2
// channels, rule conv.groups) is not.
// CHECK-LABEL: func.func @unplaced(
// CHECK:         mrvl.conv2d %{{[^ ]+}}, %{{[^ ]+}} {activation = #mrvl<activation relu>
// CHECK:         graph.Conv %{{[^ ]+}}, %{{[^ ]+}} {group = 2 : i64} : (tensor<1x4x4x4xf32>, tensor<4x2x1x1xf32>) -> tensor<1x4x4x4xf32>
func.func @unplaced(%x: tensor<1x2x4x4xf32>, %z: tensor<1x4x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x4x4x4xf32>) {
  %w = graph.constant dense_resource<w> : tensor<2x2x1x1xf32>
  %c = graph.Conv %x, %w : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %y = graph.Relu %c : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %v = graph.constant dense_resource<v> : tensor<4x2x1x1xf32>
  %g = graph.Conv %z, %v {group = 2 : i64} : (tensor<1x4x4x4xf32>, tensor<4x2x1x1xf32>) -> tensor<1x4x4x4xf32>
  func.return %y, %g : tensor<1x2x4x4xf32>, tensor<1x4x4x4xf32>
}
{-#
  dialect_resources: {
    builtin: {
      w: "0x040000000000803F000000400000404000008040",
      v: "0x040000000000803F0000004000004040000080400000803F000000400000404000008040"
    }
  }
#-}
